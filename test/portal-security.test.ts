// Findings of the outside security probe (issue 14) on the portal and around it, each checked
// against the real app on a real database: login CSRF on the session exchange, /dev/mail behind a
// proxy, sign-in links at rest in the idempotency store, reviews of changing answers, scripted
// typing, links that outlive their use, and guessing at link tokens and session cookies.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment, type TestContext } from './harness.js';

async function tenant(ctx: TestContext, assessments: [string, { typing?: boolean }][] = [['alpha', { typing: true }]]) {
  const instance = await ctx.instance('sec');
  for (const [id, options] of assessments) {
    const published = await ctx.publish(instance, sampleAssessment(id, { name: id.toUpperCase(), ...options }));
    assert.equal(published.statusCode, 201, published.body);
  }
  return { instance, key: await ctx.key([instance]) };
}

async function invite(ctx: TestContext, t: { instance: string; key: string }, email: string, assessments: string[], headers: Record<string, string> = {}) {
  const response = await ctx.request({
    method: 'POST',
    url: '/v1/invite',
    headers: { 'x-api-key': t.key, instance: t.instance, ...headers },
    payload: { email, firstName: 'Cand', lastName: 'Idate', assessments },
  });
  assert.equal(response.statusCode, 200, response.body);
  const [result] = response.json();
  return { response, link: result.link as string, token: String(result.link).split('sessionToken=')[1]!, candidateId: result.candidateId as string };
}

describeEachStore(
  'portal security: login CSRF and the development mailbox',
  (ctx) => {
    it('refuses the session exchange from another site, and sets no cookie', async () => {
      const t = await tenant(ctx());
      const { token } = await invite(ctx(), t, 'csrf-login@x.co', ['alpha']);
      for (const headers of [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: 'http://portal.test', 'sec-fetch-site': 'cross-site' },
      ]) {
        const response = await ctx().request({ method: 'POST', url: '/portal/api/session', headers, payload: { token } });
        assert.equal(response.statusCode, 403, JSON.stringify(headers));
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.equal(response.headers['set-cookie'], undefined, JSON.stringify(headers));
      }
      const { rows } = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM portal_sessions s JOIN candidates c ON c.id = s.candidate_id WHERE c.email = $1', ['csrf-login@x.co']);
      assert.equal(rows[0]!.n, 0, 'no session was opened');
      // The portal's own page, and a client that sends neither header, still sign in.
      const own = await ctx().request({ method: 'POST', url: '/portal/api/session', headers: { origin: 'http://portal.test', 'sec-fetch-site': 'same-origin' }, payload: { token } });
      assert.equal(own.statusCode, 200, own.body);
      assert.match(String(own.headers['set-cookie']), /^ac_session=/);
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
