// Console accounts: a password the operator handed out is changed at first sign-in before
// anything else; users change their own password (current one required, the password rules,
// other sessions end); sign-ins, failures, changes and sign-outs are in the audit log.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachStore, type TestContext } from './harness.js';
import { movingClock } from './support/clock.js';
import { cookieOf, FORM, formOf, signIn } from './support/console.js';

const time = movingClock();

/** A user made by the operator, with the one-time password still to be changed. */
async function operatorMade(ctx: TestContext, email: string, role = 'owner', instances?: string[]) {
  const response = await ctx.request({ method: 'POST', url: '/admin/v1/users', payload: { email, role, instances } });
  assert.equal(response.statusCode, 201, response.body);
  return response.json() as { id: string; password: string };
}

/** Signs in; returns the session cookie and helpers that carry it (and the CSRF token of a page). */
async function session(ctx: TestContext, email: string, password: string) {
  const response = await signIn(ctx, email, password);
  assert.equal(response.statusCode, 303, response.body);
  const cookie = cookieOf(response, 'ac_console')!;
  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { cookie } });
  const csrfOf = (page: LightMyRequestResponse) => /name="csrf-token" content="([^"]+)"/.exec(page.body)?.[1] ?? /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  let csrf = '';
  return {
    cookie,
    location: String(response.headers.location),
    get,
    async csrf(url = '/console/account/password') {
      csrf = csrfOf(await get(url));
      return csrf;
    },
    post: async (url: string, fields: Record<string, string> = {}) => {
      if (!csrf) csrf = csrfOf(await get('/console/account/password'));
      return ctx.request({ method: 'POST', url, headers: { cookie, 'content-type': FORM }, payload: formOf({ _csrf: csrf, ...fields }) });
    },
  };
}

async function auditActions(ctx: TestContext, email: string): Promise<{ action: string; status: number }[]> {
  const entries = (await ctx.request({ method: 'GET', url: '/admin/v1/audit?limit=200' })).json() as { actor: string; action: string; status: number }[];
  return entries.filter((e) => e.actor === `user:${email}`).map((e) => ({ action: e.action, status: e.status }));
}

describeEachStore(
  'console accounts: passwords',
  (ctx) => {
    let instance: string;

    it('sends a user with an operator-given password to change it, and lets them do nothing else until done', async () => {
      instance = await ctx().instance('acc');
      const email = `first-${instance}@example.com`;
      const made = await operatorMade(ctx(), email);
      const me = await session(ctx(), email, made.password);
      for (const url of ['/console/', `/console/candidates?instance=${instance}`, '/console/users', '/console/account', '/console/audit']) {
        const response = await me.get(url);
        assert.equal(response.statusCode, 303, url);
        assert.equal(response.headers.location, '/console/account/password', url);
      }
      const page = await me.get('/console/account/password');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /given to you by an administrator/);
      assert.doesNotMatch(page.body, /href="\/console\/users"/, 'no navigation on the forced step');
      // A change elsewhere is refused while the password is still the operator's.
      const elsewhere = await me.post('/console/users', { email: `other-${instance}@example.com`, role: 'owner' });
      assert.equal(elsewhere.statusCode, 403);
      assert.match(elsewhere.body, /Choose your own password first/);
      assert.equal((await ctx().request({ method: 'GET', url: '/admin/v1/users' })).json().filter((u: { email: string }) => u.email === `other-${instance}@example.com`).length, 0);

      // Each bad input: a clear error, nothing changed.
      for (const [fields, name, detail] of [
        [{ current: 'not the password', password: 'a brand new passphrase', confirm: 'a brand new passphrase' }, 'current', /not your current password/],
        [{ current: made.password, password: 'short', confirm: 'short' }, 'password', /at least 12/],
        [{ current: made.password, password: 'password123456', confirm: 'password123456' }, 'password', /too common/],
        [{ current: made.password, password: email, confirm: email }, 'password', /e-mail/],
        [{ current: made.password, password: 'a brand new passphrase', confirm: 'a brand new passphrasE' }, 'confirm', /does not match/],
        [{ current: made.password, password: made.password, confirm: made.password }, 'password', /differ/],
      ] as const) {
        const refused = await me.post('/console/account/password', fields);
        assert.equal(refused.statusCode, 400, JSON.stringify(fields));
        assert.match(refused.body, new RegExp(`<code>${name}</code> [^<]*${detail.source}`), JSON.stringify(fields));
        assert.equal((await me.get('/console/')).headers.location, '/console/account/password', 'still to change');
      }
      // Without the CSRF token: refused.
      const forged = await ctx().request({
        method: 'POST',
        url: '/console/account/password',
        headers: { cookie: me.cookie, 'content-type': FORM },
        payload: formOf({ current: made.password, password: 'a brand new passphrase', confirm: 'a brand new passphrase' }),
      });
      assert.equal(forged.statusCode, 403);

      const changed = await me.post('/console/account/password', { current: made.password, password: 'a brand new passphrase', confirm: 'a brand new passphrase' });
      assert.equal(changed.statusCode, 303, changed.body);
      assert.equal(changed.headers.location, '/console/');
      assert.equal((await me.get('/console/')).statusCode, 200, 'the session that changed it goes on');
      assert.equal((await signIn(ctx(), email, made.password)).statusCode, 401, 'the old password is gone');
      const again = await session(ctx(), email, 'a brand new passphrase');
      assert.equal((await again.get('/console/')).statusCode, 200, 'no second forced change');
    });

    it('lets a user change their own password from the account page, ending their other sessions', async () => {
      const email = `self-${instance}@example.com`;
      const made = await operatorMade(ctx(), email, 'reviewer', [instance]);
      const first = await session(ctx(), email, made.password);
      assert.equal((await first.post('/console/account/password', { current: made.password, password: 'first own passphrase', confirm: 'first own passphrase' })).statusCode, 303);
      const laptop = await session(ctx(), email, 'first own passphrase');
      const phone = await session(ctx(), email, 'first own passphrase');
      const account = await laptop.get('/console/account');
      assert.equal(account.statusCode, 200);
      assert.match(account.body, /Change your password/);
      const form = await laptop.get('/console/account/password');
      assert.equal(form.statusCode, 200);
      assert.doesNotMatch(form.body, /given to you by an administrator/);
      await laptop.csrf('/console/account');
      const wrong = await laptop.post('/console/account/password', { current: 'first own passphrasE', password: 'second own passphrase', confirm: 'second own passphrase' });
      assert.equal(wrong.statusCode, 400);
      assert.equal((await phone.get('/console/account')).statusCode, 200, 'a refused change ends nothing');
      const changed = await laptop.post('/console/account/password', { current: 'first own passphrase', password: 'second own passphrase', confirm: 'second own passphrase' });
      assert.equal(changed.statusCode, 303);
      assert.equal(changed.headers.location, '/console/account?changed=password');
      assert.equal((await laptop.get('/console/account')).statusCode, 200, 'this session stays');
      assert.equal((await phone.get('/console/account')).statusCode, 303, 'the other session ended');
      assert.equal((await first.get('/console/account')).statusCode, 303, 'and the older one');
      assert.equal((await signIn(ctx(), email, 'second own passphrase')).statusCode, 303);
    });

    it('makes a reset password (admin API and console) one to change again', async () => {
      const email = `reset-${instance}@example.com`;
      const made = await operatorMade(ctx(), email);
      const me = await session(ctx(), email, made.password);
      await me.post('/console/account/password', { current: made.password, password: 'my chosen passphrase', confirm: 'my chosen passphrase' });
      const reset = await ctx().request({ method: 'POST', url: `/admin/v1/users/${made.id}/reset-password`, payload: {} });
      assert.equal(reset.statusCode, 200);
      const again = await session(ctx(), email, reset.json().password);
      assert.equal((await again.get('/console/')).headers.location, '/console/account/password');
      // A password the operator chose is the operator's too.
      const chosen = await ctx().request({ method: 'POST', url: `/admin/v1/users/${made.id}/reset-password`, payload: { password: 'operator chosen passphrase' } });
      assert.equal(chosen.statusCode, 200);
      const third = await session(ctx(), email, 'operator chosen passphrase');
      assert.equal((await third.get('/console/')).headers.location, '/console/account/password');
    });

    it('records sign-ins, failed sign-ins, password changes and sign-outs in the audit log', async () => {
      const email = `audited-${instance}@example.com`;
      const made = await operatorMade(ctx(), email);
      assert.equal((await signIn(ctx(), email, 'not the right password')).statusCode, 401);
      const me = await session(ctx(), email, made.password);
      await me.post('/console/account/password', { current: made.password, password: 'audited passphrase', confirm: 'audited passphrase' });
      const out = await me.post('/console/sign-out');
      assert.equal(out.statusCode, 303);
      assert.equal((await me.get('/console/')).headers.location?.startsWith('/console/sign-in'), true, 'the session ended');
      assert.deepEqual((await auditActions(ctx(), email)).reverse(), [
        { action: 'user.sign-in-failed', status: 401 },
        { action: 'user.sign-in', status: 303 },
        { action: 'user.password.change', status: 303 },
        { action: 'user.sign-out', status: 303 },
      ]);
      // An unknown account's attempts are recorded under the address typed, and the lockout's refusals too.
      const ghost = `ghost-${instance}@example.com`;
      for (let i = 0; i < 11; i++) await signIn(ctx(), ghost, `wrong password ${i}`);
      const ghostly = await auditActions(ctx(), ghost);
      assert.equal(ghostly.filter((e) => e.status === 401).length, 10);
      assert.equal(ghostly.filter((e) => e.status === 429).length, 1);
      // Something typed that is not an address (a password in the wrong field) is not recorded as typed.
      assert.equal((await signIn(ctx(), 'Tr0ub4dor&3-but-longer', 'whatever password')).statusCode, 401);
      const entries = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=5' })).json() as { actor: string; action: string }[];
      assert.deepEqual(entries.map((e) => [e.actor, e.action]).filter(([, action]) => action === 'user.sign-in-failed')[0], [
        'user:(not an e-mail address)',
        'user.sign-in-failed',
      ]);
      assert.ok(!JSON.stringify(entries).includes('Tr0ub4dor'));
    });
  },
  { now: time.now },
);
