// WORKERS: one process per core sharing the port. The primary migrates once and forks; a worker
// that dies is replaced; SIGTERM to the primary drains every worker and exits 0.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { figure, freshPostgresDatabase, startNode, type Node } from './support/server.js';

/** The child processes of pid (ps exits 1 when there are none). */
function workersOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

async function until<T>(what: string, fn: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('WORKERS=2 on one port', () => {
  let database: { url: string; drop(): Promise<void> };
  let node: Node;

  before(async () => {
    database = await freshPostgresDatabase();
    node = await startNode(database.url, { WORKERS: '2', SEED_DEMO: 'true' });
  });
  after(async () => {
    await node.stop('SIGKILL');
    await database.drop();
  });

  it('serves from two worker processes, replaces one that dies, and drains all on SIGTERM', async () => {
    const pid = node.child.pid!;
    const first = await until('two workers', () => (workersOf(pid).length === 2 ? workersOf(pid) : undefined)).catch((error: Error) => {
      throw new Error(
        `${error.message}; ps: ${execFileSync('ps', ['-ef', '--forest'], { encoding: 'utf8' })
          .split('\n')
          .filter((l) => l.includes('server.ts'))
          .join('\n')}\noutput:\n${node.output()}`,
      );
    });
    assert.match(node.output(), /2 workers on port/);
    // Ready means one worker answers; the first worker prints the banner once it listens, which
    // may be a moment after the other one answered.
    await until('the banner', () => (/Assessment Connect is running/.test(node.output()) ? true : undefined));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(node.output().match(/Assessment Connect is running/g)?.length, 1, 'one banner, not one per worker');

    const statuses = await Promise.all(Array.from({ length: 40 }, () => fetch(`${node.url}/healthz`).then((r) => r.status)));
    assert.deepEqual([...new Set(statuses)], [200]);

    process.kill(first[0]!, 'SIGKILL');
    const began = Date.now();
    const replaced = await until('a replacement worker', () => {
      const now = workersOf(pid);
      return now.length === 2 && !now.includes(first[0]!) ? now : undefined;
    });
    figure(`WORKERS=2: a killed worker was replaced in ${Date.now() - began} ms`);
    assert.ok(replaced.includes(first[1]!));
    const after = await Promise.all(Array.from({ length: 20 }, () => fetch(`${node.url}/readyz`).then((r) => r.status)));
    assert.deepEqual([...new Set(after)], [200]);

    const stopped = Date.now();
    const code = await node.stop('SIGTERM');
    figure(`WORKERS=2: SIGTERM to the primary, all exited in ${Date.now() - stopped} ms with code ${code}`);
    assert.equal(code, 0);
    assert.deepEqual(workersOf(pid), []);
  });
});
