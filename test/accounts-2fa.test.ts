// Console accounts: the TOTP second factor (RFC 6238). Enrolment with a QR code made here and the
// key in text, confirmed with a code; ten single-use recovery codes shown once and stored hashed;
// the code after the password (each code once, wrong codes limited like passwords); turning it
// off; an instance that requires it for everyone; the operator's reset (admin API and CLI); the
// secret sealed at rest; every factor change in the audit log.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachStore, type TestContext } from './harness.js';
import { runCli } from './support/cli.js';
import { movingClock } from './support/clock.js';
import { cookieOf, FORM, formOf, passwordChosen, signIn } from './support/console.js';
import { codeAt } from '../src/modules/users/totp.js';

const time = movingClock();
const PASSWORD = 'a long enough passphrase';

async function member(ctx: TestContext, email: string, role = 'owner', instances?: string[]) {
  const response = await ctx.request({ method: 'POST', url: '/admin/v1/users', payload: { email, role, instances, password: PASSWORD } });
  assert.equal(response.statusCode, 201, response.body);
  await passwordChosen(ctx, email);
  return response.json() as { id: string };
}

const csrfOf = (page: LightMyRequestResponse) => /name="csrf-token" content="([^"]+)"/.exec(page.body)?.[1] ?? /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';

/** Signs in with the password; the session may still wait for its code. */
async function session(ctx: TestContext, email: string, password = PASSWORD) {
  const response = await signIn(ctx, email, password);
  assert.equal(response.statusCode, 303, response.body);
  const cookie = cookieOf(response, 'ac_console')!;
  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { cookie } });
  return {
    cookie,
    location: String(response.headers.location),
    get,
    post: async (url: string, fields: Record<string, string> = {}, from = url) =>
      ctx.request({ method: 'POST', url, headers: { cookie, 'content-type': FORM }, payload: formOf({ _csrf: csrfOf(await get(from)), ...fields }) }),
  };
}

/** Sets up the app: returns the key read from the page and the recovery codes shown. */
async function enrol(me: Awaited<ReturnType<typeof session>>) {
  const page = await me.get('/console/account/two-factor');
  assert.equal(page.statusCode, 200, page.body);
  const secret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(page.body)![1]!;
  time.offset += 30_000;
  const done = await me.post('/console/account/two-factor', { code: codeAt(secret, time.now()) });
  assert.equal(done.statusCode, 200, done.body);
  const codes = [...done.body.matchAll(/<li><code class="secret">([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
  return { secret, codes, page: page.body };
}

async function actions(ctx: TestContext, actor: string): Promise<string[]> {
  const entries = (await ctx.request({ method: 'GET', url: '/admin/v1/audit?limit=200' })).json() as { actor: string; action: string; status: number }[];
  return entries
    .filter((e) => e.actor === actor)
    .map((e) => `${e.action} ${e.status}`)
    .reverse();
}

describeEachStore(
  'console accounts: two-factor authentication',
  (ctx) => {
    let instance: string;

    it('enrols with a QR code and the key in text, confirmed with a code, and shows ten recovery codes once', async () => {
      instance = await ctx().instance('tfa');
      const email = `enrol-${instance}@example.com`;
      const user = await member(ctx(), email);
      const me = await session(ctx(), email);
      assert.equal(me.location, '/console/', 'no second factor yet: straight in');
      const account = await me.get('/console/account');
      assert.match(account.body, /Set up an authenticator app/);

      const first = await me.get('/console/account/two-factor');
      const again = await me.get('/console/account/two-factor');
      const key = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(first.body)![1]!;
      assert.equal(key.length, 32, '160 bits in base32');
      assert.match(first.body, /<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/, 'the QR code is SVG served in the page');
      assert.doesNotMatch(first.body, /<img|https?:\/\/(?!www\.w3\.org)/, 'nothing loaded from elsewhere');
      assert.ok(again.body.includes(key), 'a reload shows the same key until it is confirmed');

      // Bad codes: a clear error, nothing turned on.
      for (const code of ['', '12345', 'abcdef', codeAt(key, new Date(time.now().getTime() - 10 * 60_000))]) {
        const refused = await me.post('/console/account/two-factor', { code });
        assert.equal(refused.statusCode, 400, code);
        assert.match(refused.body, /<code>code<\/code> /);
      }
      const listed = (await ctx().request({ method: 'GET', url: '/admin/v1/users' })).json().find((u: { id: string }) => u.id === user.id);
      assert.equal(listed.twoFactor, false);

      time.offset += 30_000;
      const done = await me.post('/console/account/two-factor', { code: codeAt(key, time.now()) });
      assert.equal(done.statusCode, 200);
      const codes = [...done.body.matchAll(/<li><code class="secret">([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);
      assert.ok(codes.every((c) => /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/.test(c)));
      assert.equal((await me.get('/console/account/two-factor')).statusCode, 303, 'set up already: back to the account page');
      assert.match((await me.get('/console/account')).body, /On: signing in asks for a code/);

      // At rest: the key is sealed (not in the row in any form), the recovery codes are hashes.
      const row = (await ctx().db.query<{ secret: Uint8Array; pending: unknown }>('SELECT totp_secret AS secret, totp_pending AS pending FROM users WHERE id = $1', [user.id]))
        .rows[0]!;
      assert.equal(row.pending, null);
      assert.ok(!Buffer.from(row.secret).toString('latin1').includes(key));
      assert.ok(!Buffer.from(row.secret).toString('latin1').includes(Buffer.from(key).toString('base64')));
      const stored = (await ctx().db.query<{ hash: Uint8Array }>('SELECT code_hash AS hash FROM user_recovery_codes WHERE user_id = $1', [user.id])).rows;
      assert.equal(stored.length, 10);
      for (const { hash } of stored) assert.ok(codes.every((c) => !Buffer.from(hash).toString('latin1').includes(c.replace(/-/g, ''))));
      assert.ok((await actions(ctx(), `user:${email}`)).includes('user.2fa.enrol 200'));

      // The half-open session ends after 5 minutes without its code.
      const slow = await session(ctx(), email);
      time.offset += 6 * 60_000;
      assert.match(String((await slow.get('/console/two-factor')).headers.location), /^\/console\/sign-in/);
    });

    it('asks for the code after the password; each code works once; recovery codes work once each', async () => {
      const email = `signin-${instance}@example.com`;
      await member(ctx(), email);
      const { secret, codes } = await enrol(await session(ctx(), email));

      const me = await session(ctx(), email);
      assert.equal(me.location, '/console/two-factor');
      for (const url of ['/console/', '/console/account', '/console/users', '/console/account/password'])
        assert.equal((await me.get(url)).headers.location, '/console/two-factor', url);
      const elsewhere = await me.post('/console/account/password', { current: PASSWORD, password: 'x'.repeat(20), confirm: 'x'.repeat(20) }, '/console/two-factor');
      assert.equal(elsewhere.statusCode, 403, 'nothing but the code before the code');
      const form = await me.get('/console/two-factor');
      assert.equal(form.statusCode, 200);
      assert.match(form.body, /autocomplete="one-time-code"/);
      const wrong = await me.post('/console/two-factor', { code: '000000' });
      assert.equal(wrong.statusCode, 401);
      assert.match(wrong.body, /not right/);
      time.offset += 30_000; // the enrolment used the code of the step before
      const code = codeAt(secret, time.now());
      const right = await me.post('/console/two-factor', { code });
      assert.equal(right.statusCode, 303, right.body);
      assert.equal(right.headers.location, '/console/');
      assert.equal((await me.get('/console/')).statusCode, 200);

      // The same code again, in another sign-in within its 30 seconds: refused.
      const replay = await session(ctx(), email);
      assert.equal((await replay.post('/console/two-factor', { code })).statusCode, 401, 'a code is good once');
      // A recovery code (any case, spaces): once.
      const recovered = await replay.post('/console/two-factor', { code: ` ${codes[0]!.toUpperCase()} ` });
      assert.equal(recovered.statusCode, 303);
      assert.equal(recovered.headers.location, '/console/account?changed=recovery-9');
      assert.match((await replay.get(recovered.headers.location!)).body, /9 unused codes left/);
      const reuse = await session(ctx(), email);
      assert.equal((await reuse.post('/console/two-factor', { code: codes[0]! })).statusCode, 401, 'a recovery code is good once');
      time.offset += 30_000;
      assert.equal((await reuse.post('/console/two-factor', { code: codeAt(secret, time.now()) })).statusCode, 303);

      const log = await actions(ctx(), `user:${email}`);
      for (const entry of ['user.sign-in.password 303', 'user.sign-in 303', 'user.sign-in-failed 401', 'user.2fa.recovery-code-used 303']) assert.ok(log.includes(entry), entry);
    });

    it('limits wrong codes like wrong passwords: the same lockout per account', async () => {
      const email = `guess-${instance}@example.com`;
      await member(ctx(), email);
      const { secret } = await enrol(await session(ctx(), email));
      const me = await session(ctx(), email);
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) statuses.push((await me.post('/console/two-factor', { code: String(100000 + i) })).statusCode);
      assert.deepEqual(statuses, Array(8).fill(401));
      // The two password sign-ins counted too: past 10 attempts, even the right code waits.
      time.offset += 30_000;
      const blocked = await me.post('/console/two-factor', { code: codeAt(secret, time.now()) });
      assert.equal(blocked.statusCode, 429);
      assert.ok(Number(blocked.headers['retry-after']) > 0);
      assert.match(String((await me.get('/console/')).headers.location), /two-factor/, 'still not signed in');
    });

    it('limits the current-password checks like signing in: 25 wrong guesses meet a 429, and then even the right one waits', async () => {
      const hashOf = async (email: string) => (await ctx().db.query<{ h: string }>('SELECT password_hash AS h FROM users WHERE email = $1', [email])).rows[0]!.h;
      const guesses = async (send: (guess: string) => Promise<LightMyRequestResponse>) => {
        const statuses: number[] = [];
        for (let i = 0; i < 25; i++) statuses.push((await send(`wrong guess number ${i}`)).statusCode);
        return statuses;
      };
      // Changing the password: the sign-in counted once, so the tenth guess is the eleventh attempt.
      const changer = `change-guess-${instance}@example.com`;
      await member(ctx(), changer);
      const me = await session(ctx(), changer);
      const before = await hashOf(changer);
      const changes = await guesses((current) => me.post('/console/account/password', { current, password: 'another passphrase here', confirm: 'another passphrase here' }));
      assert.deepEqual(changes, [...Array(9).fill(400), ...Array(16).fill(429)]);
      const right = await me.post('/console/account/password', { current: PASSWORD, password: 'another passphrase here', confirm: 'another passphrase here' });
      assert.equal(right.statusCode, 429);
      assert.ok(Number(right.headers['retry-after']) > 0);
      assert.match(right.body, /too many attempts: wait \d+ minutes? and try again/);
      assert.equal(await hashOf(changer), before, 'nothing changed');

      // Turning the second factor off checks the password the same way.
      const owner = `off-guess-${instance}@example.com`;
      await member(ctx(), owner);
      const { secret } = await enrol(await session(ctx(), owner));
      const second = await session(ctx(), owner);
      time.offset += 30_000;
      assert.equal((await second.post('/console/two-factor', { code: codeAt(secret, time.now()) })).statusCode, 303);
      const offs = await guesses((password) => second.post('/console/account/two-factor/disable', { password }, '/console/account'));
      assert.ok(offs.includes(429), `a 429 among ${offs.join(' ')}`);
      assert.equal(offs.indexOf(429) <= 10, true, `the limit holds by the eleventh attempt: ${offs.join(' ')}`);
      assert.deepEqual(offs.slice(offs.indexOf(429)), Array(25 - offs.indexOf(429)).fill(429));
      assert.equal((await second.post('/console/account/two-factor/disable', { password: PASSWORD }, '/console/account')).statusCode, 429);
      assert.equal((await ctx().db.query('SELECT 1 FROM users WHERE email = $1 AND totp_secret IS NOT NULL', [owner])).rows.length, 1, 'still on');
    });

    it('turns the second factor off with the password; the operator resets it (admin API and CLI route) and the sessions end', async () => {
      const email = `off-${instance}@example.com`;
      const user = await member(ctx(), email);
      const first = await session(ctx(), email);
      const { secret } = await enrol(first);
      const wrong = await first.post('/console/account/two-factor/disable', { password: 'not my password at all' }, '/console/account');
      assert.equal(wrong.statusCode, 400);
      assert.match(wrong.body, /<code>password<\/code> is not your password/);
      const off = await first.post('/console/account/two-factor/disable', { password: PASSWORD }, '/console/account');
      assert.equal(off.statusCode, 303);
      assert.equal((await session(ctx(), email)).location, '/console/', 'no code asked any more');

      const again = await session(ctx(), email);
      await enrol(again);
      assert.notEqual((await ctx().db.query('SELECT 1 FROM users WHERE id = $1 AND totp_secret IS NOT NULL', [user.id])).rows.length, 0);
      const unknown = await ctx().request({ method: 'POST', url: '/admin/v1/users/00000000-0000-4000-8000-000000000000/reset-2fa' });
      assert.equal(unknown.statusCode, 404);
      const bad = await ctx().request({ method: 'POST', url: '/admin/v1/users/nope/reset-2fa' });
      assert.equal(bad.statusCode, 400);
      const reset = await ctx().request({ method: 'POST', url: `/admin/v1/users/${user.id}/reset-2fa`, headers: { 'user-agent': 'cli-test' } });
      assert.equal(reset.statusCode, 200, reset.body);
      assert.equal(reset.json().twoFactor, false);
      assert.match(String((await again.get('/console/')).headers.location), /^\/console\/sign-in/, 'the sessions ended');
      assert.equal((await session(ctx(), email)).location, '/console/');
      assert.equal(secret.length, 32);

      const log = await actions(ctx(), `user:${email}`);
      assert.ok(log.includes('user.2fa.disable 303'));
      assert.equal((await actions(ctx(), 'admin-token')).filter((a) => a === 'user.2fa.reset 200').length >= 1, true, 'the reset once, by the operator');
    });

    it('requires a second factor of every user of an instance that says so; they cannot turn it off', async () => {
      const strict = await ctx().instance('strict');
      const email = `strict-${strict}@example.com`;
      await member(ctx(), email, 'reviewer', [strict]);
      const bad = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${strict}`, payload: { requireTwoFactor: 'yes' } });
      assert.equal(bad.statusCode, 400);
      const set = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${strict}`, payload: { requireTwoFactor: true } });
      assert.equal(set.statusCode, 200, set.body);
      assert.equal(set.json().requireTwoFactor, true);

      const me = await session(ctx(), email);
      assert.equal((await me.get('/console/')).headers.location, '/console/account/two-factor');
      assert.equal((await me.get(`/console/candidates?instance=${strict}`)).headers.location, '/console/account/two-factor');
      const page = await me.get('/console/account/two-factor');
      assert.match(page.body, /Your instance requires a second factor/);
      const { codes } = await enrol(me);
      assert.equal(codes.length, 10);
      assert.equal((await me.get('/console/')).statusCode, 200, 'enrolled: in');
      assert.match((await me.get('/console/account')).body, /cannot be turned off/);
      const off = await me.post('/console/account/two-factor/disable', { password: PASSWORD }, '/console/account');
      assert.equal(off.statusCode, 403);
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${strict}`, payload: { requireTwoFactor: false } })).statusCode, 200);
    });

    it('the CLI: user reset-2fa and instance update --require-two-factor, with their usage errors', async () => {
      const url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const instance = await ctx().instance('tfacli');
      const email = `cli-${instance}@example.com`;
      const user = await member(ctx(), email);
      await enrol(await session(ctx(), email));
      const reset = await runCli(url, ['user', 'reset-2fa', user.id]);
      assert.equal(reset.code, 0, reset.stderr);
      assert.match(reset.stdout, new RegExp(`Turned off the second factor of ${email}`));
      assert.equal((await session(ctx(), email)).location, '/console/');
      const missing = await runCli(url, ['user', 'reset-2fa']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /needs the user id/);
      const unknown = await runCli(url, ['user', 'reset-2fa', '00000000-0000-4000-8000-000000000000']);
      assert.equal(unknown.code, 1);

      const on = await runCli(url, ['instance', 'update', instance, '--require-two-factor', 'on', '--json']);
      assert.equal(on.code, 0, on.stderr);
      assert.equal(JSON.parse(on.stdout).requireTwoFactor, true);
      const wrong = await runCli(url, ['instance', 'update', instance, '--require-two-factor', 'yes']);
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /--require-two-factor must be on or off/);
      const off = await runCli(url, ['instance', 'update', instance, '--require-two-factor', 'off', '--json']);
      assert.equal(JSON.parse(off.stdout).requireTwoFactor, false);
    });
  },
  { now: time.now },
);
