// TRUST_PROXY: whose address a request comes from. Unset, the socket's peer is the client and
// X-Forwarded-For changes nothing; with the proxy's address trusted, X-Forwarded-For names the
// client, and every limit, lockout and audit entry is kept per client, not per proxy.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { describeEachStore, type TestContext } from './harness.js';
import { consoleUser, signIn, signInForm } from './support/console.js';

const WRONG_KEY = `ack_${'x'.repeat(43)}`;
const get = (ctx: TestContext, key: string, forwardedFor?: string) =>
  ctx.request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) }, remoteAddress: '127.0.0.1' });

it('reads TRUST_PROXY: off by default, a hop count, or addresses and CIDR ranges', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8' }).trustProxy, ['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']);
  for (const bad of ['true', 'proxy.example', '10.0.0.0/33', '::1/129', '11', '10.0.0.1/8/1']) {
    assert.throws(
      () => loadConfig({ TRUST_PROXY: bad }),
      (error: Error) => error instanceof ConfigError && /TRUST_PROXY/.test(error.message),
      bad,
    );
  }
});

describeEachStore(
  'TRUST_PROXY unset: X-Forwarded-For changes nothing',
  (ctx) => {
    it('a client cannot dodge the refused-key limit by sending another X-Forwarded-For each time', async () => {
      const instance = await ctx().instance('noproxy');
      const key = await ctx().key([instance]);
      for (let i = 0; i < 3; i++) assert.equal((await get(ctx(), WRONG_KEY, `198.51.100.${i}`)).statusCode, 401);
      assert.equal((await get(ctx(), key, '198.51.100.99')).statusCode, 429);
      assert.equal((await get(ctx(), key)).statusCode, 429);
    });

    it('audits the socket address, not what X-Forwarded-For claims', async () => {
      const email = `audited-${process.pid}@example.com`;
      const { password } = await consoleUser(ctx(), email, 'owner');
      const response = await signIn(ctx(), email, password, { remoteAddress: '192.0.2.7', headers: { 'x-forwarded-for': '198.51.100.1' } });
      assert.equal(response.statusCode, 303);
      const { rows } = await ctx().db.query<{ client_ip: string }>(`SELECT client_ip FROM audit_log WHERE action = 'user.sign-in' AND actor = $1`, [`user:${email}`]);
      assert.deepEqual(
        rows.map((r) => r.client_ip),
        ['192.0.2.7'],
      );
    });
  },
  { authFailuresPerMinute: 3 },
);

describeEachStore(
  'TRUST_PROXY=127.0.0.1: clients behind the proxy are told apart by X-Forwarded-For',
  (ctx) => {
    it('one client refused too often does not lock out another behind the same proxy', async () => {
      const instance = await ctx().instance('proxied');
      const key = await ctx().key([instance]);
      for (let i = 0; i < 3; i++) assert.equal((await get(ctx(), WRONG_KEY, '203.0.113.1')).statusCode, 401);
      assert.equal((await get(ctx(), key, '203.0.113.1')).statusCode, 429, 'the guessing client is turned away');
      assert.equal((await get(ctx(), key, '203.0.113.2')).statusCode, 200, 'another client behind the proxy is not');
      // A peer that is not the trusted proxy is its own client, whatever it forwards.
      const direct = await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key, 'x-forwarded-for': '203.0.113.1' }, remoteAddress: '192.0.2.50' });
      assert.equal(direct.statusCode, 200);
    });

    it('the console sign-in limit per address counts each forwarded client, and the audit names it', async () => {
      const form = await signInForm(ctx());
      const from = (client: string) => ({ remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': `${client}, 127.0.0.1` } });
      // 100 attempts per address in 15 minutes, each at a different (unknown) account.
      for (let i = 0; i < 100; i += 10) {
        const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => signIn(ctx(), `nobody-${i + j}@example.com`, 'not the password', from('203.0.113.10'), form)));
        assert.ok(batch.every((r) => r.statusCode === 401));
      }
      assert.equal((await signIn(ctx(), 'nobody-else@example.com', 'not the password', from('203.0.113.10'), form)).statusCode, 429);
      const email = `proxied-${process.pid}@example.com`;
      const { password } = await consoleUser(ctx(), email, 'owner');
      assert.equal((await signIn(ctx(), email, password, from('203.0.113.11'), form)).statusCode, 303, 'another client signs in');
      const { rows } = await ctx().db.query<{ client_ip: string }>(`SELECT client_ip FROM audit_log WHERE action = 'user.sign-in' AND actor = $1`, [`user:${email}`]);
      assert.deepEqual(
        rows.map((r) => r.client_ip),
        ['203.0.113.11'],
      );
    });
  },
  { authFailuresPerMinute: 3, trustProxy: ['127.0.0.1'] },
);

describeEachStore(
  'TRUST_PROXY=1: one proxy hop, whatever its address',
  (ctx) => {
    it('takes the last address of X-Forwarded-For as the client', async () => {
      const instance = await ctx().instance('hop');
      const key = await ctx().key([instance]);
      for (let i = 0; i < 3; i++) assert.equal((await get(ctx(), WRONG_KEY, `198.51.100.7, 203.0.113.21`)).statusCode, 401);
      assert.equal((await get(ctx(), key, '203.0.113.21')).statusCode, 429, 'the client the proxy saw is turned away, whatever it claimed before');
      assert.equal((await get(ctx(), key, '203.0.113.22')).statusCode, 200);
    });
  },
  { authFailuresPerMinute: 3, trustProxy: 1 },
);
