// Hardening found by an outside probe: malformed console queries answer 400 (not 500), what a
// URL says is never reflected raw, the webhook address checks know IANA's special-purpose ranges,
// /docs has a Content-Security-Policy, a huge import's error page does not echo it whole, and
// names with bidirectional override characters are refused.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { postWebhook } from '../src/modules/webhooks/post.js';
import { isForbiddenAddress } from '../src/modules/webhooks/ssrf.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

it("refuses webhook addresses in IANA's special-purpose ranges, and mapped IPv4 by the address it carries", async () => {
  const refused = [
    // IPv6: unspecified, loopback, IPv4-compatible, mapped private/loopback in both spellings, NAT64, 6to4, site-local, Teredo/ORCHID, documentation, discard, SRv6, multicast, link-local with a zone, ULA metadata, AS112
    '::',
    '::1',
    '::127.0.0.1',
    '::8.8.8.8',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::FFFF:10.0.0.1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    '64:ff9b::808:808',
    '64:ff9b:1::1',
    '2002:808:808::1',
    '2002:7f00:1::',
    'fec0::1',
    'feff::1',
    '2001::1',
    '2001:10::1',
    '2001:db8::1',
    '3fff::1',
    '100::1',
    '5f00::1',
    'ff02::1',
    'fe80::1%eth0',
    'fd00:ec2::254',
    '2620:4f:8000::1',
    // IPv4
    '127.0.0.1',
    '10.1.2.3',
    '192.0.0.8',
    '255.255.255.255',
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.1',
    '198.18.0.1',
    'not an address',
  ];
  for (const address of refused) assert.equal(isForbiddenAddress(address), true, address);
  for (const address of ['8.8.8.8', '::ffff:8.8.8.8', '::ffff:808:808', '2606:4700:4700::1111', '2a00:1450:4001::1']) assert.equal(isForbiddenAddress(address), false, address);
  for (const target of ['http://[::ffff:7f00:1]:9/x', 'http://[::ffff:127.0.0.1]:9/x', 'http://[64:ff9b::7f00:1]:9/x', 'http://[2002:7f00:1::]:9/x', 'http://[fec0::1]:9/x']) {
    assert.equal((await postWebhook(target, {}, '{}', { timeoutMs: 2000, allowPrivate: false })).response, 'address not allowed', target);
  }
});

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

  it('serves /docs under a Content-Security-Policy that runs no inline script and allows no framing', async () => {
    for (const url of ['/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
      const answer = await ctx().request({ method: 'GET', url });
      assert.equal(answer.statusCode, 200, url);
      const csp = String(answer.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/, url);
      assert.match(csp, /script-src 'self';/, url);
      assert.match(csp, /frame-ancestors 'none'/, url);
    }
  });

  it('does not echo a large refused import back whole: at most 50 clipped errors, and no document over 64 K characters', async () => {
    const documents = [
      `id: a\nname: ${'x'.repeat(500_000)}\n`, // one huge line
      `id: a\nname: "${'y'.repeat(1000)}\n`.repeat(500), // 500 errors, each quoting a long line
      `id: a\n${'z'.repeat(5_000_000)}`, // 5 MB
    ];
    for (const source of documents) {
      const viaConsole = await owner.post('/console/assessments', { instance, source });
      assert.ok(viaConsole.statusCode === 400 || viaConsole.statusCode === 413, String(viaConsole.statusCode));
      assert.ok(viaConsole.body.length < 30_000, `console: ${viaConsole.body.length} characters for a ${source.length}-character document`);
      const viaApi = await ctx().publish(instance, source);
      assert.ok(viaApi.statusCode === 400 || viaApi.statusCode === 413, String(viaApi.statusCode));
      assert.ok(viaApi.body.length < 30_000, `admin API: ${viaApi.body.length} characters`);
      if (viaApi.statusCode === 400) assert.ok(viaApi.json().errors.length <= 51);
    }
    const small = await owner.post('/console/assessments', { instance, source: 'id: [unclosed\n' });
    assert.equal(small.statusCode, 400);
    assert.match(small.body, /id: \[unclosed/, 'a small document is put back in the form');
  });

  it('refuses names with bidirectional control characters, with a 400 problem naming the field', async () => {
    await ctx().publish(instance, sampleAssessment('alpha'));
    const key = await ctx().key([instance]);
    for (const bidi of ['\u202e', '\u202a', '\u2066', '\u2069']) {
      const invite = await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': key, instance },
        payload: { email: 'bidi@example.com', firstName: `Eve${bidi}gnp.exe`, lastName: 'Doe', assessments: ['alpha'] },
      });
      assert.equal(invite.statusCode, 400, invite.body);
      assert.equal(invite.json().type, 'urn:assessment-connect:problem:validation-failed');
      assert.deepEqual(
        invite.json().errors.map((e: { name: string }) => e.name),
        ['firstName'],
      );
      assert.match(invite.json().errors[0].detail, /bidirectional/);
      const last = await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': key, instance },
        payload: { email: 'bidi@example.com', firstName: 'Eve', lastName: `${bidi}Doe`, assessments: ['alpha'] },
      });
      assert.equal(last.statusCode, 400);
    }
    for (const payload of [{ displayName: 'Acme \u202eLtd' }, { mailFromName: 'Acme \u2067Hiring' }]) {
      const patched = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload });
      assert.equal(patched.statusCode, 400, JSON.stringify(payload));
      assert.match(patched.body, /bidirectional/);
    }
    const label = await ctx().request({ method: 'POST', url: '/admin/v1/keys', payload: { instances: [instance], label: 'prod\u202e' } });
    assert.equal(label.statusCode, 400);
    // The console's forms: the same rules.
    const form = await owner.post('/console/invitations', { instance, email: 'bidi@example.com', firstName: 'Eve\u202e', lastName: 'Doe', assessments: 'alpha' });
    assert.equal(form.statusCode, 400);
    const settings = await owner.post('/console/settings', { instance, inviteTtlDays: '14', displayName: 'Acme \u202eLtd' });
    assert.equal(settings.statusCode, 400);
    assert.equal((await owner.post('/console/keys', { instance, label: 'prod\u2066' })).statusCode, 400);
    assert.equal((await owner.post('/console/users', { email: 'ev\u202ee@example.com', role: 'owner' })).statusCode, 400);
    // Right-to-left names themselves are fine.
    const arabic = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': key, instance },
      payload: { email: 'rtl@example.com', firstName: 'ليلى', lastName: 'כהן', assessments: ['alpha'] },
    });
    assert.equal(arabic.statusCode, 200, arabic.body);
  });
});
