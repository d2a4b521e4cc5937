// The tree `npm test` runs: the project's TypeScript compiled by esbuild (tsx's own compiler, with
// the same settings as tsx) into a mirror of the project, every other file linked into it where
// it is. Test processes then run plain JavaScript: with tsx's hooks, which Node 20 runs on a
// thread of their own and asks for every module, a test process spent about 1.5 s more CPU
// loading the app (3.3 s against 1.8 s), in each of the suite's hundred-odd files.
// The mirror is in node_modules/.cache, out of every tool's way: one per run, removed at its end.
import { buildSync } from 'esbuild';
import { linkSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'assessment-connect');
/** This run's copy: one per run, so that two runs at once in one checkout keep out of each other's way. */
export const MIRROR = path.join(CACHE, `test-tree-${process.pid}`);
/**
 * Linked whole, not mirrored: the packages, git's data (tests ask git what is tracked), the build,
 * and where the browser tests leave their screenshots (made here first, so that they land in it).
 */
const LINKED = new Set(['node_modules', '.git', 'dist', 'artifacts']);
const SKIPPED = new Set(['dist.next']);

/** Makes the mirror; returns the compiled path of each given test file. */
export function buildTestTree(files) {
  const began = Date.now();
  removeLeftovers();
  mkdirSync(path.join(ROOT, 'artifacts'), { recursive: true });
  const sources = [];
  const walk = (dir) => {
    mkdirSync(path.join(MIRROR, path.relative(ROOT, dir)), { recursive: true });
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const mirrored = path.join(MIRROR, path.relative(ROOT, full));
      if (dir === ROOT && SKIPPED.has(entry.name)) continue;
      if (dir === ROOT && LINKED.has(entry.name)) symlinkSync(full, mirrored);
      else if (entry.isDirectory()) walk(full);
      else {
        // Every file is there, TypeScript too (some tests read the sources); a .ts beside its
        // compiled .js is what an import of `./x.js` finds first. Hard links, not symbolic ones:
        // a module's location (import.meta.url) is then the mirror's, as are the paths the
        // coding sandbox's permission model allows.
        linkSync(full, mirrored);
        if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) sources.push(full);
      }
    }
  };
  walk(ROOT);
  buildSync({
    entryPoints: sources,
    outdir: MIRROR,
    outbase: ROOT,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Stack traces name the files under src/ and test/ (node --enable-source-maps).
    sourcemap: 'inline',
    logLevel: 'error',
  });
  console.log(`# test tree: ${sources.length} TypeScript files compiled in ${((Date.now() - began) / 1000).toFixed(1)} s (${path.relative(ROOT, MIRROR)})`);
  return files.map((file) => path.join(MIRROR, file.replace(/\.ts$/, '.js')));
}

/** Removes this run's copy (when the run ends). */
export function removeTestTree() {
  rmSync(MIRROR, { recursive: true, force: true });
}

/** Copies of runs whose process is gone (killed before it could remove its own). */
function removeLeftovers() {
  let entries = [];
  try {
    entries = readdirSync(CACHE);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = Number(/^test-tree-(\d+)$/.exec(entry)?.[1]);
    if (!pid) continue;
    if (pid === process.pid || !running(pid)) rmSync(path.join(CACHE, entry), { recursive: true, force: true });
  }
}

function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The project's own path of a compiled test file (test/x.test.ts for …/test-tree-<pid>/test/x.test.js). */
export function sourceOf(compiled) {
  const relative = path.relative(MIRROR, compiled);
  return relative.startsWith('..') ? path.relative(ROOT, compiled) : relative.replace(/\.js$/, '.ts');
}
