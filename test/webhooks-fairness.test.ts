// One tenant's hanging webhook endpoints do not hold another tenant's deliveries: each instance
// gets a fair share of a node's delivery slots. The receivers are stand-ins (the worker's `post`):
// one instance's never answer while the test runs, the other's answer at once.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { PostOutcome } from '../src/modules/webhooks/post.js';
import { webhookJob } from '../src/modules/webhooks/worker.js';
import { describeEachStore, QUICK_ASSESSMENT } from './harness.js';
import { movingClock } from './support/clock.js';
import { invite as inviteThroughApi } from './support/portal.js';

describeEachStore(
  'webhook delivery shared fairly between instances',
  (ctx) => {
    it("delivers one instance's events while another's 20 endpoints hang", async () => {
      const [noisy, quiet] = [await ctx().instance('noisy'), await ctx().instance('quiet')];
      for (const instance of [noisy, quiet]) assert.equal((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode, 201);
      const endpoint = (instance: string, url: string) => ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks`, payload: { url } });
      // The operator allows the noisy instance 20 endpoints (the default is 10).
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${noisy}`, payload: { maxWebhookEndpoints: 20 } })).statusCode, 200);
      for (let i = 0; i < 20; i++) assert.equal((await endpoint(noisy, `http://127.0.0.1:9/hang-${i}`)).statusCode, 201);
      assert.equal((await endpoint(quiet, 'http://127.0.0.1:9/quick')).statusCode, 201);
      const invite = (instance: string, key: string, email: string) => inviteThroughApi(ctx(), { instance, key }, { email, firstName: 'Fa', lastName: 'Ir' }, ['quick']);
      const noisyKey = await ctx().key([noisy], { rateLimit: 100000 });
      // 10 invites: 200 deliveries to the hanging endpoints, all due before the quiet instance's one.
      for (let i = 0; i < 10; i++) await invite(noisy, noisyKey, `n${i}@fair.example`);
      await invite(quiet, await ctx().key([quiet]), 'q@fair.example');

      const hanging: (() => void)[] = [];
      const answered: string[] = [];
      const post = (url: string): Promise<PostOutcome> => {
        if (url.includes('/hang-')) return new Promise((resolve) => hanging.push(() => resolve({ status: 503, response: '', durationMs: 0 })));
        answered.push(url);
        return Promise.resolve({ status: 204, response: '', durationMs: 1 });
      };
      const clock = movingClock();
      const job = webhookJob({ db: ctx().db, log: { warn() {}, error() {} }, clock: clock.now, allowPrivate: true, post });
      for (let run = 0; run < 5 && answered.length === 0; run++) await job.run(clock.now());
      assert.deepEqual(answered, ['http://127.0.0.1:9/quick'], "the quiet instance's delivery left while the noisy one's hang");
      assert.ok(hanging.length <= 16, `the noisy instance holds at most its share of the node's 64 slots (${hanging.length})`);
      for (const release of hanging) release();
      await job.settle();
    });

    it('refuses an endpoint beyond the number the operator allows the instance (409), and counts one after the other', async () => {
      const instance = await ctx().instance('bounded');
      const patched = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { maxWebhookEndpoints: 2 } });
      assert.equal(patched.statusCode, 200, patched.body);
      assert.equal(patched.json().maxWebhookEndpoints, 2);
      const register = (i: number) => ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks`, payload: { url: `http://127.0.0.1:9/bounded-${i}` } });
      const statuses = (await Promise.all([0, 1, 2, 3].map(register))).map((r) => r.statusCode).sort();
      assert.deepEqual(statuses, [201, 201, 409, 409]);
      const refused = await register(4);
      assert.equal(refused.statusCode, 409);
      assert.match(refused.json().detail, /2 webhook endpoints, the most the operator allows/);
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { maxWebhookEndpoints: 0 } })).statusCode, 400);
    });
  },
  { webhookAllowPrivateNetworks: true },
);
