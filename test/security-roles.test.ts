// Managers' powers end where the operator's begin: the portal address and the sender address of
// an instance, and a key's request budget above the operator's ceiling (RATE_LIMIT_PER_MINUTE),
// are not a manager's to set in the console. Owners, like the operator, may.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

describeEachStore(
  "managers' powers in the console",
  (ctx) => {
    let instance: string;
    let manager: Awaited<ReturnType<typeof consoleAs>>;
    let owner: Awaited<ReturnType<typeof consoleAs>>;
    const settings = (fields: Record<string, string>) => ({
      instance,
      inviteTtlDays: '14',
      reportLinkDays: '90',
      reminderDays: '',
      mailFromName: '',
      displayName: '',
      accentColor: '',
      supportEmail: '',
      privacyUrl: '',
      portalUrl: '',
      mailFromAddress: '',
      ...fields,
    });
    const stored = async () =>
      (
        await ctx().db.query<{ portalUrl: string | null; mailFromAddress: string | null }>(
          `SELECT portal_url AS "portalUrl", mail_from_address AS "mailFromAddress" FROM instances WHERE name = $1`,
          [instance],
        )
      ).rows[0]!;

    it('a manager cannot set the portal URL or the sender address; the form shows them read-only', async () => {
      instance = await ctx().instance('powers');
      const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
      manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
      const o = await consoleUser(ctx(), `owner-${instance}@example.com`, 'owner');
      owner = await consoleAs(ctx(), `owner-${instance}@example.com`, o.password);
      const portal = await manager.post('/console/settings', settings({ portalUrl: 'https://phish.example' }));
      assert.equal(portal.statusCode, 403, portal.body);
      const sender = await manager.post('/console/settings', settings({ mailFromAddress: 'ceo@bank.example' }));
      assert.equal(sender.statusCode, 403);
      assert.deepEqual(await stored(), { portalUrl: null, mailFromAddress: null });
      // The rest of the form still saves, with the two fields as they are (or left out).
      assert.equal((await manager.post('/console/settings', settings({ inviteTtlDays: '21' }))).statusCode, 303);
      const { portalUrl: _p, mailFromAddress: _m, ...without } = settings({ inviteTtlDays: '20' });
      assert.equal((await manager.post('/console/settings', without)).statusCode, 303);
      const page = await manager.get(`/console/settings?instance=${instance}`);
      assert.match(page.body, /name="portalUrl"[^>]*readonly/);
      assert.match(page.body, /name="mailFromAddress"[^>]*readonly/);
    });

    it('the operator and owners may set them, and a manager then keeps them when saving', async () => {
      assert.equal((await owner.post('/console/settings', settings({ portalUrl: 'https://assess.example', mailFromAddress: 'hiring@acme.example' }))).statusCode, 303);
      assert.deepEqual([(await stored()).portalUrl, (await stored()).mailFromAddress], ['https://assess.example', 'hiring@acme.example']);
      assert.equal(
        (await manager.post('/console/settings', settings({ portalUrl: 'https://assess.example/', mailFromAddress: 'hiring@acme.example', inviteTtlDays: '10' }))).statusCode,
        303,
      );
      const { portalUrl: _p, mailFromAddress: _m, ...without } = settings({ inviteTtlDays: '11' });
      assert.equal((await manager.post('/console/settings', without)).statusCode, 303);
      assert.deepEqual([(await stored()).portalUrl, (await stored()).mailFromAddress], ['https://assess.example', 'hiring@acme.example'], 'kept');
      assert.equal((await manager.post('/console/settings', settings({ portalUrl: '', mailFromAddress: 'hiring@acme.example' }))).statusCode, 403, 'clearing is a change too');
    });

    it("a manager cannot give a key more than the operator's ceiling; owners and the operator can", async () => {
      const created = await manager.post('/console/keys', { instance, label: 'greedy', rateLimit: '1000000' });
      assert.equal(created.statusCode, 400);
      assert.match(created.body, /at most 50 requests per minute/);
      assert.equal((await manager.post('/console/keys', { instance, label: 'modest', rateLimit: '40' })).statusCode, 200);
      const keys = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${instance}` })).json() as { id: string; label: string; rateLimit: number | null }[];
      const modest = keys.find((k) => k.label === 'modest')!;
      assert.equal(modest.rateLimit, 40);
      assert.equal((await manager.post(`/console/keys/${modest.id}/rate-limit`, { instance, rateLimit: '1000000' })).statusCode, 400);
      assert.equal((await manager.post(`/console/keys/${modest.id}/rate-limit`, { instance, rateLimit: '50' })).statusCode, 303);
      // The operator raises it; the manager may keep that value or lower it, not raise it again.
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/keys/${modest.id}`, payload: { rateLimit: 5000 } })).statusCode, 200);
      assert.equal((await manager.post(`/console/keys/${modest.id}/rate-limit`, { instance, rateLimit: '5000' })).statusCode, 303, 'kept');
      assert.equal((await manager.post(`/console/keys/${modest.id}/rate-limit`, { instance, rateLimit: '4000' })).statusCode, 400, 'still above the ceiling');
      assert.equal((await manager.post(`/console/keys/${modest.id}/rate-limit`, { instance, rateLimit: '' })).statusCode, 303, 'back to the default');
      assert.equal((await owner.post(`/console/keys/${modest.id}/rate-limit`, { instance, rateLimit: '1000000' })).statusCode, 303, 'an owner may');
    });
  },
  { rateLimitPerMinute: 50 },
);
