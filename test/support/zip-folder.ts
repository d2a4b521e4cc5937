import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';

/** A fixture folder as the zip a tool would have written (its README.md and LICENSE aside). */
export function zipFolder(dir: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = path.join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f !== 'README.md' && f !== 'LICENSE') files[path.relative(dir, p).split(path.sep).join('/')] = readFileSync(p);
    }
  };
  walk(dir);
  return zipSync(files);
}
