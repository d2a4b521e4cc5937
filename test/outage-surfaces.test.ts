// One error mapper for every surface: with the database gone, the public API, the admin API, the
// portal's JSON API and the portal's pages all answer 503 with Retry-After (the portal used to
// answer 500 from its own copy of the mapper), and no page shows internals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, sampleAssessment, storeKinds, type TestContext } from './harness.js';
import { candidate } from './support/portal.js';

describe('a database outage, seen from every surface', () => {
  let ctx: TestContext & { close(): Promise<void> };
  let cookie: string;
  let key: string;

  before(async () => {
    ctx = await createTestContext(storeKinds()[0]!);
    const instance = await ctx.instance();
    await ctx.publish(instance, sampleAssessment('alpha'));
    key = await ctx.key([instance]);
    ({ cookie } = await candidate(ctx, { instance, key }, { email: 'o@x.co', firstName: 'O', lastName: 'X' }, ['alpha']));
    // A listening server, as in production: what a request waits for during the outage (a timer
    // the breaker or a retry leaves unref'd) then cannot end the test's event loop before the
    // answer, which on a loaded machine it did ("Promise resolution is still pending").
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    // The key is cached by the verifier for a moment; the outage starts now.
    await ctx.db.close();
  });
  after(async () => {
    await ctx.app.close();
  });

  it('answers 503 with Retry-After on the public API, the admin API, the portal API and the portal pages', async () => {
    const answers = {
      score: await ctx.request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': key } }),
      admin: await ctx.request({ method: 'GET', url: '/admin/v1/instances' }),
      portalApi: await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: 'A'.repeat(43) } }),
      portalPage: await ctx.request({ method: 'GET', url: '/portal/', headers: { cookie } }),
    };
    for (const [surface, response] of Object.entries(answers)) {
      assert.equal(response.statusCode, 503, `${surface}: ${response.body}`);
      assert.match(String(response.headers['retry-after']), /^\d+$/, surface);
      assert.doesNotMatch(response.body, /PGlite|stack|\n\s+at /, surface);
    }
    assert.match(String(answers.portalApi.headers['content-type']), /application\/problem\+json/);
    assert.match(String(answers.portalPage.headers['content-type']), /text\/html/);
    assert.match(answers.portalPage.body, /briefly unavailable/);
  });
});
