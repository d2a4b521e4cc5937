// One process per DATA_DIR, with real server processes on one temporary data directory: a second
// start is refused at once, naming the directory, and leaves the store alone; the first is killed
// (SIGKILL) while writes are in flight; the next start opens the store with every acknowledged
// write in it. (Before the lock, the second start opened the store under the first, and after the
// first's SIGKILL no start opened it again: `RuntimeError: Aborted()`.)
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from './harness.js';
import { runnable } from './support/runnable.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TOKEN = 'data-dir-lock-admin-token-0123456789';

interface Server {
  child: ChildProcess;
  url: string;
  output(): string;
  exited: Promise<number | string>;
}

function spawnServer(dataDir: string, port: number): Server {
  const server = runnable(path.join(ROOT, 'src', 'server.ts'));
  const child = spawn(process.execPath, [...server.loader, server.file], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: '', ADMIN_TOKEN: TOKEN, SEED_DEMO: 'false', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

async function startServer(dataDir: string): Promise<Server> {
  const server = spawnServer(dataDir, await freePort());
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`the server exited:\n${server.output()}`);
    try {
      if ((await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(1000) })).status === 200) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`not ready within 60 s:\n${server.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const createInstance = (server: Server, name: string) =>
  fetch(`${server.url}/admin/v1/instances`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) });

describe('one process per DATA_DIR (the embedded store)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ac-lock-'));
  const running: Server[] = [];
  after(async () => {
    for (const server of running) if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await Promise.all(running.map((s) => s.exited));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a second start at once, and the first one’s data survive its SIGKILL with writes in flight', async () => {
    const first = await startServer(dataDir);
    running.push(first);
    assert.equal((await createInstance(first, 'before-second')).status, 201);

    // The second start, on the same directory (and a port of its own, so that only the directory
    // can stop it): refused, non-zero, naming the directory and what to do, before it opens the store.
    const second = spawnServer(dataDir, await freePort());
    running.push(second);
    const code = await Promise.race([second.exited, new Promise((r) => setTimeout(() => r('still running after 20 s'), 20_000).unref())]);
    assert.equal(code, 1, second.output());
    assert.match(second.output(), new RegExp(`the data directory ${dataDir.replace(/[/.]/g, '\\$&')} is in use by another process \\(pid ${first.child.pid}\\)`));
    assert.match(second.output(), /Stop that process first, or start this one with another DATA_DIR/);
    assert.doesNotMatch(second.output(), /Aborted|at .*\.js:\d+/, 'one line, no stack trace');
    assert.equal(readFileSync(path.join(dataDir, 'store.lock'), 'utf8'), `${first.child.pid}\n`, 'the lock still names the first process');

    // The first still serves, and is killed while 60 writes are on their way.
    assert.equal((await createInstance(first, 'after-second')).status, 201);
    const acknowledged: string[] = [];
    const writes = Array.from({ length: 60 }, (_, i) =>
      createInstance(first, `in-flight-${i}`).then(
        (r) => {
          if (r.status === 201) acknowledged.push(`in-flight-${i}`);
          return r.status;
        },
        () => 0,
      ),
    );
    await new Promise((r) => setTimeout(r, 150));
    first.child.kill('SIGKILL');
    const statuses = await Promise.all(writes);
    assert.ok(
      statuses.every((s) => s === 201 || s === 0),
      `each write acknowledged or cut off: ${[...new Set(statuses)]}`,
    );
    assert.equal(await first.exited, 'SIGKILL');

    // The lock died with the process: the next start opens the store, with every acknowledged write.
    const third = await startServer(dataDir);
    running.push(third);
    const listed = await fetch(`${third.url}/admin/v1/instances`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(listed.status, 200);
    const names = new Set(((await listed.json()) as { name: string }[]).map((i) => i.name));
    for (const name of ['before-second', 'after-second', ...acknowledged]) assert.ok(names.has(name), `${name} is in the store after the crash`);
    assert.equal((await createInstance(third, 'after-crash')).status, 201, 'and takes writes');
    process.stdout.write(`# data-dir lock: ${acknowledged.length} of 60 in-flight writes acknowledged before the SIGKILL, all found after the restart\n`);
  });
});
