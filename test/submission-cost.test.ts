// What one submission costs the store: the statements (and transactions) of the portal's submit
// form post, of the page it leads to and of the first score read after it, recorded through the
// real app on each store. docs/performance.md ("Submissions at the end of a campaign") says where
// they go; a statement more than the bounds below fails here before a bench would show it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database, Queryable } from '../src/db/database.js';
import { createTestContext, sampleAssessment, storeKinds, type TestContext } from './harness.js';
import { candidate } from './support/portal.js';

/** The statements run through `db` (and their transactions), recorded in `seen` while `on`. */
function recording(db: Database, seen: { on: boolean; statements: string[]; transactions: number }): Database {
  const record = (q: Queryable): Queryable => ({
    query: (text, params) => {
      if (seen.on) seen.statements.push(text.replace(/\s+/g, ' '));
      return q.query(text, params);
    },
  });
  const wrapped = Object.create(db) as Database;
  return Object.assign(wrapped, {
    query: record(db).query,
    transaction: ((fn: (tx: Queryable) => Promise<unknown>, name?: string) => {
      if (seen.on) seen.transactions++;
      return db.transaction((tx) => fn(record(tx)), name);
    }) as Database['transaction'],
    ...(db.prepared && {
      prepared: (name: string, text: string, params: unknown[]) => {
        if (seen.on) seen.statements.push(`prepared ${name}`);
        return db.prepared!(name, text, params);
      },
    }),
  });
}

for (const kind of storeKinds()) {
  describe(`the cost of one submission [${kind.name}]`, () => {
    let ctx: TestContext & { close(): Promise<void> };
    const seen = { on: false, statements: [] as string[], transactions: 0 };
    let drop: () => Promise<void>;
    before(async () => {
      const opened = await kind.open();
      drop = opened.drop;
      ctx = await createTestContext(kind, { db: recording(opened.db, seen) });
    });
    after(async () => {
      await ctx.close();
      await drop();
    });

    const measure = async <T>(work: () => Promise<T>) => {
      seen.statements = [];
      seen.transactions = 0;
      seen.on = true;
      try {
        const result = await work();
        return { result, statements: [...seen.statements], transactions: seen.transactions };
      } finally {
        seen.on = false;
      }
    };

    it('submits in one transaction of few statements, and the page after and the score read cost little', async () => {
      const instance = await ctx.instance('cost');
      await ctx.publish(instance, sampleAssessment('final', { freeText: false }));
      const key = await ctx.key([instance]);
      const c = await candidate(ctx, { instance, key }, { email: 'cost@example.com' }, ['final']);
      assert.equal((await c.form('/portal/a/final/start')).statusCode, 303);
      assert.equal((await c.save('q1', 1)).statusCode, 204);
      // Warm: the caches of a node that has served others (the content, the key).
      await c.get('/portal/a/final');
      // The node's background jobs stopped: what is counted is the requests' own work (the score
      // records' fill once ran beside the submission and was counted with it).
      await ctx.app.jobs.stop();
      const posted = await measure(() => c.form('/portal/a/final/submit'));
      assert.equal(posted.result.statusCode, 303, posted.result.body);
      const page = await measure(() => c.get(String(posted.result.headers.location)));
      assert.equal(page.result.statusCode, 200);
      assert.match(page.result.body, /feedback/i);
      const score = await measure(() => ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}&assessmentIds=final`, headers: { 'x-api-key': key } }));
      assert.equal(score.result.json()[0].assessmentStatus, 'COMPLETED', score.result.body);
      const shown = (what: string, statements: string[]) => `${what}:\n${statements.map((text) => text.slice(0, 120)).join('\n')}`;
      // The form post: the session, its instance and its invitations read (as every portal form
      // post does), then one transaction: the invitation and its attempt locked, the answers'
      // times (the pace rule), the attempt finished, the invitation completed, the answers read
      // and scored, the score written, and both events (assessment.completed, score.finalized)
      // into the outbox with their deliveries and partner callbacks in one statement.
      assert.equal(posted.transactions, 1, 'one transaction');
      assert.ok(posted.statements.length <= 11, shown(`the submission ran ${posted.statements.length} statements besides BEGIN and COMMIT`, posted.statements));
      assert.equal(posted.statements.filter((text) => text.includes('outbox_events')).length, 1, 'the events in one statement');
      assert.ok(!posted.statements.some((text) => text.includes('fingerprint')), 'nothing to compare, no fingerprint statement');
      // The page after it: reads only (the session, instance, invitations, language, attempt,
      // feedback, self-identification settings and answers); the score read: at most the key, the
      // assessment's id, the page and the records made afresh when the job has not yet.
      assert.equal(page.transactions, 0);
      assert.ok(page.statements.length <= 8, shown(`the page after ran ${page.statements.length} statements`, page.statements));
      assert.ok(score.statements.length <= 4, shown(`the score read ran ${score.statements.length} statements`, score.statements));
    });
  });
}
