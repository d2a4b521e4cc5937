// The deadline sweep's timing: after a run it sleeps until the next open attempt's deadline when
// that comes before its interval (never less than a short minimum), so an attempt is completed
// moments after its deadline instead of up to an interval later; an attempt that cannot be
// completed rests for an interval (it is neither retried by every run nor taken for the next
// deadline meanwhile). The app's own background jobs are stopped: the test runs a sweep job of its
// own and reads what it would do next. (The score-records job locks an invitation whose record a
// test cleared, and the sweep rightly skips an attempt whose invitation is locked: one run's count
// of attempts tried would then depend on which job came first; it failed so once in CI.)
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { describeEachStore, sampleAssessment } from './harness.js';
import { invite } from './support/portal.js';
import { deadlineSweepJob } from '../src/modules/attempts/sweeper.js';
import { runCommand, runOneStatementCommand, systemRequest } from '../src/domain/command.js';
import { completeExpired } from '../src/modules/attempts/completion.js';
import { findAttempt, startAttempt } from '../src/modules/attempts/repository.js';
import { saveAnswer } from '../src/modules/attempts/commands.js';
import type { Database, Queryable } from '../src/db/database.js';

const EVERY_MS = 5000;

describeEachStore(
  'deadline sweep',
  (ctx) => {
    const errors: string[] = [];
    const log = { info() {}, warn() {}, debug() {}, error: (details: { attemptId: string }) => errors.push(details.attemptId) } as unknown as FastifyBaseLogger;

    async function openAttempt(instance: string, key: string, email: string): Promise<{ attemptId: string; invitationId: string }> {
      await invite(ctx(), { instance, key }, { email, firstName: 'Sam', lastName: 'Weep' }, ['timed']);
      const { rows } = await ctx().db.query<{ id: string }>(`SELECT i.id FROM invitations i JOIN candidates c ON c.id = i.candidate_id WHERE c.email = $1`, [email]);
      const attempt = await runCommand(ctx().db, systemRequest('test', new Date()), (c) =>
        startAttempt(c, { invitationId: rows[0]!.id, client: { address: '127.0.0.1', agent: 'test' } }),
      );
      return { attemptId: attempt.id, invitationId: rows[0]!.id };
    }
    before(() => ctx().app.jobs.stop());

    const dueIn = (attemptId: string, interval: string) => ctx().db.query(`UPDATE attempts SET deadline_at = now() + $2::interval WHERE id = $1`, [attemptId, interval]);
    const finished = async (attemptId: string) => (await ctx().db.query<{ end: string | null }>('SELECT end_reason AS end FROM attempts WHERE id = $1', [attemptId])).rows[0]!.end;

    it('wakes at the next deadline within its interval, at most every 200 ms, and at its interval otherwise', async () => {
      const instance = await ctx().instance('sweep');
      const key = await ctx().key([instance]);
      assert.equal((await ctx().publish(instance, sampleAssessment('timed'))).statusCode, 201);
      const job = deadlineSweepJob(ctx().db, EVERY_MS, log, () => new Date());

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

      // Deadlines are set and read by the database's clock, which a test cannot stop: on a machine
      // busy enough to take 150 ms from here to the sweep's look, the deadline has passed and the
      // sweep completes the attempt instead (failed once in CI with 50 ms).
      await dueIn(attemptId, '150 milliseconds');
      const completed = await job.run(new Date());
      if (completed === 0) assert.equal(job.soonerMs!(), 200, 'a deadline moments away: the shortest wait');
      else assert.equal(completed, 1);

      await dueIn(attemptId, '-1 second');
      if (completed === 0) assert.equal(await job.run(new Date()), 1);
      assert.equal(await finished(attemptId), 'time-limit');
      assert.equal(job.soonerMs!(), undefined);
    });

    it('rests an attempt that cannot be completed for an interval instead of retrying it every run', async () => {
      const instance = await ctx().instance('sweep');
      const key = await ctx().key([instance]);
      assert.equal((await ctx().publish(instance, sampleAssessment('timed'))).statusCode, 201);
      const job = deadlineSweepJob(ctx().db, EVERY_MS, log, () => new Date());
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

    it('completes due attempts in one transaction with each record and its events as one at a time leaves them, and a faulty one only passes itself over', async () => {
      const instance = await ctx().instance('sweep');
      const key = await ctx().key([instance]);
      assert.equal((await ctx().publish(instance, sampleAssessment('timed'))).statusCode, 201);
      const hooked = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks`, payload: { url: 'https://ats.example.com/hooks' } });
      assert.equal(hooked.statusCode, 201, hooked.body);
      const open = async (names: string[]) => {
        const opened = [];
        for (const name of names) opened.push(await openAttempt(instance, key, `${name}.batch@example.com`));
        return opened;
      };
      const due = async (opened: { attemptId: string }[]) => {
        for (const [i, { attemptId }] of opened.entries()) await dueIn(attemptId, `-${10 - i} minutes`);
      };
      /** The record of an invitation as GET /v1/score gives it, and the events of its completion. */
      const completion = async (invitationId: string) => {
        const { rows } = await ctx().db.query<{ candidateId: string }>('SELECT candidate_id AS "candidateId" FROM invitations WHERE id = $1', [invitationId]);
        const record = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${rows[0]!.candidateId}`, headers: { 'x-api-key': key } })).json()[0];
        const events = await ctx().db.query<{ type: string; body: string; deliveries: number }>(
          `SELECT o.type, o.body, (SELECT count(*) FROM webhook_deliveries d WHERE d.event_id = o.id)::int AS deliveries
             FROM outbox_events o WHERE o.body::jsonb -> 'data' ->> 'candidateId' = $1
              AND o.type IN ('assessment.completed', 'score.finalized', 'score.updated') ORDER BY o.id`,
          [rows[0]!.candidateId],
        );
        return { record, events: events.rows };
      };
      const job = deadlineSweepJob(ctx().db, EVERY_MS, log, () => new Date());
      errors.length = 0;

      // A damaged attempt among good ones: the batch is rolled back and done one by one.
      const [good, broken] = (await open(['good', 'broken'])) as [{ attemptId: string; invitationId: string }, { attemptId: string; invitationId: string }];
      await ctx().db.query(`UPDATE invitations SET assessment_status = 'INVITED', started_at = NULL WHERE id = $1`, [broken.invitationId]);
      await due([good, broken]);
      // (The earlier test's damaged attempt is still open and due: it is tried and reported too.)
      assert.equal(await job.run(new Date()), 1, 'the good one completes');
      assert.equal(errors.filter((id) => id === broken.attemptId).length, 1, 'the faulty one is reported once');
      assert.equal(await finished(broken.attemptId), null, 'and left as it was');
      assert.equal(await finished(good.attemptId), 'time-limit');

      // The faulty ones rest: three due attempts are completed together, one of them with answers to score.
      const batch = await open(['one', 'two', 'three']);
      const attempt = (await findAttempt(ctx().db, batch[0]!.invitationId))!;
      const candidate = { actor: { kind: 'candidate' as const, id: 'sweep-test' }, requestId: 'sweep-test', now: new Date() };
      await runOneStatementCommand(ctx().db, candidate, (c) => saveAnswer(c, { attempt, questionId: 'q1', value: 1, position: 1 }));
      await runOneStatementCommand(ctx().db, candidate, (c) => saveAnswer(c, { attempt, questionId: 'q2', value: [0, 2], position: 2 }));
      await due(batch);
      assert.equal(await job.run(new Date()), 3);
      const rows = await ctx().db.query<{ tx: string; right: boolean }>(
        `SELECT xmin::text AS tx, finished_at = deadline_at AND end_reason = 'time-limit' AS right FROM attempts WHERE id = ANY($1::uuid[])`,
        [batch.map((o) => o.attemptId)],
      );
      assert.equal(new Set(rows.rows.map((r) => r.tx)).size, 1, 'one transaction');
      assert.deepEqual(
        rows.rows.map((r) => r.right),
        [true, true, true],
        'each ended at its own deadline',
      );

      for (const { invitationId } of [good, ...batch]) {
        const { record, events } = await completion(invitationId);
        assert.equal(record.assessmentStatus, 'COMPLETED');
        const expected = record.scoreStatus === 'PENDING' ? ['assessment.completed'] : ['assessment.completed', 'score.finalized'];
        assert.deepEqual(
          events.map((e) => e.type),
          expected,
          `${record.scoreStatus}: each event once`,
        );
        assert.deepEqual(
          events.map((e) => e.deliveries),
          expected.map(() => 1),
          'one delivery of each to the endpoint',
        );
        assert.deepEqual(JSON.parse(events.at(-1)!.body).data.score, record, 'the last event carries the record as GET /v1/score gives it');
      }
      const scored = (await completion(batch[0]!.invitationId)).record;
      assert.ok(Number(scored.completion) > 0 && Number(scored.totalScore) > 0, `the answers were scored: ${JSON.stringify(scored)}`);
      assert.equal(Number((await completion(batch[1]!.invitationId)).record.totalScore), 0, 'the others scored nothing');
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
      assert.equal(await completeExpired(racing, new Date(), 5, (id) => reported.push(id), passedOver), 0);
      assert.deepEqual(reported, [], 'not tried, so not reported a second time');
      assert.equal(await finished(attemptId), null, 'left to the worker that passed it over');
      assert.deepEqual(passedOver.slice(before), [attemptId]);
    });
  },
  { sweepEveryMs: 3_600_000 },
);
