// Webhooks end to end against a local receiver: every delivery verified with the standardwebhooks
// package (what a receiver using any Standard Webhooks library does), retries on the documented
// schedule by a test clock, the same webhook-id on every retry of one message and a new one for
// each message, 410 Gone disables the endpoint, secret rotation signs with both secrets, replay,
// and the SSRF guard.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { postWebhook } from '../src/modules/webhooks/post.js';
import { RETRY_DELAYS_MS } from '../src/modules/webhooks/repository.js';
import { isForbiddenAddress } from '../src/modules/webhooks/ssrf.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { movingClock } from './support/clock.js';
import { candidate, invite as inviteThroughApi } from './support/portal.js';

interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/** A receiver on loopback whose answer the test sets: a status, or no answer at all. */
async function receiver() {
  const received: Received[] = [];
  let answer: number | 'hang' = 200;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string>, body, at: Date.now() });
      if (answer === 'hang') return;
      if (answer === 302) response.writeHead(302, { location: 'http://127.0.0.1:1/metadata' }).end();
      else response.writeHead(answer, { 'content-type': 'text/plain' }).end(answer === 200 ? 'thanks' : 'x'.repeat(5000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer: (next: number | 'hang') => (answer = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const time = movingClock();
const clock = time.now;

describeEachStore(
  'webhooks',
  (ctx) => {
    let instance: string;
    let key: string;
    let hook: Awaited<ReturnType<typeof receiver>>;
    let endpoint: { id: string; secret: string };
    const deliver = () => ctx().app.jobs.runAndSettle('webhooks');
    const verified = (r: Received, secret = endpoint.secret) =>
      new Webhook(secret).verify(r.body, r.headers) as { type: string; data: { instance: string; candidateId: string; assessmentId: string; score: Record<string, unknown> } };
    const invite = (email: string) => inviteThroughApi(ctx(), { instance, key }, { email, firstName: 'Wen', lastName: 'Hook' }, ['alpha'], { query: '?sendInvite=true' });
    const attempts = async () =>
      (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/webhooks/${endpoint.id}/attempts` })).json() as {
        messageId: string;
        statusCode: number | null;
        deliveryStatus: string;
        response: string;
      }[];

    before(async () => {
      hook = await receiver();
    });
    after(async () => {
      await hook?.close();
    });

    it('registers an endpoint (secret shown once), validates it, and delivers signed, verifiable events', async () => {
      instance = await ctx().instance('wh');
      await ctx().publish(instance, sampleAssessment('alpha'));
      key = await ctx().key([instance]);
      for (const [body, field] of [
        [{ url: 'ftp://example.com/x' }, 'url'],
        [{ url: 'https://user:pw@example.com/x' }, 'url'],
        [{ url: hook.url, events: ['invitation.created', 'nope'] }, 'events'],
      ] as const) {
        const refused = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks`, payload: body });
        assert.equal(refused.statusCode, 400, JSON.stringify(body));
        assert.match(refused.body, new RegExp(field));
      }
      const made = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks`, payload: { url: hook.url } });
      assert.equal(made.statusCode, 201, made.body);
      endpoint = made.json();
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
      const listed = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/webhooks` })).json();
      assert.equal(listed.length, 1);
      assert.equal(listed[0].secret, undefined, 'never listed');

      const invited = await invite('wen@example.com');
      await deliver();
      const types = hook.received.map((r) => verified(r).type);
      assert.deepEqual(types.sort(), ['invitation.created', 'invitation.email.sent']);
      const created = verified(hook.received.find((r) => verified(r).type === 'invitation.created')!);
      assert.equal(created.data.instance, instance);
      assert.equal(created.data.candidateId, invited.candidateId);
      const record = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${invited.candidateId}`, headers: { 'x-api-key': key } })).json()[0];
      assert.deepEqual(created.data.score, record, 'the score record exactly as GET /v1/score returns it');
      assert.doesNotMatch(hook.received.map((r) => r.body).join(''), /sessionToken/, 'no sign-in link in any event');
      assert.notEqual(hook.received[0]!.headers['webhook-id'], hook.received[1]!.headers['webhook-id']);
      await deliver();
      assert.equal(hook.received.length, 2, 'a delivered message is not sent again');
    });

    it('retries a failing receiver on the documented schedule with the same webhook-id, and loses nothing', async () => {
      hook.received.length = 0;
      hook.answer(500);
      await invite('retry@example.com');
      await deliver();
      assert.equal(hook.received.length, 2);
      const ids = new Set(hook.received.map((r) => r.headers['webhook-id']));
      for (const [i, delay] of RETRY_DELAYS_MS.slice(0, 3).entries()) {
        time.offset += delay * 0.85;
        await deliver();
        assert.equal(hook.received.length, 2 + i * 2, `nothing before the ${i + 2}nd attempt is due`);
        time.offset += delay * 0.3;
        await deliver();
        assert.equal(hook.received.length, 4 + i * 2, `the ${i + 2}nd attempt after about ${delay / 1000} s`);
      }
      assert.deepEqual(new Set(hook.received.map((r) => r.headers['webhook-id'])), ids, 'every retry of a message keeps its webhook-id');
      const kept = await attempts();
      assert.ok(
        kept.some((a) => a.statusCode === 500 && a.response.length === 1024),
        'the first 1 KB of the answer is kept',
      );
      hook.answer(200);
      time.offset += RETRY_DELAYS_MS[3]! * 1.2;
      await deliver();
      const lastTwo = hook.received
        .slice(-2)
        .map((r) => verified(r).type)
        .sort();
      assert.deepEqual(lastTwo, ['invitation.created', 'invitation.email.sent']);
      assert.ok((await attempts()).slice(0, 2).every((a) => a.deliveryStatus === 'succeeded'));
    });

    it('gives a receiver that does not answer 15 s (here: its time limit) and moves on', async () => {
      hook.received.length = 0;
      hook.answer('hang');
      await invite('slow@example.com');
      await deliver();
      assert.equal(hook.received.length, 2);
      const kept = await attempts();
      assert.ok(
        kept.slice(0, 2).every((a) => a.statusCode === null && a.response === 'timeout'),
        JSON.stringify(kept.slice(0, 2)),
      );
      hook.answer(200);
      time.offset += RETRY_DELAYS_MS[0]! * 1.2;
      await deliver();
      assert.equal(hook.received.length, 4);
    });

    it('rotates the secret: both sign for 24 hours, then only the new one', async () => {
      const rotated = (await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks/${endpoint.id}/rotate-secret` })).json();
      assert.notEqual(rotated.secret, endpoint.secret);
      hook.received.length = 0;
      await invite('rotate@example.com');
      await deliver();
      for (const r of hook.received) {
        assert.ok(verified(r, rotated.secret));
        assert.ok(verified(r, endpoint.secret), 'the old secret still verifies during the overlap');
      }
      time.offset += 25 * 3600_000;
      hook.received.length = 0;
      await invite('rotate2@example.com');
      await deliver();
      assert.ok(verified(hook.received[0]!, rotated.secret));
      assert.throws(() => verified(hook.received[0]!, endpoint.secret));
      endpoint = { id: endpoint.id, secret: rotated.secret };
    });

    it('replays every message since a time, with their own webhook-ids', async () => {
      const since = new Date(clock().getTime() - 60_000).toISOString();
      const before = hook.received.map((r) => r.headers['webhook-id']);
      hook.received.length = 0;
      const replayed = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/webhooks/${endpoint.id}/replay`, payload: { since } });
      assert.equal(replayed.statusCode, 200, replayed.body);
      assert.equal(replayed.json().scheduled, 2);
      await deliver();
      assert.deepEqual(hook.received.map((r) => r.headers['webhook-id']).sort(), before.sort());
    });

    it('tells of an attempt: started, completed, score.finalized after the review, score.updated after a re-review', async () => {
      hook.received.length = 0;
      const taker = await candidate(ctx(), { instance, key }, { email: 'taker@example.com', firstName: 'Tae', lastName: 'Ker' }, ['alpha']);
      assert.equal((await taker.form('/portal/a/alpha/start')).statusCode, 303);
      await taker.save('q1', 1);
      await taker.save('q4', 'A kind, clear answer.');
      assert.equal((await taker.form('/portal/a/alpha/submit')).statusCode, 303);
      await deliver();
      const seen = () => hook.received.map((r) => verified(r));
      assert.deepEqual(
        seen()
          .map((e) => e.type)
          .sort(),
        ['assessment.completed', 'assessment.started', 'invitation.created'],
        'PENDING until the free text is reviewed',
      );
      const completed = seen().find((e) => e.type === 'assessment.completed')!;
      assert.equal(completed.data.score.assessmentStatus, 'COMPLETED');
      assert.equal(completed.data.score.scoreStatus, 'PENDING');
      const attemptId = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/reviews` }))
        .json()
        .find((r: { candidateId: string }) => r.candidateId === taker.candidateId).attemptId;
      const review = (score: number) => ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/reviews`, payload: { attemptId, questionId: 'q4', score } });
      assert.equal((await review(80)).statusCode, 200);
      await deliver();
      const finalized = seen()[3]!;
      assert.equal(finalized.type, 'score.finalized');
      const record = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${taker.candidateId}`, headers: { 'x-api-key': key } })).json()[0];
      assert.deepEqual(finalized.data.score, record);
      assert.equal((await review(20)).statusCode, 200);
      await deliver();
      assert.equal(seen()[4]!.type, 'score.updated');
      assert.notDeepEqual(seen()[4]!.data.score.totalScore, finalized.data.score.totalScore);
      assert.equal((await review(20)).statusCode, 200);
      await deliver();
      assert.equal(hook.received.length, 5, 'the same score again changes nothing, so nothing is sent');
    });

    it('disables the endpoint on 410 Gone, and follows no redirect', async () => {
      hook.received.length = 0;
      hook.answer(302);
      await invite('redirect@example.com');
      await deliver();
      assert.equal(hook.received.length, 2);
      assert.ok(
        (await attempts()).slice(0, 2).every((a) => a.statusCode === 302),
        'a redirect is an answer, not followed',
      );
      hook.answer(410);
      time.offset += RETRY_DELAYS_MS[0]! * 1.2;
      await deliver();
      const after410 = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/webhooks` })).json()[0];
      assert.equal(after410.disabled, true);
      assert.match(after410.disabledReason, /410/);
      hook.received.length = 0;
      await invite('gone@example.com');
      await deliver();
      assert.equal(hook.received.length, 0, 'a disabled endpoint gets nothing');
    });
  },
  { now: clock, webhookAllowPrivateNetworks: true, webhookTimeoutMs: 300 },
);

describe('webhook SSRF guard', () => {
  it('knows loopback, private, link-local, metadata and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00:ec2::254',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      '224.0.0.1',
    ]) {
      assert.equal(isForbiddenAddress(address), true, address);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) assert.equal(isForbiddenAddress(address), false, address);
  });

  it('refuses to connect to them, also through a DNS name or a redirect, without the setting', async () => {
    const hook = await receiver();
    try {
      const port = new URL(hook.url).port;
      for (const target of ['http://127.0.0.1:9/x', 'http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:9/x', `http://localhost:${port}/hooks`]) {
        const outcome = await postWebhook(target, {}, '{}', { timeoutMs: 2000, allowPrivate: false });
        assert.equal(outcome.status, undefined, target);
        assert.equal(outcome.response, 'address not allowed', target);
        assert.match(outcome.detail ?? '', /loopback, private, link-local or reserved/, target);
      }
      assert.equal(hook.received.length, 0, 'nothing reached the loopback receiver');
      hook.answer(302);
      const redirected = await postWebhook(hook.url, {}, '{}', { timeoutMs: 2000, allowPrivate: true });
      assert.equal(redirected.status, 302, 'a redirect (here to 127.0.0.1:1) is reported, never followed');
    } finally {
      await hook.close();
    }
  });
});
