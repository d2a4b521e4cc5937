// A revoked report link is never handed out again: GET /v1/candidates/{id} gives a fresh link at
// once, the same day, and the revoked one stays refused.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { takeAssessment } from './support/take.js';

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

describeEachStore('revoked report links', (ctx) => {
  it('GET /v1/candidates/{id} stops giving a link the moment it is revoked', async () => {
    const instance = await ctx().instance('revoke');
    await ctx().publish(instance, sampleAssessment('alpha'));
    const key = await ctx().key([instance]);
    const candidateId = await takeAssessment(ctx(), instance, key, { email: 'revoked.link@example.com', firstName: 'Rev', lastName: 'Oked' });
    const reportUrl = async () =>
      ((await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json().invitations as { reportUrl: string }[])[0]!.reportUrl;
    const first = await reportUrl();
    assert.equal(await reportUrl(), first, 'the same link all day while it stands');
    const seen = [first];
    for (let i = 0; i < 3; i++) {
      const revoked = await ctx().request({ method: 'POST', url: '/admin/v1/report-links/revoke', payload: { url: seen.at(-1) } });
      assert.equal(revoked.statusCode, 200, revoked.body);
      const next = await reportUrl();
      assert.ok(!seen.includes(next), `revoked links are not handed out again: ${next}`);
      assert.equal(await reportUrl(), next, 'and the new one is stable');
      for (const old of seen) assert.equal((await ctx().request({ method: 'GET', url: pathOf(old) })).statusCode, 410);
      assert.equal((await ctx().request({ method: 'GET', url: pathOf(next) })).statusCode, 200);
      const days = (Number(new URL(next).searchParams.get('expires')) * 1000 - Date.now()) / 86_400_000;
      assert.ok(days > 89.9 && days <= 91, String(days));
      seen.push(next);
    }
  });
});
