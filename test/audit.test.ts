// The audit log of operator actions: what is recorded, what never is, and how it is read.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { AuditEntry } from '../src/modules/audit/audit.js';
import { ADMIN_TOKEN, describeEachStore, sampleAssessment } from './harness.js';

/** An entry as it arrives over JSON: the time is a string. */
type Entry = Omit<AuditEntry, 'at'> & { at: string };

describeEachStore('audit log of operator actions', (ctx) => {
  const audit = async (query = '') => {
    const response = await ctx().request({ method: 'GET', url: `/admin/v1/audit${query}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as Entry[];
  };
  let instance: string;
  before(async () => {
    instance = await ctx().instance('audited');
  });

  it('records a key being created, changed and revoked, newest first, without the key', async () => {
    const created = await ctx().request({
      method: 'POST',
      url: '/admin/v1/keys',
      headers: { 'user-agent': 'ops-console/1.0', 'x-request-id': 'req-create-1' },
      remoteAddress: '192.0.2.7',
      payload: { instances: [instance], label: 'audited key' },
    });
    assert.equal(created.statusCode, 201);
    const { id, key } = created.json();
    await ctx().request({ method: 'PATCH', url: `/admin/v1/keys/${id}`, payload: { rateLimit: 30 } });
    await ctx().request({ method: 'POST', url: `/admin/v1/keys/${id}/revoke` });

    const entries = (await audit()).filter((e) => e.target === id);
    assert.deepEqual(
      entries.map((e) => [e.action, e.status]),
      [
        ['key.revoke', 200],
        ['key.update', 200],
        ['key.create', 201],
      ],
    );
    const creation = entries[2]!;
    assert.equal(creation.actor, 'admin-token');
    assert.equal(creation.clientIp, '192.0.2.7');
    assert.equal(creation.userAgent, 'ops-console/1.0');
    assert.equal(creation.requestId, 'req-create-1');
    assert.ok(!Number.isNaN(Date.parse(creation.at)));
    const everything = JSON.stringify(await audit('?limit=1000'));
    assert.ok(!everything.includes(key), 'the key is never in the log');
    assert.ok(!everything.includes(ADMIN_TOKEN), 'the token is never in the log');
    const { rows } = await ctx().db.query('SELECT * FROM audit_log');
    assert.ok(!JSON.stringify(rows).includes(key));
  });

  it('records refused changes with their status, and instance and content actions with their target', async () => {
    const missing = await ctx().request({ method: 'POST', url: '/admin/v1/keys/key_00000000000000ff/revoke' });
    assert.equal(missing.statusCode, 404);
    const invalid = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: 'Not A Name' } });
    assert.equal(invalid.statusCode, 400);
    assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { inviteTtlDays: 7 } })).statusCode, 200);
    assert.equal((await ctx().publish(instance, sampleAssessment('audited'))).statusCode, 201);

    const [published, updated, refused, revoke] = await audit('?limit=4');
    assert.deepEqual([published!.action, published!.target, published!.status], ['assessment.import', `${instance}/audited`, 201]);
    assert.deepEqual([updated!.action, updated!.target, updated!.status], ['instance.update', instance, 200]);
    assert.deepEqual([refused!.action, refused!.target, refused!.status], ['instance.create', null, 400]);
    assert.deepEqual([revoke!.action, revoke!.target, revoke!.status], ['key.revoke', 'key_00000000000000ff', 404]);
  });

  it('does not record reads, nor requests without a valid token', async () => {
    const before = (await audit('?limit=1'))[0]!.id;
    await ctx().request({ method: 'GET', url: '/admin/v1/keys' });
    await ctx().request({ method: 'POST', url: '/admin/v1/instances', headers: { authorization: 'Bearer not-the-token-at-all' }, payload: { name: 'sneaky' } });
    assert.equal((await audit('?limit=1'))[0]!.id, before);
  });

  it('pages with limit and before', async () => {
    for (let i = 0; i < 3; i++) await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { inviteTtlDays: 10 + i } });
    const firstPage = await audit('?limit=2');
    assert.equal(firstPage.length, 2);
    assert.ok(BigInt(firstPage[0]!.id) > BigInt(firstPage[1]!.id));
    const nextPage = await audit(`?limit=2&before=${firstPage[1]!.id}`);
    assert.equal(nextPage.length, 2);
    assert.ok(BigInt(nextPage[0]!.id) < BigInt(firstPage[1]!.id));
  });

  it('refuses a bad limit or before with 400 naming the parameter', async () => {
    for (const [query, name] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?before=0', 'before'],
      ['?before=-5', 'before'],
      ['?before=abc', 'before'],
      ['?before=1234567890123456789012', 'before'],
      ['?since=yesterday', 'since'],
    ] as const) {
      const response = await ctx().request({ method: 'GET', url: `/admin/v1/audit${query}` });
      assert.equal(response.statusCode, 400, query);
      assert.deepEqual(
        response.json().errors.map((e: { in: string; name: string }) => [e.in, e.name]),
        [['query', name]],
        query,
      );
    }
  });
});
