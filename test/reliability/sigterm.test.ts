// SIGTERM during load: the node stops accepting connections, finishes what it accepted, answers
// late requests on open keep-alive connections with a complete 503, and exits 0 within 10 s.
// No request that reached it is cut off: every request either got a whole answer or could not
// connect at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freshPostgresDatabase, sampleAssessment } from '../harness.js';
import { startLoad } from './support/load.js';
import { figure, startNode, tenant, type Node } from './support/server.js';

describe('SIGTERM under keep-alive load', () => {
  let database: { url: string; drop(): Promise<void> };
  let node: Node;

  before(async () => {
    database = await freshPostgresDatabase();
    node = await startNode(database.url);
  });
  after(async () => {
    await node?.stop('SIGKILL');
    await database.drop();
  });

  it('drains: whole answers or refused connections, never a cut-off request; exit 0 within 10 s', async () => {
    const { instance, key, assessments } = await tenant(node, 'drain', (id) => sampleAssessment(id));
    // fetch keeps connections alive between requests, as API clients do.
    const load = startLoad(() => node.url, key, instance, assessments, 16, 15_000);
    await new Promise((r) => setTimeout(r, 2000));
    const signalledAt = Date.now();
    node.kill('SIGTERM');
    const code = await node.exited;
    const exitMs = Date.now() - signalledAt;
    await new Promise((r) => setTimeout(r, 200));
    await load.stop();

    const outcomes = load.outcomes;
    const after = outcomes.filter((o) => o.startedAt + o.ms >= signalledAt);
    const whole = outcomes.filter((o) => o.status === 200 || o.status === 503);
    const refused = outcomes.filter((o) => o.status === 0 && /ECONNREFUSED/.test(o.error ?? ''));
    const cut = outcomes.filter((o) => o.status === 0 && !/ECONNREFUSED/.test(o.error ?? ''));
    const late503 = after.filter((o) => o.status === 503);
    figure(
      `SIGTERM: exit code ${code} after ${exitMs} ms; ${outcomes.length} requests: ${whole.length} whole answers (${late503.length} x 503 while draining), ${refused.length} refused to connect, ${cut.length} cut off`,
    );
    assert.equal(code, 0);
    assert.ok(exitMs < 10_000, `exited in ${exitMs} ms`);
    assert.deepEqual(
      cut.slice(0, 5).map((o) => o.error),
      [],
      'no request was cut off',
    );
    assert.ok(
      outcomes.filter((o) => o.status !== 0).every((o) => o.status === 200 || (o.status === 503 && o.problem && o.retryAfter)),
      'answers are 200 or a 503 problem with Retry-After',
    );
  });
});
