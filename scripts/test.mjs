#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner, one process per file,
// two files at a time (the machines have two cores), compiled to JavaScript first
// (scripts/test-build.mjs). Arguments narrow the run to matching paths.
// Says which store kinds the storage suites run on, so that a skipped PostgreSQL run is visible,
// and ends with a line naming every suite that skipped itself and why.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildTestTree, removeTestTree, sourceOf } from './test-build.mjs';

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

if (process.env.REQUIRE_REDIS === '1' && !process.env.TEST_REDIS_URL) {
  console.error('REQUIRE_REDIS=1 but TEST_REDIS_URL is not set');
  process.exit(1);
}
if (process.env.REQUIRE_REPLICA === '1' && !process.env.TEST_REPLICA_URL) {
  console.error('REQUIRE_REPLICA=1 but TEST_REPLICA_URL is not set (scripts/ci-replica.sh makes a replica and prints its URL)');
  process.exit(1);
}
const redis = process.env.TEST_REDIS_URL ? `TEST_REDIS_URL=${process.env.TEST_REDIS_URL}` : 'TEST_REDIS_URL unset: the Redis suites are skipped';
console.log(`# Redis suites: ${redis}${process.env.REQUIRE_REDIS === '1' ? ' (REQUIRE_REDIS=1: a skip is a failure)' : ''}`);

// Suites that skip themselves (no Redis, no browser …) append "suite: reason" here through the
// harness (announceSkip): Node's runner does not count skipped describe blocks in its summary.
const skipDir = mkdtempSync(path.join(tmpdir(), 'ac-skips-'));
const skipLog = path.join(skipDir, 'skipped.txt');
const concurrency = process.env.TEST_CONCURRENCY || '2';
const timings = path.join(skipDir, 'timings.tsv');
const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${path.join(import.meta.dirname, 'test-timing-reporter.mjs')}`,
  `--test-reporter-destination=${timings}`,
];
const child = spawn(process.execPath, ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...buildTestTree(files)], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test', TEST_SKIP_LOG: skipLog },
});
child.on('exit', (code, signal) => {
  // The slowest files, to see where the suite's time goes (each file's time as the runner measured it).
  if (existsSync(timings)) {
    const slowest = readFileSync(timings, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t'))
      .sort((a, b) => Number(b[0]) - Number(a[0]))
      .slice(0, 12);
    console.log(`# slowest files: ${slowest.map(([seconds, file]) => `${sourceOf(file)} ${seconds} s`).join('; ')}`);
  }
  const skipped = existsSync(skipLog) ? [...new Set(readFileSync(skipLog, 'utf8').split('\n').filter(Boolean))] : [];
  rmSync(skipDir, { recursive: true, force: true });
  removeTestTree();
  console.log(skipped.length === 0 ? '# suites skipped: none' : `# suites skipped (${skipped.length}): ${skipped.join('; ')}`);
  process.exit(code ?? (signal ? 1 : 0));
});
