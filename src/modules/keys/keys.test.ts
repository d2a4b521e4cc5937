import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp } from '../../app.js';
import { ADMIN_TOKEN, describeEachStore } from '../../../test/harness.js';
import { movingClock } from '../../../test/support/clock.js';

/** The app's clock: the real time plus however far a test moved it (only ever forward). */
const time = movingClock();
const now = time.now;

describeEachStore(
  'API keys and tenancy',
  (ctx) => {
    const get = (key: string | undefined, url: string, headers: Record<string, string> = {}) =>
      ctx().request({ method: 'GET', url, headers: key === undefined ? headers : { 'x-api-key': key, ...headers } });

    it('issues keys with the ack_ prefix, 256 bits, shown once and stored only as a hash', async () => {
      const instance = await ctx().instance();
      const response = await ctx().request({ method: 'POST', url: '/admin/v1/keys', payload: { instances: [instance], label: 'ATS' } });
      assert.equal(response.statusCode, 201);
      const created = response.json();
      assert.match(created.key, /^ack_[A-Za-z0-9_-]{43}$/);
      assert.match(created.id, /^key_[0-9a-f]{16}$/);
      assert.deepEqual(created.instances, [instance]);
      const { rows } = await ctx().db.query<{ hash: Buffer; prefix: string }>('SELECT hash, prefix FROM api_keys WHERE id = $1', [created.id]);
      assert.deepEqual(Buffer.from(rows[0]!.hash), createHash('sha256').update(created.key).digest());
      const everything = JSON.stringify((await ctx().db.query('SELECT * FROM api_keys')).rows);
      assert.ok(!everything.includes(created.key.slice(4)), 'the key itself is not stored');
      const listed = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json();
      assert.equal(listed.length, 1);
      assert.equal(listed[0].key, undefined, 'listing never shows the key');
      assert.equal(listed[0].label, 'ATS');
    });

    it('answers 401 with one message for a missing, malformed, unknown, revoked or expired key', async () => {
      const instance = await ctx().instance();
      const revoked = await ctx().key([instance]);
      const revokedId = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json()[0].id;
      assert.equal((await get(revoked, '/v1/assessment')).statusCode, 200);
      await ctx().request({ method: 'POST', url: `/admin/v1/keys/${revokedId}/revoke` });
      const expiring = await ctx().key([instance], { expiresAt: new Date(now().getTime() + 60_000).toISOString() });
      assert.equal((await get(expiring, '/v1/assessment')).statusCode, 200);
      // Past its expiry by the app's clock (no waiting): refused, cached verdict or not.
      time.offset += 61_000;

      const cases: [string, string | undefined][] = [
        ['missing', undefined],
        ['empty', ''],
        ['malformed', 'not-a-key'],
        ['unknown', `ack_${'A'.repeat(43)}`],
        ['revoked', revoked],
        ['expired', expiring],
      ];
      const details = new Set<string>();
      for (const [name, key] of cases) {
        for (const url of ['/v1/assessment', '/v1/score', '/v1/invite']) {
          const response = await ctx().request({
            method: url === '/v1/invite' ? 'POST' : 'GET',
            url,
            headers: { ...(key === undefined ? {} : { 'x-api-key': key }), instance },
            ...(url === '/v1/invite' ? { payload: { email: 'a@b.co', firstName: 'A', lastName: 'B', assessments: ['x'] } } : {}),
          });
          assert.equal(response.statusCode, 401, `${name} key on ${url}`);
          assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
          details.add(response.json().detail);
        }
      }
      assert.equal(details.size, 1, 'one message for every refused key');
    });

    it('answers 403 alike for an instance not granted and one that does not exist', async () => {
      const mine = await ctx().instance();
      const theirs = await ctx().instance();
      const key = await ctx().key([mine]);
      const notGranted = await get(key, '/v1/score', { instance: theirs });
      const missing = await get(key, '/v1/score', { instance: 'no-such-instance' });
      const malformed = await get(key, '/v1/score', { instance: 'Not A Name!' });
      for (const response of [notGranted, missing, malformed]) {
        assert.equal(response.statusCode, 403);
        assert.equal(response.json().detail, notGranted.json().detail);
      }
      assert.equal((await get(key, '/v1/score', { instance: mine })).statusCode, 200);
    });

    it('answers 400 for an empty instance header', async () => {
      const instance = await ctx().instance();
      const key = await ctx().key([instance]);
      const response = await get(key, '/v1/score', { instance: '' });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().errors[0].name, 'instance');
    });

    it('a key granted several instances sees all of them without the header, one with it', async () => {
      const a = await ctx().instance();
      const b = await ctx().instance();
      await ctx().publish(
        a,
        'id: one\nname: One\ndescription: d\ndurationMinutes: 5\npassScore: 50\nlowPassScore: 40\ncategories: [{id: c, name: C}]\nquestions: [{id: q, type: free-text, category: c, prompt: Why?}]\n',
      );
      await ctx().publish(
        b,
        'id: two\nname: Two\ndescription: d\ndurationMinutes: 5\npassScore: 50\nlowPassScore: 40\ncategories: [{id: c, name: C}]\nquestions: [{id: q, type: free-text, category: c, prompt: Why?}]\n',
      );
      const key = await ctx().key([a, b]);
      assert.deepEqual(
        (await get(key, '/v1/assessment')).json().map((x: { id: string }) => x.id),
        ['one', 'two'],
      );
      assert.deepEqual(
        (await get(key, '/v1/assessment', { instance: b })).json().map((x: { id: string }) => x.id),
        ['two'],
      );
    });

    it('tells apart the keys presented one after another on one keep-alive connection', async () => {
      const [first, second] = [await ctx().instance(), await ctx().instance()];
      const [a, b] = [await ctx().key([first]), await ctx().key([second])];
      const revoked = await ctx().key([first], { label: 'revoked on the connection' });
      const url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const sockets = new Set<unknown>();
      const status = (key: string, instance: string) =>
        new Promise<number>((resolve, reject) => {
          const request = httpGet(`${url}/v1/assessment`, { agent, headers: { 'x-api-key': key, instance } }, (response) => {
            sockets.add(response.socket);
            response.resume().on('end', () => resolve(response.statusCode!));
          });
          request.on('error', reject);
        });
      try {
        // Each key reaches its own instance and not the other's, whatever the connection presented before.
        const seen: number[] = [];
        for (const [key, instance] of [
          [a, first],
          [b, first],
          [b, second],
          [a, second],
          [a, first],
          [`${a.slice(0, -1)}!`, first],
          [revoked, first],
        ] as const) {
          seen.push(await status(key, instance));
        }
        assert.deepEqual(seen, [200, 403, 200, 403, 200, 401, 200]);
        const id = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${first}` }))
          .json()
          .find((k: { label: string }) => k.label === 'revoked on the connection').id;
        assert.equal((await ctx().request({ method: 'POST', url: `/admin/v1/keys/${id}/revoke` })).statusCode, 200);
        assert.equal(await status(revoked, first), 401, 'revoked, though its hash was the last this connection presented');
        assert.equal(sockets.size, 1, 'every request went over one connection');
      } finally {
        agent.destroy();
      }
    });

    it('revocation takes effect at once on the revoking node', async () => {
      const instance = await ctx().instance();
      const key = await ctx().key([instance]);
      assert.equal((await get(key, '/v1/assessment')).statusCode, 200);
      const id = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json()[0].id;
      const revoke = await ctx().request({ method: 'POST', url: `/admin/v1/keys/${id}/revoke` });
      assert.equal(revoke.statusCode, 200);
      assert.ok(revoke.json().revokedAt);
      assert.equal((await get(key, '/v1/assessment')).statusCode, 401);
      const again = await ctx().request({ method: 'POST', url: `/admin/v1/keys/${id}/revoke` });
      assert.equal(again.json().revokedAt, revoke.json().revokedAt, 'revoking twice keeps the first time');
      assert.equal((await ctx().request({ method: 'POST', url: '/admin/v1/keys/key_0000000000000000/revoke' })).statusCode, 404);
    });

    it('revocation on one node is refused by another node once its cache time (KEY_CACHE_MS) has passed', async () => {
      const instance = await ctx().instance();
      const key = await ctx().key([instance]);
      // A second node: another app on the same database, with its own key cache.
      const other = await buildApp({
        config: { publicUrl: 'http://portal.test', adminToken: ADMIN_TOKEN, keyCacheMs: 2000, now },
        db: ctx().db,
        mailer: { description: '', send: async () => ({ status: 'FAILED', detail: 'unused' }), close() {} },
      });
      try {
        const viaOther = () => other.inject({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } });
        assert.equal((await viaOther()).statusCode, 200, 'the other node has the key cached');
        const id = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json()[0].id;
        await ctx().request({ method: 'POST', url: `/admin/v1/keys/${id}/revoke` });
        assert.equal((await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).statusCode, 401, 'refused at once on the node that revoked it');
        // The other node may still answer from its cache; once its cache time has passed by its
        // clock, it must ask the database again and refuse the key.
        time.offset += 2001;
        assert.equal((await viaOther()).statusCode, 401, 'refused by the other node after KEY_CACHE_MS');
      } finally {
        await other.close();
      }
    });

    it('records when a key was last used', async () => {
      const instance = await ctx().instance();
      const key = await ctx().key([instance]);
      assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json()[0].lastUsedAt, null);
      await get(key, '/v1/assessment');
      let lastUsed = null;
      for (let i = 0; i < 50 && !lastUsed; i++) {
        await sleep(20);
        lastUsed = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json()[0].lastUsedAt;
      }
      assert.ok(lastUsed, 'lastUsedAt is set after use');
    });

    it('validates key creation', async () => {
      const instance = await ctx().instance();
      const cases: [unknown, string][] = [
        [{}, 'instances'],
        [{ instances: [] }, 'instances'],
        [{ instances: ['no-such-instance'] }, 'instances'],
        [{ instances: ['Bad Name'] }, 'instances.0'],
        [{ instances: [instance], rateLimit: 0 }, 'rateLimit'],
        [{ instances: [instance], expiresAt: 'tomorrow' }, 'expiresAt'],
        [{ instances: [instance], expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
        [{ instances: [instance], surprise: true }, 'surprise'],
      ];
      for (const [payload, field] of cases) {
        const response = await ctx().request({ method: 'POST', url: '/admin/v1/keys', payload: payload as object });
        assert.equal(response.statusCode, 400, JSON.stringify(payload));
        assert.ok(
          response.json().errors.some((e: { name: string }) => e.name === field),
          `${JSON.stringify(payload)} names ${field}: ${response.body}`,
        );
      }
    });
  },
  { now },
);
