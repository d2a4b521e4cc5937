// Findings of the outside security probe (issue 14) on the portal and around it, each checked
// against the real app on a real database: login CSRF on the session exchange, /dev/mail behind a
// proxy, sign-in links at rest in the idempotency store, reviews of changing answers, scripted
// typing, links that outlive their use, and guessing at link tokens and session cookies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprint, keyHash, seal, unseal } from '../src/modules/invitations/idempotency.js';
import { describeEachStore, sampleAssessment, type TestContext } from './harness.js';
import { invite } from './support/portal.js';

async function tenant(ctx: TestContext, assessments: [string, { typing?: boolean }][] = [['alpha', { typing: true }]]) {
  const instance = await ctx.instance('sec');
  for (const [id, options] of assessments) {
    const published = await ctx.publish(instance, sampleAssessment(id, { name: id.toUpperCase(), ...options }));
    assert.equal(published.statusCode, 201, published.body);
  }
  return { instance, key: await ctx.key([instance]) };
}

describeEachStore(
  'portal security: login CSRF and the development mailbox',
  (ctx) => {
    it('refuses the session exchange from another site, and sets no cookie', async () => {
      const t = await tenant(ctx());
      const { token } = await invite(ctx(), t, { email: 'csrf-login@x.co' }, ['alpha']);
      for (const headers of [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: 'http://portal.test', 'sec-fetch-site': 'cross-site' },
        // A POST is never typed by a person: only navigations (GETs) say none.
        { 'sec-fetch-site': 'none' },
        // Without Origin or Sec-Fetch-Site, the Referer decides.
        { referer: 'https://evil.example/page' },
      ]) {
        const response = await ctx().request({ method: 'POST', url: '/portal/api/session', headers, payload: { token } });
        assert.equal(response.statusCode, 403, JSON.stringify(headers));
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.equal(response.headers['set-cookie'], undefined, JSON.stringify(headers));
      }
      const { rows } = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_sessions s JOIN candidates c ON c.id = s.candidate_id WHERE c.email = $1', [
        'csrf-login@x.co',
      ]);
      assert.equal(rows[0]!.n, 0, 'no session was opened');
      // The portal's own page, and a client that sends neither header, still sign in.
      const own = await ctx().request({
        method: 'POST',
        url: '/portal/api/session',
        headers: { origin: 'http://portal.test', 'sec-fetch-site': 'same-origin' },
        payload: { token },
      });
      assert.equal(own.statusCode, 200, own.body);
      assert.match(String(own.headers['set-cookie']), /^ac_session=/);
      const referred = await ctx().request({ method: 'POST', url: '/portal/api/session', headers: { referer: 'http://portal.test/portal/' }, payload: { token } });
      assert.equal(referred.statusCode, 200, referred.body);
      const tool = await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token } });
      assert.equal(tool.statusCode, 200, tool.body);
    });

    it('serves /dev/mail only to direct local requests without a forwarding header', async () => {
      const direct = await ctx().request({ method: 'GET', url: '/dev/mail', remoteAddress: '127.0.0.1' });
      assert.equal(direct.statusCode, 200);
      for (const [name, value] of [
        ['forwarded', 'for=203.0.113.7'],
        ['x-forwarded-for', '203.0.113.7'],
        ['x-forwarded-host', 'public.example'],
        ['x-real-ip', '203.0.113.7'],
        ['via', '1.1 proxy'],
      ] as const) {
        for (const url of ['/dev/mail', '/dev/mail/x.eml']) {
          const proxied = await ctx().request({ method: 'GET', url, remoteAddress: '127.0.0.1', headers: { [name]: value } });
          assert.equal(proxied.statusCode, 404, `${url} with ${name}`);
          assert.doesNotMatch(proxied.body, /Development mailbox/);
        }
      }
      assert.equal((await ctx().request({ method: 'GET', url: '/dev/mail', remoteAddress: '10.1.2.3' })).statusCode, 404);
    });
  },
  { devMail: true },
);

/** Opens a portal session from a link token; returns a caller that sends the cookie and CSRF token. */
async function portal(ctx: TestContext, token: string, slug: string) {
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token } });
  assert.equal(opened.statusCode, 200, opened.body);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="csrf-token" content="([^"]+)"/.exec((await ctx.request({ method: 'GET', url: `/portal/a/${slug}`, headers: { cookie } })).body)![1]!;
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    ctx.request({ method, url, headers: { cookie, 'x-csrf-token': csrf }, ...(payload === undefined ? {} : { payload }) });
  return { cookie, csrf, call };
}

describeEachStore('portal security: reviews', (ctx) => {
  const review = (instance: string, attemptId: string, score: number) =>
    ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/reviews`, payload: { attemptId, questionId: 'q4', score } });
  const record = async (t: { key: string }, candidateId: string) =>
    (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}&assessmentIds=beta`, headers: { 'x-api-key': t.key } })).json()[0];
  const attemptOf = async (candidateId: string) =>
    (await ctx().db.query<{ id: string }>('SELECT t.id FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1', [candidateId])).rows[0]!.id;

  it('refuses to score an answer of an attempt in progress, and a changed answer is not scored by an old review', async () => {
    const t = await tenant(ctx(), [['beta', {}]]);
    const c = await invite(ctx(), t, { email: 'review@x.co' }, ['beta']);
    const p = await portal(ctx(), c.token, 'beta');
    assert.equal((await p.call('POST', '/portal/a/beta/start', {})).statusCode, 303);
    assert.equal((await p.call('PUT', '/portal/api/a/beta/answers/q4', { value: 'A careful, complete answer.' })).statusCode, 204);
    const attemptId = await attemptOf(c.candidateId);

    const early = await review(t.instance, attemptId, 100);
    assert.equal(early.statusCode, 409, early.body);
    assert.equal(early.headers['content-type'], 'application/problem+json; charset=utf-8');
    const stored = await ctx().db.query('SELECT review_score FROM answers WHERE attempt_id = $1 AND question_id = $2', [attemptId, 'q4']);
    assert.deepEqual(stored.rows, [{ review_score: null }], 'the refused review changed nothing');

    // The candidate replaces the answer and submits: the answer waits for a review of what it is now.
    assert.equal((await p.call('PUT', '/portal/api/a/beta/answers/q4', { value: 'x' })).statusCode, 204);
    assert.equal((await p.call('POST', '/portal/a/beta/submit', {})).statusCode, 303);
    assert.equal((await record(t, c.candidateId)).scoreStatus, 'PENDING');
    const pending = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${t.instance}/reviews` })).json();
    assert.deepEqual(
      pending.map((r: { answer: string }) => r.answer),
      ['x'],
    );
    const scored = await review(t.instance, attemptId, 10);
    assert.equal(scored.statusCode, 200, scored.body);
    assert.notEqual(scored.json().scoreStatus, 'PENDING');
    assert.deepEqual((await record(t, c.candidateId)).categoryScores[1], { name: 'Writing', score: '10' });
  });

  it('counts a stored review only for the answer it scored', async () => {
    const t = await tenant(ctx(), [['beta', {}]]);
    const c = await invite(ctx(), t, { email: 'bound@x.co' }, ['beta']);
    const p = await portal(ctx(), c.token, 'beta');
    await p.call('POST', '/portal/a/beta/start', {});
    await p.call('PUT', '/portal/api/a/beta/answers/q4', { value: 'The first answer, long and good.' });
    const attemptId = await attemptOf(c.candidateId);
    // A review written against the first answer (as the old code allowed while in progress)...
    await ctx().db.query(
      `UPDATE answers SET review_score = 100, reviewed_at = now(), review_value_hash = sha256(convert_to(value::text, 'UTF8')) WHERE attempt_id = $1 AND question_id = 'q4'`,
      [attemptId],
    );
    // ...then the answer changes. The review is cleared with it, and never counts for "x".
    await p.call('PUT', '/portal/api/a/beta/answers/q4', { value: 'x' });
    await p.call('POST', '/portal/a/beta/submit', {});
    assert.equal((await record(t, c.candidateId)).scoreStatus, 'PENDING');
    // Even a review row whose hash does not match the stored answer (a restored backup, a manual
    // edit) does not count: the score is computed as if it were absent.
    await ctx().db.query(
      `UPDATE answers SET review_score = 100, reviewed_at = now(), review_value_hash = sha256(convert_to('"something else"', 'UTF8')) WHERE attempt_id = $1 AND question_id = 'q4'`,
      [attemptId],
    );
    const other = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${t.instance}/reviews` })).json();
    assert.ok(
      other.some((r: { attemptId: string; answer: string }) => r.attemptId === attemptId && r.answer === 'x'),
      'still listed as waiting for review',
    );
    assert.equal((await review(t.instance, attemptId, 0)).statusCode, 200);
    assert.deepEqual((await record(t, c.candidateId)).categoryScores[1], { name: 'Writing', score: '0' });
  });
});

describeEachStore('portal security: sign-in links at rest', (ctx) => {
  it('keeps no usable sign-in link in the idempotency store, and a replay still answers the same working link', async () => {
    const t = await tenant(ctx(), [['beta', {}]]);
    const idempotencyKey = `invite-${Date.now()}`;
    const first = await invite(ctx(), t, { email: 'rest@x.co' }, ['beta'], { headers: { 'idempotency-key': idempotencyKey } });
    const { rows } = await ctx().db.query<{ row: string }>('SELECT i::text AS row FROM idempotency_keys i');
    assert.ok(rows.length > 0, 'the answer is stored for replays');
    const everything = rows.map((r) => r.row).join('\n');
    for (const secret of [first.token, first.link, idempotencyKey, t.key]) assert.ok(!everything.includes(secret), `${secret.slice(0, 12)}… is not stored`);
    // Not in base64 or hex either.
    assert.ok(!everything.includes(Buffer.from(first.token).toString('base64').slice(0, 40)));
    assert.ok(!everything.includes(Buffer.from(first.token).toString('hex').slice(0, 40)));

    const replay = await invite(ctx(), t, { email: 'rest@x.co' }, ['beta'], { headers: { 'idempotency-key': idempotencyKey } });
    assert.equal(replay.response.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.response.json(), first.response.json(), 'the identical answer, link included');
    const opened = await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token: replay.token } });
    assert.equal(opened.statusCode, 200, 'the replayed link signs in');

    // A different body with the same key is still refused.
    const reused = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': t.key, instance: t.instance, 'idempotency-key': idempotencyKey },
      payload: { email: 'rest@x.co', firstName: 'Other', lastName: 'Idate', assessments: ['beta'] },
    });
    assert.equal(reused.statusCode, 422);
  });
});

describe('sealed idempotent answers', () => {
  const scope = { keyId: 'key_0123456789abcdef', instanceId: '00000000-0000-4000-8000-000000000000', key: 'idem-1', secret: 'ack_secret' };
  const print = fingerprint({ email: 'a@b.co' }, false);
  it('opens only with the same API key, Idempotency-Key, request and status', () => {
    const sealed = seal(scope, print, 200, [{ link: 'http://x/portal/#?sessionToken=abc' }]);
    assert.deepEqual(unseal(scope, print, 200, sealed), [{ link: 'http://x/portal/#?sessionToken=abc' }]);
    assert.equal(unseal({ ...scope, secret: 'ack_other' }, print, 200, sealed), undefined);
    assert.equal(unseal({ ...scope, key: 'idem-2' }, print, 200, sealed), undefined);
    assert.equal(unseal(scope, fingerprint({ email: 'c@d.co' }, false), 200, sealed), undefined);
    assert.equal(unseal(scope, print, 201, sealed), undefined);
    assert.equal(unseal(scope, print, 200, { ...sealed, data: Buffer.from('tampered').toString('base64') }), undefined);
    assert.equal(unseal(scope, print, 200, [{ link: 'plain' }]), undefined, 'a plain answer is never replayed');
    assert.notEqual(keyHash('idem-1'), 'idem-1');
    assert.match(keyHash('idem-1'), /^[0-9a-f]{64}$/);
  });
});

/** The app's clock for the typing suite: it stands still until a test moves it. */
let clockAt = Date.now();
const movableNow = () => new Date(clockAt);

describeEachStore(
  'portal security: the typing test against the server clock',
  (ctx) => {
    const PASSAGE = 'The quick brown fox jumps over the lazy dog while the warehouse team counts every box twice.';

    async function takeTyping(email: string, intervals: number[], serverMs: number) {
      const t = await tenant(ctx());
      const c = await invite(ctx(), t, { email }, ['alpha']);
      const p = await portal(ctx(), c.token, 'alpha');
      assert.equal((await p.call('POST', '/portal/a/alpha/start', {})).statusCode, 303);
      assert.equal((await p.call('POST', '/portal/api/a/alpha/typing/start', {})).statusCode, 204);
      clockAt += serverMs;
      const typing = await p.call('POST', '/portal/api/a/alpha/typing', { typed: PASSAGE, intervals });
      assert.equal(typing.statusCode, 200, typing.body);
      const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${t.instance}/candidates/${c.candidateId}/attempts` })).json();
      const record = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}&assessmentIds=alpha`, headers: { 'x-api-key': t.key } })).json()[0];
      return { result: typing.json(), attempt: attempts[0], record };
    }

    it("red-flags the probe's script: the passage with invented 30 ms keystrokes, 6.5 s after the start", async () => {
      // Mean 30 ms, deviation about 12, 2.8 s in all: what the probe posted.
      const intervals = Array.from({ length: PASSAGE.length - 1 }, (_, i) => [18, 42, 30, 24, 36, 12, 48, 30, 33, 27][i % 10]!);
      const scale = 2800 / intervals.reduce((a, b) => a + b, 0);
      const { result, attempt, record } = await takeTyping(
        'script@x.co',
        intervals.map((ms) => Math.round(ms * scale)),
        6500,
      );
      assert.ok(result.netWpm > 165 && result.netWpm < 175, `scored by the server's 6.5 s: ${result.netWpm}`);
      assert.equal(record.redFlag, true);
      assert.ok(attempt.redFlagReasons.includes('typing faster than 200 wpm'), attempt.redFlagReasons.join('; '));
      assert.ok(attempt.signals.some((s: { kind: string; detail: string }) => s.kind === 'typing-too-fast' && /median/.test(s.detail)));
    });

    it('red-flags keystroke intervals that add up to more time than the server measured', async () => {
      const intervals = Array.from({ length: PASSAGE.length - 1 }, (_, i) => 150 + ((i * 53) % 140));
      const { attempt } = await takeTyping('offclock@x.co', intervals, 6500);
      assert.deepEqual(attempt.redFlagReasons, ["keystroke times that do not fit the server's clock"]);
    });

    it('does not flag a person: uneven rhythm at about 60 wpm, a typo corrected, a pause', async () => {
      const intervals = Array.from({ length: PASSAGE.length + 1 }, (_, i) => 110 + ((i * 97) % 230) + (i === 40 ? 900 : 0));
      const sum = intervals.reduce((a, b) => a + b, 0);
      const { result, attempt, record } = await takeTyping('person@x.co', intervals, sum + 2600);
      assert.ok(result.netWpm >= 40 && result.netWpm <= 90, String(result.netWpm));
      assert.equal(record.redFlag, false, attempt.redFlagReasons.join('; '));
      assert.deepEqual(attempt.signals, []);
    });
  },
  { now: movableNow },
);

describeEachStore(
  'portal security: links that have done their work, and guessing',
  (ctx) => {
    const session = (token: unknown, remoteAddress = '127.0.0.1') => ctx().request({ method: 'POST', url: '/portal/api/session', remoteAddress, payload: { token } });

    it('stops a link once every assessment it opens is completed, with a clear message', async () => {
      const t = await tenant(ctx(), [
        ['beta', {}],
        ['gamma', {}],
      ]);
      const both = await invite(ctx(), t, { email: 'done@x.co' }, ['beta', 'gamma']);
      const p = await portal(ctx(), both.token, 'beta');
      await p.call('POST', '/portal/a/beta/start', {});
      await p.call('POST', '/portal/a/beta/submit', {});
      assert.equal((await session(both.token)).statusCode, 200, 'gamma is still open: the link works');
      await p.call('POST', '/portal/a/gamma/start', {});
      await p.call('POST', '/portal/a/gamma/submit', {});

      const used = await session(both.token);
      assert.equal(used.statusCode, 409, used.body);
      assert.equal(used.headers['set-cookie'], undefined);
      assert.match(used.json().detail, /completed/);
      const page = await ctx().request({ method: 'GET', url: '/portal/link-used' });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /You have completed these assessments/);
      assert.doesNotMatch(page.body, /This link does not work/);
      // The session already open still shows the candidate their completed assessments.
      assert.match((await p.call('GET', '/portal/')).body, /Completed/i);
      // A link of a later invite to the same, completed, assessment opens nothing either.
      const again = await invite(ctx(), t, { email: 'done@x.co' }, ['beta']);
      assert.equal((await session(again.token)).statusCode, 409);
    });

    it('limits guesses at link tokens per address: past the limit even a valid link gets 429 with Retry-After', async () => {
      const t = await tenant(ctx(), [['beta', {}]]);
      const good = await invite(ctx(), t, { email: 'guess@x.co' }, ['beta']);
      const guesser = '198.51.100.7';
      for (let i = 0; i < 5; i++) {
        const guess = await session(Buffer.alloc(32, i + 1).toString('base64url'), guesser);
        assert.equal(guess.statusCode, 401);
      }
      const refused = await session(good.token, guesser);
      assert.equal(refused.statusCode, 429, refused.body);
      assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/);
      assert.equal(refused.headers['set-cookie'], undefined);
      assert.equal((await session(good.token, '198.51.100.8')).statusCode, 200, 'another address is not affected');
    });

    it('limits guesses at session cookies per address, on the JSON API and on pages', async () => {
      const t = await tenant(ctx(), [['beta', {}]]);
      const c = await invite(ctx(), t, { email: 'cookie@x.co' }, ['beta']);
      const p = await portal(ctx(), c.token, 'beta');
      const guesser = '198.51.100.9';
      for (let i = 0; i < 5; i++) {
        const guess = await ctx().request({
          method: 'PUT',
          url: '/portal/api/a/beta/answers/q1',
          remoteAddress: guesser,
          headers: { cookie: `ac_session=${Buffer.alloc(32, i + 1).toString('base64url')}`, 'x-csrf-token': p.csrf },
          payload: { value: 1 },
        });
        assert.equal(guess.statusCode, 401);
      }
      const api = await ctx().request({
        method: 'PUT',
        url: '/portal/api/a/beta/answers/q1',
        remoteAddress: guesser,
        headers: { cookie: p.cookie, 'x-csrf-token': p.csrf },
        payload: { value: 1 },
      });
      assert.equal(api.statusCode, 429, 'the real cookie too, from that address');
      assert.equal(api.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.match(String(api.headers['retry-after']), /^[1-9][0-9]*$/);
      const page = await ctx().request({ method: 'GET', url: '/portal/', remoteAddress: guesser, headers: { cookie: p.cookie } });
      assert.equal(page.statusCode, 429);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.match(String(page.headers['retry-after']), /^[1-9][0-9]*$/);
      assert.equal((await ctx().request({ method: 'GET', url: '/portal/', remoteAddress: guesser })).statusCode, 200, 'the landing page without a cookie still shows');
      assert.equal((await p.call('GET', '/portal/')).statusCode, 200, 'the candidate at their own address is not affected');
    });
  },
  { authFailuresPerMinute: 5 },
);
