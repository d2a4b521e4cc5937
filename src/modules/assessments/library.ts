// The assessment library: the ready assessments of catalogue/ (docs/library.md) that an instance
// may offer. Reading it is pure; offering one publishes it into the instance as any import does,
// so a candidate who has started keeps the version they started.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Queryable } from '../../db/database.js';
import { parseAssessment } from './content.js';
import { questionCount, type AssessmentContent } from './content-schema.js';
import { givenMediaNames } from './media-store.js';
import { currentHashes } from './repository.js';

/** catalogue/ at the package root, from src/modules/assessments or dist/modules/assessments. */
export const LIBRARY_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'catalogue');

export interface LibraryEntry {
  id: string;
  name: string;
  description: string;
  roles: string[];
  readingLevel: string | null;
  durationMinutes: number;
  questionCount: number;
  typingTest: boolean;
  content: AssessmentContent;
  /**
   * The media files the content names, by their path from catalogue/ (catalogue/media/<id>/…),
   * published with it as a folder's are (docs/media.md).
   */
  files: ReadonlyMap<string, Uint8Array>;
  /**
   * What an instance's current version records when it offers this entry: the content's hash, and
   * with media files the hash of the content and of each file's bytes as they lie in catalogue/.
   */
  hash: string;
}

/** The library's files, in name order. */
export function libraryFiles(dir = LIBRARY_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => /\.(ya?ml|json)$/.test(file))
    .sort()
    .map((file) => path.join(dir, file));
}

/** Every library assessment, parsed and checked; a broken file throws with its errors. */
export function readLibrary(dir = LIBRARY_DIR): LibraryEntry[] {
  return libraryFiles(dir).map(readLibraryFile);
}

/** One library file with the media files it names beside it; a broken file, or one missing, throws. */
export function readLibraryFile(file: string): LibraryEntry {
  const parsed = parseAssessment(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file}:\n${parsed.errors.map((e) => `  line ${e.line ?? '?'}: ${e.path} ${e.message}`).join('\n')}`);
  const { content } = parsed;
  const files = new Map<string, Uint8Array>();
  for (const name of givenMediaNames(content)) {
    const at = path.join(path.dirname(file), name);
    if (!existsSync(at)) throw new Error(`${file}: names the media file ${name}, which is not in ${path.dirname(file)}`);
    files.set(name, readFileSync(at));
  }
  const hash =
    files.size === 0
      ? parsed.hash
      : createHash('sha256')
          .update([parsed.hash, ...[...files].map(([name, bytes]) => `${name} ${createHash('sha256').update(bytes).digest('hex')}`)].join('\n'))
          .digest('hex');
  return {
    id: content.id,
    name: content.name,
    description: content.description,
    roles: content.roles ?? [],
    readingLevel: content.readingLevel ?? null,
    durationMinutes: content.durationMinutes,
    questionCount: questionCount(content),
    typingTest: content.typingTest !== undefined,
    content,
    files,
    hash,
  };
}

/**
 * Whether an instance offers a library assessment: `current` when its current version is the
 * library's content, `other` when it has an assessment of that id with other content (an older
 * library version, or its own), `no` when it has none.
 */
export type Offered = 'current' | 'other' | 'no';

export async function offeredIn(db: Queryable, instanceId: string, entries: readonly LibraryEntry[]): Promise<Map<string, Offered>> {
  const hashes = await currentHashes(db, instanceId);
  return new Map(entries.map((e) => [e.id, !hashes.has(e.id) ? 'no' : hashes.get(e.id) === e.hash ? 'current' : 'other']));
}

export interface OfferResult {
  id: string;
  version: number | null;
  /**
   * created: now offered; updated: a new version replaced other content (only with `update`);
   * unchanged: already offered as in the library; kept: the instance has other content under this
   * id, left as it was (offer again with `update` to replace it).
   */
  outcome: 'created' | 'updated' | 'unchanged' | 'kept';
}
