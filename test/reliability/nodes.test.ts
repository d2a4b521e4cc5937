// Several nodes on one PostgreSQL: real server processes started together share the database
// with no difference a client can see. Migrations once, a revocation seen everywhere within 5 s,
// one candidate from a burst of invites spread over the nodes, each expired attempt completed once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sampleAssessment } from '../harness.js';
import { admin, figure, freshPostgresDatabase, startNode, tenant, type Node } from './support/server.js';

describe('two nodes on one PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  let client: pg.Client;
  const nodes: Node[] = [];

  before(async () => {
    database = await freshPostgresDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await client.end();
    await database.drop();
  });

  it('apply each migration once when they start together on an empty database', async () => {
    const began = Date.now();
    // Info logs: the sweep test below reads how many attempts each node completed.
    nodes.push(
      ...(await Promise.all([startNode(database.url, { SWEEP_EVERY_MS: '200', LOG_LEVEL: 'info' }), startNode(database.url, { SWEEP_EVERY_MS: '200', LOG_LEVEL: 'info' })])),
    );
    figure(`two nodes started together on an empty database, both ready in ${Date.now() - began} ms`);
    const { rows } = await client.query<{ version: number; n: string }>('SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version');
    assert.ok(rows.length >= 3);
    assert.ok(
      rows.every((r) => r.n === '1'),
      JSON.stringify(rows),
    );
    figure(`migrations applied once each across two nodes: ${rows.length} versions, ${rows.length} rows`);
  });

  it('refuses a key revoked on node 1 on node 2 within 5 s', async () => {
    const [one, two] = nodes as [Node, Node];
    const { key, keyId } = await tenant(one, 'revoke', (id) => sampleAssessment(id));
    const status = async (node: Node) => (await fetch(`${node.url}/v1/assessment`, { headers: { 'x-api-key': key } })).status;
    assert.equal(await status(two), 200, 'node 2 knows the key (and caches it)');
    const revoked = await admin(one, 'POST', `/keys/${keyId}/revoke`);
    assert.equal(revoked.status, 200);
    const revokedAt = Date.now();
    assert.equal(await status(one), 401, 'the revoking node refuses at once');
    let refusedAfter = -1;
    while (Date.now() - revokedAt < 6000) {
      if ((await status(two)) === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    figure(`revocation on node 1 refused by node 2 after ${refusedAfter} ms (bound 5000 ms; KEY_CACHE_MS 2000)`);
    assert.ok(refusedAfter >= 0 && refusedAfter <= 5000, `refused after ${refusedAfter} ms`);
  });

  it('makes one candidate of 50 concurrent invites of one new e-mail spread over both nodes', async () => {
    const { instance, key, assessments } = await tenant(nodes[0]!, 'burst', (id) => sampleAssessment(id));
    const email = `Burst.${randomUUID()}@Example.com`;
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${nodes[i % 2]!.url}/v1/invite`, {
          method: 'POST',
          headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
          body: JSON.stringify({ email: i % 3 === 0 ? email.toLowerCase() : email, firstName: 'Burst', lastName: `N${i}`, assessments }),
        }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ),
    );
    const ids = new Set(responses.map((r) => (r.body as { candidateId: string }[])[0]?.candidateId));
    const { rows } = await client.query<{ candidates: string; invitations: string }>(
      `SELECT count(DISTINCT c.id) AS candidates, count(i.id) AS invitations FROM candidates c JOIN instances n ON n.id = c.instance_id
         LEFT JOIN invitations i ON i.candidate_id = c.id WHERE n.name = $1`,
      [instance],
    );
    figure(
      `50 concurrent invites of one e-mail over 2 nodes: ${responses.filter((r) => r.status === 200).length} x 200, ${rows[0]!.candidates} candidate, ${rows[0]!.invitations} invitations, ${ids.size} distinct candidateId`,
    );
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
    assert.equal(ids.size, 1);
    assert.deepEqual(rows[0], { candidates: '1', invitations: '2' });
  });

  it('completes each expired attempt exactly once while both nodes sweep', async () => {
    const { instance, key, assessments } = await tenant(nodes[0]!, 'sweep', (id) => sampleAssessment(id));
    // 20 candidates start an assessment through the portal, on either node, and never come back.
    for (let i = 0; i < 20; i++) {
      const node = nodes[i % 2]!;
      const invited = await fetch(`${node.url}/v1/invite`, {
        method: 'POST',
        headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `sweep-${i}@example.com`, firstName: 'Sweep', lastName: 'Test', assessments }),
      });
      const token = ((await invited.json()) as { link: string }[])[0]!.link.split('sessionToken=')[1]!;
      const opened = await fetch(`${node.url}/portal/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
      const page = await (await fetch(`${node.url}/portal/a/${assessments[0]}`, { headers: { cookie } })).text();
      const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)![1]!;
      const started = await fetch(`${node.url}/portal/a/${assessments[0]}/start`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'x-csrf-token': csrf, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf }).toString(),
      });
      assert.ok(started.status < 400, `start answered ${started.status}`);
    }
    const countCompleted = () =>
      nodes.reduce((sum, node) => sum + [...node.output().matchAll(/"completed":(\d+)[^\n]*completed attempts whose time ran out/g)].reduce((s, m) => s + Number(m[1]), 0), 0);
    const before = countCompleted();
    // Their time runs out: the deadline the server set at start moves into the past.
    const expired = await client.query(
      `UPDATE attempts a SET deadline_at = now() - interval '1 second'
         FROM invitations i JOIN instances n ON n.id = i.instance_id WHERE i.id = a.invitation_id AND n.name = $1 AND a.finished_at IS NULL`,
      [instance],
    );
    assert.equal(expired.rowCount, 20);
    const deadline = Date.now() + 15_000;
    let open = 20;
    while (open > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM attempts a JOIN invitations i ON i.id = a.invitation_id JOIN instances n ON n.id = i.instance_id WHERE n.name = $1 AND a.finished_at IS NULL`,
        [instance],
      );
      open = Number(rows[0]!.n);
    }
    await new Promise((r) => setTimeout(r, 500));
    const completions = countCompleted() - before;
    const byNode = nodes.map((node) => [...node.output().matchAll(/"completed":(\d+)/g)].reduce((s, m) => s + Number(m[1]), 0));
    figure(`sweep on 2 nodes: 20 expired attempts, ${completions} completions (node 1: ${byNode[0]}, node 2: ${byNode[1]}), ${open} left open`);
    assert.equal(open, 0);
    assert.equal(completions, 20, 'each attempt completed once, not once per node');
    const scores = await (await fetch(`${nodes[1]!.url}/v1/score`, { headers: { 'x-api-key': key } })).json();
    assert.equal((scores as { assessmentStatus: string }[]).filter((s) => s.assessmentStatus === 'COMPLETED').length, 20);
  });
});
