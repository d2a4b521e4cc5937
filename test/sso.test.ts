// Single sign-on with OpenID Connect, against a real provider (oidc-provider on 127.0.0.1) and
// the real app over HTTP: configuration and its checks, the full authorization code flow with
// PKCE, state and nonce, just-in-time accounts, matching existing accounts by verified e-mail, every
// refusal (unverified address, domain, disabled, another instance's account, wrong state, replayed
// code), password sign-in turned off, the owners' console page, and the audit log of each.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachStore, freePort, type TestContext } from './harness.js';
import { runCli } from './support/cli.js';
import { consoleAs, cookieOf, signIn } from './support/console.js';
import { CookieJar, startProvider, throughProvider, type TestProvider } from './support/oidc.js';
import { configureSso, issuerProblem } from '../src/modules/users/sso.js';

const REDIRECT_URI = 'http://portal.test/console/sso-callback';
const PASSWORD = 'a long enough passphrase';
let idp: TestProvider;
const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

before(async () => {
  idp = await startProvider(REDIRECT_URI);
});
after(async () => {
  await idp.close();
});

let accountCounter = 0;
/** An account at the provider; returns its id (the `sub`). */
function account(email: string | undefined, emailVerified: unknown = true): string {
  const id = `acct-${++accountCounter}`;
  idp.accounts.set(id, { email, email_verified: emailVerified });
  return id;
}

const configure = (ctx: TestContext, instance: string, payload: Record<string, unknown>) => ctx.request({ method: 'PUT', url: `/admin/v1/instances/${instance}/sso`, payload });

const setup = (extra: Record<string, unknown> = {}) => ({
  displayName: 'Acme ID',
  issuer: idp.issuer,
  clientId: idp.clientId,
  clientSecret: idp.clientSecret,
  allowedDomains: ['acme.test'],
  jit: true,
  defaultRole: 'reviewer',
  ...extra,
});

async function start(ctx: TestContext, instance: string) {
  const response = await ctx.request({ method: 'GET', url: `/console/sso/${instance}` });
  assert.equal(response.statusCode, 303, response.body);
  const cookie = cookieOf(response, 'ac_console_sso')!;
  assert.ok(cookie, 'the pending sign-in handle is in a cookie');
  assert.match(String(([] as string[]).concat(response.headers['set-cookie'] ?? []).join()), /ac_console_sso=[^;]+; Path=\/console; HttpOnly; SameSite=Lax/);
  return { cookie, authorizationUrl: String(response.headers.location) };
}

const back = (ctx: TestContext, url: URL, cookie: string) => ctx.request({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { cookie } });

/** The whole flow as one browser: start, the provider's login as `login`, back to the service. */
async function ssoSignIn(ctx: TestContext, instance: string, login: string): Promise<{ response: LightMyRequestResponse; callback: URL; cookie: string }> {
  const { cookie, authorizationUrl } = await start(ctx, instance);
  const url = new URL(authorizationUrl);
  assert.equal(url.origin, idp.issuer);
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(url.searchParams.get('code_challenge') && url.searchParams.get('state') && url.searchParams.get('nonce'));
  assert.equal(url.searchParams.get('redirect_uri'), REDIRECT_URI);
  idp.login = login;
  const callback = await throughProvider(authorizationUrl, new CookieJar());
  assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT_URI);
  return { response: await back(ctx, callback, cookie), callback, cookie };
}

function assertRefused(response: LightMyRequestResponse, status: number, message: RegExp) {
  assert.equal(response.statusCode, status, response.body);
  assert.match(response.body, /Single sign-on did not work/);
  assert.match(response.body, message);
  assert.doesNotMatch(response.body, /\bat [\w.<>]+ \(|Error:|node_modules/, 'no stack on the page');
  assert.equal(cookieOf(response, 'ac_console')?.replace(/^ac_console=/, '') || undefined, undefined, 'no session');
}

async function audits(ctx: TestContext): Promise<{ actor: string; action: string; target: string | null; status: number }[]> {
  return (await ctx.request({ method: 'GET', url: '/admin/v1/audit?limit=500' })).json();
}

const users = async (ctx: TestContext) =>
  (await ctx.request({ method: 'GET', url: '/admin/v1/users' })).json() as { id: string; email: string; role: string; instances: string[] }[];

async function member(ctx: TestContext, email: string, role: string, instances?: string[]) {
  const response = await ctx.request({ method: 'POST', url: '/admin/v1/users', payload: { email, role, instances, password: PASSWORD } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string };
}

describeEachStore(
  'single sign-on (OpenID Connect)',
  (ctx) => {
    let instance: string;

    it('is configured per instance through the admin API; bad settings get a clear error and change nothing', async () => {
      instance = await ctx().instance('sso');
      assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/sso` })).statusCode, 404);

      const bad: [Record<string, unknown>, string, RegExp][] = [
        [{ issuer: 'not a url' }, 'issuer', /is not a URL/],
        [{ issuer: 'ftp://idp.acme.test' }, 'issuer', /must start with https:\/\//],
        [{ issuer: 'https://user:pw@idp.acme.test' }, 'issuer', /user name or password/],
        [{ issuer: 'https://idp.acme.test/?x=1' }, 'issuer', /query or fragment/],
        [{ clientSecret: undefined }, 'clientSecret', /is required/],
        [{ clientId: 'has spaces in it' }, 'clientId', /printable characters without spaces/],
        [{ allowedDomains: ['acme.test', 'not a domain'] }, 'allowedDomains', /not a domain is not a domain name/],
        [{ allowedDomains: [] }, 'allowedDomains', /at least one domain/],
        [{ defaultRole: 'owner' }, 'defaultRole', /./],
        [{ displayName: 'a'.repeat(61) }, 'displayName', /./],
      ];
      for (const [change, field, detail] of bad) {
        const response = await configure(ctx(), instance, setup(change));
        assert.equal(response.statusCode, 400, `${JSON.stringify(change)}: ${response.body}`);
        const problem = response.json();
        const errors = (problem.errors ?? []) as { name: string; detail: string }[];
        assert.ok(
          errors.some((e) => e.name === field && detail.test(e.detail)) || (problem.detail && new RegExp(field).test(problem.detail)),
          `${JSON.stringify(change)}: ${response.body}`,
        );
      }
      // An issuer whose discovery document does not load: refused, with where it looked.
      const nobody = `http://127.0.0.1:${await freePort()}`;
      const unreachable = await configure(ctx(), instance, setup({ issuer: nobody }));
      assert.equal(unreachable.statusCode, 400);
      assert.match(unreachable.body, /discovery document .*\.well-known\/openid-configuration\) did not load/);
      // A wrong client is not known to discovery; an issuer that is not the document's is.
      const otherIssuer = await configure(ctx(), instance, setup({ issuer: `${idp.issuer}/other` }));
      assert.equal(otherIssuer.statusCode, 400, otherIssuer.body);
      assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/sso` })).statusCode, 404, 'nothing was saved');
      // Refused changes are in the audit log too (by the admin API's hook), named as the action.
      const refusedEntry = (await audits(ctx())).find((e) => e.action === 'sso.configure')!;
      assert.equal(refusedEntry.status, 400);
      assert.equal(refusedEntry.target, instance);
      // Plain http is refused unless SSO_ALLOW_INSECURE_HTTP (this suite has it, for the local provider).
      assert.match(issuerProblem('http://idp.acme.test', false)!, /https:\/\/.*SSO_ALLOW_INSECURE_HTTP/);
      assert.equal(issuerProblem('https://idp.acme.test', false), undefined);

      const saved = await configure(ctx(), instance, setup());
      assert.equal(saved.statusCode, 200, saved.body);
      const view = saved.json();
      assert.equal(view.redirectUri, REDIRECT_URI);
      assert.equal(view.secretHint, idp.clientSecret.slice(-4));
      assert.equal(view.firstSuccessAt, null);
      assert.equal(view.clientSecret, undefined, 'the secret is never shown');
      assert.deepEqual(view.allowedDomains, ['acme.test']);
      // Sealed at rest.
      const row = (await ctx().db.query<{ sealed: Uint8Array }>('SELECT sealed_secret AS sealed FROM instance_sso')).rows;
      assert.ok(row.every((r) => !Buffer.from(r.sealed).toString('latin1').includes(idp.clientSecret)));

      // Password sign-in cannot be turned off before a single sign-on has succeeded.
      const early = await configure(ctx(), instance, { passwordSignInOff: true });
      assert.equal(early.statusCode, 409);
      assert.match(early.json().detail, /only after a single sign-on of this instance has succeeded/);
      // A partial change keeps the rest (and the secret).
      const renamed = await configure(ctx(), instance, { displayName: 'Acme Login', allowedDomains: ['ACME.test', 'corp.acme.test'] });
      assert.equal(renamed.statusCode, 200, renamed.body);
      assert.deepEqual(renamed.json().allowedDomains, ['acme.test', 'corp.acme.test']);
      assert.equal(renamed.json().secretHint, view.secretHint);
      const entries = (await audits(ctx())).filter((e) => e.action === 'sso.configure' && e.status !== 400);
      assert.deepEqual(
        entries.map((e) => `${e.actor} ${e.target} ${e.status}`),
        [`admin-token ${instance}: displayName, allowedDomains 200`, `admin-token ${instance} 409`, `admin-token ${instance}: created 200`],
      );
    });

    it('refuses a provider on a loopback or private address unless SSO_ALLOW_INSECURE_HTTP: an owner cannot make the server fetch from its own network', async () => {
      const instance = await ctx().instance('sso-ssrf');
      const { rows } = await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [instance]);
      const change = { issuer: `https://127.0.0.1:${await freePort()}`, clientId: 'c', clientSecret: 'secret-value-1234', allowedDomains: ['acme.test'] };
      const request = { actor: { kind: 'admin-token' as const }, requestId: 'ssrf', now: new Date() };
      await assert.rejects(
        configureSso(ctx().db, request, { publicUrl: 'http://localhost', allowInsecureHttp: false }, { instanceId: rows[0]!.id, change }),
        (error: { fields?: { name: string; detail: string }[] }) =>
          error.fields?.some((f) => f.name === 'issuer' && /127\.0\.0\.1, a loopback, private, link-local or reserved address/.test(f.detail)) === true,
      );
      assert.equal((await ctx().db.query('SELECT 1 FROM instance_sso WHERE instance_id = $1', [rows[0]!.id])).rows.length, 0);
    });

    it('shows "Sign in with <name>" on the sign-in page of an instance with single sign-on', async () => {
      const page = await ctx().request({ method: 'GET', url: `/console/sign-in?instance=${instance}` });
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(`<a class="button primary" href="/console/sso/${instance}">Sign in with Acme Login</a>`));
      const plain = await ctx().request({ method: 'GET', url: '/console/sign-in' });
      assert.match(plain.body, /<form method="get" action="\/console\/sso">/, 'a form asks for the instance');
      assert.ok(plain.body.includes('pattern="[a-z][a-z0-9\\-]{0,62}"'), 'a pattern valid in the v-flag regular expressions browsers use');
      const other = await ctx().request({ method: 'GET', url: '/console/sign-in?instance=no-such-instance' });
      assert.match(other.body, /Instance no-such-instance has no single sign-on/);
      const form = await ctx().request({ method: 'GET', url: `/console/sso?instance=${instance}&next=%2Fconsole%2Faudit` });
      assert.equal(form.statusCode, 303);
      assert.equal(form.headers.location, `/console/sso/${instance}?next=%2Fconsole%2Faudit`);
      assertRefused(await ctx().request({ method: 'GET', url: '/console/sso/no-such-instance' }), 404, /has no single sign-on/);
    });

    it('signs in through the provider and creates the account just in time with the default role', async () => {
      const email = `jit-${instance}@acme.test`;
      const { response, callback } = await ssoSignIn(ctx(), instance, account(email.toUpperCase()));
      assert.equal(response.statusCode, 200, response.body);
      assert.match(response.body, /<meta http-equiv="refresh" content="0; url=\/console\/">/);
      const session = cookieOf(response, 'ac_console')!;
      assert.ok(session);
      assert.match(
        ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((c) => c.startsWith('ac_console='))!,
        /HttpOnly; SameSite=Strict/,
      );
      const home = await ctx().request({ method: 'GET', url: '/console/', headers: { cookie: session } });
      assert.equal(home.statusCode, 200, 'a full session: no password change, no second-factor step');
      const made = (await users(ctx())).find((u) => u.email === email)!;
      assert.equal(made.role, 'reviewer');
      assert.deepEqual(made.instances, [instance]);
      // The session works like a password session: CSRF on changes, sign-out.
      const csrf = /name="csrf-token" content="([^"]+)"/.exec(home.body)![1]!;
      const refused = await ctx().request({
        method: 'POST',
        url: '/console/sign-out',
        headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
        payload: '_csrf=wrong',
      });
      assert.equal(refused.statusCode, 403);
      const out = await ctx().request({
        method: 'POST',
        url: '/console/sign-out',
        headers: { cookie: session, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `_csrf=${csrf}`,
      });
      assert.equal(out.statusCode, 303);
      assert.equal((await ctx().request({ method: 'GET', url: '/console/', headers: { cookie: session } })).statusCode, 303);

      const mine = (await audits(ctx())).filter((e) => e.actor === `user:${email}`).map((e) => `${e.action} ${e.status}`);
      assert.deepEqual(mine.reverse(), ['user.sso.create 303', 'user.sso.sign-in 303', 'user.sign-out 303']);
      const view = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/sso` })).json();
      assert.ok(view.firstSuccessAt, 'the first success is recorded');
      // The authorization code and state in the callback's URL stay out of the logs.
      const code = callback.searchParams.get('code')!;
      const logged = logLines.filter((l) => l.includes('/console/sso-callback'));
      assert.ok(logged.length > 0);
      assert.ok(logged.every((l) => !l.includes(code) && !l.includes(callback.searchParams.get('state')!)));
      assert.ok(logged.some((l) => l.includes('code=[redacted]')));
    });

    it('signs in an existing manager of the instance by verified e-mail, skipping the service password and TOTP steps', async () => {
      const email = `manager-${instance}@acme.test`;
      const user = await member(ctx(), email, 'manager', [instance]);
      const before = (await users(ctx())).length;
      const { response } = await ssoSignIn(ctx(), instance, account(email));
      assert.equal(response.statusCode, 200, response.body);
      const session = cookieOf(response, 'ac_console')!;
      // The operator-made password would have to be changed first after a password sign-in.
      const home = await ctx().request({ method: 'GET', url: '/console/', headers: { cookie: session } });
      assert.equal(home.statusCode, 200);
      assert.equal((await users(ctx())).length, before, 'no new account');
      const entry = (await audits(ctx())).find((e) => e.actor === `user:${email}` && e.action === 'user.sso.sign-in')!;
      assert.equal(entry.target, `${user.id} (${instance})`);
    });

    it('refuses unverified addresses, domains not allowed, unknown people without JIT, disabled accounts, owners and accounts of other instances', async () => {
      const other = await ctx().instance('sso-other');
      const outsider = `outsider-${instance}@acme.test`;
      await member(ctx(), outsider, 'manager', [other]);
      const disabled = `disabled-${instance}@acme.test`;
      const gone = await member(ctx(), disabled, 'reviewer', [instance]);
      assert.equal((await ctx().request({ method: 'POST', url: `/admin/v1/users/${gone.id}/disable` })).statusCode, 200);
      const owner = `owner-${instance}@acme.test`;
      await member(ctx(), owner, 'owner');
      // A member whose provider asserts the address in full-width letters (the same account after NFKC).
      const plain = `wide-${instance}@acme.test`;
      await member(ctx(), plain, 'reviewer', [instance]);
      const wide = plain.replace(/^[a-z]+/, (local) => [...local].map((ch) => String.fromCharCode(ch.charCodeAt(0) + 0xfee0)).join(''));
      assert.notEqual(wide, plain);
      assert.equal(wide.normalize('NFKC'), plain);

      const cases: [string, string | undefined, unknown, RegExp, string][] = [
        ['unverified', `unverified-${instance}@acme.test`, false, /not verified/, 'e-mail address not verified by the provider'],
        ['verified as text', `text-${instance}@acme.test`, 'true', /not verified/, 'e-mail address not verified by the provider'],
        ['no e-mail', undefined, true, /did not give an e-mail address/, 'the provider gave no e-mail address'],
        ['domain', `someone@evil.test`, true, /Addresses at evil\.test may not sign in/, 'domain evil.test not allowed'],
        ['disabled', disabled, true, /disabled/, 'account disabled'],
        ['owner', owner, true, /Owners sign in with their e-mail and password/, 'owners sign in with their password'],
        ['other instance', outsider, true, /no access to this instance/, 'account is not a member of this instance'],
        ['full-width letters', wide, true, /unusual characters/, 'e-mail address changes under NFKC normalisation'],
      ];
      for (const [label, email, verified, shown, reason] of cases) {
        const { response } = await ssoSignIn(ctx(), instance, account(email, verified));
        assertRefused(response, 403, shown);
        const entry = (await audits(ctx())).find((e) => e.action === 'user.sso.sign-in-failed')!;
        assert.equal(entry.target, `${instance}: ${reason}`, label);
        assert.equal(entry.status, 403, label);
        if (email) assert.equal(entry.actor, `user:${email.normalize('NFKC')}`, label);
      }
      const listed = await users(ctx());
      assert.deepEqual(listed.find((u) => u.email === outsider)!.instances, [other], 'the other instance’s account did not gain this one');
      assert.ok(!listed.some((u) => u.email.startsWith('unverified-') || u.email === 'someone@evil.test'), 'no account made');

      // Without just-in-time creation, only existing accounts sign in.
      assert.equal((await configure(ctx(), instance, { jit: false })).statusCode, 200);
      const { response } = await ssoSignIn(ctx(), instance, account(`newcomer-${instance}@acme.test`));
      assertRefused(response, 403, /no account on this instance yet/);
      assert.ok(!(await users(ctx())).some((u) => u.email === `newcomer-${instance}@acme.test`));
      assert.equal((await configure(ctx(), instance, { jit: true })).statusCode, 200);
    });

    it('refuses a wrong state, a replayed callback and a replayed code', async () => {
      const login = account(`replay-${instance}@acme.test`);
      // Wrong state: the provider's answer is not for this browser's sign-in.
      const flow = await start(ctx(), instance);
      idp.login = login;
      const callback = await throughProvider(flow.authorizationUrl);
      const forged = new URL(callback);
      forged.searchParams.set('state', 'not-the-state');
      assertRefused(await back(ctx(), forged, flow.cookie), 401, /did not confirm this sign-in/);
      assert.match((await audits(ctx()))[0]!.target!, /state/i);
      // Replayed callback: the pending sign-in was used (the wrong state above used it up).
      assertRefused(await back(ctx(), callback, flow.cookie), 400, /expired or was used already/);
      assert.match((await audits(ctx()))[0]!.target!, /no sign-in in progress/);
      // No cookie at all.
      assertRefused(await ctx().request({ method: 'GET', url: `${callback.pathname}${callback.search}` }), 400, /expired or was used already/);

      // A good sign-in, then its code replayed into a new sign-in of the same browser (its state):
      // the provider refuses a code used once.
      const good = await ssoSignIn(ctx(), instance, login);
      assert.equal(good.response.statusCode, 200, good.response.body);
      const again = await start(ctx(), instance);
      const replay = new URL(good.callback);
      replay.searchParams.set('state', new URL(again.authorizationUrl).searchParams.get('state')!);
      assertRefused(await back(ctx(), replay, again.cookie), 401, /did not confirm this sign-in/);
      assert.match((await audits(ctx()))[0]!.target!, /invalid_grant/);

      // The provider's own refusal (an error response) is shown and audited too.
      const denied = await start(ctx(), instance);
      const state = new URL(denied.authorizationUrl).searchParams.get('state')!;
      const error = new URL(REDIRECT_URI);
      error.search = new URLSearchParams({ error: 'access_denied', state, iss: idp.issuer }).toString();
      assertRefused(await back(ctx(), error, denied.cookie), 401, /did not confirm/);
      assert.match((await audits(ctx()))[0]!.target!, /the provider refused: access_denied/);
    });

    it('turns password sign-in off for the instance’s managers and reviewers once single sign-on has worked; owners keep theirs', async () => {
      const manager = `pw-manager-${instance}@acme.test`;
      await member(ctx(), manager, 'manager', [instance]);
      await ctx().db.query('UPDATE users SET must_change_password = false WHERE email = $1', [manager]);
      const owner = `pw-owner-${instance}@example.com`;
      await member(ctx(), owner, 'owner');
      await ctx().db.query('UPDATE users SET must_change_password = false WHERE email = $1', [owner]);
      const before = await signIn(ctx(), manager, PASSWORD);
      assert.equal(before.statusCode, 303, 'on until turned off');
      const managerSession = cookieOf(before, 'ac_console')!;
      const ownerBefore = await signIn(ctx(), owner, PASSWORD);
      const ownerSession = cookieOf(ownerBefore, 'ac_console')!;
      const home = (cookie: string) => ctx().request({ method: 'GET', url: '/console/', headers: { cookie } });
      assert.equal((await home(managerSession)).statusCode, 200, 'the password session works');

      const off = await configure(ctx(), instance, { passwordSignInOff: true });
      assert.equal(off.statusCode, 200, off.body);
      assert.equal(off.json().passwordSignInOff, true);
      const refused = await signIn(ctx(), manager, PASSWORD);
      assert.equal(refused.statusCode, 401, 'the same answer as a wrong password');
      assert.equal(cookieOf(refused, 'ac_console'), undefined);
      const entry = (await audits(ctx())).find((e) => e.actor === `user:${manager}`)!;
      assert.equal(`${entry.action} ${entry.status}`, 'user.sign-in-failed 403');
      assert.equal((await signIn(ctx(), owner, PASSWORD)).statusCode, 303, 'owners keep their password');
      // The session the manager opened with a password ended with it; the owner's holds.
      const ended = await home(managerSession);
      assert.equal(ended.statusCode, 303, 'sent to sign in again');
      assert.match(String(ended.headers.location), /^\/console\/sign-in/);
      assert.equal((await ctx().db.query('SELECT 1 FROM console_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1 AND NOT s.via_sso', [manager])).rows.length, 0);
      assert.equal((await home(ownerSession)).statusCode, 200, "the owner's password session holds");
      assert.match((await audits(ctx())).find((e) => e.action === 'sso.configure')!.target!, /1 password session ended/);
      // The manager still signs in through the provider.
      assert.equal((await ssoSignIn(ctx(), instance, account(manager))).response.statusCode, 200);

      // The provider cannot be changed while it is the only way in.
      const change = await configure(ctx(), instance, { clientSecret: 'another-secret-0000' });
      assert.equal(change.statusCode, 409);
      assert.match(change.json().detail, /turn it back on/);
      assert.equal((await configure(ctx(), instance, { passwordSignInOff: false })).statusCode, 200);
      assert.equal((await signIn(ctx(), manager, PASSWORD)).statusCode, 303);
    });

    it('lets owners set it up on the console page; others may not; bad input is shown and changes nothing', async () => {
      const ownerEmail = `console-owner-${instance}@example.com`;
      await member(ctx(), ownerEmail, 'owner');
      const owner = await consoleAs(ctx(), ownerEmail, PASSWORD);
      const page = await owner.get(`/console/settings/sso?instance=${instance}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Single sign-on of /);
      assert.ok(page.body.includes(REDIRECT_URI));
      assert.ok(!page.body.includes(idp.clientSecret), 'the secret is never shown');
      assert.match((await owner.get(`/console/settings?instance=${instance}`)).body, /href="\/console\/settings\/sso\?instance=/);

      const form = {
        instance,
        displayName: 'Acme SSO',
        issuer: 'not a url',
        clientId: idp.clientId,
        clientSecret: '',
        allowedDomains: 'acme.test',
        jit: 'on',
        defaultRole: 'reviewer',
      };
      const bad = await owner.post('/console/settings/sso', form);
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /Nothing was saved/);
      assert.match(bad.body, /<div class="error-summary" role="alert" id="sso-errors"><p class="error">Nothing was saved:<\/p><ul><li><a href="#issuer">issuer<\/a> is not a URL/);
      assert.match(bad.body, /id="issuer" name="issuer"[^>]*aria-invalid="true" aria-describedby="issuer-error">\n<p class="field-error" id="issuer-error">is not a URL/);
      assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/sso` })).json().displayName, 'Acme Login');
      const good = await owner.post('/console/settings/sso', { ...form, issuer: idp.issuer, allowedDomains: 'acme.test, corp.acme.test' });
      assert.equal(good.statusCode, 303, good.body);
      const view = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/sso` })).json();
      assert.equal(view.displayName, 'Acme SSO');
      assert.equal(view.secretHint, idp.clientSecret.slice(-4), 'an empty secret field keeps the stored secret');
      const entry = (await audits(ctx())).find((e) => e.action === 'sso.configure')!;
      assert.equal(entry.actor, `user:${ownerEmail}`);
      assert.equal(entry.target, `${instance}: displayName`);

      const managerEmail = `console-manager-${instance}@acme.test`;
      await member(ctx(), managerEmail, 'manager', [instance]);
      const manager = await consoleAs(ctx(), managerEmail, PASSWORD);
      assert.equal((await manager.get(`/console/settings/sso?instance=${instance}`)).statusCode, 403);
      assert.equal((await manager.post('/console/settings/sso', { ...form, issuer: idp.issuer })).statusCode, 403);
    });

    it('shows a friendly page when the provider cannot be reached, and audits it; removing single sign-on is audited', async () => {
      const lonely = await ctx().instance('sso-down');
      assert.equal((await configure(ctx(), lonely, setup())).statusCode, 200);
      await ctx().db.query(`UPDATE instance_sso SET issuer = $1 WHERE instance_id = (SELECT id FROM instances WHERE name = $2)`, [`http://127.0.0.1:${await freePort()}`, lonely]);
      assertRefused(await ctx().request({ method: 'GET', url: `/console/sso/${lonely}` }), 502, /cannot be reached right now/);
      const entry = (await audits(ctx())).find((e) => e.action === 'user.sso.sign-in-failed')!;
      assert.match(entry.target!, new RegExp(`^${lonely}: discovery failed`));
      const removed = await ctx().request({ method: 'DELETE', url: `/admin/v1/instances/${lonely}/sso` });
      assert.equal(removed.statusCode, 204);
      assert.equal((await audits(ctx()))[0]!.action, 'sso.remove');
      assert.equal((await ctx().request({ method: 'DELETE', url: `/admin/v1/instances/${lonely}/sso` })).statusCode, 404);
    });

    it('limits starts per client address (each asks the provider for its discovery document)', async () => {
      const from = { remoteAddress: '203.0.113.77' };
      let last: LightMyRequestResponse | undefined;
      for (let i = 0; i < 101; i++) last = await ctx().request({ method: 'GET', url: `/console/sso/${instance}`, ...from });
      assertRefused(last!, 429, /Too many sign-in attempts/);
      assert.ok(Number(last!.headers['retry-after']) > 0);
      // Another address is not held back.
      assert.equal((await ctx().request({ method: 'GET', url: `/console/sso/${instance}`, remoteAddress: '203.0.113.78' })).statusCode, 303);
    });

    it('the CLI: sso set (the secret from standard input), sso show, sso remove, with their errors', async () => {
      const url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const cli = await ctx().instance('sso-cli');
      const set = await runCli(
        url,
        [
          'sso',
          'set',
          '--instance',
          cli,
          '--issuer',
          idp.issuer,
          '--client-id',
          idp.clientId,
          '--client-secret-stdin',
          '--domains',
          'acme.test,corp.acme.test',
          '--jit',
          'on',
          '--default-role',
          'manager',
          '--display-name',
          'Acme ID',
        ],
        `${idp.clientSecret}\n`,
      );
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /Sign in with Acme ID/);
      assert.match(set.stdout, /made at first sign-in, as manager/);
      assert.ok(set.stdout.includes(REDIRECT_URI));
      assert.ok(!set.stdout.includes(idp.clientSecret));
      const shown = await runCli(url, ['sso', 'show', '--instance', cli, '--json']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.deepEqual(JSON.parse(shown.stdout).allowedDomains, ['acme.test', 'corp.acme.test']);
      // A new account through it gets the role set here.
      const email = `cli-${cli}@corp.acme.test`;
      assert.equal((await ssoSignIn(ctx(), cli, account(email))).response.statusCode, 200);
      assert.equal((await users(ctx())).find((u) => u.email === email)!.role, 'manager');

      const badIssuer = await runCli(url, ['sso', 'set', '--instance', cli, '--issuer', 'https://user:pw@idp.example.com']);
      assert.equal(badIssuer.code, 1);
      assert.match(badIssuer.stderr, /issuer.*user name or password/);
      const badOption = await runCli(url, ['sso', 'set', '--instance', cli, '--jit', 'maybe']);
      assert.equal(badOption.code, 2);
      assert.match(badOption.stderr, /--jit must be on or off/);
      const nothing = await runCli(url, ['sso', 'set', '--instance', cli]);
      assert.equal(nothing.code, 2);
      const off = await runCli(url, ['sso', 'set', '--instance', cli, '--password-sign-in', 'off']);
      assert.equal(off.code, 0, off.stderr);
      assert.match(off.stdout, /password sign-in off for managers and reviewers/);
      assert.equal((await runCli(url, ['sso', 'set', '--instance', cli, '--password-sign-in', 'on'])).code, 0);
      const removed = await runCli(url, ['sso', 'remove', '--instance', cli]);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal((await runCli(url, ['sso', 'show', '--instance', cli])).code, 1);
    });
  },
  { ssoAllowInsecureHttp: true, logStream },
);
