// Per-instance branding: every setting's validation through the admin API (a refused value
// changes nothing), the logo's checks and how it is served, and what a candidate sees of it in the
// portal's header, title, theme and footer; with nothing set, the fallbacks of brandOf().
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { describeEachStore, sampleAssessment, type TestContext } from '../../../test/harness.js';
import sharp from 'sharp';
import { TINY_PNG, samePixels } from '../../../test/support/images.js';
import { brandOf, checkBranding, contrastAgainstWhite, sniffImage } from './branding.js';

// Real images (a logo is decoded and encoded again, so a header alone is refused).
const JPEG = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } })
  .jpeg()
  .toBuffer();
const WEBP = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } })
  .webp()
  .toBuffer();
const SVG = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

describe('brandOf and the checks', () => {
  const bare = { name: 'acme', displayName: null, mailFromName: null, mailFromAddress: null, accentColor: null, supportEmail: null, privacyUrl: null, logoSha256: null };

  it('names the company by display name, else sender name, else instance name; always someone to contact', () => {
    assert.deepEqual([brandOf(bare).company, brandOf(bare).senderName, brandOf(bare).contactEmail], ['acme', 'acme', null]);
    const sender = { ...bare, mailFromName: 'Acme Hiring', mailFromAddress: 'hiring@acme.example' };
    assert.deepEqual([brandOf(sender).company, brandOf(sender).senderName, brandOf(sender).contactEmail], ['Acme Hiring', 'Acme Hiring', 'hiring@acme.example']);
    const branded = { ...sender, displayName: 'Acme Ltd', supportEmail: 'jobs@acme.example', accentColor: '#0B57D0', logoSha256: 'ab'.repeat(32) };
    const brand = brandOf(branded);
    assert.deepEqual([brand.company, brand.senderName, brand.contactEmail], ['Acme Ltd', 'Acme Hiring', 'jobs@acme.example'], 'an explicit sender name stays the sender');
    assert.equal(brandOf({ ...branded, mailFromName: null }).senderName, 'Acme Ltd', 'else the display name sends');
    assert.equal(brand.logoPath, `/brand/acme/logo/${'ab'.repeat(8)}`);
    assert.equal(brand.themePath, '/brand/acme/theme.css?v=0B57D0');
  });

  it('computes WCAG contrast against white', () => {
    assert.equal(Math.round(contrastAgainstWhite('#000000') * 100) / 100, 21);
    assert.equal(Math.round(contrastAgainstWhite('#FFFFFF') * 100) / 100, 1);
    assert.ok(contrastAgainstWhite('#767676') >= 4.5 && contrastAgainstWhite('#777777') < 4.5, 'the well-known AA boundary grey');
    assert.deepEqual(checkBranding({ accentColor: '#777777' }).errors, [
      { name: 'accentColor', detail: '#777777 has a contrast ratio of 4.4:1 against white; AA needs 4.5:1 (choose a darker colour)' },
    ]);
  });

  it('reads the image type from the bytes', () => {
    assert.equal(sniffImage(TINY_PNG), 'image/png');
    assert.equal(sniffImage(JPEG), 'image/jpeg');
    assert.equal(sniffImage(WEBP), 'image/webp');
    assert.equal(sniffImage(SVG), 'image/svg+xml');
    assert.equal(sniffImage(Buffer.from('  <svg></svg>')), 'image/svg+xml');
    assert.equal(sniffImage(Buffer.from('GIF89a....')), 'image/gif');
    assert.equal(sniffImage(Buffer.from('hello')), undefined);
  });
});

describeEachStore('instance branding', (ctx) => {
  const patch = (instance: string, payload: object) => ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload });
  const get = async (instance: string) => (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === instance);
  const putLogo = (instance: string, type: string, body: Buffer) =>
    ctx().request({ method: 'PUT', url: `/admin/v1/instances/${instance}/logo`, headers: { 'content-type': type }, payload: body });

  it('sets, shows and clears each branding setting', async () => {
    const instance = await ctx().instance('brand');
    const fresh = await get(instance);
    assert.deepEqual([fresh.displayName, fresh.accentColor, fresh.supportEmail, fresh.privacyUrl, fresh.logoUrl, fresh.company], [null, null, null, null, null, instance]);
    const set = await patch(instance, { displayName: '  Acme Ltd  ', accentColor: '#0b57d0', supportEmail: 'jobs@acme.example', privacyUrl: 'https://acme.example/privacy' });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(
      [set.json().displayName, set.json().accentColor, set.json().supportEmail, set.json().privacyUrl, set.json().company],
      ['Acme Ltd', '#0B57D0', 'jobs@acme.example', 'https://acme.example/privacy', 'Acme Ltd'],
    );
    const local = await patch(instance, { privacyUrl: 'http://localhost:8080/privacy' });
    assert.equal(local.json().privacyUrl, 'http://localhost:8080/privacy', 'http is allowed for localhost');
    const cleared = await patch(instance, { displayName: null, accentColor: null, supportEmail: null, privacyUrl: null });
    assert.deepEqual(
      [cleared.json().displayName, cleared.json().accentColor, cleared.json().supportEmail, cleared.json().privacyUrl, cleared.json().company],
      [null, null, null, null, instance],
    );
    const created = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: `${instance}-b`, displayName: 'Beta GmbH', accentColor: '#1D6B57' } });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().company, 'Beta GmbH');
  });

  it('refuses bad values with a clear message, and changes nothing', async () => {
    const instance = await ctx().instance('brandbad');
    const before = (
      await patch(instance, { displayName: 'Acme Ltd', accentColor: '#0B57D0', supportEmail: 'jobs@acme.example', privacyUrl: 'https://acme.example/privacy' })
    ).json();
    const cases: [object, RegExp][] = [
      [{ displayName: '' }, /displayName/],
      [{ displayName: '   ' }, /displayName must not be blank/],
      [{ displayName: 'x'.repeat(101) }, /displayName/],
      [{ displayName: 'Evil\r\nBcc: x@y.z' }, /displayName/],
      [{ accentColor: 'blue' }, /accentColor/],
      [{ accentColor: '#12345' }, /accentColor/],
      [{ accentColor: '#FFD700' }, /^accentColor #FFD700 has a contrast ratio of 1\.4:1 against white; AA needs 4\.5:1/],
      [{ accentColor: '#ffffff' }, /#FFFFFF has a contrast ratio of 1\.0:1/],
      [{ supportEmail: 'not an address' }, /supportEmail/],
      [{ privacyUrl: 'http://acme.example/privacy' }, /privacyUrl must be an https:\/\/ address/],
      [{ privacyUrl: 'javascript:alert(1)' }, /privacyUrl must be an https:\/\/ address/],
      [{ privacyUrl: 'http://localhost.evil.example/' }, /privacyUrl/],
      [{ privacyUrl: 'https://user:pw@acme.example/' }, /privacyUrl/],
      [{ privacyUrl: 'not a url' }, /privacyUrl/],
      // One bad field refuses the whole change: the good one is not saved either.
      [{ displayName: 'New Name', accentColor: '#FFFF00' }, /accentColor #FFFF00/],
    ];
    for (const [payload, message] of cases) {
      const response = await patch(instance, payload);
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.match(response.json().detail, message, JSON.stringify(payload));
    }
    const contrast = await patch(instance, { accentColor: '#FFD700' });
    assert.deepEqual(contrast.json().errors, [
      { in: 'body', name: 'accentColor', pointer: '#/accentColor', detail: '#FFD700 has a contrast ratio of 1.4:1 against white; AA needs 4.5:1 (choose a darker colour)' },
    ]);
    assert.deepEqual(await get(instance), before);
    const refusedCreate = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: `${instance}-c`, accentColor: '#FFD700' } });
    assert.equal(refusedCreate.statusCode, 400);
    assert.equal(await get(`${instance}-c`), undefined, 'no instance was made');
  });

  it('takes a logo by its bytes, serves it with safe headers, and removes it', async () => {
    const instance = await ctx().instance('logo');
    const set = await putLogo(instance, 'image/png', TINY_PNG);
    assert.equal(set.statusCode, 200, set.body);
    const logoUrl = set.json().logoUrl as string;
    assert.match(logoUrl, new RegExp(`^/brand/${instance}/logo/[0-9a-f]{16}$`));
    const served = await ctx().request({ method: 'GET', url: logoUrl });
    assert.equal(served.statusCode, 200);
    assert.ok(await samePixels(served.rawPayload, TINY_PNG), 'the stored logo is the same image, encoded again');
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    assert.equal(served.headers['content-security-policy'], "default-src 'none'");
    const stable = await ctx().request({ method: 'GET', url: `/brand/${instance}/logo` });
    assert.equal(stable.statusCode, 200);
    assert.equal(stable.headers['cache-control'], 'public, max-age=300');
    assert.ok(await samePixels(stable.rawPayload, TINY_PNG));
    // Another logo: another URL; the old one no longer answers.
    const other = await putLogo(instance, 'image/jpeg', JPEG);
    assert.equal(other.statusCode, 200, other.body);
    assert.notEqual(other.json().logoUrl, logoUrl);
    assert.equal((await ctx().request({ method: 'GET', url: logoUrl })).statusCode, 404);
    assert.equal((await ctx().request({ method: 'GET', url: other.json().logoUrl })).headers['content-type'], 'image/jpeg');
    assert.equal((await putLogo(instance, 'image/webp', WEBP)).statusCode, 200);
    const audit = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=10' })).json() as { action: string; target: string }[];
    assert.ok(
      audit.some((e) => e.action === 'instance.logo.set' && e.target === instance),
      'setting a logo is audited',
    );

    const removed = await ctx().request({ method: 'DELETE', url: `/admin/v1/instances/${instance}/logo` });
    assert.equal(removed.statusCode, 200);
    assert.equal(removed.json().logoUrl, null);
    assert.equal((await ctx().request({ method: 'GET', url: `/brand/${instance}/logo` })).statusCode, 404);
    assert.equal((await ctx().request({ method: 'DELETE', url: `/admin/v1/instances/${instance}/logo` })).statusCode, 200, 'removing twice is harmless');
    assert.equal((await ctx().request({ method: 'DELETE', url: '/admin/v1/instances/no-such-instance/logo' })).statusCode, 404);
    assert.equal((await putLogo('no-such-instance', 'image/png', TINY_PNG)).statusCode, 404);
  });

  it('encodes a logo again: a PNG with a script after it is stored without it, metadata is dropped, a decompression bomb is refused before it is decoded', async () => {
    const instance = await ctx().instance('logore');
    const polyglot = Buffer.concat([TINY_PNG, Buffer.from('<script>alert(document.domain)</script>')]);
    const set = await putLogo(instance, 'image/png', polyglot);
    assert.equal(set.statusCode, 200, set.body);
    const served = (await ctx().request({ method: 'GET', url: set.json().logoUrl })).rawPayload;
    assert.equal(served.includes('alert'), false, 'the script after the image is not stored');
    assert.ok(await samePixels(served, TINY_PNG));

    const tagged = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0055aa' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'GPS 52.5200 13.4050 secret-place' } })
      .toBuffer();
    assert.ok(tagged.includes('secret-place'), 'the fixture carries metadata');
    const withExif = await putLogo(instance, 'image/jpeg', tagged);
    assert.equal(withExif.statusCode, 200, withExif.body);
    const stored = (await ctx().request({ method: 'GET', url: withExif.json().logoUrl })).rawPayload;
    assert.equal(stored.includes('secret-place'), false, 'metadata is dropped');

    const bomb = await sharp({ create: { width: 5000, height: 5000, channels: 3, background: '#ffffff' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    assert.ok(bomb.length < 200 * 1024, `the bomb is small (${bomb.length} bytes)`);
    const refused = await putLogo(instance, 'image/png', bomb);
    assert.equal(refused.statusCode, 413, refused.body);
    assert.match(refused.json().detail, /pixels/);
    assert.equal((await ctx().request({ method: 'GET', url: withExif.json().logoUrl })).statusCode, 200, 'the logo before stays');

    const big = await sharp({ create: { width: 2000, height: 500, channels: 3, background: '#112233' } })
      .png()
      .toBuffer();
    const scaled = await putLogo(instance, 'image/png', big);
    assert.equal(scaled.statusCode, 200, scaled.body);
    const meta = await sharp((await ctx().request({ method: 'GET', url: scaled.json().logoUrl })).rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height], [1024, 256], 'scaled down to 1024 pixels a side');
  });

  it('refuses a logo that is SVG, too big, of another type than declared, or not an image; nothing changes', async () => {
    const instance = await ctx().instance('logobad');
    const kept = (await putLogo(instance, 'image/png', TINY_PNG)).json().logoUrl;
    const big = Buffer.concat([TINY_PNG, Buffer.alloc(200 * 1024)]);
    const cases: [string, Buffer, number, RegExp][] = [
      ['image/svg+xml', SVG, 415, /SVG logos are refused: an SVG is a document that can carry scripts/],
      ['image/png', SVG, 415, /SVG logos are refused/],
      ['image/png', big, 413, /The logo is 201 KB; the limit is 200 KB/],
      ['image/png', JPEG, 400, /declared image\/png but its bytes are image\/jpeg/],
      ['image/jpeg', TINY_PNG, 400, /declared image\/jpeg but its bytes are image\/png/],
      ['image/webp', Buffer.from('hello, not an image'), 400, /bytes are not a PNG, JPEG or WebP image/],
      ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00'), 415, /image\/png, image\/jpeg or image\/webp, not image\/gif/],
      ['application/octet-stream', TINY_PNG, 415, /not application\/octet-stream/],
    ];
    for (const [type, body, status, message] of cases) {
      const response = await putLogo(instance, type, body);
      assert.equal(response.statusCode, status, `${type}: ${response.body}`);
      assert.match(response.json().detail, message);
    }
    const huge = await putLogo(instance, 'image/png', Buffer.alloc(2 * 1024 * 1024));
    assert.equal(huge.statusCode, 413, 'past the parser limit too');
    assert.equal((await get(instance)).logoUrl, kept, 'the logo is the one before');
  });

  it('serves the accent colour as a stylesheet', async () => {
    const instance = await ctx().instance('theme');
    const none = await ctx().request({ method: 'GET', url: `/brand/${instance}/theme.css` });
    assert.equal(none.statusCode, 200);
    assert.doesNotMatch(none.body, /--accent/);
    await patch(instance, { accentColor: '#1D6B57' });
    const theme = await ctx().request({ method: 'GET', url: `/brand/${instance}/theme.css?v=1D6B57` });
    assert.equal(theme.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(theme.headers['x-content-type-options'], 'nosniff');
    assert.equal(theme.body, ':root { --accent: #1D6B57; }\n');
    assert.equal((await ctx().request({ method: 'GET', url: '/brand/no-such-instance/theme.css' })).body, none.body, 'an unknown instance: the default stylesheet');
    assert.equal((await ctx().request({ method: 'GET', url: '/brand/no-such-instance/logo' })).statusCode, 404);
  });

  describe('what the candidate sees', () => {
    async function candidatePages(c: TestContext, instance: string, paths: string[]) {
      await c.publish(instance, sampleAssessment('alpha', { name: 'Alpha' }));
      const key = await c.key([instance]);
      const [invite] = (
        await c.request({
          method: 'POST',
          url: '/v1/invite',
          headers: { 'x-api-key': key, instance },
          payload: { email: 'cand@x.co', firstName: 'Cand', lastName: 'Idate', assessments: ['alpha'] },
        })
      ).json();
      const opened = await c.request({ method: 'POST', url: '/portal/api/session', payload: { token: invite.link.split('sessionToken=')[1] } });
      const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
      return Promise.all(paths.map(async (path) => (await c.request({ method: 'GET', url: path, headers: { cookie } })).body));
    }
    const candidatePage = async (c: TestContext, instance: string) => (await candidatePages(c, instance, ['/portal/']))[0]!;

    it('the portal shows the logo, the title, the theme and the footer', async () => {
      const instance = await ctx().instance('portal');
      await patch(instance, { displayName: 'Acme & Sons <Ltd>', accentColor: '#1D6B57', supportEmail: 'jobs@acme.example', privacyUrl: 'https://acme.example/privacy' });
      const logoUrl = (await putLogo(instance, 'image/png', TINY_PNG)).json().logoUrl;
      // The dashboard, an assessment's introduction, and a page about a refusal (a page of errors).
      for (const body of await candidatePages(ctx(), instance, ['/portal/', '/portal/a/alpha', '/portal/a/no-such'])) {
        assert.match(body, /<title>[^<]+ · Acme &amp; Sons &lt;Ltd&gt;<\/title>/);
        assert.ok(body.includes(`<img class="brand-logo" src="${logoUrl}" alt="Acme &amp; Sons &lt;Ltd&gt;">`), body);
        assert.ok(body.includes('<link rel="stylesheet" href="/brand/'), 'the theme stylesheet');
        assert.ok(body.includes(`href="/brand/${instance}/theme.css?v=1D6B57"`));
        assert.match(body, /Questions\? Contact <a href="mailto:jobs@acme\.example">jobs@acme\.example<\/a>\./);
        assert.match(body, /<a href="https:\/\/acme\.example\/privacy">Privacy notice of Acme &amp; Sons &lt;Ltd&gt;<\/a>/);
        assert.doesNotMatch(body, /class="brand">Assessments/);
        assert.doesNotMatch(body, /style=|<script>/, 'no inline style or script');
      }
    });

    it('without branding the portal still names the company and whom to contact', async () => {
      const instance = await ctx().instance('plain');
      const body = await candidatePage(ctx(), instance);
      assert.match(body, new RegExp(`<title>Your assessments · ${instance}</title>`));
      assert.match(body, new RegExp(`<p class="brand">${instance}</p>`));
      assert.match(body, new RegExp(`Questions\\? Contact ${instance}, who invited you\\.`));
      assert.doesNotMatch(body, /theme\.css|brand-logo|Privacy notice/);
      await patch(instance, { mailFromName: 'Plain Hiring', mailFromAddress: 'hiring@plain.example' });
      const bySender = await candidatePage(ctx(), instance);
      assert.match(bySender, /<p class="brand">Plain Hiring<\/p>/);
      assert.match(bySender, /Questions\? Contact <a href="mailto:hiring@plain\.example">/);
    });
  });

  describe('the e-mail', () => {
    /** The .eml files the file mailer wrote for this recipient, oldest first, parsed. */
    async function mailsTo(address: string) {
      const files = readdirSync(ctx().mailDir)
        .filter((f) => f.endsWith('.eml'))
        .sort();
      const parsed = await Promise.all(files.map((f) => simpleParser(readFileSync(path.join(ctx().mailDir, f)))));
      return parsed.filter((m) => (m.to as { value: { address: string }[] }).value[0]!.address === address);
    }
    async function inviteAndRemind(instance: string, email: string) {
      await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha' }));
      const key = await ctx().key([instance]);
      const [invited] = (
        await ctx().request({
          method: 'POST',
          url: '/v1/invite?sendInvite=true',
          headers: { 'x-api-key': key, instance },
          payload: { email, firstName: 'Ada', lastName: 'Lovelace', assessments: ['alpha'] },
        })
      ).json();
      assert.equal(invited.invitationStatus, 'SENT');
      const reminded = await ctx().request({ method: 'POST', url: `/v1/candidates/${invited.candidateId}/invitations/alpha/remind`, headers: { 'x-api-key': key } });
      assert.equal(reminded.statusCode, 200, reminded.body);
      return mailsTo(email);
    }

    it('the invitation and the reminder come from the company, name it, and say whom to contact', async () => {
      const instance = await ctx().instance('mailbrand');
      await patch(instance, { displayName: 'Acme Ltd', supportEmail: 'jobs@acme.example' });
      const mails = await inviteAndRemind(instance, `branded-${ctx().store}@example.com`);
      assert.equal(mails.length, 2, 'the invitation and the reminder');
      for (const mail of mails) {
        assert.deepEqual(
          mail.from?.value.map((a) => [a.name, a.address]),
          [['Acme Ltd', 'no-reply@localhost']],
          'the display name sends, from the service address',
        );
        assert.match(mail.subject ?? '', /^(Your invitation|Reminder) from Acme Ltd: Alpha$/);
        assert.match(mail.text ?? '', /^(Acme Ltd invites you to take|This is a reminder from Acme Ltd: you have not started) the following assessment( yet)?:$/m);
        assert.match(mail.text ?? '', /^Questions\? Contact jobs@acme\.example\.$/m);
        assert.match(String(mail.html), /<p>Questions\? Contact jobs@acme\.example\.<\/p>/);
        assert.doesNotMatch(String(mail.html), /<img/, 'no remote images');
      }
      // An explicit sender name stays the sender; the body still names the company.
      await patch(instance, { mailFromName: 'Acme Recruiting', mailFromAddress: 'recruiting@acme.example' });
      const [, , again] = await inviteAndRemind(instance, `branded-${ctx().store}@example.com`);
      assert.deepEqual(
        again!.from?.value.map((a) => [a.name, a.address]),
        [['Acme Recruiting', 'recruiting@acme.example']],
      );
      assert.equal(again!.subject, 'Your invitation from Acme Ltd: Alpha');
    });

    it('without branding the e-mail names the instance and the company that invited', async () => {
      const instance = await ctx().instance('mailplain');
      const [mail] = await inviteAndRemind(instance, `plain-${ctx().store}@example.com`);
      assert.deepEqual(
        mail!.from?.value.map((a) => [a.name, a.address]),
        [[instance, 'no-reply@localhost']],
        'not "Assessment Connect"',
      );
      assert.equal(mail!.subject, `Your invitation from ${instance}: Alpha`);
      assert.match(mail!.text ?? '', new RegExp(`Questions\\? Contact ${instance}, who invited you\\.`));
    });
  });
});
