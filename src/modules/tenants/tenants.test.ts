import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore } from '../../../test/harness.js';

describeEachStore('instances and the admin API', (ctx) => {
  it('creates and lists instances', async () => {
    const created = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: 'acme-corp', portalUrl: 'https://tests.acme.example/', inviteTtlDays: 7 } });
    assert.equal(created.statusCode, 201);
    assert.deepEqual(
      { ...(created.json() as object), createdAt: undefined },
      {
        name: 'acme-corp',
        portalUrl: 'https://tests.acme.example',
        inviteTtlDays: 7,
        mailFromName: null,
        mailFromAddress: null,
        retentionDays: null,
        reportLinkDays: 90,
        reminderDays: 2,
        displayName: null,
        company: 'acme-corp',
        accentColor: null,
        supportEmail: null,
        privacyUrl: null,
        logoUrl: null,
        defaultLanguage: 'en',
        maxWebhookEndpoints: 10,
        requireTwoFactor: false,
        timeZone: 'UTC',
        reviewersPerAnswer: 1,
        blindReview: false,
        reviewAgreement: 'mean',
        reviewAgreementPoints: 20,
        reviewDueHours: null,
        reviewUnassigned: true,
        createdAt: undefined,
      },
    );
    const updated = await ctx().request({
      method: 'PATCH',
      url: '/admin/v1/instances/acme-corp',
      payload: { mailFromName: 'Acme Hiring', mailFromAddress: 'hiring@acme.example' },
    });
    assert.equal(updated.statusCode, 200);
    assert.equal(updated.json().mailFromAddress, 'hiring@acme.example');
    assert.equal(updated.json().inviteTtlDays, 7, 'settings not given are kept');
    for (const payload of [{ mailFromAddress: 'not an address' }, { mailFromName: 'Evil\r\nBcc: x@y.z' }, { surprise: 1 }]) {
      assert.equal((await ctx().request({ method: 'PATCH', url: '/admin/v1/instances/acme-corp', payload })).statusCode, 400, JSON.stringify(payload));
    }
    assert.equal((await ctx().request({ method: 'PATCH', url: '/admin/v1/instances/no-such', payload: {} })).statusCode, 404);
    const again = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: 'acme-corp' } });
    assert.equal(again.statusCode, 409);
    const listed = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json();
    assert.ok(listed.some((i: { name: string }) => i.name === 'acme-corp'));
  });

  it('uses the instance portal URL and invite lifetime in links', async () => {
    await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: 'portal-co', portalUrl: 'https://tests.portal.example', inviteTtlDays: 3 } });
    await ctx().publish(
      'portal-co',
      'id: one\nname: One\ndescription: d\ndurationMinutes: 5\npassScore: 50\nlowPassScore: 40\ncategories: [{id: c, name: C}]\nquestions: [{id: q, type: free-text, category: c, prompt: Why?}]\n',
    );
    const key = await ctx().key(['portal-co']);
    const [result] = (
      await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': key, instance: 'portal-co' },
        payload: { email: 'a@b.co', firstName: 'A', lastName: 'B', assessments: ['one'] },
      })
    ).json();
    assert.match(result.link, /^https:\/\/tests\.portal\.example\/portal\/#\?sessionToken=/);
    const { rows } = await ctx().db.query<{ days: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at) / 86400)::int AS days FROM invite_links WHERE candidate_id = $1`,
      [result.candidateId],
    );
    assert.deepEqual(rows, [{ days: 3 }]);
  });

  it('validates instance names and settings', async () => {
    for (const payload of [
      { name: '' },
      { name: '1abc' },
      { name: 'Upper' },
      { name: 'has space' },
      { name: 'a'.repeat(64) },
      { name: 'ok', portalUrl: 'javascript:alert(1)' },
      { name: 'ok', inviteTtlDays: 0 },
      { name: 'ok', inviteTtlDays: 366 },
      {},
    ]) {
      const response = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
    }
    const longest = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: `a${'b'.repeat(62)}` } });
    assert.equal(longest.statusCode, 201, '63 characters is allowed');
  });

  it('refuses every admin route without the admin token, and with an API key', async () => {
    const instance = await ctx().instance();
    const apiKey = await ctx().key([instance]);
    const routes: [string, string][] = [
      ['GET', '/admin/v1/instances'],
      ['POST', '/admin/v1/instances'],
      ['GET', '/admin/v1/keys'],
      ['POST', '/admin/v1/keys'],
      ['POST', '/admin/v1/keys/key_0000000000000000/revoke'],
      ['GET', `/admin/v1/instances/${instance}/assessments`],
      ['POST', `/admin/v1/instances/${instance}/assessments`],
    ];
    // One client address per route: more refused tokens than this from one address are throttled
    // (429, test/limits.test.ts), which is not what this test is about.
    for (const [index, [method, url]] of routes.entries()) {
      for (const headers of [
        { authorization: '' },
        { authorization: 'Bearer wrong-token-wrong-token' },
        { authorization: 'Basic abc' },
        { authorization: `Bearer ${apiKey}` },
        { authorization: '', 'x-api-key': apiKey },
      ]) {
        const response = await ctx().request({ method: method as 'GET', url, headers, payload: method === 'POST' ? {} : undefined, remoteAddress: `198.51.100.${index + 1}` });
        assert.equal(response.statusCode, 401, `${method} ${url} with ${JSON.stringify(headers)}`);
      }
    }
  });
});
