#!/usr/bin/env node
// Bundles the portal's code editor (scripts/editor/entry.js: CodeMirror 6 with JavaScript and
// Python) into src/portal/assets/editor.js, which is committed and served by the service (no CDN).
// Run it after changing the entry or upgrading the CodeMirror packages (devDependencies).
import { build } from 'esbuild';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
await build({
  entryPoints: [path.join(ROOT, 'scripts', 'editor', 'entry.js')],
  outfile: path.join(ROOT, 'src', 'portal', 'assets', 'editor.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  legalComments: 'eof',
  banner: { js: '// CodeMirror 6 (MIT licence), bundled by scripts/build-editor.mjs: do not edit.' },
});
console.log('build-editor: src/portal/assets/editor.js');
