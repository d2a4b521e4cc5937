// What a tenant, or anyone, must not learn about other tenants or the service's network: whether
// an instance exists (its public theme stylesheet), the internal names and addresses behind a
// failed webhook delivery, and the keys of instances a console user does not manage.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { Writable } from 'node:stream';
import { postWebhook } from '../src/modules/webhooks/post.js';
import { describeEachStore, freePort, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { invite } from './support/portal.js';

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

/** An answer without what differs on every request. */
const shape = (r: LightMyRequestResponse) => {
  const { date: _date, 'x-request-id': _id, ...headers } = r.headers;
  return { status: r.statusCode, headers, body: r.body };
};

describeEachStore(
  'what tenants cannot learn',
  (ctx) => {
    it('/brand/{instance}/theme.css answers an unknown instance exactly like an existing one without a colour', async () => {
      const instance = await ctx().instance('themed');
      const known = await ctx().request({ method: 'GET', url: `/brand/${instance}/theme.css` });
      assert.equal(known.statusCode, 200);
      for (const name of ['no-such-instance', 'x'.repeat(150), 'bad%20name']) {
        assert.deepEqual(shape(await ctx().request({ method: 'GET', url: `/brand/${name}/theme.css` })), shape(known), name);
      }
    });

    it('shows a tenant a category of a failed webhook delivery, never the internal name or address; the operator log keeps it', async () => {
      const instance = await ctx().instance('hooked');
      await ctx().publish(instance, sampleAssessment('alpha'));
      const key = await ctx().key([instance]);
      // localhost resolves to a loopback address: refused after the lookup, as an internal name would be.
      const made = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks`, payload: { url: 'http://localhost:9/hooks' } });
      assert.equal(made.statusCode, 201, made.body);
      await invite(ctx(), { instance, key }, { email: 'hooked@example.com', firstName: 'Wen', lastName: 'Hook' }, ['alpha']);
      const from = logLines.length;
      await ctx().app.jobs.runAndSettle('webhooks');
      const { password } = await consoleUser(ctx(), `hooks-${instance}@example.com`, 'manager', [instance]);
      const manager = await consoleAs(ctx(), `hooks-${instance}@example.com`, password);
      const page = await manager.get(`/console/webhooks?instance=${instance}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<td data-label="Answer">address not allowed<\/td>/);
      for (const internal of ['127.0.0.1', '::1', 'resolves to', 'WEBHOOK_ALLOW_PRIVATE_NETWORKS']) assert.ok(!page.body.includes(internal), `the page shows ${internal}`);
      const log = logLines.slice(from).join('');
      assert.match(log, /webhook delivery got no answer/);
      assert.match(log, /"detail":"[A-Z]*: ?localhost resolves to (127\.0\.0\.1|::1)/, 'the operator log keeps the detail');
      // A refusal by policy does not heal by waiting: failed at once, not scheduled again.
      const deliveries = async () =>
        (
          await ctx().db.query<{ status: string; attempts: number; next: Date | null }>(
            `SELECT d.status, d.attempts, d.next_attempt_at AS next FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.id = $1`,
            [made.json().id],
          )
        ).rows;
      assert.deepEqual(await deliveries(), [{ status: 'failed', attempts: 1, next: null }]);
      // The tenant fixes the address and sends it again.
      const fixed = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}/webhooks/${made.json().id}`, payload: { url: 'https://hooks.example.com/x' } });
      assert.equal(fixed.statusCode, 200, fixed.body);
      const replayed = await ctx().request({
        method: 'POST',
        url: `/admin/v1/instances/${instance}/webhooks/${made.json().id}/replay`,
        payload: { since: '2000-01-01T00:00:00Z' },
      });
      assert.ok(replayed.statusCode < 300, replayed.body);
      assert.deepEqual(
        (await deliveries()).map((d) => d.status),
        ['pending'],
      );
    });

    it('names what went wrong by category: connection refused, timeout, host not found, address not allowed', async () => {
      const closed = await freePort();
      const refused = await postWebhook(`http://127.0.0.1:${closed}/x`, {}, '{}', { timeoutMs: 2000, allowPrivate: true });
      assert.equal(refused.response, 'connection refused');
      assert.match(refused.detail ?? '', /ECONNREFUSED/);
      assert.equal((await postWebhook('http://10.0.0.1/x', {}, '{}', { timeoutMs: 2000, allowPrivate: false })).response, 'address not allowed');
      assert.equal((await postWebhook('http://no-such-host.invalid/x', {}, '{}', { timeoutMs: 2000, allowPrivate: false })).response, 'host not found');
    });

    it("the console's key list names no instance the user cannot see", async () => {
      const mine = await ctx().instance('mine');
      const theirs = await ctx().instance('secret-client');
      await ctx().key([mine, theirs], { label: 'shared key' });
      const { password } = await consoleUser(ctx(), `keys-${mine}@example.com`, 'manager', [mine]);
      const manager = await consoleAs(ctx(), `keys-${mine}@example.com`, password);
      const page = await manager.get(`/console/keys?instance=${mine}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /shared key/);
      assert.ok(!page.body.includes(theirs), "another instance's name is shown");
      assert.match(page.body, new RegExp(`${mine}, 1 other instance`));
      const { password: ownerPassword } = await consoleUser(ctx(), `keys-owner-${mine}@example.com`, 'owner');
      const owner = await consoleAs(ctx(), `keys-owner-${mine}@example.com`, ownerPassword);
      assert.ok((await owner.get(`/console/keys?instance=${mine}`)).body.includes(theirs), 'an owner sees every instance');
    });
  },
  { logStream },
);
