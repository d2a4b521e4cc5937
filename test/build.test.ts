// The compiled build, as `npm start` runs it: `node dist/server.js` with plain node (no tsx) on a
// fresh data directory reaches /healthz, serves the assets it reads from disk (portal and console
// scripts, message catalogues, migrations through the embedded store's worker thread, the demo
// catalogue), and the CLI's bin answers from dist/ too. dist/ is rebuilt first when it is missing
// or older than a file of src/ (`npm ci` leaves a fresh one, so CI does not build twice).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, freePort } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST_ENTRY = path.join(ROOT, 'dist', 'server.js');
const START_GUARD_MS = 180_000;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    const stat = statSync(full);
    // (Not the .js that npm test compiles beside each .ts in its copy of the tree.)
    if (entry.endsWith('.js') && existsSync(full.replace(/\.js$/, '.ts'))) continue;
    newest = Math.max(newest, stat.isDirectory() ? newestSource(full) : stat.mtimeMs);
  }
  return newest;
}

describe('the compiled build (dist/)', () => {
  let dataDir: string;
  let port: number;
  let child: ReturnType<typeof spawn>;
  let output = '';
  const url = (p: string) => `http://127.0.0.1:${port}${p}`;

  before(async () => {
    if (!existsSync(DIST_ENTRY) || statSync(DIST_ENTRY).mtimeMs < newestSource(path.join(ROOT, 'src'))) {
      execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
    }
    dataDir = mkdtempSync(path.join(tmpdir(), 'ac-build-'));
    port = await freePort();
    // No NODE_OPTIONS (the test runner's tsx hooks must not help the build).
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_TOKEN,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: undefined,
      NODE_ENV: 'production',
    };
    child = spawn(process.execPath, [DIST_ENTRY], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<never>((_, reject) => child.on('exit', (code) => reject(new Error(`dist/server.js exited with ${code}:\n${output}`))));
    const healthy = (async () => {
      // A guard against a server that never answers, not a measure of its start: on a machine
      // loaded by other suites (a CI run beside three test runs) the first start took over 60 s.
      const deadline = Date.now() + START_GUARD_MS;
      while (Date.now() < deadline) {
        try {
          if ((await fetch(url('/healthz'))).ok) return;
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no /healthz within ${START_GUARD_MS / 1000} s:\n${output}`);
    })();
    await Promise.race([healthy, exited]);
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('node dist/server.js answers /healthz and /readyz', async () => {
    assert.equal((await fetch(url('/healthz'))).status, 200);
    assert.equal((await fetch(url('/readyz'))).status, 200);
  });

  it('serves the files it reads from disk: portal and console assets, the demo catalogue', async () => {
    for (const asset of ['/portal/assets/portal.js', '/portal/assets/portal.css', '/console/assets/console.js', '/console/assets/console.css']) {
      assert.equal((await fetch(url(asset))).status, 200, asset);
    }
    const list = spawnSync(process.execPath, ['bin/assessment-connect.mjs', 'assessment', 'list', '--instance', 'demo', '--json', '--url', url('')], {
      cwd: ROOT,
      env: { ...process.env, ADMIN_TOKEN, NODE_OPTIONS: undefined },
      encoding: 'utf8',
    });
    assert.equal(list.status, 0, list.stderr);
    const assessments: unknown = JSON.parse(list.stdout);
    assert.ok(Array.isArray(assessments) && assessments.length > 0, 'the demo catalogue was seeded from the build');
  });

  it('the CLI bin, as a process, reads a secret from its standard input and exits 2 on a usage mistake', () => {
    const cli = (args: string[], input?: string) =>
      spawnSync(process.execPath, ['bin/assessment-connect.mjs', ...args], { cwd: ROOT, env: { ...process.env, ADMIN_TOKEN, NODE_OPTIONS: undefined }, encoding: 'utf8', input });
    const created = cli(
      ['user', 'create', '--email', 'process.check@example.com', '--role', 'owner', '--password-stdin', '--json', '--url', url('')],
      'a passphrase long enough for the policy 2026\n',
    );
    assert.equal(created.status, 0, created.stderr);
    assert.equal((JSON.parse(created.stdout) as { email: string }).email, 'process.check@example.com');
    const mistaken = cli(['no-such-command']);
    assert.equal(mistaken.status, 2);
    assert.match(mistaken.stderr, /unknown command: no-such-command/);
  });

  it('the CLI bin runs from dist/ with plain node', () => {
    const help = spawnSync(process.execPath, ['bin/assessment-connect.mjs', '--help'], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: undefined }, encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: assessment-connect/);
  });

  it('the prepare step that `npx assessment-connect` runs in its cache leaves the build as it is (the first call took 9-17 s)', () => {
    const before = statSync(path.join(ROOT, 'dist', 'cli', 'bin.js')).mtimeMs;
    const run = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, env: { ...process.env, npm_command: 'exec' }, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, '', 'no build');
    assert.equal(statSync(path.join(ROOT, 'dist', 'cli', 'bin.js')).mtimeMs, before);
  });
});
