#!/usr/bin/env node
// The operator CLI, from the compiled build (dist/, which `npm ci` and `npm run build` write),
// with plain node, like `npm start`.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('assessment-connect: dist/ is missing; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
await import(entry.href);
