// What a tenant, or anyone, must not learn about other tenants or the service's network: whether
// an instance exists (its public theme stylesheet), the internal names and addresses behind a
// failed webhook delivery, and the keys of instances a console user does not manage.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachStore } from './harness.js';

/** An answer without what differs on every request. */
const shape = (r: LightMyRequestResponse) => {
  const { date: _date, 'x-request-id': _id, ...headers } = r.headers;
  return { status: r.statusCode, headers, body: r.body };
};

describeEachStore('what tenants cannot learn', (ctx) => {
  it('/brand/{instance}/theme.css answers an unknown instance exactly like an existing one without a colour', async () => {
    const instance = await ctx().instance('themed');
    const known = await ctx().request({ method: 'GET', url: `/brand/${instance}/theme.css` });
    assert.equal(known.statusCode, 200);
    for (const name of ['no-such-instance', 'x'.repeat(150), 'bad%20name']) {
      assert.deepEqual(shape(await ctx().request({ method: 'GET', url: `/brand/${name}/theme.css` })), shape(known), name);
    }
  });
});
