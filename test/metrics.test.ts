// /metrics: Prometheus text behind the admin token, with the figures an operator graphs.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ADMIN_TOKEN, describeEachStore, sampleAssessment } from './harness.js';
import { invite } from './support/portal.js';

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
    for (const name of [
      'webhook_queue_depth',
      'webhook_delivery_lag_seconds',
      'deadline_sweep_lag_seconds',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'http_rate_limited_total',
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
    if (ctx().store === 'postgres') assert.match(text, /db_pool_connections\{state="idle"\} \d+/);
    assert.doesNotMatch(text, new RegExp(key), 'no key in the metrics');
  });

  it('counts requests for unknown paths as one route, and refusals by route', async () => {
    const instance = await ctx().instance('lim');
    const key = await ctx().key([instance], { rateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).statusCode);
    assert.deepEqual(statuses, [200, 200, 429]);
    for (const url of ['/no/such/path', '/another?x=1']) assert.equal((await ctx().request({ method: 'GET', url })).statusCode, 404);
    const scrape = async () => (await ctx().request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    const count = (text: string, labels: string) => Number(new RegExp(`^http_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    const text = await scrape();
    assert.equal(count(text, 'method="GET",route="unmatched",status_code="404"'), 2);
    assert.equal(count(text, 'method="GET",route="/v1/assessment",status_code="429"'), 1);
    assert.match(text, /^http_rate_limited_total\{route="\/v1\/assessment"\} 1$/m);
    // A scrape is counted once it is answered: in the next one.
    const scrapes = 'method="GET",route="/metrics",status_code="200"';
    assert.equal(count(await scrape(), scrapes), count(text, scrapes) + 1);
  });

  it('times the hot paths by name and counts e-mails on their way and how they ended', async () => {
    const instance = await ctx().instance('hot');
    const key = await ctx().key([instance]);
    assert.equal((await ctx().publish(instance, sampleAssessment('hot'))).statusCode, 201);
    const headers = { 'x-api-key': key, instance };
    const invited = await invite(ctx(), { instance, key }, { email: 'hot@example.com', firstName: 'H', lastName: 'P' }, ['hot'], { query: '?sendInvite=true' });
    assert.equal(invited.invitationStatus, 'SENT');
    const { candidateId } = invited;
    for (const url of [`/v1/score?candidateIds=${candidateId}`, '/v1/score?assessmentIds=hot']) {
      const read = await ctx().request({ method: 'GET', url, headers });
      assert.equal(read.statusCode, 200);
      assert.equal(read.json()[0].candidateId, candidateId);
    }
    const text = (await ctx().request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    const count = (name: string, labels: string) => Number(new RegExp(`^${name}_count\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    for (const query of ['invite', 'score_by_candidate', 'score_by_assessment']) {
      assert.ok(
        count('db_query_duration_seconds', `query="${query}"`) >= 1,
        `${query} timed:\n${text
          .split('\n')
          .filter((l) => l.startsWith('db_query'))
          .join('\n')}`,
      );
    }
    assert.equal(count('mail_send_duration_seconds', 'outcome="sent"'), 1, 'the invitation e-mail, written to the mail folder');
    assert.equal(count('mail_send_duration_seconds', 'outcome="failed"'), 0);
    assert.match(text, /^mail_sends_in_progress 0$/m);
  });
});
