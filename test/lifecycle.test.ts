// The invitation's life through the public API: reading a candidate, extend, remind, cancel (also
// during an attempt) and expiry, each in the states of the documented table, on both stores.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { movingClock } from './support/clock.js';
import { invite as inviteThroughApi, openPortal } from './support/portal.js';

const time = movingClock();
const clock = time.now;

describeEachStore(
  'invitation lifecycle',
  (ctx) => {
    let instance: string;
    let key: string;
    const api = (method: 'GET' | 'POST', url: string, payload?: object) => ctx().request({ method, url, headers: { 'x-api-key': key }, payload });
    const invite = (email: string, assessments = ['alpha', 'beta']) => inviteThroughApi(ctx(), { instance, key }, { email, firstName: 'Li', lastName: 'Fe' }, assessments);
    const state = async (candidateId: string, assessment: string) =>
      ((await api('GET', `/v1/candidates/${candidateId}`)).json().invitations as { assessmentId: string; status: string; expiresAt: string; cancelledAt: string | null }[]).find(
        (i) => i.assessmentId === assessment,
      )!;

    it("reads a candidate with each invitation, only within the key's instances", async () => {
      instance = await ctx().instance('life');
      await ctx().publish(instance, sampleAssessment('alpha'));
      await ctx().publish(instance, sampleAssessment('beta'));
      key = await ctx().key([instance]);
      const c = await invite('li.fe@example.com');
      const read = await api('GET', `/v1/candidates/${c.candidateId}`);
      assert.equal(read.statusCode, 200, read.body);
      const body = read.json();
      assert.deepEqual([body.email, body.firstName, body.lastName], ['li.fe@example.com', 'Li', 'Fe']);
      assert.deepEqual(
        body.invitations.map((i: { assessmentId: string; status: string }) => [i.assessmentId, i.status]),
        [
          ['alpha', 'INVITED'],
          ['beta', 'INVITED'],
        ],
      );
      const days = (new Date(body.invitations[0].expiresAt).getTime() - new Date(body.invitations[0].invitedAt).getTime()) / 86_400_000;
      assert.ok(days > 13.9 && days < 14.1, `14 days to start (${days})`);
      assert.match(body.invitations[0].reportUrl, new RegExp(`/reports/${c.candidateId}/alpha\\?expires=\\d+&signature=[A-Za-z0-9_-]{22}$`));

      const other = await ctx().instance('life-other');
      const otherKey = await ctx().key([other]);
      assert.equal((await ctx().request({ method: 'GET', url: `/v1/candidates/${c.candidateId}`, headers: { 'x-api-key': otherKey } })).statusCode, 404);
      assert.equal((await ctx().request({ method: 'POST', url: `/v1/candidates/${c.candidateId}/invitations/alpha/cancel`, headers: { 'x-api-key': otherKey } })).statusCode, 404);
      assert.equal((await api('GET', '/v1/candidates/not-a-uuid')).statusCode, 404);
      assert.equal((await api('POST', `/v1/candidates/${c.candidateId}/invitations/nope/cancel`)).statusCode, 404);
    });

    it('extends by days or to a time, refuses nonsense, and brings an expired invitation back', async () => {
      const c = await invite('extend@example.com', ['alpha']);
      for (const bad of [{}, { days: 0 }, { days: 400 }, { expiresAt: 'tomorrow' }, { expiresAt: '2000-01-01T00:00:00Z' }, { days: 3, expiresAt: '2099-01-01T00:00:00Z' }]) {
        assert.equal((await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/extend`, bad)).statusCode, 400, JSON.stringify(bad));
      }
      const extended = await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/extend`, { days: 30 });
      assert.equal(extended.statusCode, 200, extended.body);
      const days = (new Date(extended.json().expiresAt).getTime() - clock().getTime()) / 86_400_000;
      assert.ok(days > 29.9 && days < 30.1, String(days));

      time.offset += 31 * 86_400_000;
      assert.equal((await state(c.candidateId, 'alpha')).status, 'EXPIRED');
      assert.equal((await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/remind`)).statusCode, 409, 'an expired invitation gets no reminder');
      await ctx().app.jobs.runOnce('invitation-expiry');
      const events = await ctx().db.query<{ n: number }>(`SELECT count(*)::int AS n FROM invitations WHERE candidate_id = $1 AND expired_at IS NOT NULL`, [c.candidateId]);
      assert.equal(events.rows[0]!.n, 1, 'the expiry was recorded once (and announced as invitation.expired)');
      await ctx().app.jobs.runOnce('invitation-expiry');
      const back = await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/extend`, { days: 7 });
      assert.equal(back.json().status, 'INVITED');
      time.offset = 0;
    });

    it('reminds with a fresh link and an honest status', async () => {
      const c = await invite('remind@example.com', ['alpha']);
      const reminded = await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/remind`);
      assert.equal(reminded.statusCode, 200, reminded.body);
      assert.equal(reminded.json().invitationStatus, 'SENT');
      const { rows } = await ctx().db.query<{ n: number }>(`SELECT count(*)::int AS n FROM invite_links WHERE candidate_id = $1`, [c.candidateId]);
      assert.equal(rows[0]!.n, 2, 'a fresh link; the first still works');
      const opened = await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token: c.link.split('sessionToken=')[1] } });
      assert.equal(opened.statusCode, 200);
    });

    it('cancels during an attempt: the attempt closes unscored and the portal says it was withdrawn; idempotent; never a completed one', async () => {
      const c = await invite('cancel@example.com');
      const { get, form, save } = await openPortal(ctx(), c.link, 'alpha');
      await form('/portal/a/alpha/start');
      assert.equal((await state(c.candidateId, 'alpha')).status, 'IN_PROGRESS');
      assert.equal((await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/extend`, { days: 3 })).statusCode, 409, 'a started invitation has its own deadline');

      const cancelled = await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/cancel`);
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json().status, 'CANCELLED');
      assert.ok(cancelled.json().cancelledAt);
      assert.equal((await api('POST', `/v1/candidates/${c.candidateId}/invitations/alpha/cancel`)).statusCode, 200, 'again: nothing changes');
      const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/candidates/${c.candidateId}/attempts` })).json();
      assert.equal(attempts[0].endReason, 'cancelled');
      const page = await get('/portal/a/alpha');
      assert.equal(page.statusCode, 409);
      assert.match(page.body, /withdrawn/);
      const saved = await save('q1', 1);
      assert.equal(saved.statusCode, 409, 'no more answers');
      const dashboard = await get('/portal/');
      assert.match(dashboard.body, /Withdrawn by the company/);
      const record = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}&assessmentIds=alpha`, headers: { 'x-api-key': key } })).json()[0];
      assert.equal(record.scoreStatus, 'PENDING', 'closed unscored');

      // beta: completed, then it cannot be withdrawn; a not-started cancelled one comes back with a new invite.
      await form('/portal/a/beta/start');
      await form('/portal/a/beta/submit');
      assert.equal((await api('POST', `/v1/candidates/${c.candidateId}/invitations/beta/cancel`)).statusCode, 409);
      const d = await invite('again@example.com', ['alpha']);
      await api('POST', `/v1/candidates/${d.candidateId}/invitations/alpha/cancel`);
      assert.equal((await api('POST', `/v1/candidates/${d.candidateId}/invitations/alpha/remind`)).statusCode, 409);
      await invite('again@example.com', ['alpha']);
      assert.equal((await state(d.candidateId, 'alpha')).status, 'INVITED', 'inviting again opens a withdrawn, unstarted invitation');
    });
  },
  { now: clock },
);
