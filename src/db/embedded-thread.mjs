// The embedded store's worker thread starts here. In the compiled build (dist/) the worker's
// JavaScript is beside this file. In src/ (the tests, a developer's `node --import tsx`) the
// worker's TypeScript is compiled by esbuild, the compiler tsx itself uses, into
// node_modules/.cache once per content of the file: a worker does not inherit the hooks its
// parent registered, and registering tsx's in every thread cost 0.5 s of each store's opening.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

if (existsSync(new URL('./embedded-worker.js', import.meta.url))) {
  await import('./embedded-worker.js');
} else {
  const entry = new URL('./embedded-worker.ts', import.meta.url);
  const source = readFileSync(entry, 'utf8');
  // Named by the source and the compiler's version: either changed compiles again.
  const compiler = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('esbuild/package.json'), 'utf8')).version;
  const cache = new URL('../../node_modules/.cache/assessment-connect/', import.meta.url);
  const compiled = new URL(`embedded-worker-${createHash('sha256').update(`${compiler}\0${source}`).digest('hex').slice(0, 16)}.mjs`, cache);
  if (!existsSync(compiled)) {
    const { transformSync } = await import('esbuild');
    const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: fileURLToPath(entry) });
    // The worker imports packages only: a relative import would not resolve from the cache.
    if (/\bfrom\s*['"]\.{1,2}\//.test(code)) throw new Error('embedded-worker.ts imports a file of its own: it must import packages only');
    mkdirSync(cache, { recursive: true });
    const partial = new URL(`${compiled.href}.${process.pid}-${randomBytes(4).toString('hex')}`);
    writeFileSync(partial, code);
    renameSync(partial, compiled);
  }
  await import(compiled.href);
}
