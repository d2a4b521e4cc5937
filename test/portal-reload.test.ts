// The addresses the portal's forms post to, opened again with GET (a reload that kept the
// address, a bookmark, the back button), lead to the assessment's page and where the candidate
// is, the confirmation once submitted, instead of a 404.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { candidate } from './support/portal.js';

describeEachStore('reloading the portal', (ctx) => {
  it('a GET of a form address goes to the assessment page, which shows the confirmation once submitted', async () => {
    const instance = await ctx().instance('reload');
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    const key = await ctx().key([instance]);
    const { get, form } = await candidate(ctx(), { instance, key }, { email: 'reload@example.com', firstName: 'Re', lastName: 'Load' }, ['alpha']);
    for (const [url, to] of [
      ['/portal/a/alpha/start', '/portal/a/alpha'],
      ['/portal/a/alpha/q/2', '/portal/a/alpha?q=2'],
      ['/portal/a/alpha/q/x', '/portal/a/alpha'],
    ] as const) {
      const again = await get(url);
      assert.equal(again.statusCode, 303, url);
      assert.equal(again.headers.location, to);
    }
    assert.equal((await form('/portal/a/alpha/start')).statusCode, 303);
    assert.equal((await form('/portal/a/alpha/submit')).statusCode, 303);
    for (const url of ['/portal/a/alpha/submit', '/portal/a/alpha/feedback']) {
      const again = await get(url);
      assert.equal(again.statusCode, 303, url);
      const page = await get(again.headers.location as string);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Sample assessment: completed/);
    }
    // Still a page in the candidate's language for what is not there.
    assert.equal((await get('/portal/a/alpha/nothing-here')).statusCode, 404);
  });
});
