// PostgreSQL goes away for 10 s in the middle of a steady load, and comes back. Every request is
// answered within 2 s, only with 200 or 503 (a problem with Retry-After), the node serves again
// by itself, and every invite that was answered 200 is in the database whole. Then it goes away
// and comes back twelve times in a row, and the node stays up through all of it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sampleAssessment } from '../harness.js';
import { privateCluster, type Cluster } from './support/cluster.js';
import { percentile, startLoad } from './support/load.js';
import { figure, startNode, tenant, type Node } from './support/server.js';

const OUTAGE_MS = 10_000;

describe('PostgreSQL stopped under load', () => {
  let cluster: Cluster;
  let node: Node;

  before(async () => {
    cluster = await privateCluster();
    node = await startNode(cluster.url);
  });
  after(async () => {
    await node?.stop('SIGKILL');
    cluster?.destroy();
  });

  it('answers every request within 2 s with 200 or 503, recovers by itself, and loses no answered invite', async () => {
    const { instance, key, assessments } = await tenant(node, 'outage', (id) => sampleAssessment(id));
    const load = startLoad(() => node.url, key, instance, assessments);
    await new Promise((r) => setTimeout(r, 3000));
    const stoppedAt = Date.now();
    cluster.stop();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    cluster.start();
    const restartedAt = Date.now();
    // Keep loading until the node has served a 200 again, and a little more.
    let recoveredAt = 0;
    while (!recoveredAt && Date.now() - restartedAt < 15_000) {
      recoveredAt = load.outcomes.find((o) => o.status === 200 && o.startedAt >= restartedAt)?.startedAt ?? 0;
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 2000));
    await load.stop();

    const outcomes = load.outcomes;
    const during = outcomes.filter((o) => o.startedAt >= stoppedAt && o.startedAt < restartedAt);
    const unavailable = outcomes.filter((o) => o.status === 503);
    const failed = outcomes.filter((o) => o.status !== 200 && o.status !== 503);
    const max = Math.max(...outcomes.map((o) => o.ms));
    figure(
      `outage: ${outcomes.length} requests (${during.length} while PostgreSQL was down): ${outcomes.length - unavailable.length - failed.length} x 200, ${unavailable.length} x 503, ${failed.length} other`,
    );
    figure(
      `outage: latency p50 ${percentile(
        outcomes.map((o) => o.ms),
        50,
      )} ms, p99 ${percentile(
        outcomes.map((o) => o.ms),
        99,
      )} ms, max ${max} ms; during the outage max ${Math.max(0, ...during.map((o) => o.ms))} ms`,
    );
    figure(`outage: first 200 after restart ${recoveredAt ? recoveredAt - restartedAt : 'never'} ms after PostgreSQL was started again (no node restart)`);

    assert.deepEqual(failed.slice(0, 5), [], 'only 200 and 503');
    assert.ok(during.length > 0 && unavailable.length > 0, 'requests were made and refused during the outage');
    assert.ok(
      unavailable.every((o) => o.problem && o.retryAfter && /^\d+$/.test(o.retryAfter)),
      '503s are problems with Retry-After',
    );
    assert.ok(max <= 2000, `every request answered within 2 s (max ${max} ms)`);
    assert.ok(recoveredAt > 0, 'the node served again after PostgreSQL came back');

    // The outage is in the log as its beginning and its end, not as a line per refused request.
    const lines = node
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    const said = (msg: string) => lines.filter((line) => (JSON.parse(line) as { msg?: string }).msg === msg).length;
    const downs = said('database unreachable: requests are answered 503 until it is back');
    const ups = said('database reachable again');
    const perRequest = said('database unavailable');
    figure(
      `outage: the log says ${downs} x "database unreachable", ${ups} x "database reachable again", ${perRequest} x "database unavailable" for ${unavailable.length} requests answered 503 (LOG_LEVEL=warn)`,
    );
    assert.ok(downs >= 1 && ups === downs, 'each outage logged begins and ends');
    assert.ok(perRequest < unavailable.length / 10, 'no line per request that failed fast');

    const answered = outcomes.filter((o) => o.kind === 'invite' && o.status === 200);
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ email: string; invitations: string; links: string }>(
        `SELECT c.email, (SELECT count(*) FROM invitations i WHERE i.candidate_id = c.id) AS invitations,
                (SELECT count(*) FROM invite_links l WHERE l.candidate_id = c.id) AS links
           FROM candidates c WHERE c.id = ANY($1::uuid[])`,
        [answered.map((o) => o.candidateId)],
      );
      const byEmail = new Map(rows.map((r) => [r.email, r]));
      const missing = answered.filter((o) => !byEmail.has(o.email!));
      const partial = rows.filter((r) => r.invitations !== '2' || r.links !== '1');
      figure(`outage: ${answered.length} invites answered 200, ${missing.length} missing, ${partial.length} partial in the database`);
      assert.deepEqual(
        missing.map((o) => o.email),
        [],
      );
      assert.deepEqual(partial, []);
      const { rows: orphans } = await client.query(`SELECT c.id FROM candidates c WHERE NOT EXISTS (SELECT 1 FROM invitations i WHERE i.candidate_id = c.id)`);
      assert.deepEqual(orphans, [], 'no candidate without invitations (no half-written invite)');
    } finally {
      await client.end();
    }
  });

  // A server shutting down and coming back again and again: the node must come back after every
  // outage, not only the first (the breaker, the pool and the background jobs start from whatever
  // state the last outage left), and each stop cuts connections at every stage of their life, a
  // dozen chances at a race the long stop above has once. One (a connection's FATAL error in the
  // same packet as its completion) once closed the node; that one is pinned deterministically in
  // src/db/breaker.test.ts, as this scenario met it in about one stop of 50.
  it('stays up and answers only 200 or 503 while PostgreSQL is stopped and started 12 times in a row', async () => {
    let exited: number | string | undefined;
    void node.exited.then((code) => (exited = code));
    const { instance, key, assessments } = await tenant(node, 'flapping', (id) => sampleAssessment(id));
    const load = startLoad(() => node.url, key, instance, assessments);
    const cycles = 12;
    for (let i = 0; i < cycles && exited === undefined; i++) {
      await new Promise((r) => setTimeout(r, 600 + Math.random() * 800));
      cluster.stop();
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 600));
      cluster.start();
    }
    const restartedAt = Date.now();
    let recoveredAt = 0;
    while (exited === undefined && !recoveredAt && Date.now() - restartedAt < 15_000) {
      recoveredAt = load.outcomes.find((o) => o.status === 200 && o.startedAt >= restartedAt)?.startedAt ?? 0;
      await new Promise((r) => setTimeout(r, 50));
    }
    await load.stop();
    const outcomes = load.outcomes;
    const unavailable = outcomes.filter((o) => o.status === 503).length;
    const failed = outcomes.filter((o) => o.status !== 200 && o.status !== 503);
    figure(
      `outage, ${cycles} stops and starts: ${outcomes.length} requests, ${outcomes.length - unavailable - failed.length} x 200, ${unavailable} x 503, ${failed.length} other; node ${exited === undefined ? 'up throughout' : `exited (${exited})`}; first 200 after the last start ${recoveredAt ? `${recoveredAt - restartedAt} ms` : 'never'}`,
    );
    assert.equal(exited, undefined, `the node kept running; its last output:\n${node.output().slice(-4000)}`);
    assert.deepEqual(failed.slice(0, 5), [], 'only 200 and 503');
    assert.ok(unavailable > 0, 'the stops were felt');
    assert.ok(recoveredAt > 0, 'the node served again after the last start');
  });
});
