// A node killed (SIGKILL, no chance to clean up) in the middle of a burst of invites: every
// invite is in the database whole or not at all, and a new node carries on on the same data.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freshPostgresDatabase, sampleAssessment } from '../harness.js';
import { figure, startNode, tenant, type Node } from './support/server.js';

const ROUNDS = 3;

describe('SIGKILL during a burst of invites', () => {
  let database: { url: string; drop(): Promise<void> };
  let client: pg.Client;
  let node: Node | undefined;

  before(async () => {
    database = await freshPostgresDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await node?.stop('SIGKILL');
    await client.end();
    await database.drop();
  });

  it('leaves every invite whole or absent, round after round', async () => {
    node = await startNode(database.url);
    const { instance, key, assessments } = await tenant(node, 'crash', (id) => sampleAssessment(id));
    const answeredEmails: string[] = [];
    let failed = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const target = node;
      const sent = Array.from({ length: 200 }, (_, i) => {
        const email = `crash-${round}-${i}-${randomUUID()}@example.com`;
        return fetch(`${target.url}/v1/invite`, {
          method: 'POST',
          headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
          body: JSON.stringify({ email, firstName: 'Crash', lastName: 'Test', assessments }),
        }).then(
          (r) => {
            if (r.status === 200) answeredEmails.push(email);
            return r.status;
          },
          () => 0,
        );
      });
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 350)));
      target.kill('SIGKILL');
      const statuses = await Promise.all(sent);
      failed += statuses.filter((s) => s === 0).length;
      assert.ok(
        statuses.every((s) => s === 200 || s === 0),
        `only 200 or no answer: ${[...new Set(statuses)]}`,
      );
      await target.exited;
      node = await startNode(database.url);
    }

    const { rows } = await client.query<{ candidates: string; partial: string; without_link: string }>(
      `SELECT count(*) AS candidates,
              count(*) FILTER (WHERE (SELECT count(*) FROM invitations i WHERE i.candidate_id = c.id) <> 2) AS partial,
              count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM invite_links l WHERE l.candidate_id = c.id)) AS without_link
         FROM candidates c`,
    );
    figure(
      `crash: ${ROUNDS} rounds of SIGKILL during 200 concurrent invites: ${answeredEmails.length} answered 200, ${failed} cut by the kill; ${rows[0]!.candidates} candidates in the database, ${rows[0]!.partial} partial, ${rows[0]!.without_link} without a link`,
    );
    assert.equal(rows[0]!.partial, '0', 'no candidate with only some of its invitations');
    assert.equal(rows[0]!.without_link, '0', 'no candidate without its link');
    const { rows: found } = await client.query<{ n: string }>('SELECT count(*) AS n FROM candidates WHERE email = ANY($1::text[])', [answeredEmails]);
    assert.equal(Number(found[0]!.n), answeredEmails.length, 'every answered invite is there');
    assert.ok(failed > 0, 'the kill did cut requests off (the test exercised a crash)');

    const after = await fetch(`${node.url}/v1/score`, { headers: { 'x-api-key': key } });
    assert.equal(after.status, 200, 'a new node serves the same data');
  });
});
