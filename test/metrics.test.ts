// /metrics: Prometheus text behind the admin token, with the figures an operator graphs.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ADMIN_TOKEN, describeEachStore } from './harness.js';

describeEachStore('metrics', (ctx) => {
  it('is refused without the admin token, and an API key is not one', async () => {
    const instance = await ctx().instance('met');
    const key = await ctx().key([instance]);
    assert.equal((await ctx().request({ method: 'GET', url: '/metrics' })).statusCode, 401);
    assert.equal((await ctx().request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${key}` } })).statusCode, 401);
    assert.equal((await ctx().request({ method: 'GET', url: '/metrics', headers: { 'x-api-key': key } })).statusCode, 401);
  });

  it('reports request durations by route and status, the webhook queue, the sweep lag and the process', async () => {
    const instance = await ctx().instance('met');
    const key = await ctx().key([instance]);
    for (let i = 0; i < 3; i++) await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } });
    await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': 'ack_wrong' } });
    const response = await ctx().request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = response.body;
    assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/v1\/assessment",status_code="200"\} 3/);
    assert.match(text, /http_request_duration_seconds_count\{method="GET",route="\/v1\/assessment",status_code="401"\} 1/);
    for (const name of ['webhook_queue_depth', 'webhook_delivery_lag_seconds', 'deadline_sweep_lag_seconds', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_p99_seconds', 'http_rate_limited_total']) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
    if (ctx().store === 'postgres') assert.match(text, /db_pool_connections\{state="idle"\} \d+/);
    assert.doesNotMatch(text, new RegExp(key), 'no key in the metrics');
  });
});
