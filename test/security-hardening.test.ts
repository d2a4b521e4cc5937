// Hardening found by an outside probe: malformed console queries answer 400 (not 500), what a
// URL says is never reflected raw, the webhook address checks know IANA's special-purpose ranges,
// /docs has a Content-Security-Policy, a huge import's error page does not echo it whole, and
// names with bidirectional override characters are refused.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

describeEachStore('hardening', (ctx) => {
  let instance: string;
  let owner: Awaited<ReturnType<typeof consoleAs>>;

  it('answers malformed console queries and form fields with 400 pages, not 500', async () => {
    instance = await ctx().instance('hard');
    const { password } = await consoleUser(ctx(), `hard-owner-${instance}@example.com`, 'owner');
    owner = await consoleAs(ctx(), `hard-owner-${instance}@example.com`, password);
    for (const url of [
      `/console/candidates?instance=${instance}&q=%00`,
      `/console/candidates?instance=${instance}&q=a&q=b`,
      '/console/audit?actor=%00',
      '/console/audit?actor=a&actor=b',
      `/console/candidates?instance=${instance}&instance=${instance}`,
      '/console/audit?action=x%00y',
    ]) {
      const answer = await owner.get(url);
      assert.equal(answer.statusCode, 400, `${url}: ${answer.statusCode}`);
      assert.match(String(answer.headers['content-type']), /^text\/html/);
      assert.match(answer.body, /That did not work/);
    }
    const label = await owner.post('/console/keys', { instance, label: 'bad\u0000label' });
    assert.equal(label.statusCode, 400);
  });

  it('never reflects ?instance= raw', async () => {
    const probe = '<script>alert(1)</script>';
    const answer = await owner.get(`/console/?instance=${encodeURIComponent(probe)}`);
    assert.equal(answer.statusCode, 403);
    assert.ok(!answer.body.includes(probe), 'reflected raw');
    assert.ok(!answer.body.includes('&lt;script&gt;'), 'a malformed name is not repeated at all');
    assert.match(answer.body, /no access to an instance by that name/);
  });
});
