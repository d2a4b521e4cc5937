// Lists ordered by id ("newest first") compare ids as numbers, not as text: with ten or more
// entries, text order put 9 before 15 and paging by id lost entries.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { invite } from './support/portal.js';

const descending = (ids: string[]) => ids.every((id, i) => i === 0 || BigInt(ids[i - 1]!) > BigInt(id));

describeEachStore('lists ordered by id', (ctx) => {
  let instance: string;
  let key: string;
  before(async () => {
    instance = await ctx().instance('order');
    assert.equal((await ctx().publish(instance, sampleAssessment('ordered'))).statusCode, 201);
    key = await ctx().key([instance]);
  });

  it('the audit log is newest first by number, and paging with before reaches every entry once', async () => {
    for (let i = 0; i < 15; i++) {
      const response = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { inviteTtlDays: 1 + i } });
      assert.equal(response.statusCode, 200);
    }
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id::text AS id FROM audit_log');
    const all = rows.map((row) => row.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
    assert.ok(all.length >= 15 && all.some((id) => id.length >= 2), 'ids of different lengths');

    const newest = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=5' })).json() as { id: string }[];
    assert.deepEqual(
      newest.map((e) => e.id),
      all.slice(0, 5),
    );

    const seen: string[] = [];
    let before = '';
    for (;;) {
      const page = (await ctx().request({ method: 'GET', url: `/admin/v1/audit?limit=4${before}` })).json() as { id: string }[];
      if (page.length === 0) break;
      assert.ok(descending(page.map((e) => e.id)));
      seen.push(...page.map((e) => e.id));
      before = `&before=${page.at(-1)!.id}`;
    }
    assert.deepEqual(seen, all);
  });

  it('the delivery list is newest first by number', async () => {
    for (let i = 0; i < 12; i++) {
      await invite(ctx(), { instance, key }, { email: `order-${i}@example.com`, firstName: 'Ada', lastName: 'Order' }, ['ordered'], { query: '?sendInvite=true' });
    }
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id::text AS id FROM deliveries');
    const all = rows.map((row) => row.id).sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1));
    assert.ok(all.length >= 12 && all.some((id) => id.length >= 2), 'ids of different lengths');
    const newest = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries?limit=3` })).json() as { id: string }[];
    assert.deepEqual(
      newest.map((d) => d.id),
      all.slice(0, 3),
    );
    const every = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries?limit=500` })).json() as { id: string }[];
    assert.deepEqual(
      every.map((d) => d.id),
      all,
    );
  });
});
