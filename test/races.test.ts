// Transitions of one invitation that race each other, on both stores: a client cancelling while the
// candidate starts or submits, an extend while the expiry job runs, an answer saved while the
// attempt is submitted, and a submit while the deadline sweep completes the attempt. Each race ends in exactly
// one of the outcomes the state machine documents, never in a mix of both: no cancelled invitation
// with a score, no score.finalized or assessment.completed after invitation.cancelled, no 5xx.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TestContext } from './harness.js';
import { describeEachStore, QUICK_ASSESSMENT } from './harness.js';
import { frozenClock } from './support/clock.js';
import { candidate } from './support/portal.js';

const ROUNDS = 20;

/** The app's clock: stands still until a test moves it. */
const clock = frozenClock();

interface Row {
  cancelled: boolean;
  assessmentStatus: string;
  scoreStatus: string;
  expiresAt: Date;
  expiredAt: Date | null;
  attemptEnd: string | null;
  events: string[];
}

async function stateOf(ctx: TestContext, candidateId: string): Promise<Row> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT i.cancelled_at IS NOT NULL AS cancelled, i.assessment_status AS "assessmentStatus", i.score_status AS "scoreStatus",
            i.expires_at AS "expiresAt", i.expired_at AS "expiredAt",
            (SELECT a.end_reason FROM attempts a WHERE a.invitation_id = i.id AND a.superseded_at IS NULL) AS "attemptEnd",
            ARRAY(SELECT o.type FROM outbox_events o WHERE o.instance_id = i.instance_id AND o.body::jsonb -> 'data' ->> 'candidateId' = i.candidate_id::text ORDER BY o.id) AS events
       FROM invitations i WHERE i.candidate_id = $1`,
    [candidateId],
  );
  return rows[0]!;
}

/** Nothing is scored or announced as completed once the invitation is withdrawn. */
function consistent(row: Row, label: string) {
  if (row.cancelled) {
    assert.notEqual(row.assessmentStatus, 'COMPLETED', `${label}: a cancelled invitation is never completed`);
    assert.equal(row.scoreStatus, 'PENDING', `${label}: a cancelled invitation has no score`);
    const cancelledAt = row.events.indexOf('invitation.cancelled');
    assert.ok(cancelledAt >= 0, `${label}: the cancel was announced`);
    const after = row.events.slice(cancelledAt + 1);
    assert.ok(!after.includes('score.finalized') && !after.includes('assessment.completed'), `${label}: nothing after invitation.cancelled (${row.events.join(', ')})`);
    assert.ok(!row.events.includes('score.finalized'), `${label}: never finalized (${row.events.join(', ')})`);
  }
}

describeEachStore(
  'invitation transitions racing each other',
  (ctx) => {
    let instance: string;
    let key: string;
    const cancel = (candidateId: string) => ctx().request({ method: 'POST', url: `/v1/candidates/${candidateId}/invitations/quick/cancel`, headers: { 'x-api-key': key } });

    it(`cancel while the candidate starts, ${ROUNDS} times: either never started, or started and closed unscored`, async () => {
      instance = await ctx().instance('races');
      assert.equal((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode, 201);
      key = await ctx().key([instance], { rateLimit: 100000 });
      const outcomes = new Map<string, number>();
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `start-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        const [cancelled, started] = await Promise.all([cancel(c.candidateId), c.form('/portal/a/quick/start')]);
        assert.equal(cancelled.statusCode, 200, cancelled.body);
        assert.ok([303, 409].includes(started.statusCode), `start answered ${started.statusCode}: ${started.body.slice(0, 200)}`);
        // The candidate tries to finish anyway.
        const submitted = await c.form('/portal/a/quick/submit');
        assert.ok(submitted.statusCode < 500, `submit answered ${submitted.statusCode}`);
        const row = await stateOf(ctx(), c.candidateId);
        consistent(row, `round ${round}`);
        assert.ok(row.cancelled);
        const outcome = row.attemptEnd === null ? 'withdrawn before it was started' : `started, then withdrawn (attempt ${row.attemptEnd})`;
        assert.ok(row.attemptEnd === null || row.attemptEnd === 'cancelled', `round ${round}: ${outcome}`);
        assert.equal(started.statusCode === 303, row.attemptEnd !== null, `round ${round}: the start was refused exactly when no attempt exists`);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
      assert.equal(
        [...outcomes.values()].reduce((a, b) => a + b, 0),
        ROUNDS,
        JSON.stringify([...outcomes]),
      );
    });

    it(`cancel while the candidate submits, ${ROUNDS} times: either completed and scored (cancel 409), or withdrawn unscored`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `submit-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        assert.equal((await c.form('/portal/a/quick/start')).statusCode, 303);
        assert.equal((await c.form('/portal/a/quick/q/1', { value: '1' })).statusCode, 303);
        const [cancelled, submitted] = await Promise.all([cancel(c.candidateId), c.form('/portal/a/quick/submit')]);
        assert.ok([200, 409].includes(cancelled.statusCode), `cancel answered ${cancelled.statusCode}: ${cancelled.body}`);
        assert.ok(submitted.statusCode < 500, `submit answered ${submitted.statusCode}: ${submitted.body.slice(0, 200)}`);
        const row = await stateOf(ctx(), c.candidateId);
        consistent(row, `round ${round}`);
        if (cancelled.statusCode === 409) {
          assert.deepEqual([row.cancelled, row.assessmentStatus, row.scoreStatus, row.attemptEnd], [false, 'COMPLETED', 'PASS', 'submitted'], `round ${round}: completed first`);
          assert.ok(row.events.includes('score.finalized'));
        } else {
          assert.deepEqual(
            [row.cancelled, row.assessmentStatus, row.scoreStatus, row.attemptEnd],
            [true, 'IN_PROGRESS', 'PENDING', 'cancelled'],
            `round ${round}: withdrawn first`,
          );
        }
      }
    });

    it(`an answer saved while the attempt is submitted, ${ROUNDS} times: acknowledged and scored, or refused and not stored`, async () => {
      const outcomes = { 'saved, then submitted': 0, 'submitted, then refused': 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `save-submit-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        assert.equal((await c.form('/portal/a/quick/start')).statusCode, 303);
        const [saved, submitted] = await Promise.all([c.save('q1', 1), c.form('/portal/a/quick/submit')]);
        assert.equal(submitted.statusCode, 303, submitted.body.slice(0, 200));
        assert.ok([204, 409].includes(saved.statusCode), `round ${round}: the save answered ${saved.statusCode}: ${saved.body.slice(0, 200)}`);
        const row = await stateOf(ctx(), c.candidateId);
        const stored = (
          await ctx().db.query('SELECT 1 FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1', [
            c.candidateId,
          ])
        ).rows.length;
        assert.equal(row.assessmentStatus, 'COMPLETED', `round ${round}`);
        if (saved.statusCode === 204) {
          // An acknowledged answer is never lost: stored, and in the score.
          assert.deepEqual([stored, row.scoreStatus], [1, 'PASS'], `round ${round}: acknowledged`);
          outcomes['saved, then submitted']++;
        } else {
          assert.deepEqual([stored, row.scoreStatus], [0, 'FAIL'], `round ${round}: refused`);
          outcomes['submitted, then refused']++;
        }
        assert.equal(row.events.filter((e) => e === 'score.finalized').length, 1, `round ${round}: ${row.events.join(', ')}`);
      }
      assert.equal(outcomes['saved, then submitted'] + outcomes['submitted, then refused'], ROUNDS, JSON.stringify(outcomes));
    });

    it(`an answer given again while the attempt is submitted, ${ROUNDS} times: the new answer acknowledged and scored, or refused and the first one scored`, async () => {
      // The save of an answer already given takes the short way (the node keeps the attempt; the
      // statement locks only the attempt's row): the submit must still wait for it or refuse it.
      const outcomes = { 'saved, then submitted': 0, 'submitted, then refused': 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `again-submit-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        assert.equal((await c.form('/portal/a/quick/start')).statusCode, 303);
        assert.equal((await c.save('q1', 0)).statusCode, 204);
        const [saved, submitted] = await Promise.all([c.save('q1', 1), c.form('/portal/a/quick/submit')]);
        assert.equal(submitted.statusCode, 303, submitted.body.slice(0, 200));
        assert.ok([204, 409].includes(saved.statusCode), `round ${round}: the save answered ${saved.statusCode}: ${saved.body.slice(0, 200)}`);
        const row = await stateOf(ctx(), c.candidateId);
        const { rows } = await ctx().db.query<{ value: number }>(
          'SELECT a.value FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1',
          [c.candidateId],
        );
        assert.equal(row.assessmentStatus, 'COMPLETED', `round ${round}`);
        if (saved.statusCode === 204) {
          assert.deepEqual([rows.map((r) => r.value), row.scoreStatus], [[1], 'PASS'], `round ${round}: acknowledged, so stored and scored`);
          outcomes['saved, then submitted']++;
        } else {
          assert.deepEqual([rows.map((r) => r.value), row.scoreStatus], [[0], 'FAIL'], `round ${round}: refused, so the first answer stands`);
          outcomes['submitted, then refused']++;
        }
        assert.equal(row.events.filter((e) => e === 'score.finalized').length, 1, `round ${round}: ${row.events.join(', ')}`);
      }
      assert.equal(outcomes['saved, then submitted'] + outcomes['submitted, then refused'], ROUNDS, JSON.stringify(outcomes));
    });

    it(`an answer given again, written with another candidate's, while the attempt is submitted, ${ROUNDS} times: as alone`, async () => {
      // Saves that arrive together are written by one statement (attempts/answer-saves.ts): the
      // submit still waits for the one it races or refuses it, and the other save holds either way.
      const other = await candidate(ctx(), { instance, key }, { email: 'together-other@race.example', firstName: 'Race', lastName: 'Er' }, ['quick']);
      assert.equal((await other.form('/portal/a/quick/start')).statusCode, 303);
      assert.equal((await other.save('q1', 0)).statusCode, 204);
      const outcomes = { 'saved, then submitted': 0, 'submitted, then refused': 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `together-submit-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        assert.equal((await c.form('/portal/a/quick/start')).statusCode, 303);
        assert.equal((await c.save('q1', 0)).statusCode, 204);
        const [saved, bystander, submitted] = await Promise.all([c.save('q1', 1), other.save('q1', round % 2), c.form('/portal/a/quick/submit')]);
        assert.equal(submitted.statusCode, 303, submitted.body.slice(0, 200));
        assert.equal(bystander.statusCode, 204, `round ${round}: the other candidate's save answered ${bystander.statusCode}: ${bystander.body.slice(0, 200)}`);
        assert.ok([204, 409].includes(saved.statusCode), `round ${round}: the save answered ${saved.statusCode}: ${saved.body.slice(0, 200)}`);
        const row = await stateOf(ctx(), c.candidateId);
        const values = async (candidateId: string) =>
          (
            await ctx().db.query<{ value: number }>(
              'SELECT a.value FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1',
              [candidateId],
            )
          ).rows.map((r) => r.value);
        assert.deepEqual(await values(other.candidateId), [round % 2], `round ${round}: the other save is stored`);
        if (saved.statusCode === 204) {
          assert.deepEqual([await values(c.candidateId), row.scoreStatus], [[1], 'PASS'], `round ${round}: acknowledged, so stored and scored`);
          outcomes['saved, then submitted']++;
        } else {
          assert.deepEqual([await values(c.candidateId), row.scoreStatus], [[0], 'FAIL'], `round ${round}: refused, so the first answer stands`);
          outcomes['submitted, then refused']++;
        }
        assert.equal(row.events.filter((e) => e === 'score.finalized').length, 1, `round ${round}: ${row.events.join(', ')}`);
      }
      assert.equal(outcomes['saved, then submitted'] + outcomes['submitted, then refused'], ROUNDS, JSON.stringify(outcomes));
    });

    it(`submit while the deadline sweep completes the attempt, ${ROUNDS} times: completed once, at its deadline`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `submit-sweep-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        assert.equal((await c.form('/portal/a/quick/start')).statusCode, 303);
        assert.equal((await c.save('q1', 1)).statusCode, 204);
        // Past its ten minutes: the candidate's submit and the sweep both want to complete it.
        clock.at += 11 * 60_000;
        const [submitted] = await Promise.all([c.form('/portal/a/quick/submit'), ctx().app.jobs.runOnce('deadline-sweep')]);
        assert.equal(submitted.statusCode, 303, submitted.body.slice(0, 200));
        const row = await stateOf(ctx(), c.candidateId);
        assert.deepEqual([row.assessmentStatus, row.scoreStatus, row.attemptEnd], ['COMPLETED', 'PASS', 'time-limit'], `round ${round}`);
        for (const type of ['assessment.completed', 'score.finalized'])
          assert.equal(row.events.filter((e) => e === type).length, 1, `round ${round}: ${type} once (${row.events.join(', ')})`);
        const { rows } = await ctx().db.query<{ late: boolean }>(
          'SELECT t.finished_at = t.deadline_at AS late FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1',
          [c.candidateId],
        );
        assert.equal(rows[0]!.late, true, `round ${round}: it ended at its deadline, whoever completed it`);
      }
    });

    it(`extend while the expiry job runs, ${ROUNDS} times: always open again until the later time, expired announced at most once`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const c = await candidate(ctx(), { instance, key }, { email: `extend-${round}@race.example`, firstName: 'Race', lastName: 'Er' }, ['quick']);
        clock.at += 15 * 86_400_000;
        const [extended] = await Promise.all([
          ctx().request({ method: 'POST', url: `/v1/candidates/${c.candidateId}/invitations/quick/extend`, headers: { 'x-api-key': key }, payload: { days: 7 } }),
          ctx().app.jobs.runOnce('invitation-expiry'),
        ]);
        assert.equal(extended.statusCode, 200, extended.body);
        assert.equal(extended.json().status, 'INVITED');
        const row = await stateOf(ctx(), c.candidateId);
        assert.equal(row.expiredAt, null, `round ${round}: open again`);
        const days = (new Date(row.expiresAt).getTime() - clock.at) / 86_400_000;
        assert.ok(days > 6.9 && days < 7.1, `round ${round}: until seven days from now (${days})`);
        assert.ok(row.events.filter((e) => e === 'invitation.expired').length <= 1, `round ${round}: ${row.events.join(', ')}`);
        // Later runs of the job leave it alone: it is not due.
        await ctx().app.jobs.runOnce('invitation-expiry');
        assert.equal((await stateOf(ctx(), c.candidateId)).expiredAt, null);
      }
    });
  },
  { now: clock.now },
);
