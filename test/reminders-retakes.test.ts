// The rest of the invitation's life: automatic reminders (per instance, once, never racing the
// expiry), extra time as an accommodation and the candidate's language on the invite, and the
// operator's retake (admin API and console) that keeps the earlier attempt in the history.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { takeAssessment } from './support/take.js';
import { movingClock } from './support/clock.js';
import { invite as inviteThroughApi, openPortal } from './support/portal.js';

const time = movingClock();
const clock = time.now;
const DAY = 86_400_000;

describeEachStore(
  'reminders, accommodations and retakes',
  (ctx) => {
    let instance: string;
    let key: string;
    const invite = (email: string, extra: Record<string, unknown> = {}, assessments = ['alpha']) =>
      inviteThroughApi(ctx(), { instance, key }, { email, firstName: 'Noa', lastName: 'Berg', ...extra }, assessments);
    const deliveries = async (candidateId: string) =>
      (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM deliveries WHERE candidate_id = $1', [candidateId])).rows[0]!.n;
    const events = async (candidateId: string, type: string) =>
      (await ctx().db.query<{ n: number }>(`SELECT count(*)::int AS n FROM outbox_events WHERE type = $1 AND body LIKE '%' || $2 || '%'`, [type, candidateId])).rows[0]!.n;

    it('gives extra time from the invite: the candidate sees and gets their own time limit, nobody else sees why', async () => {
      instance = await ctx().instance('life2');
      await ctx().publish(instance, sampleAssessment('alpha', { durationMinutes: 20 }));
      await ctx().publish(instance, sampleAssessment('beta', { durationMinutes: 45 }));
      key = await ctx().key([instance]);
      for (const bad of [
        { extraTimePercent: 201 },
        { extraTimePercent: -1 },
        { extraTimePercent: 12.5 },
        { extraTimePercent: '50' },
        { language: 'english!' },
        { language: 'x' },
        { language: 'de-' },
      ]) {
        const response = await ctx().request({
          method: 'POST',
          url: '/v1/invite',
          headers: { 'x-api-key': key, instance },
          payload: { email: 'bad@example.com', firstName: 'B', lastName: 'D', assessments: ['alpha'], ...bad },
        });
        assert.equal(response.statusCode, 400, JSON.stringify(bad));
      }
      assert.equal((await ctx().db.query(`SELECT 1 FROM candidates WHERE email = 'bad@example.com'`)).rows.length, 0, 'nothing stored');

      const c = await invite('noa.berg@example.com', { extraTimePercent: 50, language: 'de' }, ['alpha', 'beta']);
      const stored = await ctx().db.query<{ extra: number; language: string }>('SELECT extra_time_percent AS extra, language FROM invitations WHERE candidate_id = $1', [
        c.candidateId,
      ]);
      assert.deepEqual(
        stored.rows.map((r) => [r.extra, r.language]),
        [
          [50, 'de'],
          [50, 'de'],
        ],
      );
      const read = (await ctx().request({ method: 'GET', url: `/v1/candidates/${c.candidateId}`, headers: { 'x-api-key': key } })).json();
      assert.doesNotMatch(JSON.stringify(read), /extra|accommodation/i, 'the client API does not show it');
      const score = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}`, headers: { 'x-api-key': key } })).json()[0];
      assert.deepEqual(Object.keys(score).sort(), [
        'assessmentId',
        'assessmentName',
        'assessmentStatus',
        'candidateId',
        'categoryScores',
        'completion',
        'finished',
        'redFlag',
        'scoreStatus',
        'started',
        'totalScore',
        'typingSpeed',
      ]);

      const browser = await openPortal(ctx(), c.link, 'alpha');
      const dashboard = await browser.get('/portal/');
      // Invited with language: 'de', so the portal speaks German.
      assert.match(dashboard.body, /30 Minuten/);
      assert.match(dashboard.body, /68 Minuten/, '45 x 1.5 = 67.5, rounded up');
      const { intro } = browser;
      assert.match(intro.body, /Zeitlimit: <strong>30 Minuten<\/strong>/);
      assert.doesNotMatch(intro.body, /accommodation|extra time|Zusatzzeit|Nachteilsausgleich/i, 'never says why');
      assert.equal((await browser.form('/portal/a/alpha/start')).statusCode, 303);
      const attempt = await ctx().db.query<{ minutes: number }>(
        `SELECT round(extract(epoch FROM t.deadline_at - t.started_at) / 60)::int AS minutes FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1`,
        [c.candidateId],
      );
      assert.equal(attempt.rows[0]!.minutes, 30, 'the server applies it');

      // Inviting again without it keeps it; with another value it changes what is not started.
      await invite('noa.berg@example.com', {}, ['beta']);
      assert.equal(
        (
          await ctx().db.query<{ extra: number }>(
            `SELECT i.extra_time_percent AS extra FROM invitations i JOIN assessments a ON a.id = i.assessment_id WHERE i.candidate_id = $1 AND a.slug = 'beta'`,
            [c.candidateId],
          )
        ).rows[0]!.extra,
        50,
      );
      await invite('noa.berg@example.com', { extraTimePercent: 0 }, ['alpha', 'beta']);
      const after = await ctx().db.query<{ slug: string; extra: number }>(
        `SELECT a.slug, i.extra_time_percent AS extra FROM invitations i JOIN assessments a ON a.id = i.assessment_id WHERE i.candidate_id = $1 ORDER BY a.slug`,
        [c.candidateId],
      );
      assert.deepEqual(
        after.rows.map((r) => [r.slug, r.extra]),
        [
          ['alpha', 50],
          ['beta', 0],
        ],
        'a started assessment keeps the time it was started with',
      );
    });

    it('reminds once, the set number of days before expiry; not when turned off, not for a short invitation', async () => {
      const c = await invite('remind.me@example.com');
      const before = await deliveries(c.candidateId);
      time.offset = 11 * DAY;
      assert.equal(await ctx().app.jobs.runOnce('invitation-reminders'), 0, 'three days before: not yet');
      time.offset = 12.5 * DAY;
      assert.ok(Number(await ctx().app.jobs.runOnce('invitation-reminders')) >= 1);
      assert.equal(await deliveries(c.candidateId), before + 1, 'one e-mail');
      assert.equal(await ctx().app.jobs.runOnce('invitation-reminders'), 0, 'at most once');
      assert.equal(await deliveries(c.candidateId), before + 1);
      const links = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM invite_links WHERE candidate_id = $1', [c.candidateId]);
      assert.equal(links.rows[0]!.n, 2, 'with a fresh link');
      assert.equal(await events(c.candidateId, 'invitation.email.sent'), 1, 'the reminder is announced (the invite sent no e-mail)');
      time.offset = 0;

      const off = await ctx().instance('life2-off');
      await ctx().publish(off, sampleAssessment('alpha'));
      const changed = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${off}`, payload: { reminderDays: null } });
      assert.equal(changed.json().reminderDays, null);
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${off}`, payload: { reminderDays: 61 } })).statusCode, 400);
      const offKey = await ctx().key([off]);
      const quiet = await inviteThroughApi(ctx(), { instance: off, key: offKey }, { email: 'quiet@example.com', firstName: 'Q', lastName: 'T' }, ['alpha']);
      time.offset = 13 * DAY;
      await ctx().app.jobs.runOnce('invitation-reminders');
      assert.equal(await deliveries(quiet.candidateId), 0, 'reminders off: none');
      time.offset = 0;

      await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${off}`, payload: { reminderDays: 2, inviteTtlDays: 1 } });
      const short = await inviteThroughApi(ctx(), { instance: off, key: offKey }, { email: 'short@example.com', firstName: 'S', lastName: 'T' }, ['alpha']);
      await ctx().app.jobs.runOnce('invitation-reminders');
      assert.equal(await deliveries(short.candidateId), 0, 'a one-day invitation gets no two-day reminder');
    });

    it('a reminder never races the expiry: at the deadline only the expiry acts, once', async () => {
      const c = await invite('race@example.com');
      const { rows } = await ctx().db.query<{ expiresAt: Date }>('SELECT expires_at AS "expiresAt" FROM invitations WHERE candidate_id = $1', [c.candidateId]);
      time.offset = new Date(rows[0]!.expiresAt).getTime() - Date.now() + 1;
      const before = await deliveries(c.candidateId);
      await Promise.all([ctx().app.jobs.runOnce('invitation-reminders'), ctx().app.jobs.runOnce('invitation-expiry'), ctx().app.jobs.runOnce('invitation-reminders')]);
      assert.equal(await deliveries(c.candidateId), before, 'no reminder for an expired invitation');
      assert.equal(await events(c.candidateId, 'invitation.expired'), 1);
      time.offset = 0;
    });

    it('lets an operator grant a retake: history kept, record starts over, score.updated, a fresh link; 409 otherwise', async () => {
      const candidateId = await takeAssessment(ctx(), instance, key, { email: 'retake@example.com', firstName: 'Re', lastName: 'Take' });
      const url = `/admin/v1/instances/${instance}/candidates/${candidateId}/invitations/alpha/retake`;
      const first = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json()[0];
      assert.equal(first.assessmentStatus, 'COMPLETED');

      assert.equal(
        (await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/${candidateId}/invitations/nope/retake`, payload: {} })).statusCode,
        404,
      );
      assert.equal((await ctx().request({ method: 'POST', url, payload: { email: 'yes' } })).statusCode, 400);
      const granted = await ctx().request({ method: 'POST', url, payload: {} });
      assert.equal(granted.statusCode, 200, granted.body);
      assert.equal(granted.json().invitationStatus, 'SENT');
      assert.match(granted.json().link, /sessionToken=/);
      const now = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json()[0];
      assert.deepEqual([now.assessmentStatus, now.scoreStatus, now.totalScore, now.completion], ['INVITED', 'PENDING', '0', '0']);
      assert.equal(await events(candidateId, 'score.updated'), 1);
      assert.equal((await ctx().request({ method: 'POST', url, payload: {} })).statusCode, 409, 'not completed now');

      const audit = await ctx().db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM audit_log WHERE target LIKE '%' || $1 || '%retake%' OR (action LIKE '%retake%' AND target LIKE '%' || $1 || '%')`,
        [candidateId],
      );
      assert.ok(audit.rows[0]!.n >= 1, 'in the audit log');

      // Taken again: two attempts, one of them history; the report shows the earlier one.
      await takeAssessment(ctx(), instance, key, { email: 'retake@example.com', firstName: 'Re', lastName: 'Take' });
      const attempts = await ctx().db.query<{ superseded: boolean }>(
        `SELECT t.superseded_at IS NOT NULL AS superseded FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 ORDER BY t.started_at`,
        [candidateId],
      );
      assert.deepEqual(
        attempts.rows.map((r) => r.superseded),
        [true, false],
      );
      const again = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json()[0];
      assert.equal(again.assessmentStatus, 'COMPLETED');
      const link = (await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json().invitations[0].reportUrl as string;
      const report = await ctx().request({ method: 'GET', url: new URL(link).pathname + new URL(link).search });
      assert.match(report.body, /Earlier attempts/);
      const pending = await ctx().db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 AND a.question_id = 'q4'`,
        [candidateId],
      );
      assert.equal(pending.rows[0]!.n, 2, 'the earlier answers are kept');
      const reviewOld = await ctx().db.query<{ id: string }>(
        `SELECT t.id FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 AND t.superseded_at IS NOT NULL`,
        [candidateId],
      );
      const old = await ctx().request({
        method: 'POST',
        url: `/admin/v1/instances/${instance}/reviews`,
        payload: { attemptId: reviewOld.rows[0]!.id, questionId: 'q4', score: 80 },
      });
      assert.ok([404, 409].includes(old.statusCode), `a replaced attempt cannot be scored (${old.statusCode})`);

      // Never started, or still invited: 409.
      const fresh = await invite('fresh@example.com');
      assert.equal(
        (await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/${fresh.candidateId}/invitations/alpha/retake`, payload: {} })).statusCode,
        409,
      );
    });

    it('retakes in every other state: 409 in progress, expired or withdrawn before starting; allowed after a withdrawn attempt', async () => {
      const retake = (candidateId: string) =>
        ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/${candidateId}/invitations/alpha/retake`, payload: { email: false } });
      const c = await invite('states@example.com');
      assert.equal((await (await openPortal(ctx(), c.link, 'alpha')).form('/portal/a/alpha/start')).statusCode, 303);
      assert.equal((await retake(c.candidateId)).statusCode, 409, 'in progress');
      await ctx().request({ method: 'POST', url: `/v1/candidates/${c.candidateId}/invitations/alpha/cancel`, headers: { 'x-api-key': key } });
      const after = await retake(c.candidateId);
      assert.equal(after.statusCode, 200, `withdrawn during its attempt: ${after.body}`);
      const state = (await ctx().request({ method: 'GET', url: `/v1/candidates/${c.candidateId}`, headers: { 'x-api-key': key } })).json().invitations[0];
      assert.deepEqual([state.status, state.cancelledAt], ['INVITED', null]);

      const d = await invite('withdrawn.early@example.com');
      await ctx().request({ method: 'POST', url: `/v1/candidates/${d.candidateId}/invitations/alpha/cancel`, headers: { 'x-api-key': key } });
      assert.equal((await retake(d.candidateId)).statusCode, 409, 'withdrawn before it was started: invite again instead');
      const e = await invite('expired@example.com');
      time.offset = 15 * DAY;
      assert.equal((await retake(e.candidateId)).statusCode, 409, 'expired');
      time.offset = 0;
    });
  },
  { now: clock },
);
