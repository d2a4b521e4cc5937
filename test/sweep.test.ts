// The deadline sweep's timing: after a run it sleeps until the next open attempt's deadline when
// that comes before its interval (never less than a short minimum), so an attempt is completed
// moments after its deadline instead of up to an interval later; an attempt that cannot be
// completed rests for an interval (it is neither retried by every run nor taken for the next
// deadline meanwhile). The app's own sweep is kept out of the way (an hour's interval): the test
// runs a sweep job of its own and reads what it would do next.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { describeEachStore, sampleAssessment } from './harness.js';
import { deadlineSweepJob } from '../src/modules/attempts/sweeper.js';
import { completeExpired, startAttempt } from '../src/modules/attempts/repository.js';
import type { Database, Queryable } from '../src/db/database.js';

const EVERY_MS = 5000;

describeEachStore(
  'deadline sweep',
  (ctx) => {
    const errors: string[] = [];
    const log = { info() {}, warn() {}, debug() {}, error: (details: { attemptId: string }) => errors.push(details.attemptId) } as unknown as FastifyBaseLogger;

    async function openAttempt(instance: string, key: string, email: string): Promise<{ attemptId: string; invitationId: string }> {
      const invited = await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance }, payload: { email, firstName: 'Sam', lastName: 'Weep', assessments: ['timed'] } });
      assert.equal(invited.statusCode, 200, invited.body);
      const { rows } = await ctx().db.query<{ id: string }>(
        `SELECT i.id FROM invitations i JOIN candidates c ON c.id = i.candidate_id WHERE c.email = $1`,
        [email],
      );
      const attempt = await startAttempt(ctx().db, rows[0]!.id, { address: '127.0.0.1', agent: 'test' });
      return { attemptId: attempt.id, invitationId: rows[0]!.id };
    }
    const dueIn = (attemptId: string, interval: string) => ctx().db.query(`UPDATE attempts SET deadline_at = now() + $2::interval WHERE id = $1`, [attemptId, interval]);
    const finished = async (attemptId: string) => (await ctx().db.query<{ end: string | null }>('SELECT end_reason AS end FROM attempts WHERE id = $1', [attemptId])).rows[0]!.end;

    it('wakes at the next deadline within its interval, at most every 200 ms, and at its interval otherwise', async () => {
      const instance = await ctx().instance('sweep');
      const key = await ctx().key([instance]);
      assert.equal((await ctx().publish(instance, sampleAssessment('timed'))).statusCode, 201);
      const job = deadlineSweepJob(ctx().db, EVERY_MS, log);

      assert.equal(await job.run(new Date()), 0);
      assert.equal(job.soonerMs!(), undefined, 'nothing open: the usual interval');

      const { attemptId } = await openAttempt(instance, key, 'sam.weep@example.com');
      await dueIn(attemptId, '1 hour');
      assert.equal(await job.run(new Date()), 0);
      assert.equal(job.soonerMs!(), undefined, 'the next deadline is beyond the interval');

      await dueIn(attemptId, '3 seconds');
      assert.equal(await job.run(new Date()), 0);
      const wait = job.soonerMs!();
      assert.ok(wait !== undefined && wait > 1500 && wait <= 3000, `wakes at the deadline, not the interval: ${wait} ms`);

      await dueIn(attemptId, '50 milliseconds');
      assert.equal(await job.run(new Date()), 0);
      assert.equal(job.soonerMs!(), 200, 'a deadline moments away: the shortest wait');

      await dueIn(attemptId, '-1 second');
      assert.equal(await job.run(new Date()), 1);
      assert.equal(await finished(attemptId), 'time-limit');
      assert.equal(job.soonerMs!(), undefined);
    });

    it('rests an attempt that cannot be completed for an interval instead of retrying it every run', async () => {
      const instance = await ctx().instance('sweep');
      const key = await ctx().key([instance]);
      assert.equal((await ctx().publish(instance, sampleAssessment('timed'))).statusCode, 201);
      const job = deadlineSweepJob(ctx().db, EVERY_MS, log);
      const broken = await openAttempt(instance, key, 'broken.weep@example.com');
      const later = await openAttempt(instance, key, 'later.weep@example.com');
      // A damaged record: the invitation says INVITED although its attempt started, so completing it breaks a constraint.
      await ctx().db.query(`UPDATE invitations SET assessment_status = 'INVITED', started_at = NULL WHERE id = $1`, [broken.invitationId]);
      await dueIn(broken.attemptId, '-1 minute');
      await dueIn(later.attemptId, '3 seconds');
      errors.length = 0;

      assert.equal(await job.run(new Date()), 0);
      assert.deepEqual(errors, [broken.attemptId], 'tried once and reported');
      const wait = job.soonerMs!();
      assert.ok(wait !== undefined && wait > 1500 && wait <= 3000, `the next deadline is the later attempt's, not the broken one's: ${wait} ms`);

      assert.equal(await job.run(new Date()), 0);
      assert.deepEqual(errors, [broken.attemptId], 'not tried again within the interval');
      assert.equal(await finished(broken.attemptId), null, 'left as it was');

      await dueIn(later.attemptId, '-1 second');
      assert.equal(await job.run(new Date()), 1, 'the others are completed meanwhile');
      assert.equal(await finished(later.attemptId), 'time-limit');
    });

    it('does not take up an attempt that a worker beside it passed over after its claim was sent', async () => {
      const instance = await ctx().instance('sweep');
      const key = await ctx().key([instance]);
      assert.equal((await ctx().publish(instance, sampleAssessment('timed'))).statusCode, 201);
      const { attemptId } = await openAttempt(instance, key, 'side.weep@example.com');
      await dueIn(attemptId, '-1 minute');
      // The other worker failed the attempt and rolled back while this claim was on its way: the
      // claim finds it unlocked although the list it was sent with is now out of date.
      const db = ctx().db;
      const others = await db.query<{ id: string }>('SELECT id FROM attempts WHERE finished_at IS NULL AND id <> $1', [attemptId]);
      const passedOver = others.rows.map((row) => row.id); // the earlier tests' attempts are left alone
      const before = passedOver.length;
      const racing: Database = Object.assign(Object.create(db) as Database, {
        transaction: <T>(fn: (tx: Queryable) => Promise<T>, name?: string) =>
          db.transaction(
            (tx) =>
              fn({
                query: async (text: string, params?: unknown[]) => {
                  const result = await tx.query(text, params);
                  if (text.includes('SKIP LOCKED')) for (const row of result.rows as { id: string }[]) passedOver.push(row.id);
                  return result;
                },
              } as Queryable),
            name,
          ),
      });
      const reported: string[] = [];
      assert.equal(await completeExpired(racing, 5, (id) => reported.push(id), passedOver), 0);
      assert.deepEqual(reported, [], 'not tried, so not reported a second time');
      assert.equal(await finished(attemptId), null, 'left to the worker that passed it over');
      assert.deepEqual(passedOver.slice(before), [attemptId]);
    });
  },
  { sweepEveryMs: 3_600_000 },
);
