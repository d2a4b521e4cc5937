// How a test runs a module of the project in a process of its own: under `npm test`, the
// JavaScript compiled beside it (scripts/test-build.mjs) with plain node; run straight from the
// sources (`node --import tsx --test …`), the TypeScript through tsx.
import { existsSync } from 'node:fs';

/** The file to run or import, and the node arguments that must come before it. */
export function runnable(typescriptFile: string): { file: string; loader: string[] } {
  const compiled = typescriptFile.replace(/\.ts$/, '.js');
  return existsSync(compiled) ? { file: compiled, loader: [] } : { file: typescriptFile, loader: ['--import', 'tsx'] };
}
