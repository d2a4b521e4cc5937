// SIGTERM during a burst of new connections, to `npm start` run as a process group (as systemd or a
// terminal's Ctrl-C signal it: npm and node both get the signal). Every request whose connection
// was made before the signal, and every one made while the node waits SHUTDOWN_DELAY_MS before
// closing its listener, gets a whole answer: none is reset. /readyz says 503 from the signal on,
// so that a load balancer stops sending, and the group exits 0.
// Keep-alive load (sigterm.test.ts) cannot show this: there the connections exist already, here
// they sit in the kernel's accept queue when the signal comes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { freshPostgresDatabase, sampleAssessment } from '../harness.js';
import { figure, startNode, tenant, type Node } from './support/server.js';

const BURST = 40;
const SIGNAL_AFTER_MS = 30;
// Long enough for the connections made during it to be taken on a loaded 2-core machine.
const SHUTDOWN_DELAY_MS = 2000;

interface Outcome {
  status: number; // 0: no HTTP answer, see error
  error?: string;
  connection?: string;
}

/** One request on a connection of its own (no keep-alive agent): the kernel queues the connection
 *  until node accepts it. */
function fresh(port: number, method: string, pathname: string, headers: Record<string, string>, body?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: pathname, headers, agent: false, timeout: 15_000 }, (response) => {
      response.on('data', () => {});
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code ?? error.message }));
    });
    request.on('timeout', () => request.destroy(new Error('client timeout')));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: 0, error: error.code ?? error.message }));
    request.end(body);
  });
}

function burst(port: number, count: number, key: string, instance: string, assessments: string[]): Promise<Outcome>[] {
  return Array.from({ length: count }, () => {
    const body = JSON.stringify({ email: `burst-${randomUUID()}@example.com`, firstName: 'Burst', lastName: 'Test', assessments });
    return fresh(port, 'POST', '/v1/invite', { 'x-api-key': key, instance, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body);
  });
}

const reset = (o: Outcome) => o.status === 0 && o.error !== 'ECONNREFUSED';

interface Round {
  before: Outcome[];
  during: Outcome[];
  readyz: Outcome;
  code: number | string;
}

async function round(databaseUrl: string, env: Record<string, string>, setup: (node: Node) => Promise<{ key: string; instance: string; assessments: string[] }>): Promise<Round> {
  const node = await startNode(databaseUrl, { SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS), ...env }, { npm: true });
  try {
    const { key, instance, assessments } = await setup(node);
    const sent = burst(node.port, BURST, key, instance, assessments);
    await new Promise((r) => setTimeout(r, SIGNAL_AFTER_MS));
    node.kill('SIGTERM');
    // While the listener stays open: the probe turns 503, new connections are still answered. Sent
    // together: under load the probe's answer may take a while.
    await new Promise((r) => setTimeout(r, 100));
    const [readyz, ...during] = await Promise.all([fresh(node.port, 'GET', '/readyz', {}), ...burst(node.port, 10, key, instance, assessments)]);
    const before = await Promise.all(sent);
    const code = await node.exited;
    return { before, during, readyz, code };
  } finally {
    await node.stop('SIGKILL');
  }
}

function summary(outcomes: Outcome[]): string {
  const counts = new Map<string, number>();
  for (const o of outcomes) {
    const key = o.status ? String(o.status) : (o.error ?? 'no answer');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${n} x ${k}`).join(', ');
}

for (const [title, env, runs] of [
  ['one process', {}, 10],
  ['WORKERS=2', { WORKERS: '2' }, 4],
] as const) {
  describe(`SIGTERM to the npm start process group during a burst of new connections (${title})`, () => {
    let database: { url: string; drop(): Promise<void> };
    let tenantOf: { key: string; instance: string; assessments: string[] } | undefined;

    before(async () => {
      database = await freshPostgresDatabase();
    });
    after(async () => {
      await database.drop();
    });

    it(`answers every request of a ${BURST}-connection burst sent ${SIGNAL_AFTER_MS} ms before the signal, in ${runs} runs`, async () => {
      const rounds: Round[] = [];
      for (let i = 0; i < runs; i++) {
        rounds.push(
          await round(database.url, env, async (node) => {
            tenantOf ??= await tenant(node, 'burst', (id) => sampleAssessment(id));
            return tenantOf;
          }),
        );
      }
      const before = rounds.flatMap((r) => r.before);
      const during = rounds.flatMap((r) => r.during);
      const resets = rounds.map((r) => r.before.filter(reset).length);
      figure(
        `drain burst (${title}): ${runs} runs of ${BURST} fresh connections, SIGTERM to the npm group ${SIGNAL_AFTER_MS} ms later: resets per run [${resets.join(', ')}]; answers ${summary(before)}; ` +
          `10 more connections 100 ms after the signal: ${summary(during)}; /readyz then: ${[...new Set(rounds.map((r) => r.readyz.status || r.readyz.error))].join('/')}; exit ${[...new Set(rounds.map((r) => r.code))].join('/')}`,
      );
      assert.deepEqual(resets, Array(runs).fill(0), 'no connection of the burst was reset');
      assert.deepEqual(
        before.filter((o) => o.status !== 200),
        [],
        'every request of the burst was answered 200',
      );
      assert.deepEqual(
        during.filter((o) => o.status !== 200),
        [],
        'connections made during SHUTDOWN_DELAY_MS were answered 200',
      );
      assert.ok(
        during.every((o) => o.connection === 'close'),
        'answers while leaving say Connection: close',
      );
      assert.deepEqual(
        rounds.map((r) => r.readyz.status),
        Array(runs).fill(503),
        '/readyz says 503 once the signal came',
      );
      assert.deepEqual(
        rounds.map((r) => r.code),
        Array(runs).fill(0),
        'npm start exits 0',
      );
    });
  });
}
