// Without a relay: e-mails are .eml files, the /dev/mail page lists and shows them to this
// machine only, and an instance's own template files are used for its e-mails.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { invite } from './support/portal.js';

const templatesDir = mkdtempSync(path.join(tmpdir(), 'ac-templates-'));
after(() => rmSync(templatesDir, { recursive: true, force: true }));

describeEachStore(
  'file transport and the development mailbox',
  (ctx) => {
    let instance: string;
    let key: string;
    before(async () => {
      instance = await ctx().instance('devmail');
      await ctx().publish(instance, sampleAssessment());
      key = await ctx().key([instance]);
      mkdirSync(path.join(templatesDir, instance));
      writeFileSync(path.join(templatesDir, instance, 'invitation.subject.txt'), '{{instance}} invites {{fullName}}');
    });

    const local = { remoteAddress: '127.0.0.1' };

    it('writes the e-mail as an .eml file, lists it, and shows it with a clickable link', async () => {
      const result = await invite(ctx(), { instance, key }, { email: 'dev@example.com', firstName: 'Dev <b>', lastName: 'Mailbox' }, ['sample'], { query: '?sendInvite=true' });
      assert.equal(result.invitationStatus, 'SENT');
      const files = readdirSync(ctx().mailDir).filter((f) => f.endsWith('.eml'));
      assert.equal(files.length, 1);

      const list = await ctx().request({ method: 'GET', url: '/dev/mail', ...local });
      assert.equal(list.statusCode, 200);
      assert.match(String(list.headers['content-type']), /^text\/html/);
      assert.match(list.headers['content-security-policy'] as string, /default-src 'none'/);
      assert.ok(list.body.includes(`${instance} invites Dev &lt;b&gt; Mailbox`), 'the instance template made the subject, escaped on the page');
      const href = /href="(\/dev\/mail\/[^"]+\.eml)"/.exec(list.body)![1]!;

      const shown = await ctx().request({ method: 'GET', url: href, ...local });
      assert.equal(shown.statusCode, 200);
      assert.ok(shown.body.includes(`<a href="${result.link}">`), 'the invite link is clickable');
      assert.match(shown.body, /<iframe[^>]+sandbox=/);
      const htmlPart = await ctx().request({ method: 'GET', url: `${href}?part=html`, ...local });
      assert.ok(htmlPart.body.includes(`href="${result.link}"`));
      assert.ok(htmlPart.body.includes('Hello Dev &lt;b&gt;,'));

      const deliveries = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries` })).json();
      assert.equal(deliveries[0].status, 'SENT');
      assert.match(deliveries[0].response, /^kept in the local mailbox \(no SMTP relay set\), as [^/]*\.eml$/);
    });

    it('answers only requests from this machine, and only for files it wrote', async () => {
      for (const url of ['/dev/mail', '/dev/mail/x.eml']) {
        const remote = await ctx().request({ method: 'GET', url, remoteAddress: '10.1.2.3' });
        assert.equal(remote.statusCode, 404, url);
        assert.equal(remote.headers['content-type'], 'application/problem+json; charset=utf-8');
      }
      for (const url of ['/dev/mail/..%2F..%2Fetc%2Fpasswd', '/dev/mail/..%2Fadmin-token.eml', '/dev/mail/nothing.eml', '/dev/mail/%00.eml']) {
        const response = await ctx().request({ method: 'GET', url, ...local });
        assert.equal(response.statusCode, 404, url);
      }
    });
  },
  { devMail: true, templatesDir },
);

describeEachStore('no development mailbox unless asked', (ctx) => {
  it('has no /dev/mail route when a relay is configured', async () => {
    const response = await ctx().request({ method: 'GET', url: '/dev/mail', remoteAddress: '127.0.0.1' });
    assert.equal(response.statusCode, 404);
  });
});
