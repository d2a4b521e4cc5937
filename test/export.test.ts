// The unfiltered export on PostgreSQL comes from one server-side cursor: the same records in the
// same order as the pages, and a client that goes away mid-export frees the cursor and its
// connection at once (no query of ours left running or holding a transaction open).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestContext, sampleAssessment, storeKinds, type TestContext } from './harness.js';

const postgres = storeKinds().find((k) => k.name === 'postgres');

describe('the export from a cursor [postgres]', { skip: postgres ? false : 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  let ctx: TestContext & { close(): Promise<void> };
  let key: string;
  let port: number;
  let watcher: pg.Client;
  const TOTAL = 30_000;

  before(async () => {
    ctx = await createTestContext(postgres!);
    const instance = await ctx.instance('export');
    await ctx.publish(instance, sampleAssessment('alpha'));
    key = await ctx.key([instance]);
    await ctx.db.query(
      `WITH c AS (INSERT INTO candidates (instance_id, email, first_name, last_name)
                  SELECT i.id, 'x' || g || '@export.example', 'F', 'L' FROM instances i, generate_series(1, $2::int) g WHERE i.name = $1 RETURNING id, instance_id)
       INSERT INTO invitations (instance_id, candidate_id, assessment_id) SELECT c.instance_id, c.id, a.id FROM c JOIN assessments a ON a.instance_id = c.instance_id`,
      [instance, TOTAL],
    );
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as { port: number }).port;
    // Half of the export comes from the read model and half is formatted on the fly; then the
    // background jobs stop, so that the only transactions left to see would be the export's.
    await ctx.db.query(`UPDATE invitations SET record = NULL WHERE id % 2 = 0`);
    await ctx.app.jobs.runOnce('score-records').catch(() => 0);
    await ctx.db.query(`UPDATE invitations SET record = NULL WHERE id % 2 = 0`);
    await ctx.app.jobs.stop();
    const { rows } = await ctx.db.query<{ db: string }>('SELECT current_database() AS db');
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${rows[0]!.db}`;
    watcher = new pg.Client({ connectionString: url.toString(), application_name: 'export-test-watcher' });
    await watcher.connect();
  });
  after(async () => {
    await watcher?.end();
    await ctx?.close();
  });

  const busy = async () =>
    (
      await watcher.query<{ state: string; query: string }>(
        `SELECT state, query FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'assessment-connect' AND state <> 'idle'`,
      )
    ).rows;

  it('streams every record once, equal to the pages and in their order', async () => {
    const whole = (await ctx.request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': key } })).json() as { candidateId: string }[];
    assert.equal(whole.length, TOTAL);
    const paged: { candidateId: string }[] = [];
    let next: string | undefined = '/v1/score?limit=1000';
    while (next) {
      const response = await ctx.request({ method: 'GET', url: next, headers: { 'x-api-key': key } });
      paged.push(...(response.json() as { candidateId: string }[]));
      next = /^<([^>]+)>/.exec(String(response.headers.link ?? ''))?.[1];
    }
    assert.deepEqual(whole, paged, 'the same records, field for field');
    assert.deepEqual(await busy(), [], 'nothing left running after a complete export');
  });

  it('frees the cursor and its connection when the client disconnects mid-export', async () => {
    const received = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path: '/v1/score', headers: { 'x-api-key': key } }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          // Well into the export (past the first page, so the cursor is open), hang up.
          if (bytes > 400_000) {
            request.destroy();
            resolve(bytes);
          }
        });
        response.on('end', () => reject(new Error('the export ended before the client hung up')));
      });
      request.on('error', () => {});
      request.end();
    });
    assert.ok(received > 0);
    let left = await busy();
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      left = await busy();
    }
    assert.deepEqual(left, [], 'no query or open transaction of ours after the client left');
    // The pool is whole: the next export still works.
    assert.equal((await ctx.request({ method: 'GET', url: '/v1/score?limit=1', headers: { 'x-api-key': key } })).statusCode, 200);
  });
});
