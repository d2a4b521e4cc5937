#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner, one process per file,
// two files at a time (the machines have two cores). Arguments narrow the run to matching paths.
// Says which store kinds the storage suites run on, so that a skipped PostgreSQL run is visible.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function find(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    // test/reliability/ starts real processes and breaks databases: `npm run test:reliability`.
    if (statSync(full).isDirectory()) {
      if (full !== path.join('test', 'reliability')) out.push(...find(full));
    } else if (entry.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = ['src', 'test', 'clients']
  .flatMap((dir) => find(dir))
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error('no test files match');
  process.exit(1);
}

const stores = process.env.TEST_DATABASE_URL ? 'embedded PGlite and PostgreSQL (TEST_DATABASE_URL)' : 'embedded PGlite only (set TEST_DATABASE_URL to add PostgreSQL)';
console.log(`# storage suites run on: ${stores}`);
if (process.env.REQUIRE_POSTGRES === '1' && !process.env.TEST_DATABASE_URL) {
  console.error('REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set');
  process.exit(1);
}

const concurrency = process.env.TEST_CONCURRENCY || '2';
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
