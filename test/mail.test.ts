// Invitation e-mail through a real SMTP relay (smtp-server on a loopback port), read back with
// mailparser: what arrives, what the service reports when the relay refuses, is down or hangs,
// that the invitation stands either way, and that a slow relay holds nobody else up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createMailer, type Mailer } from '../src/modules/mail/mailer.js';
import { createTestContext, freePort, sampleAssessment, storeKinds, type TestContext } from './harness.js';
import { startRelay, type Relay } from './relay.js';
import { invite as inviteThroughApi, type Invitee } from './support/portal.js';

const BOUND_MS = 2000;

/** A mailer that hands each message to whichever real mailer the test has switched to. */
function switchable(initial: Mailer): Mailer & { use(next: Mailer): void } {
  let current = initial;
  return {
    get description() {
      return current.description;
    },
    send: (from, message) => current.send(from, message),
    close: () => current.close(),
    use(next) {
      current = next;
    },
  };
}

const linkOf = (text: string) => /(http:\/\/portal\.test\/portal\/#\?sessionToken=[A-Za-z0-9_-]+)/.exec(text)?.[1];
const tokenOf = (link: string) => link.split('sessionToken=')[1]!;

for (const kind of storeKinds()) {
  describe(`invitation e-mail through an SMTP relay [${kind.name}]`, () => {
    let relay: Relay;
    let relayMailer: Mailer;
    let mailer: ReturnType<typeof switchable>;
    let ctx: TestContext & { close(): Promise<void> };
    let instance: string;
    let key: string;
    let n = 0;
    const others: Mailer[] = [];

    before(async () => {
      relay = await startRelay();
      relayMailer = createMailer({ smtpUrl: relay.url, timeoutMs: BOUND_MS, mailDir: '/nonexistent' });
      mailer = switchable(relayMailer);
      ctx = await createTestContext(kind, { mailer });
      instance = await ctx.instance('mail');
      assert.equal((await ctx.publish(instance, sampleAssessment('sample', { name: 'Q&A <Basics>', durationMinutes: 25 }))).statusCode, 201);
      assert.equal((await ctx.publish(instance, sampleAssessment('typing', { name: 'Typing', durationMinutes: 1, typing: true }))).statusCode, 201);
      const patched = await ctx.request({
        method: 'PATCH',
        url: `/admin/v1/instances/${instance}`,
        payload: { mailFromName: 'Acme Hiring', mailFromAddress: 'hiring@acme.example' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      key = await ctx.key([instance]);
    });
    after(async () => {
      await ctx.close();
      relayMailer.close();
      for (const m of others) m.close();
      await relay.close();
    });

    const invite = async (person: Invitee, send = true) =>
      (await inviteThroughApi(ctx, { instance, key }, { firstName: 'Ada', lastName: 'Lovelace', ...person }, ['sample', 'typing'], { query: `?sendInvite=${send}` })).response;
    const email = (tag: string) => `${tag}-${kind.name}-${++n}@example.com`;
    const deliveries = async (status?: string) => {
      const response = await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries?limit=500${status ? `&status=${status}` : ''}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as { id: string; candidateId: string; recipient: string; status: string; messageId: string | null; response: string }[];
    };
    const scores = async (candidateId: string) => {
      const response = await ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } });
      assert.equal(response.statusCode, 200);
      return response.json() as { assessmentStatus: string }[];
    };

    it('delivers one well-formed message with both parts, whose link opens the portal', async () => {
      const to = email('happy');
      const before = relay.received.length;
      const response = await invite({ email: to });
      assert.equal(response.statusCode, 200, response.body);
      const [result] = response.json();
      assert.equal(result.invitationStatus, 'SENT');
      await relay.waitFor(before + 1);
      assert.equal(relay.received.length, before + 1);
      const { mail, raw, envelopeTo, secure } = relay.received.at(-1)!;

      assert.deepEqual(envelopeTo, [to]);
      assert.equal(secure, true, 'STARTTLS offered by the relay is used');
      assert.equal(mail.from?.value[0]?.address, 'hiring@acme.example');
      assert.equal(mail.from?.value[0]?.name, 'Acme Hiring');
      assert.equal((mail.to as { value: { address: string; name: string }[] }).value[0]!.address, to);
      assert.equal((mail.to as { value: { address: string; name: string }[] }).value[0]!.name, 'Ada Lovelace');
      assert.equal(mail.subject, 'Your invitation from Acme Hiring: Q&A <Basics>, Typing');
      assert.match(mail.messageId ?? '', /^<.+@.+>$/);
      assert.ok(mail.date instanceof Date && !Number.isNaN(mail.date.getTime()));
      assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
      assert.match(raw.toString('latin1'), /^Content-Type: multipart\/alternative/im);

      const text = mail.text ?? '';
      const html = String(mail.html);
      assert.equal(linkOf(text), result.link);
      assert.match(text, /Hello Ada,/);
      assert.match(text, /- Q&A <Basics> \(25 minutes\)/);
      assert.match(text, /- Typing \(1 minute\)/);
      const expires = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(Date.now() + 14 * 86_400_000));
      assert.match(text, new RegExp(`valid until ${expires} at \\d{1,2}:\\d{2}\\s[AP]M \\(UTC\\)`));
      assert.ok(html.includes(`href="${result.link}"`));
      assert.match(html, /<li>Q&amp;A &lt;Basics&gt; \(25 minutes\)<\/li>/);
      assert.doesNotMatch(html, /<img/i, 'no tracking pixel');

      const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: tokenOf(linkOf(text)!) } });
      assert.equal(opened.statusCode, 200, opened.body);
      const dashboard = await ctx.request({ method: 'GET', url: '/portal/', headers: { cookie: String(opened.headers['set-cookie']).split(';')[0]! } });
      assert.match(dashboard.body, /Q&amp;A &lt;Basics&gt;/);

      const [delivery] = await deliveries();
      assert.equal(delivery!.recipient, to);
      assert.equal(delivery!.status, 'SENT');
      assert.equal(delivery!.messageId, mail.messageId);
      assert.match(delivery!.response, /^250 /);
    });

    it("gives the deadline in the instance's time zone with its offset named; a zone that does not exist is refused", async () => {
      const refused = await ctx.request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { timeZone: 'Mars/Olympus' } });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /timeZone.*IANA/);
      const set = await ctx.request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { timeZone: 'america/new_york' } });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().timeZone, 'America/New_York');
      try {
        const before = relay.received.length;
        assert.equal((await invite({ email: email('zone') })).statusCode, 200);
        await relay.waitFor(before + 1);
        const text = relay.received.at(-1)!.mail.text ?? '';
        const expiry = new Date(Date.now() + 14 * 86_400_000);
        const day = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'America/New_York' }).format(expiry);
        const offset = new Intl.DateTimeFormat('en', { timeZone: 'America/New_York', timeZoneName: 'longOffset' })
          .formatToParts(expiry)
          .find((p) => p.type === 'timeZoneName')!.value;
        assert.match(text, new RegExp(`valid until ${day} at \\d{1,2}:\\d{2}\\s[AP]M \\(America/New_York, ${offset.replace('GMT', 'UTC').replace('+', '\\+')}\\)`));
      } finally {
        assert.equal((await ctx.request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { timeZone: 'UTC' } })).statusCode, 200);
      }
    });

    it('renders hostile names and Unicode right in both parts and the headers', async () => {
      const to = email('hostile');
      const before = relay.received.length;
      const response = await invite({ email: to, firstName: '<script>alert(1)</script>', lastName: "Ünïcødé O'Brien" });
      assert.equal(response.json()[0].invitationStatus, 'SENT');
      await relay.waitFor(before + 1);
      const { mail, raw } = relay.received.at(-1)!;
      assert.equal((mail.to as { value: { name: string }[] }).value[0]!.name, "<script>alert(1)</script> Ünïcødé O'Brien");
      assert.match(mail.text ?? '', /Hello <script>alert\(1\)<\/script>,/);
      const html = String(mail.html);
      assert.match(html, /Hello &lt;script&gt;alert\(1\)&lt;\/script&gt;,/);
      assert.doesNotMatch(html, /<script/i);
      // Headers stay 7-bit: the Unicode name is encoded (RFC 2047), not sent raw.
      const headerBlock = raw.toString('latin1').split(/\r?\n\r?\n/)[0]!;
      assert.ok(
        [...headerBlock].every((c) => c.charCodeAt(0) < 0x80),
        'headers are 7-bit',
      );

      const unicode = await invite({ email: email('unicode'), firstName: 'Ünïcødé', lastName: "O'Brien" });
      assert.equal(unicode.json()[0].invitationStatus, 'SENT');
      await relay.waitFor(before + 2);
      const second = relay.received.at(-1)!.mail;
      assert.match(second.text ?? '', /Hello Ünïcødé,/);
      assert.match(String(second.html), /Hello Ünïcødé,/);
    });

    it('reports FAILED when the relay refuses (5xx), keeps the invitation, and sends again on a later invite', async () => {
      const to = email('refused');
      relay.mode = 'reject';
      let result;
      try {
        const response = await invite({ email: to });
        assert.equal(response.statusCode, 200, response.body);
        [result] = response.json();
      } finally {
        relay.mode = 'accept';
      }
      assert.equal(result.invitationStatus, 'FAILED');
      assert.deepEqual(
        (await scores(result.candidateId)).map((r) => r.assessmentStatus),
        ['INVITED', 'INVITED'],
      );
      const failed = (await deliveries('FAILED')).find((d) => d.recipient === to);
      assert.ok(failed, 'the failed delivery is listed');
      assert.match(failed.response, /550/);

      const before = relay.received.length;
      const again = await invite({ email: to });
      assert.equal(again.json()[0].invitationStatus, 'SENT');
      assert.equal(again.json()[0].candidateId, result.candidateId);
      await relay.waitFor(before + 1);
      assert.equal(relay.received.filter((r) => r.envelopeTo.includes(to)).length, 1);
    });

    it('reports FAILED within the bound when the relay is down, and keeps the invitation', async () => {
      const down = createMailer({ smtpUrl: `smtp://127.0.0.1:${await freePort()}`, timeoutMs: BOUND_MS, mailDir: '/nonexistent' });
      others.push(down);
      mailer.use(down);
      let response;
      const began = Date.now();
      try {
        response = await invite({ email: email('down') });
      } finally {
        mailer.use(relayMailer);
      }
      assert.ok(Date.now() - began < BOUND_MS + 2000, `answered in ${Date.now() - began} ms`);
      assert.equal(response.statusCode, 200);
      const [result] = response.json();
      assert.equal(result.invitationStatus, 'FAILED');
      assert.equal((await scores(result.candidateId)).length, 2);
      assert.match((await deliveries('FAILED'))[0]!.response, /ECONNREFUSED|connect/i);
    });

    it('reports FAILED within the bound when the relay hangs, while other requests go on', async () => {
      relay.mode = 'hang';
      const heldBefore = relay.held;
      const began = Date.now();
      let inviteDone = false;
      const hanging = invite({ email: email('hang') }).then((response) => {
        inviteDone = true;
        return response;
      });
      try {
        // Wait until the relay is holding the message, then read scores meanwhile.
        while (relay.held === heldBefore && Date.now() - began < 5000) await new Promise((r) => setTimeout(r, 10));
        assert.equal(relay.held, heldBefore + 1, 'the relay holds the message');
        const reads = await Promise.all(Array.from({ length: 20 }, () => ctx.request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': key } })));
        assert.ok(reads.every((r) => r.statusCode === 200));
        assert.equal(inviteDone, false, 'score reads were answered while the invite still waited for the relay');
        const response = await hanging;
        const waited = Date.now() - began;
        assert.ok(waited >= BOUND_MS - 50 && waited < BOUND_MS + 2000, `answered after ${waited} ms`);
        const [result] = response.json();
        assert.equal(result.invitationStatus, 'FAILED');
        assert.equal((await scores(result.candidateId)).length, 2);
        assert.match((await deliveries('FAILED'))[0]!.response, /within 2000 ms|timeout/i);
      } finally {
        relay.mode = 'accept';
      }
      // The pool recovers: the next message goes out.
      const before = relay.received.length;
      assert.equal((await invite({ email: email('after-hang') })).json()[0].invitationStatus, 'SENT');
      await relay.waitFor(before + 1);
    });

    it('delivers 50 concurrent invitations, each exactly once', async () => {
      const before = relay.received.length;
      const recipients = Array.from({ length: 50 }, () => email('burst'));
      // The default bound (5 s) rather than the short one of the failure tests: 50 messages share
      // 5 pooled connections, and this shared machine may be slow.
      const patient = createMailer({ smtpUrl: relay.url, timeoutMs: 10_000, mailDir: '/nonexistent' });
      others.push(patient);
      mailer.use(patient);
      let responses;
      try {
        responses = await Promise.all(recipients.map((to) => invite({ email: to })));
      } finally {
        mailer.use(relayMailer);
      }
      assert.deepEqual(
        responses.map((r) => r.json()[0].invitationStatus),
        recipients.map(() => 'SENT'),
      );
      await relay.waitFor(before + 50);
      // Give a late duplicate the chance to show up before counting.
      await new Promise((r) => setTimeout(r, 300));
      const got = relay.received.slice(before).flatMap((r) => r.envelopeTo);
      assert.equal(got.length, 50);
      assert.deepEqual([...got].sort(), [...recipients].sort());
      const listed = (await deliveries()).filter((d) => recipients.includes(d.recipient));
      assert.equal(listed.length, 50);
    });

    it('resends a delivery with a fresh working link (admin API)', async () => {
      const to = email('resend');
      const [first] = (await invite({ email: to })).json();
      const original = (await deliveries()).find((d) => d.recipient === to)!;
      const before = relay.received.length;
      const resent = await ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/deliveries/${original.id}/resend` });
      assert.equal(resent.statusCode, 200, resent.body);
      assert.equal(resent.json().status, 'SENT');
      assert.notEqual(resent.json().id, original.id);
      await relay.waitFor(before + 1);
      const link = linkOf(relay.received.at(-1)!.mail.text ?? '')!;
      assert.notEqual(link, first.link);
      const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: tokenOf(link) } });
      assert.equal(opened.statusCode, 200);

      for (const [url, status] of [
        [`/admin/v1/instances/${instance}/deliveries/999999999/resend`, 404],
        [`/admin/v1/instances/${instance}/deliveries/abc/resend`, 400],
        [`/admin/v1/instances/no-such-instance/deliveries/${original.id}/resend`, 404],
      ] as const) {
        const response = await ctx.request({ method: 'POST', url });
        assert.equal(response.statusCode, status, url);
        assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      }
      const other = await ctx.instance('other');
      const cross = await ctx.request({ method: 'POST', url: `/admin/v1/instances/${other}/deliveries/${original.id}/resend` });
      assert.equal(cross.statusCode, 404, 'a delivery of one instance cannot be resent through another');
      assert.equal((await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries?status=LOST` })).statusCode, 400);
      assert.equal((await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries?limit=0` })).statusCode, 400);
    });
  });

  describe(`relay security: authentication and TLS [${kind.name}]`, () => {
    const relays: Relay[] = [];
    const mailers: Mailer[] = [];
    let ctx: TestContext & { close(): Promise<void> };
    let mailer: ReturnType<typeof switchable>;
    let instance: string;
    let key: string;
    let n = 0;

    before(async () => {
      mailer = switchable(createMailer({ smtpUrl: `smtp://127.0.0.1:${await freePort()}`, timeoutMs: BOUND_MS, mailDir: '/nonexistent' }));
      ctx = await createTestContext(kind, { mailer });
      instance = await ctx.instance('tls');
      await ctx.publish(instance, sampleAssessment());
      key = await ctx.key([instance]);
    });
    after(async () => {
      await ctx.close();
      for (const m of mailers) m.close();
      for (const r of relays) await r.close();
    });

    async function through(relayUrl: string) {
      const m = createMailer({ smtpUrl: relayUrl, timeoutMs: BOUND_MS * 2, mailDir: '/nonexistent' });
      mailers.push(m);
      mailer.use(m);
      return (
        await inviteThroughApi(ctx, { instance, key }, { email: `sec-${kind.name}-${++n}@example.com`, firstName: 'Grace', lastName: 'Hopper' }, ['sample'], {
          query: '?sendInvite=true',
        })
      ).invitationStatus as string;
    }

    it('authenticates to the relay with the credentials of SMTP_URL, over STARTTLS', async () => {
      const relay = await startRelay({ credentials: { user: 'mailer@acme', pass: 'p@ss:wörd/1' } });
      relays.push(relay);
      assert.equal(await through(relay.url), 'SENT');
      await relay.waitFor(1);
      assert.equal(relay.received[0]!.user, 'mailer@acme');
      assert.equal(relay.received[0]!.secure, true);
      assert.equal(await through(relay.url.replace(encodeURIComponent('p@ss:wörd/1'), 'wrong')), 'FAILED');
      assert.equal(await through(relay.url.replace(/\/\/[^@]+@/, '//')), 'FAILED', 'no credentials: the relay refuses the message');
      assert.equal(relay.received.length, 1);
    });

    it('speaks smtps:// (TLS from the start) and checks the certificate unless told otherwise', async () => {
      const relay = await startRelay({ secure: true });
      relays.push(relay);
      assert.equal(await through(relay.url), 'SENT');
      await relay.waitFor(1);
      assert.equal(relay.received[0]!.secure, true);
      // smtp-server's own certificate is self-signed: without ?tls=insecure it is refused.
      assert.equal(await through(relay.url.replace('?tls=insecure', '')), 'FAILED');
      assert.equal(relay.received.length, 1);
    });

    it('sends in the clear only to a relay that offers no STARTTLS', async () => {
      const relay = await startRelay({ noStartTls: true });
      relays.push(relay);
      assert.equal(await through(relay.url), 'SENT');
      await relay.waitFor(1);
      assert.equal(relay.received[0]!.secure, false);
    });
  });
}
