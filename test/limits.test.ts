// Request budgets per API key, the limit on refused credentials per address, and the Redis
// counters shared by several nodes (with the fallback when Redis is away).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ConfigError, loadConfig } from '../src/config.js';
import { ADMIN_TOKEN, createTestContext, describeEachStore, storeKinds, type TestContext } from './harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// Nothing listens on port 1: a Redis that is down.
const DEAD_REDIS_URL = 'redis://127.0.0.1:1';

function rateLimit(response: LightMyRequestResponse): { r: number; t: number } {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(String(response.headers.ratelimit));
  assert.ok(match, `RateLimit header: ${String(response.headers.ratelimit)}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

/** A fresh client address per test, so that counts of one test never leak into another. */
const address = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

const get = (ctx: TestContext, key: string, remoteAddress?: string) =>
  ctx.request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key }, remoteAddress });

/** n requests one after the other; their status codes. */
async function burst(ctx: TestContext, key: string, n: number): Promise<LightMyRequestResponse[]> {
  const responses = [];
  for (let i = 0; i < n; i++) responses.push(await get(ctx, key));
  return responses;
}

describe('limit settings', () => {
  it('reads RATE_LIMIT_PER_MINUTE and AUTH_FAILURES_PER_MINUTE with defaults', () => {
    assert.equal(loadConfig({}).rateLimitPerMinute, 600);
    assert.equal(loadConfig({}).authFailuresPerMinute, 20);
    assert.equal(loadConfig({ RATE_LIMIT_PER_MINUTE: '50' }).rateLimitPerMinute, 50);
  });

  it('refuses a rate limit that is not a positive integer', () => {
    for (const bad of ['0', '-1', '1.5', 'lots', '1000001']) {
      assert.throws(() => loadConfig({ RATE_LIMIT_PER_MINUTE: bad }), (error: Error) => error instanceof ConfigError && /RATE_LIMIT_PER_MINUTE/.test(error.message));
    }
    assert.throws(() => loadConfig({ AUTH_FAILURES_PER_MINUTE: '0' }), ConfigError);
    assert.throws(() => loadConfig({ REDIS_URL: 'http://cache:6379' }), /REDIS_URL/);
  });
});

describeEachStore(
  'request budget per API key',
  (ctx) => {
    let instance: string;
    before(async () => {
      instance = await ctx().instance('budget');
    });

    it('allows exactly the budget, then answers 429 with Retry-After and the RateLimit fields', async () => {
      const key = await ctx().key([instance]);
      const responses = await burst(ctx(), key, 6);
      assert.deepEqual(responses.map((r) => r.statusCode), [200, 200, 200, 200, 200, 429]);
      assert.deepEqual(responses.slice(0, 5).map((r) => rateLimit(r).r), [4, 3, 2, 1, 0]);
      for (const response of responses) {
        assert.equal(response.headers['ratelimit-policy'], '"default";q=5;w=60');
        const { t } = rateLimit(response);
        assert.ok(t >= 1 && t <= 60, `t=${t}`);
        assert.equal(response.headers['ratelimit-limit'], undefined, 'the old field names are not sent');
      }
      const refused = responses[5]!;
      assert.equal(refused.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(refused.json().type, 'urn:assessment-connect:problem:rate-limited');
      assert.equal(refused.json().status, 429);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${refused.headers['retry-after']}`);
      assert.equal(rateLimit(refused).r, 0);
    });

    it('counts each key on its own', async () => {
      const first = await ctx().key([instance]);
      const second = await ctx().key([instance]);
      await burst(ctx(), first, 6);
      assert.equal((await get(ctx(), second)).statusCode, 200);
    });

    it("uses the key's own rate limit over the service default", async () => {
      const key = await ctx().key([instance], { rateLimit: 2 });
      const responses = await burst(ctx(), key, 3);
      assert.deepEqual(responses.map((r) => r.statusCode), [200, 200, 429]);
      assert.equal(responses[0]!.headers['ratelimit-policy'], '"default";q=2;w=60');
    });

    it('sends the fields on errors after authentication too', async () => {
      const key = await ctx().key([instance]);
      const response = await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key, instance: 'not-granted' } });
      assert.equal(response.statusCode, 403);
      assert.equal(response.headers['ratelimit-policy'], '"default";q=5;w=60');
      assert.equal(rateLimit(response).r, 4);
    });

    it('changes a key rate limit through the admin API, and back to the default with null', async () => {
      const created = await ctx().request({ method: 'POST', url: '/admin/v1/keys', payload: { instances: [instance] } });
      const { id, key } = created.json();
      const patched = await ctx().request({ method: 'PATCH', url: `/admin/v1/keys/${id}`, payload: { rateLimit: 1 } });
      assert.equal(patched.statusCode, 200);
      assert.equal(patched.json().rateLimit, 1);
      const responses = await burst(ctx(), key, 2);
      assert.deepEqual(responses.map((r) => r.statusCode), [200, 429]);
      const reset = await ctx().request({ method: 'PATCH', url: `/admin/v1/keys/${id}`, payload: { rateLimit: null } });
      assert.equal(reset.json().rateLimit, null);
      assert.equal((await get(ctx(), key)).statusCode, 200, 'back to the default of 5, one of which is spent');
    });

    it('refuses a bad rate limit with 400', async () => {
      const created = await ctx().request({ method: 'POST', url: '/admin/v1/keys', payload: { instances: [instance] } });
      const { id } = created.json();
      for (const rateLimitValue of [0, -3, 1.5, '10', 1_000_001]) {
        const patch = await ctx().request({ method: 'PATCH', url: `/admin/v1/keys/${id}`, payload: { rateLimit: rateLimitValue } });
        assert.equal(patch.statusCode, 400, `PATCH rateLimit ${String(rateLimitValue)}`);
        assert.equal(patch.json().errors[0].name, 'rateLimit');
        const create = await ctx().request({ method: 'POST', url: '/admin/v1/keys', payload: { instances: [instance], rateLimit: rateLimitValue } });
        assert.equal(create.statusCode, 400, `POST rateLimit ${String(rateLimitValue)}`);
      }
      const empty = await ctx().request({ method: 'PATCH', url: `/admin/v1/keys/${id}`, payload: {} });
      assert.equal(empty.statusCode, 400);
      const unknown = await ctx().request({ method: 'PATCH', url: '/admin/v1/keys/key_0000000000000000', payload: { rateLimit: 5 } });
      assert.equal(unknown.statusCode, 404);
    });
  },
  { rateLimitPerMinute: 5 },
);

describeEachStore(
  'refused credentials per client address',
  (ctx) => {
    let instance: string;
    let key: string;
    before(async () => {
      instance = await ctx().instance('authfail');
      key = await ctx().key([instance]);
    });

    it('turns an address away after 3 refused keys, even with a correct key, and only that address', async () => {
      const ip = address();
      const wrong = `ack_${'x'.repeat(43)}`;
      for (let i = 0; i < 3; i++) assert.equal((await get(ctx(), wrong, ip)).statusCode, 401);
      const blocked = await get(ctx(), key, ip);
      assert.equal(blocked.statusCode, 429);
      assert.equal(blocked.json().type, 'urn:assessment-connect:problem:rate-limited');
      assert.ok(Number(blocked.headers['retry-after']) >= 1);
      assert.equal((await get(ctx(), key, address())).statusCode, 200, 'another address is not affected');
    });

    it('does not count a missing key as a refusal', async () => {
      const ip = address();
      for (let i = 0; i < 5; i++) {
        assert.equal((await ctx().request({ method: 'GET', url: '/v1/assessment', remoteAddress: ip })).statusCode, 401);
      }
      assert.equal((await get(ctx(), key, ip)).statusCode, 200);
    });

    it('limits refused admin tokens the same way', async () => {
      const ip = address();
      const admin = (token: string) => ctx().request({ method: 'GET', url: '/admin/v1/instances', headers: { authorization: `Bearer ${token}` }, remoteAddress: ip });
      for (let i = 0; i < 3; i++) assert.equal((await admin('wrong-token-wrong-token')).statusCode, 401);
      const blocked = await admin(ADMIN_TOKEN);
      assert.equal(blocked.statusCode, 429);
      assert.ok(Number(blocked.headers['retry-after']) >= 1);
      assert.equal((await ctx().request({ method: 'GET', url: '/admin/v1/instances', remoteAddress: address() })).statusCode, 200);
    });
  },
  { authFailuresPerMinute: 3 },
);

// The counters do not depend on the store: these run on the first store kind only.
const [kind] = storeKinds();

describe('request budget counted in Redis', () => {
  let one: Awaited<ReturnType<typeof createTestContext>>;
  let two: Awaited<ReturnType<typeof createTestContext>>;
  before(async () => {
    one = await createTestContext(kind!, { redisUrl: REDIS_URL, rateLimitPerMinute: 4 });
    // A second node: its own app and counter, the same database and Redis.
    two = await createTestContext(kind!, { redisUrl: REDIS_URL, rateLimitPerMinute: 4, db: one.db });
  });
  after(async () => {
    await two?.close();
    await one?.close();
  });

  it('counts the requests of a key on two nodes together', async () => {
    const instance = await one.instance('redis');
    const key = await one.key([instance]);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await get(one, key)).statusCode, (await get(two, key)).statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
  });

  it('counts refused keys per address on both nodes together', async () => {
    const ip = address();
    const wrong = `ack_${'y'.repeat(43)}`;
    for (let i = 0; i < 10; i++) await get(i % 2 ? one : two, wrong, ip);
    const instance = await one.instance('redis');
    const key = await one.key([instance]);
    // The default of 20 refusals is not reached by 10.
    assert.equal((await get(one, key, ip)).statusCode, 200);
    for (let i = 0; i < 10; i++) await get(i % 2 ? one : two, wrong, ip);
    assert.equal((await get(two, key, ip)).statusCode, 429);
  });
});

describe('request budget when Redis is unreachable', () => {
  let ctx: Awaited<ReturnType<typeof createTestContext>>;
  before(async () => {
    ctx = await createTestContext(kind!, { redisUrl: DEAD_REDIS_URL, rateLimitPerMinute: 3 });
  });
  after(async () => {
    await ctx?.close();
  });

  it('never answers 5xx and counts in the process instead', async () => {
    const instance = await ctx.instance('noredis');
    const key = await ctx.key([instance]);
    const responses = await burst(ctx, key, 4);
    assert.deepEqual(responses.map((r) => r.statusCode), [200, 200, 200, 429]);
    assert.equal(responses[0]!.headers['ratelimit-policy'], '"default";q=3;w=60');
    assert.deepEqual(responses.slice(0, 3).map((r) => rateLimit(r).r), [2, 1, 0]);
    const wrong = await get(ctx, `ack_${'z'.repeat(43)}`, address());
    assert.equal(wrong.statusCode, 401);
  });
});
