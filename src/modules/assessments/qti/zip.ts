// Zip files of QTI packages, read within limits: the package's size, the number of entries, their
// total uncompressed size (as declared, and never more: fflate inflates each entry into a buffer of
// its declared size), and names that stay inside the package (no "..", no absolute paths).
import { posix } from 'node:path';
import { unzipSync, zipSync } from 'fflate';
import { PackageError } from './xml.js';

export const MAX_PACKAGE_BYTES = 10 * 1024 * 1024;
export const MAX_UNCOMPRESSED_BYTES = 50 * 1024 * 1024;
export const MAX_ENTRIES = 1000;

const PACKAGE = '(package)';

/** A path inside the package, normalised; refused when it would leave the package. */
export function safePath(name: string, file = PACKAGE): string {
  const refuse = () => new PackageError(file, `names the path "${name.slice(0, 200)}", which leaves the package: refused`);
  // eslint-disable-next-line no-control-regex -- control characters are refused in names
  if (name === '' || name.includes('\\') || name.startsWith('/') || /^[A-Za-z]:/.test(name) || /[\u0000-\u001f]/.test(name)) throw refuse();
  const normal = posix.normalize(name);
  if (normal === '..' || normal.startsWith('../') || normal.startsWith('/')) throw refuse();
  return normal.replace(/^\.\//, '');
}

/** The files of a zip (directories left out), by normalised path; refused past any limit. */
export function readZip(
  bytes: Uint8Array,
  limits: { packageBytes: number; uncompressedBytes: number; what: string } = {
    packageBytes: MAX_PACKAGE_BYTES,
    uncompressedBytes: MAX_UNCOMPRESSED_BYTES,
    what: 'a QTI package is a zip with imsmanifest.xml',
  },
): Map<string, Uint8Array> {
  const { packageBytes: MAX_PACKAGE_BYTES, uncompressedBytes: MAX_UNCOMPRESSED_BYTES } = limits;
  if (bytes.length > MAX_PACKAGE_BYTES) {
    throw new PackageError(PACKAGE, `is ${(bytes.length / 1024 / 1024).toFixed(1)} MB; a package may be at most ${MAX_PACKAGE_BYTES / 1024 / 1024} MB`);
  }
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) throw new PackageError(PACKAGE, `is not a zip file (${limits.what})`);
  // First pass: the directory only, nothing inflated.
  const entries: { name: string; size: number }[] = [];
  try {
    unzipSync(bytes, {
      filter: (file) => {
        entries.push({ name: file.name, size: file.originalSize });
        return false;
      },
    });
  } catch (error) {
    throw new PackageError(PACKAGE, `is not a readable zip file: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (entries.length > MAX_ENTRIES) throw new PackageError(PACKAGE, `has ${entries.length} entries; a package may have at most ${MAX_ENTRIES}`);
  const total = entries.reduce((sum, e) => sum + e.size, 0);
  if (total > MAX_UNCOMPRESSED_BYTES) {
    throw new PackageError(PACKAGE, `unpacks to ${(total / 1024 / 1024).toFixed(1)} MB; a package may unpack to at most ${MAX_UNCOMPRESSED_BYTES / 1024 / 1024} MB (a zip bomb?)`);
  }
  for (const entry of entries) safePath(entry.name);
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: (file) => !file.name.endsWith('/') });
  } catch (error) {
    throw new PackageError(PACKAGE, `is not a readable zip file: ${error instanceof Error ? error.message : String(error)}`);
  }
  const out = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(files)) out.set(safePath(name), data);
  return out;
}

/** A zip of the files, by path; a fixed date, so that the same content makes the same bytes. */
export function writeZip(files: Map<string, string | Uint8Array>): Uint8Array {
  const entries: Record<string, [Uint8Array, { mtime: Date }]> = {};
  const mtime = new Date(Date.UTC(2020, 0, 1));
  for (const [name, data] of files) entries[name] = [typeof data === 'string' ? Buffer.from(data, 'utf8') : data, { mtime }];
  return zipSync(entries, { level: 6 });
}
