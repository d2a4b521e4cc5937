#!/usr/bin/env node
// The compiled build (`npm run build`, and `prepare`, so `npm ci` leaves it): src/ compiled by
// tsc (tsconfig.build.json) into dist/, and every file of src/ that is not TypeScript (SQL
// migrations, the embedded store's thread entry, the portal's and console's scripts and
// stylesheets, message catalogues) copied beside it, so that the code finds them where it does
// in src/. Files outside src/ (catalogue/, templates/) are found from the package root either way.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');
// Built beside dist/ and then put in its place, so that a node starting meanwhile finds the
// previous build whole rather than half a new one.
const NEXT = path.join(ROOT, 'dist.next');

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build: typescript is not installed (it is a devDependency: run `npm ci`, then `npm prune --omit=dev` if wanted)');
  process.exit(1);
}

// `npx assessment-connect` in this directory installs the directory into npm's exec cache to link
// its command, and runs this `prepare` there: the build that `npm ci` made is already here, and
// building it again made the first call after `npm ci` take 9-17 s.
if (process.env.npm_command === 'exec' && existsSync(path.join(DIST, 'cli', 'bin.js'))) process.exit(0);

const began = Date.now();
rmSync(NEXT, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', NEXT], { cwd: ROOT, stdio: 'inherit' });

let assets = 0;
const copyAssets = (dir) => {
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) copyAssets(full);
    else if (!entry.endsWith('.ts')) {
      cpSync(full, path.join(NEXT, path.relative(SRC, full)));
      assets++;
    }
  }
};
copyAssets(SRC);
rmSync(DIST, { recursive: true, force: true });
renameSync(NEXT, DIST);
console.log(`build: dist/ compiled from src/ with ${assets} assets copied, in ${((Date.now() - began) / 1000).toFixed(1)} s`);
