// Saving an answer through the portal's JSON API, as portal.js does, on both stores: an answer
// given again changes the answer's row only (no completion, no invitation row rewritten), a first
// answer moves the completion, and a node that keeps the session's open attempt between saves
// refuses as it would without: the session ended, the attempt past its time, the invitation
// withdrawn, a wrong CSRF token; a second browser is still noticed. Saves that arrive together
// are written together, and each is answered as it would be alone.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { TestContext } from './harness.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { frozenClock } from './support/clock.js';
import { candidate } from './support/portal.js';

const clock = frozenClock();

/** A candidate signed in to the portal who has started the sample assessment. */
async function started(ctx: TestContext, instance: string, key: string, email: string) {
  const c = await candidate(ctx, { instance, key }, { email, firstName: 'Sa', lastName: 'Ve' }, ['alpha']);
  const start = await c.form('/portal/a/alpha/start');
  assert.equal(start.statusCode, 303, start.body);
  return c;
}

describeEachStore(
  'answer saves',
  (ctx) => {
    let instance: string;
    let key: string;
    const stored = async (candidateId: string) => {
      const { rows } = await ctx().db.query<{ question: string; value: unknown; at: Date }>(
        `SELECT a.question_id AS question, a.value, a.answered_at AS at FROM answers a JOIN attempts t ON t.id = a.attempt_id
           JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 ORDER BY a.question_id`,
        [candidateId],
      );
      return rows;
    };
    const invitation = async (candidateId: string) =>
      (await ctx().db.query<{ completion: string; version: string }>('SELECT completion::text, xmin::text AS version FROM invitations WHERE candidate_id = $1', [candidateId]))
        .rows[0]!;

    it('an answer given again changes only the answer; a first answer and a cleared one move the completion', async () => {
      instance = await ctx().instance('saves');
      await ctx().publish(instance, sampleAssessment('alpha'));
      key = await ctx().key([instance]);
      const c = await started(ctx(), instance, key, 'again@saves.example');
      assert.equal((await c.save('q4', 'First draft')).statusCode, 204);
      // The first answer moved the completion and so cleared the ready score record: the record
      // job writes it again (the row's version moves then), before the save compared below.
      for (let tries = 0; tries < 50; tries++) {
        await ctx().app.jobs.runOnce('score-records');
        const { rows } = await ctx().db.query<{ ready: boolean }>('SELECT record IS NOT NULL AS ready FROM invitations WHERE candidate_id = $1', [c.candidateId]);
        if (rows[0]!.ready) break;
      }
      const first = await invitation(c.candidateId);
      assert.equal(first.completion, '25.00');
      clock.move(1000);
      assert.equal((await c.save('q4', 'First draft, then more')).statusCode, 204);
      const again = await invitation(c.candidateId);
      assert.deepEqual(again, first, 'the invitation row is not rewritten: same completion, same row version');
      const rows = await stored(c.candidateId);
      assert.deepEqual(
        rows.map((r) => [r.question, r.value, new Date(r.at).getTime()]),
        [['q4', 'First draft, then more', clock.at]],
      );
      assert.equal((await c.save('q1', 1)).statusCode, 204);
      assert.equal((await invitation(c.candidateId)).completion, '50.00');
      assert.equal((await c.save('q1', 1)).statusCode, 204, 'given again');
      assert.equal((await c.save('q3', '')).statusCode, 204, 'nothing given: no answer stored');
      assert.equal((await c.save('q3', '1250')).statusCode, 204);
      assert.equal((await invitation(c.candidateId)).completion, '75.00');
      assert.equal((await c.save('q3', '')).statusCode, 204, 'cleared');
      assert.equal((await invitation(c.candidateId)).completion, '50.00');
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.question),
        ['q1', 'q4'],
      );
    });

    it('a session ended elsewhere: the next save is refused (401) and nothing changes', async () => {
      const c = await started(ctx(), instance, key, 'ended@saves.example');
      assert.equal((await c.save('q4', 'Kept')).statusCode, 204);
      // Another node, or the retention of sessions, ends it: this node still keeps the attempt.
      await ctx().db.query('DELETE FROM portal_sessions WHERE candidate_id = $1', [c.candidateId]);
      const refused = await c.save('q4', 'After the end');
      assert.equal(refused.statusCode, 401, refused.body);
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.value),
        ['Kept'],
      );
    });

    it('text with half a surrogate pair escaped alone is refused (400, naming the field) and nothing changes; a whole pair is kept', async () => {
      const c = await started(ctx(), instance, key, 'surrogate@saves.example');
      assert.equal((await c.save('q4', 'Kept')).statusCode, 204);
      for (const value of ['\udfff and more', 'ends on \ud83d', '\ude42\ud83d']) {
        const refused = await c.save('q4', value);
        assert.equal(refused.statusCode, 400, refused.body);
        const problem = refused.json();
        assert.equal(problem.type, 'urn:assessment-connect:problem:validation-failed');
        assert.deepEqual(
          problem.errors.map((e: { name: string; pointer: string }) => [e.name, e.pointer]),
          [['value', '#/value']],
        );
        const first = await c.save('q1', value);
        assert.equal(first.statusCode, 400, 'a first answer too');
      }
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.value),
        ['Kept'],
      );
      assert.equal((await c.save('q4', 'Smile \ud83d\ude42')).statusCode, 204);
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.value),
        ['Smile 🙂'],
      );
    });

    it('past its time by the clock: the next save is refused (409) and the attempt completed at its deadline', async () => {
      const c = await started(ctx(), instance, key, 'late@saves.example');
      assert.equal((await c.save('q1', 1)).statusCode, 204);
      clock.move(21 * 60_000);
      const refused = await c.save('q1', 0);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.value),
        [1],
      );
      const { rows } = await ctx().db.query<{ status: string; late: boolean }>(
        `SELECT i.assessment_status AS status, t.finished_at = t.deadline_at AS late FROM invitations i JOIN attempts t ON t.invitation_id = i.id WHERE i.candidate_id = $1`,
        [c.candidateId],
      );
      assert.deepEqual(rows[0], { status: 'COMPLETED', late: true });
    });

    it('withdrawn during the attempt: the next save is refused (409, withdrawn) and nothing changes', async () => {
      const c = await started(ctx(), instance, key, 'withdrawn@saves.example');
      assert.equal((await c.save('q4', 'Before')).statusCode, 204);
      const cancelled = await ctx().request({ method: 'POST', url: `/v1/candidates/${c.candidateId}/invitations/alpha/cancel`, headers: { 'x-api-key': key } });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      const refused = await c.save('q4', 'After');
      assert.equal(refused.statusCode, 409, refused.body);
      assert.match(refused.body, /withdrawn/);
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.value),
        ['Before'],
      );
    });

    it('a wrong CSRF token is refused (403) though the node keeps the attempt', async () => {
      const c = await started(ctx(), instance, key, 'csrf@saves.example');
      assert.equal((await c.save('q4', 'Mine')).statusCode, 204);
      const refused = await c.save('q4', 'Forged', { 'x-csrf-token': 'not-the-token' });
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(
        (await stored(c.candidateId)).map((r) => r.value),
        ['Mine'],
      );
    });

    it('saves that arrive together are written by one statement, each answered as it would be alone', async () => {
      const [a, b, ended, withdrawn] = await Promise.all(
        ['together-a', 'together-b', 'together-ended', 'together-withdrawn'].map((name) => started(ctx(), instance, key, `${name}@saves.example`)),
      );
      for (const c of [a!, b!, ended!, withdrawn!]) assert.equal((await c.save('q4', 'Before')).statusCode, 204);
      await ctx().db.query('DELETE FROM portal_sessions WHERE candidate_id = $1', [ended!.candidateId]);
      const cancelled = await ctx().request({ method: 'POST', url: `/v1/candidates/${withdrawn!.candidateId}/invitations/alpha/cancel`, headers: { 'x-api-key': key } });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      clock.move(1000);
      const answered = await Promise.all([a!.save('q4', 'A, again'), ended!.save('q4', 'After the end'), b!.save('q4', 'B, again'), withdrawn!.save('q4', 'After')]);
      assert.deepEqual(
        answered.map((r) => r.statusCode),
        [204, 401, 204, 409],
        answered.map((r) => r.body).join(' | '),
      );
      const { rows } = await ctx().db.query<{ candidate: string; value: string; tx: string }>(
        `SELECT i.candidate_id::text AS candidate, a.value #>> '{}' AS value, a.xmin::text AS tx FROM answers a JOIN attempts t ON t.id = a.attempt_id
           JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = ANY($1::uuid[]) AND a.question_id = 'q4'`,
        [[a!, b!, ended!, withdrawn!].map((c) => c.candidateId)],
      );
      const by = new Map(rows.map((r) => [r.candidate, r]));
      assert.deepEqual(
        [a!, ended!, b!, withdrawn!].map((c) => by.get(c.candidateId)?.value),
        ['A, again', 'Before', 'B, again', 'Before'],
      );
      assert.equal(by.get(a!.candidateId)!.tx, by.get(b!.candidateId)!.tx, 'the two saves that held were written in one transaction');
    });

    it('a second browser is noticed on a save the node keeps the attempt for', async () => {
      const c = await started(ctx(), instance, key, 'browser@saves.example');
      assert.equal((await c.save('q4', 'One')).statusCode, 204, 'the browser it started in');
      assert.equal((await c.save('q4', 'Two', { 'user-agent': 'Mozilla/5.0 (second)' })).statusCode, 204);
      const { rows } = await ctx().db.query<{ kind: string }>(
        `SELECT s.kind FROM proctor_signals s JOIN attempts t ON t.id = s.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1`,
        [c.candidateId],
      );
      assert.ok(
        rows.some((r) => r.kind === 'agent-changed'),
        JSON.stringify(rows),
      );
    });
  },
  { now: clock.now },
);
