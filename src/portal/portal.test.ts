import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeEachStore, sampleAssessment, type TestContext } from '../../test/harness.js';
import { frozenClock } from '../../test/support/clock.js';

/** A candidate with an invite link, a portal session and its CSRF token. */
async function candidate(ctx: TestContext, t: { instance: string; key: string }, email: string, assessments: string[]) {
  const [invite] = (
    await ctx.request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': t.key, instance: t.instance },
      payload: { email, firstName: 'Cand', lastName: 'Idate', assessments },
    })
  ).json();
  const token = invite.link.split('sessionToken=')[1];
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token } });
  assert.equal(opened.statusCode, 200, opened.body);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const page = await ctx.request({ method: 'GET', url: '/portal/', headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec((await ctx.request({ method: 'GET', url: `/portal/a/${assessments[0]}`, headers: { cookie } })).body)![1]!;
  const as = (remoteAddress = '127.0.0.1', agent = 'test-browser') => ({ cookie, 'x-csrf-token': csrf, 'user-agent': agent, _remote: remoteAddress });
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, opts: { remoteAddress?: string; agent?: string; form?: boolean } = {}) => {
    const { _remote, ...headers } = as(opts.remoteAddress, opts.agent);
    if (opts.form) {
      return ctx.request({
        method,
        url,
        remoteAddress: _remote,
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, ...(payload as Record<string, string>) }).toString(),
      });
    }
    return ctx.request({ method, url, remoteAddress: _remote, headers, payload: payload as object });
  };
  return { candidateId: invite.candidateId as string, token, cookie, csrf, page, call };
}

/** The app's clock: stands still until a test moves it. */
const clock = frozenClock();

describeEachStore(
  'candidate portal',
  (ctx) => {
    async function tenant() {
      const instance = await ctx().instance();
      await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha', typing: true }));
      await ctx().publish(instance, sampleAssessment('beta', { name: 'Beta' }));
      return { instance, key: await ctx().key([instance]) };
    }
    const score = async (t: { key: string }, candidateId: string, assessmentId: string) =>
      (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}&assessmentIds=${assessmentId}`, headers: { 'x-api-key': t.key } })).json()[0];

    it('opens the link into a session cookie and lists the invited assessments', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'one@x.co', ['alpha', 'beta']);
      assert.match(c.cookie, /^ac_session=[A-Za-z0-9_-]{43}$/);
      assert.equal(c.page.statusCode, 200);
      assert.match(c.page.body, /Hello Cand/);
      assert.match(c.page.body, /Alpha[\s\S]*20 minutes[\s\S]*Not started/);
      assert.match(c.page.body, /Beta/);
      const landing = await ctx().request({ method: 'GET', url: '/portal/' });
      assert.match(landing.body, /Opening your assessments/);
      const headers = landing.headers;
      assert.match(String(headers['content-security-policy']), /script-src 'self'/);
      assert.doesNotMatch(String(headers['content-security-policy']), /unsafe-inline/);
      assert.equal(headers['x-frame-options'], 'DENY');
      assert.doesNotMatch(landing.body, /<script>|style=|onclick=/, 'no inline script or style');
    });

    it('shows every open assessment of the candidate from one link, and "completed every assessment" only when that is true', async () => {
      const t = await tenant();
      await ctx().publish(t.instance, sampleAssessment('gamma', { name: 'Gamma' }));
      const c = await candidate(ctx(), t, 'many@x.co', ['alpha']);
      // Two later invites, each with its own link: one stays open, one is withdrawn.
      const invite = (assessments: string[]) =>
        ctx().request({
          method: 'POST',
          url: '/v1/invite',
          headers: { 'x-api-key': t.key, instance: t.instance },
          payload: { email: 'many@x.co', firstName: 'Cand', lastName: 'Idate', assessments },
        });
      assert.equal((await invite(['beta'])).statusCode, 200);
      assert.equal((await invite(['gamma'])).statusCode, 200);
      const cancel = await ctx().request({
        method: 'POST',
        url: `/v1/candidates/${c.candidateId}/invitations/gamma/cancel`,
        headers: { 'x-api-key': t.key, instance: t.instance },
      });
      assert.equal(cancel.statusCode, 200, cancel.body);

      let page = (await c.call('GET', '/portal/')).body;
      assert.match(page, /Alpha[\s\S]*Beta/, "the link's own assessment first, then the other open one");
      assert.doesNotMatch(page, /Gamma/, 'a withdrawn invitation of another link is not listed');
      // The first link opens the other open assessment too.
      assert.equal((await c.call('GET', '/portal/a/beta')).statusCode, 200);

      await c.call('POST', '/portal/a/alpha/start', {}, { form: true });
      await c.call('POST', '/portal/a/alpha/submit', {}, { form: true });
      page = (await c.call('GET', '/portal/')).body;
      assert.doesNotMatch(page, /completed every assessment/, 'beta is still open');
      assert.match(page, /Beta[\s\S]*href="\/portal\/a\/beta"/);

      await c.call('POST', '/portal/a/beta/start', {}, { form: true });
      await c.call('POST', '/portal/a/beta/submit', {}, { form: true });
      page = (await c.call('GET', '/portal/')).body;
      assert.match(page, /completed every assessment/);
    });

    it('refuses unknown, malformed and expired links with a plain answer', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'exp@x.co', ['alpha']);
      // Expired by the app's clock, which sessions are opened by.
      await ctx().db.query(`UPDATE invite_links SET expires_at = $2 WHERE candidate_id = $1`, [c.candidateId, new Date(clock.now().getTime() - 1000)]);
      for (const token of [c.token, 'A'.repeat(43), 'short', '', 42]) {
        const response = await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token } });
        assert.equal(response.statusCode, 401, String(token));
        assert.equal(response.headers['set-cookie'], undefined);
      }
      const page = await ctx().request({ method: 'GET', url: '/portal/link-invalid' });
      assert.match(page.body, /This link does not work/);
      assert.doesNotMatch(page.body, /Error:|stack|\n\s+at /);
    });

    it('answers 400, never 500, for a NUL in a signal, a typed text or a text answer (found by fuzzing)', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'nul@x.co', ['alpha']);
      assert.equal((await c.call('POST', '/portal/a/alpha/start', {}, { form: true })).statusCode, 303);
      for (const [method, url, payload] of [
        ['POST', '/portal/api/a/alpha/signals', { kind: 'paste', detail: '\u0000\u0000' }],
        ['PUT', '/portal/api/a/alpha/answers/q3', { value: '12\u000050' }],
        ['PUT', '/portal/api/a/alpha/answers/q4', { value: 'text \u0000' }],
      ] as const) {
        const response = await c.call(method, url, payload);
        assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      }
      assert.equal((await c.call('POST', '/portal/api/a/alpha/typing/start')).statusCode, 204);
      const typing = await c.call('POST', '/portal/api/a/alpha/typing', { typed: 'The\u0000quick', intervals: [100, 100] });
      assert.equal(typing.statusCode, 400, typing.body);
      assert.equal((await c.call('PUT', '/portal/api/a/alpha/answers/q4', { value: 'text without' })).statusCode, 204, 'the attempt is still open');
    });

    it('takes an assessment end to end: start, answers saved, typing, submit, scored', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'full@x.co', ['alpha']);
      assert.equal((await score(t, c.candidateId, 'alpha')).assessmentStatus, 'INVITED');
      const started = await c.call('POST', '/portal/a/alpha/start', {}, { form: true });
      assert.equal(started.statusCode, 303);
      let record = await score(t, c.candidateId, 'alpha');
      assert.equal(record.assessmentStatus, 'IN_PROGRESS');
      assert.notEqual(record.started, '0001-01-01T00:00:00.0000000+00:00');
      assert.equal(record.finished, '0001-01-01T00:00:00.0000000+00:00');

      // q1 by form post (no JavaScript), the rest as portal.js saves them.
      const form = await c.call('POST', '/portal/a/alpha/q/1', { value: '1', go: 'next' }, { form: true });
      assert.equal(form.statusCode, 303);
      assert.equal(form.headers.location, '/portal/a/alpha?q=2');
      for (const [q, value] of [
        ['q2', [0, 2]],
        ['q3', '1,250'],
        ['q4', 'I listened, apologised and fixed it.'],
      ] as const) {
        const saved = await c.call('PUT', `/portal/api/a/alpha/answers/${q}`, { value });
        assert.equal(saved.statusCode, 204, saved.body);
      }
      record = await score(t, c.candidateId, 'alpha');
      assert.equal(record.completion, '80', '4 of 5 answered');
      assert.equal((await c.call('GET', '/portal/a/alpha?q=1')).body.includes('value="1" checked'), true, 'a reload shows the saved answer');

      assert.equal((await c.call('POST', '/portal/api/a/alpha/typing', { typed: 'x', intervals: [] })).statusCode, 409, 'not started');
      // The typing test is timed by the app's clock, moved here instead of slept.
      assert.equal((await c.call('POST', '/portal/api/a/alpha/typing/start')).statusCode, 204);
      // 24 characters in 4 s: 72 wpm, a plausible human speed, keystrokes adding up to 3.1 s of it.
      clock.move(4000);
      const typed = 'The quick brown fox jump';
      const intervals = Array.from({ length: typed.length - 1 }, (_, i) => 90 + ((i * 37) % 80));
      const typing = await c.call('POST', '/portal/api/a/alpha/typing', { typed, intervals });
      assert.equal(typing.statusCode, 200, typing.body);
      assert.equal(typing.json().netWpm, 72, 'speed by the server clock: 24 / 5 characters in 4 s');
      assert.ok(typing.json().netWpm > 0);
      assert.equal(typing.json().accuracy, 100);

      const submitted = await c.call('POST', '/portal/a/alpha/submit', {}, { form: true });
      assert.equal(submitted.statusCode, 303);
      const again = await c.call('POST', '/portal/a/alpha/submit', {}, { form: true });
      assert.equal(again.statusCode, 303, 'a second submission is harmless');
      record = await score(t, c.candidateId, 'alpha');
      assert.equal(record.assessmentStatus, 'COMPLETED');
      assert.equal(record.scoreStatus, 'PENDING', 'the free-text answer awaits review');
      assert.equal(record.completion, '100');
      assert.equal(Number(record.typingSpeed) > 0, true);
      assert.ok(record.finished > record.started);
      assert.equal((await c.call('PUT', '/portal/api/a/alpha/answers/q1', { value: 0 })).statusCode, 409, 'answers no longer change');

      // The operator scores the free text; the attempt then gets its final score.
      const pending = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${t.instance}/reviews` })).json();
      assert.equal(pending.length, 1);
      assert.equal(pending[0].answer, 'I listened, apologised and fixed it.');
      const reviewed = await ctx().request({
        method: 'POST',
        url: `/admin/v1/instances/${t.instance}/reviews`,
        payload: { attemptId: pending[0].attemptId, questionId: 'q4', score: 50 },
      });
      assert.equal(reviewed.statusCode, 200, reviewed.body);
      record = await score(t, c.candidateId, 'alpha');
      assert.notEqual(record.scoreStatus, 'PENDING');
      assert.equal(record.categoryScores.length, 3);
      assert.deepEqual(record.categoryScores.slice(0, 2), [
        { name: 'Reasoning', score: '100' },
        { name: 'Writing', score: '50' },
      ]);
      assert.equal(record.redFlag, false);
    });

    it('counts every answer when several are saved at the same moment, and a cleared answer no longer counts', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'burst@x.co', ['alpha']);
      await c.call('POST', '/portal/a/alpha/start', {}, { form: true });
      const saves = await Promise.all(
        (
          [
            ['q1', 1],
            ['q2', [0, 2]],
            ['q3', '1,250'],
            ['q4', 'An answer.'],
          ] as const
        ).map(([q, value]) => c.call('PUT', `/portal/api/a/alpha/answers/${q}`, { value })),
      );
      assert.deepEqual(
        saves.map((s) => s.statusCode),
        [204, 204, 204, 204],
        saves[0]!.body,
      );
      assert.equal((await score(t, c.candidateId, 'alpha')).completion, '80', '4 of 5 (the typing test is the fifth)');
      assert.equal((await c.call('PUT', '/portal/api/a/alpha/answers/q4', { value: '   ' })).statusCode, 204);
      assert.equal((await score(t, c.candidateId, 'alpha')).completion, '60', 'a blank answer is removed');
      assert.equal((await c.call('PUT', '/portal/api/a/alpha/answers/q9', { value: 1 })).statusCode, 404);
      assert.equal((await score(t, c.candidateId, 'alpha')).completion, '60');
    });

    it('completes an attempt whose time ran out without any request from the candidate', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'late@x.co', ['beta']);
      await c.call('POST', '/portal/a/beta/start', {}, { form: true });
      await c.call('PUT', '/portal/api/a/beta/answers/q1', { value: 1 });
      // Due by the app's clock, which deadlines are checked by.
      await ctx().db.query(`UPDATE attempts SET deadline_at = $2 WHERE invitation_id = (SELECT id FROM invitations WHERE candidate_id = $1)`, [
        c.candidateId,
        new Date(clock.now().getTime() - 1000),
      ]);
      let record = await score(t, c.candidateId, 'beta');
      for (let i = 0; i < 100 && record.assessmentStatus !== 'COMPLETED'; i++) {
        await sleep(100);
        record = await score(t, c.candidateId, 'beta');
      }
      assert.equal(record.assessmentStatus, 'COMPLETED');
      assert.equal(record.completion, '25');
      assert.equal(record.scoreStatus, 'FAIL');
      const { rows } = await ctx().db.query(`SELECT end_reason FROM attempts WHERE invitation_id = (SELECT id FROM invitations WHERE candidate_id = $1)`, [c.candidateId]);
      assert.deepEqual(rows, [{ end_reason: 'time-limit' }]);
      assert.equal((await c.call('PUT', '/portal/api/a/beta/answers/q2', { value: [0] })).statusCode, 409, 'answers after the time limit are refused');
    });

    it('completes expired attempts even when one of them cannot be completed', async () => {
      const t = await tenant();
      const broken = await candidate(ctx(), t, 'broken@x.co', ['beta']);
      const fine = await candidate(ctx(), t, 'fine@x.co', ['beta']);
      await broken.call('POST', '/portal/a/beta/start', {}, { form: true });
      await fine.call('POST', '/portal/a/beta/start', {}, { form: true });
      // A damaged record: its invitation says INVITED although the attempt started, so completing
      // it breaks a constraint. Its deadline is the oldest, so the sweep meets it first. (Damaged
      // before its deadline passes: the sweep would otherwise complete it in between.)
      await ctx().db.query(`UPDATE invitations SET assessment_status = 'INVITED', started_at = NULL WHERE candidate_id = $1`, [broken.candidateId]);
      await ctx().db.query(`UPDATE attempts SET deadline_at = $2 WHERE invitation_id = (SELECT id FROM invitations WHERE candidate_id = $1)`, [
        broken.candidateId,
        new Date(clock.now().getTime() - 60_000),
      ]);
      await ctx().db.query(`UPDATE attempts SET deadline_at = $2 WHERE invitation_id = (SELECT id FROM invitations WHERE candidate_id = $1)`, [
        fine.candidateId,
        new Date(clock.now().getTime() - 1000),
      ]);
      let record = await score(t, fine.candidateId, 'beta');
      for (let i = 0; i < 100 && record.assessmentStatus !== 'COMPLETED'; i++) {
        await sleep(100);
        record = await score(t, fine.candidateId, 'beta');
      }
      assert.equal(record.assessmentStatus, 'COMPLETED', 'the damaged attempt did not hold up the sweep');
      const { rows } = await ctx().db.query(`SELECT finished_at FROM attempts WHERE invitation_id = (SELECT id FROM invitations WHERE candidate_id = $1)`, [broken.candidateId]);
      assert.deepEqual(rows, [{ finished_at: null }], 'the damaged one is left as it was');
    });

    it('raises the red flag for a paste and a tab switch, with the reasons for the operator', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'flag@x.co', ['beta']);
      await c.call('POST', '/portal/a/beta/start', {}, { form: true });
      assert.equal((await c.call('POST', '/portal/api/a/beta/signals', { kind: 'page-hidden' })).statusCode, 204);
      assert.equal((await score(t, c.candidateId, 'beta')).redFlag, false, 'one glance away is not a flag');
      await c.call('POST', '/portal/api/a/beta/signals', { kind: 'paste', detail: '120 characters' });
      assert.equal((await score(t, c.candidateId, 'beta')).redFlag, true);
      assert.equal((await c.call('POST', '/portal/api/a/beta/signals', { kind: 'made-up' })).statusCode, 400);
      await c.call('GET', '/portal/a/beta', undefined, { remoteAddress: '10.0.0.9' });
      const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${t.instance}/candidates/${c.candidateId}/attempts` })).json();
      assert.deepEqual(attempts[0].redFlagReasons, ['pasted 1 time', 'the IP address changed during the attempt']);
      assert.deepEqual(
        attempts[0].signals.map((s: { kind: string; source: string }) => `${s.source}:${s.kind}`),
        ['browser:page-hidden', 'browser:paste', 'server:address-changed'],
      );
    });

    it('never lets one candidate read or change another’s assessment, in the same or another instance', async () => {
      const t = await tenant();
      const x = await candidate(ctx(), t, 'x@x.co', ['alpha']);
      const y = await candidate(ctx(), t, 'y@x.co', ['beta']);
      await y.call('POST', '/portal/a/beta/start', {}, { form: true });
      for (const [method, url, payload] of [
        ['GET', '/portal/a/beta', undefined],
        ['POST', '/portal/a/beta/start', {}],
        ['PUT', '/portal/api/a/beta/answers/q1', { value: 1 }],
        ['POST', '/portal/api/a/beta/signals', { kind: 'paste' }],
        ['POST', '/portal/a/beta/submit', {}],
      ] as const) {
        const response = await x.call(method, url, payload);
        assert.equal(response.statusCode, 404, `${method} ${url}`);
      }
      const other = await tenant();
      const z = await candidate(ctx(), other, 'x@x.co', ['alpha']);
      await z.call('POST', '/portal/a/alpha/start', {}, { form: true });
      assert.equal((await score(t, x.candidateId, 'alpha')).assessmentStatus, 'INVITED', 'the same e-mail elsewhere is someone else');
      assert.equal((await score(t, y.candidateId, 'beta')).assessmentStatus, 'IN_PROGRESS');
    });

    it('refuses state changes without the CSRF token or from another site', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'csrf@x.co', ['alpha']);
      const noToken = await ctx().request({
        method: 'POST',
        url: '/portal/a/alpha/start',
        headers: { cookie: c.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: '',
      });
      assert.equal(noToken.statusCode, 403);
      const wrongOrigin = await ctx().request({
        method: 'POST',
        url: '/portal/a/alpha/start',
        headers: { cookie: c.cookie, origin: 'https://evil.example', 'x-csrf-token': c.csrf },
      });
      assert.equal(wrongOrigin.statusCode, 403);
      const noSession = await ctx().request({ method: 'PUT', url: '/portal/api/a/alpha/answers/q1', headers: { 'x-csrf-token': c.csrf }, payload: { value: 1 } });
      assert.equal(noSession.statusCode, 401);
      assert.equal((await score(t, c.candidateId, 'alpha')).assessmentStatus, 'INVITED', 'nothing started');
    });

    it('validates answers against their question', async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'val@x.co', ['alpha']);
      await c.call('POST', '/portal/a/alpha/start', {}, { form: true });
      for (const [q, value] of [
        ['q1', 5],
        ['q1', 'x'],
        ['q2', [9]],
        ['q2', 1],
        ['q3', 'x'.repeat(201)],
        ['nope', 1],
      ] as const) {
        const response = await c.call('PUT', `/portal/api/a/alpha/answers/${q}`, { value });
        assert.ok([400, 404].includes(response.statusCode), `${q}=${JSON.stringify(value).slice(0, 20)}: ${response.statusCode}`);
      }
      assert.equal((await score(t, c.candidateId, 'alpha')).completion, '0');
    });
  },
  { sweepEveryMs: 100, now: clock.now },
);
