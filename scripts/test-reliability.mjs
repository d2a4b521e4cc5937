#!/usr/bin/env node
// `npm run test:reliability`: the suites under test/reliability/ that start real server processes
// against real PostgreSQL (and Redis), break things on purpose and print a figure for each claim.
// One file at a time: they load the machine and stop and start databases. Arguments narrow the
// run to files whose path contains one of them. Needs TEST_DATABASE_URL (a PostgreSQL server the
// suites may create databases on); without it the run fails, it does not skip.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const dir = 'test/reliability';
const filters = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => path.join(dir, f))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no reliability test files match');
  process.exit(1);
}
if (!process.env.TEST_DATABASE_URL) {
  console.error('test:reliability needs TEST_DATABASE_URL, e.g. postgres://postgres@127.0.0.1:5432/postgres');
  process.exit(1);
}

const began = Date.now();
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, NODE_ENV: 'test' },
});
const figures = [];
let buffer = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    const at = line.indexOf('FIGURE ');
    if (at >= 0) figures.push(line.slice(at + 'FIGURE '.length));
  }
});
child.on('exit', (code, signal) => {
  console.log(`\n== reliability figures (${Math.round((Date.now() - began) / 1000)} s)`);
  for (const figure of figures) console.log(`  ${figure}`);
  process.exit(code ?? (signal ? 1 : 0));
});
