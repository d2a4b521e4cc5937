#!/usr/bin/env node
// Bundles the two CodeMirror 6 editors into assets the service serves itself (no CDN), both
// committed: the portal's code editor (scripts/editor/entry.js: JavaScript and Python) into
// src/portal/assets/editor.js, and the console's assessment editor (scripts/editor/content-entry.js:
// YAML with checks as you type) into src/console/assets/content-editor.js.
// Run it after changing an entry or upgrading the CodeMirror packages (devDependencies).
import { build } from 'esbuild';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const BUNDLES = [
  { entry: 'entry.js', out: path.join('src', 'portal', 'assets', 'editor.js') },
  { entry: 'content-entry.js', out: path.join('src', 'console', 'assets', 'content-editor.js') },
];
for (const bundle of BUNDLES) {
  await build({
    entryPoints: [path.join(ROOT, 'scripts', 'editor', bundle.entry)],
    outfile: path.join(ROOT, bundle.out),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    legalComments: 'eof',
    banner: { js: '// CodeMirror 6 (MIT licence), bundled by scripts/build-editor.mjs: do not edit.' },
  });
  console.log(`build-editor: ${bundle.out}`);
}
