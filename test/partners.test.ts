// The native adapters of Greenhouse and Ashby, end to end: a local stand-in for each ATS makes the
// calls the ATS makes (the request shapes below are written from the published contracts: Greenhouse's
// "Assessment Partner API", developers.greenhouse.io/assessment.html; Ashby's "Creating an
// Assessments Integration" and assessment.update, developers.ashbyhq.com), a candidate takes the
// assessment in the portal with the e-mailed link, and the stand-in receives the callback with the
// final score: Greenhouse's PATCH of its `url`, Ashby's assessment.update with the data values it
// documents, in the order things happened.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { describeEachStore } from './harness.js';
import { runCli } from './support/cli.js';
import { recordCallbackAttempt } from '../src/modules/integrations/repository.js';
import { consoleAs, consoleUser } from './support/console.js';
import { invite } from './support/portal.js';
import { takeWithLink } from './support/take.js';

interface Received {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An ATS's receiving side on loopback: records every request; answers `status`. */
async function standIn() {
  const received: Received[] = [];
  let status = 200;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      received.push({ method: request.method!, url: request.url!, headers: request.headers as Record<string, string>, body });
      response.writeHead(status, { 'content-type': 'application/json' }).end(status < 300 ? '{"success":true}' : '{"success":false}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    answer: (next: number) => (status = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ats = await standIn();
after(() => ats.close());

/** An assessment scored at once (no free text): submitting it finalises the score. */
const ALPHA = `id: alpha
name: Alpha reasoning
description: Three quick questions.
durationMinutes: 15
passScore: 60
lowPassScore: 40
categories:
  - id: reasoning
    name: Reasoning
  - id: numbers
    name: Numbers
questions:
  - id: q1
    type: single-choice
    category: reasoning
    prompt: What is 2 + 2?
    options:
      - text: "3"
      - text: "4"
        correct: true
  - id: q3
    type: short-answer
    category: numbers
    prompt: What is 10 times 125?
    accept: ["1250"]
`;
const ANSWERS: [string, string | number][] = [
  ['q1', 1],
  ['q3', '1250'],
];

const basic = (user: string, password = '') => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The sign-in link of the newest e-mail to `address` in the test's mail directory. */
function mailedLink(mailDir: string, address: string): string {
  const files = readdirSync(mailDir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => readFileSync(path.join(mailDir, f), 'utf8'))
    .filter((text) => text.includes(address));
  assert.ok(files.length > 0, `no e-mail to ${address}`);
  // Quoted-printable folds long lines with "=\n" and writes "=" as "=3D".
  const text = files
    .at(-1)!
    .replace(/=\r?\n/g, '')
    .replace(/=3D/g, '=');
  return /https?:\/\/\S+sessionToken=[A-Za-z0-9_-]+/.exec(text)![0];
}

describeEachStore(
  'ATS adapters',
  (ctx) => {
    let instance: string;
    let key: string;
    const settle = () => ctx().app.jobs.runAndSettle('partner-callbacks');
    const gh = (method: 'GET' | 'POST', url: string, payload?: unknown, auth = basic(key)) =>
      ctx().request({ method, url: `/partners/greenhouse/${url}`, headers: { authorization: auth }, ...(payload === undefined ? {} : { payload: payload as object }) });
    const ashby = (method: string, payload: unknown, auth = basic(key)) =>
      ctx().request({ method: 'POST', url: `/partners/ashby/${method}`, headers: { authorization: auth }, payload: payload as object });

    before(async () => {
      instance = await ctx().instance('ats');
      assert.equal((await ctx().publish(instance, ALPHA)).statusCode < 300, true);
      key = await ctx().key([instance]);
    });

    it('Greenhouse: wrong or missing keys get 401 in its shape; a key of two instances 403', async () => {
      for (const auth of [basic('ack_wrong'), 'Bearer x', '']) {
        const refused = await gh('GET', 'list_tests', undefined, auth);
        assert.equal(refused.statusCode, 401, auth);
        assert.deepEqual(Object.keys(refused.json()), ['error']);
        assert.match(refused.headers['www-authenticate'] as string, /^Basic/);
      }
      const other = await ctx().instance('ats2');
      const two = await ctx().key([instance, other]);
      const forbidden = await gh('GET', 'list_tests', undefined, basic(two));
      assert.equal(forbidden.statusCode, 403);
      assert.match(forbidden.json().error, /exactly one instance/);
    });

    it('Greenhouse: list_tests, send_test (idempotent, e-mailed), the portal, the PATCH callback, and test_status complete with a report that opens', async () => {
      const listed = await gh('GET', 'list_tests');
      assert.equal(listed.statusCode, 200, listed.body);
      assert.deepEqual(listed.json(), [{ partner_test_id: 'alpha', partner_test_name: 'Alpha reasoning' }]);

      // The body Greenhouse sends (its documented example's fields).
      const sendTest = {
        partner_test_id: 'alpha',
        candidate: {
          first_name: 'Harriet',
          last_name: 'Tubman',
          preferred_name: 'Harry',
          email: 'harriet.gh@example.com',
          phone_number: '+1 555 0100',
          resume_url: 'https://greenhouse.example/resume/1',
          greenhouse_profile_url: 'https://app.greenhouse.io/people/1',
        },
        sent_by: 'recruiter@example.com',
        url: `${ats.base}/greenhouse/callback/interview-77`,
      };
      const sent = await gh('POST', 'send_test', sendTest);
      assert.equal(sent.statusCode, 200, sent.body);
      const id = sent.json().partner_interview_id as string;
      assert.match(id, /^[0-9a-f-]{36}$/);
      const again = await gh('POST', 'send_test', sendTest);
      assert.equal(again.json().partner_interview_id, id, 'the same request again is the same interview');

      const status = await gh('GET', `test_status?partner_interview_id=${id}`);
      assert.equal(status.statusCode, 200, status.body);
      assert.equal(status.json().partner_status, 'invited');
      assert.equal(status.json().partner_score, null);

      // The candidate, the source and the ATS's identifiers as the API and the console see them.
      const link = mailedLink(ctx().mailDir, 'harriet.gh@example.com');
      const candidates = await ctx().db.query<{ id: string; source: string }>(
        `SELECT c.id, i.source FROM candidates c JOIN invitations i ON i.candidate_id = c.id WHERE c.email = 'harriet.gh@example.com'`,
      );
      assert.equal(candidates.rows.length, 1, 'one candidate, one invitation');
      assert.equal(candidates.rows[0]!.source, 'greenhouse');

      await takeWithLink(ctx(), link, undefined, ANSWERS);
      await settle();
      const patches = ats.received.filter((r) => r.url === '/greenhouse/callback/interview-77');
      assert.equal(patches.length, 1, JSON.stringify(ats.received));
      assert.equal(patches[0]!.method, 'PATCH');
      assert.equal(patches[0]!.body, '');

      const done = (await gh('GET', `test_status?partner_interview_id=${id}`)).json();
      assert.equal(done.partner_status, 'complete');
      assert.equal(done.partner_score, 100);
      assert.equal(done.metadata.Result, 'PASS');
      assert.equal(done.metadata['Category: Reasoning'], '100%');
      assert.equal(done.metadata['Red flag'], 'no');
      const report = await ctx().request({ method: 'GET', url: done.partner_profile_url.replace('http://portal.test', '') });
      assert.equal(report.statusCode, 200);
      assert.match(report.body, /Harriet/);

      // The callbacks are visible to the operator, with their state.
      const listedCallbacks = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/integrations` })).json();
      assert.equal(listedCallbacks.callbacks[0].partner, 'greenhouse');
      assert.equal(listedCallbacks.callbacks[0].status, 'succeeded');
      assert.equal(listedCallbacks.callbacks[0].lastStatus, 200);
    });

    it('Greenhouse: bad input is 400 {error} and changes nothing; an unknown interview is 404', async () => {
      for (const [body, field] of [
        [{ candidate: { first_name: 'A', last_name: 'B', email: 'a@example.com' } }, 'partner_test_id'],
        [{ partner_test_id: 'alpha', candidate: { first_name: 'A', last_name: 'B', email: 'not-an-email' } }, 'email'],
        [{ partner_test_id: 'alpha', candidate: { first_name: '\u202e', last_name: 'B', email: 'a@example.com' } }, 'first_name'],
        [{ partner_test_id: 'nope', candidate: { first_name: 'A', last_name: 'B', email: 'a@example.com' } }, 'nope'],
        [{ partner_test_id: 'alpha', candidate: { first_name: 'A', last_name: 'B', email: 'a@example.com' }, url: 'ftp://x' }, 'url'],
      ] as const) {
        const refused = await gh('POST', 'send_test', body);
        assert.equal(refused.statusCode, 400, `${JSON.stringify(body)}: ${refused.body}`);
        assert.match(refused.json().error, new RegExp(field));
      }
      const none = await ctx().db.query(`SELECT 1 FROM candidates WHERE email = 'a@example.com'`);
      assert.equal(none.rows.length, 0);
      const reported = await gh('POST', 'response_error', { partner_interview_id: 'x', errors: ['partner_score must be a number'] });
      assert.equal(reported.statusCode, 200);
      const unknown = await gh('GET', 'test_status?partner_interview_id=00000000-0000-4000-8000-000000000000');
      assert.equal(unknown.statusCode, 404);
      assert.ok(unknown.json().error);
    });

    it('Ashby: list, start (409 again, 422 invalid, 401 wrong key), Started then the result through assessment.update, in order', async () => {
      // Without the instance's Ashby key the callbacks wait; an owner or the operator sets it.
      const set = await ctx().request({ method: 'PUT', url: `/admin/v1/instances/${instance}/integrations/ashby`, payload: { apiKey: 'ashby-secret-key-1234' } });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json(), { partner: 'ashby', keyHint: '1234', sendEmail: true });

      const listed = await ashby('assessment.list', {});
      assert.equal(listed.statusCode, 200);
      assert.deepEqual(listed.json(), { success: true, results: [{ assessment_type_id: 'alpha', name: 'Alpha reasoning', description: 'Three quick questions.' }] });

      const wrong = await ashby('assessment.list', {}, basic('ack_nope'));
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(Object.keys(wrong.json()), ['message']);

      const start = {
        assessment_type_id: 'alpha',
        candidate: { ashby_id: 'c-1', first_name: 'Ada', last_name: 'Lovelace', email: 'ada.ashby@example.com', ashby_profile_url: 'https://app.ashbyhq.com/candidates/c-1' },
        application: { ashby_id: 'app-1', status: 'Active' },
        job: { ashby_id: 'job-1', name: 'Analyst', req_id: 'R-7', ashby_job_url: 'https://app.ashbyhq.com/jobs/job-1' },
      };
      const started = await ashby('assessment.start', start);
      assert.equal(started.statusCode, 200, started.body);
      assert.equal(started.json().success, true);
      const assessmentId = started.json().results.assessment_id as string;
      const repeated = await ashby('assessment.start', start);
      assert.equal(repeated.statusCode, 409);
      assert.ok(repeated.json().message);
      const invalid = await ashby('assessment.start', { ...start, candidate: { ...start.candidate, email: 'nope' } });
      assert.equal(invalid.statusCode, 422);
      assert.match(invalid.json().message, /email/);

      ats.received.length = 0;
      const link = mailedLink(ctx().mailDir, 'ada.ashby@example.com');
      await takeWithLink(ctx(), link, 'started');
      await settle();
      const [first] = ats.received;
      assert.equal(first?.method, 'POST');
      assert.equal(first!.url, '/assessment.update');
      assert.equal(first!.headers.authorization, basic('ashby-secret-key-1234'));
      const startedUpdate = JSON.parse(first!.body);
      assert.equal(startedUpdate.assessment_id, assessmentId);
      assert.equal(typeof startedUpdate.timestamp, 'number');
      assert.deepEqual(startedUpdate.assessment_status, { identifier: 'status', label: 'Status', type: 'string', value: 'Started' });
      assert.equal(startedUpdate.assessment_profile_url.type, 'url');

      // The candidate finishes: completed, then the result (the same session goes on).
      await takeWithLink(ctx(), link, undefined, ANSWERS).catch(() => undefined);
      await settle();
      await settle();
      const updates = ats.received.map((r) => JSON.parse(r.body));
      const result = updates.find((u) => u.assessment_result);
      assert.ok(result, JSON.stringify(updates));
      assert.deepEqual(result.assessment_result, { identifier: 'total_score', label: 'Total score', type: 'numeric_score', value: 100 });
      assert.equal(result.assessment_profile_url.type, 'url');
      assert.deepEqual(
        result.metadata.map((m: { identifier: string; type: string }) => [m.identifier, m.type]),
        [
          ['result', 'string'],
          ['category_reasoning', 'numeric_score'],
          ['category_numbers', 'numeric_score'],
          ['integrity', 'boolean_success'],
          ['time_taken', 'numeric_duration_minutes'],
        ],
      );
      // Never a later state before an earlier one; with nothing to review, the result is said once
      // (not "Completed: awaiting review" and then "Completed" a moment later).
      assert.deepEqual(
        updates.map((u) => u.assessment_status?.value),
        ['Started', 'Completed'],
      );
      assert.equal(updates.indexOf(result) > updates.indexOf(updates.find((u) => u.assessment_status?.value === 'Started')), true);
      for (const u of updates) assert.ok(u.timestamp >= startedUpdate.timestamp);
    });

    it('Ashby: a failing ATS holds the later updates of the same assessment until the earlier one is through; cancel withdraws the invitation', async () => {
      const start = {
        assessment_type_id: 'alpha',
        candidate: { ashby_id: 'c-2', first_name: 'Grace', last_name: 'Hopper', email: 'grace.ashby@example.com' },
        application: { ashby_id: 'app-2', status: 'Active' },
      };
      const assessmentId = (await ashby('assessment.start', start)).json().results.assessment_id as string;
      const link = mailedLink(ctx().mailDir, 'grace.ashby@example.com');
      ats.received.length = 0;
      ats.answer(500);
      await takeWithLink(ctx(), link, 'started');
      await settle();
      const cancelled = await ashby('assessment.cancel', { assessment_id: assessmentId });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.deepEqual(cancelled.json(), { success: true });
      await settle();
      // Only "Started" was tried: the cancellation waits behind it.
      assert.equal(ats.received.length, 1);
      assert.ok(JSON.parse(ats.received[0]!.body).assessment_status);
      ats.answer(200);
      const { callbacks } = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/integrations` })).json();
      const waiting = callbacks.find((c: { publicId: string; event: string }) => c.publicId === assessmentId && c.event === 'assessment.started');
      assert.equal(waiting.status, 'pending');
      assert.equal(waiting.lastStatus, 500);
      const retried = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/integrations/callbacks/${waiting.id}/retry` });
      assert.equal(retried.statusCode, 204);
      await settle();
      await settle();
      const bodies = ats.received.slice(1).map((r) => JSON.parse(r.body));
      assert.deepEqual(
        bodies.map((b) => (b.cancelled_reason ? 'cancelled' : b.assessment_status.value)),
        ['Started', 'cancelled'],
      );
      assert.equal(bodies[1].cancelled_reason.type, 'string');

      // The candidate sees the withdrawal: the link no longer opens the assessment.
      const opened = await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token: link.split('sessionToken=')[1] } });
      const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
      const page = await ctx().request({ method: 'GET', url: '/portal/a/alpha', headers: { cookie } });
      assert.match(page.body, /withdrawn|cancelled|no longer/i);

      const unknown = await ashby('assessment.cancel', { assessment_id: 'nope' });
      assert.equal(unknown.statusCode, 404);
      assert.ok(unknown.json().message);
    });

    it('the operator sets the Ashby key with the CLI (never shown again) and lists the callbacks; bad options are usage errors', async () => {
      const url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      const set = await runCli(url, ['ats', 'ashby', '--instance', instance, '--api-key', 'ashby-cli-key-9f3c']);
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /API key set \(…9f3c\)/);
      assert.doesNotMatch(set.stdout, /ashby-cli-key/);
      const listed = await runCli(url, ['ats', 'list', '--instance', instance, '--json']);
      assert.equal(listed.code, 0, listed.stderr);
      const data = JSON.parse(listed.stdout);
      assert.deepEqual(
        data.settings.find((s: { partner: string }) => s.partner === 'ashby'),
        { partner: 'ashby', keyHint: '9f3c', sendEmail: true },
      );
      assert.ok(data.callbacks.length > 0);
      assert.doesNotMatch(listed.stdout, /ashby-cli-key/);
      // A callback refused by the address guard fails at once, with its category, and is not scheduled again.
      const callbackId = String(data.callbacks[0].id);
      const status = async () =>
        (
          await ctx().db.query<{ status: string; next: Date | null; response: string }>(
            'SELECT status, next_attempt_at AS next, last_response AS response FROM partner_callbacks WHERE id = $1',
            [callbackId],
          )
        ).rows[0]!;
      assert.equal(await recordCallbackAttempt(ctx().db, callbackId, 0, { response: 'address not allowed' }, new Date()), 'failed');
      assert.deepEqual(await status(), { status: 'failed', next: null, response: 'address not allowed' });
      // The retry answers 204 (no document): a success, said as one; the callback waits to be sent again.
      const retried = await runCli(url, ['ats', 'retry', callbackId, '--instance', instance]);
      assert.equal(retried.code, 0, retried.stderr);
      assert.equal(retried.stderr, '');
      assert.match(retried.stdout, /will be sent again/);
      assert.equal((await status()).status, 'pending');
      const nothing = await runCli(url, ['ats', 'ashby', '--instance', instance]);
      assert.equal(nothing.code, 2);
      const badFlag = await runCli(url, ['ats', 'greenhouse', '--instance', instance, '--send-email', 'maybe']);
      assert.equal(badFlag.code, 2);
      // The key is stored sealed: not as text anywhere in the row.
      const { rows } = await ctx().db.query<{ sealed: Buffer }>(`SELECT sealed_key AS sealed FROM partner_settings WHERE partner = 'ashby'`);
      for (const row of rows) assert.equal(Buffer.from(row.sealed).includes('ashby-cli-key'), false);
    });

    it('console: the Integrations page gives the addresses and a key for each ATS, lets an owner (not a manager) set the Ashby key, retries, and sends a test', async () => {
      const owner = await consoleUser(ctx(), `owner-${ctx().store}@ats.example`, 'owner');
      const manager = await consoleUser(ctx(), `manager-${ctx().store}@ats.example`, 'manager', [instance]);
      const asOwner = await consoleAs(ctx(), `owner-${ctx().store}@ats.example`, owner.password);
      const shown = await asOwner.get(`/console/integrations?instance=${instance}`);
      assert.equal(shown.statusCode, 200, shown.body);
      assert.match(shown.body, /http:\/\/portal\.test\/partners\/greenhouse\/send_test/);
      assert.match(shown.body, /http:\/\/portal\.test\/partners\/ashby/);
      assert.match(shown.body, /Latest callbacks/);

      const made = await asOwner.post('/console/integrations/key', { instance, partner: 'greenhouse' });
      assert.equal(made.statusCode, 200, made.body);
      const ghKey = /<code class="secret">([^<]+)<\/code>/.exec(made.body)![1]!;
      assert.equal(ghKey.length < 171, true, 'Greenhouse needs keys shorter than 171 characters');
      assert.equal((await gh('GET', 'list_tests', undefined, basic(ghKey))).statusCode, 200);

      const saved = await asOwner.post('/console/integrations/settings', { instance, partner: 'ashby', apiKey: 'console-ashby-key-abcd' });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.match(saved.body, /ending in <code>abcd<\/code>/);
      assert.doesNotMatch(saved.body, /console-ashby-key/);

      const asManager = await consoleAs(ctx(), `manager-${ctx().store}@ats.example`, manager.password);
      const refused = await asManager.post('/console/integrations/settings', { instance, partner: 'ashby', apiKey: 'other-key-0000' });
      assert.equal(refused.statusCode, 403);
      assert.equal((await asManager.post('/console/integrations/settings', { instance, partner: 'greenhouse', sendEmail: 'false' })).statusCode, 200);
      // Link-only: Greenhouse reaches the candidate; the service e-mails nothing.
      const quiet = await gh('POST', 'send_test', { partner_test_id: 'alpha', candidate: { first_name: 'Q', last_name: 'Uiet', email: 'quiet.gh@example.com' } });
      assert.equal(quiet.statusCode, 200);
      assert.throws(() => mailedLink(ctx().mailDir, 'quiet.gh@example.com'), /no e-mail/);
      assert.equal((await asManager.post('/console/integrations/settings', { instance, partner: 'nope', sendEmail: 'false' })).statusCode, 400);

      // The candidate page says where an invitation came from, with the ATS's ids of it.
      const { rows: found } = await ctx().db.query<{ id: string }>(`SELECT id FROM candidates WHERE email = 'ada.ashby@example.com'`);
      const candidatePage = await asOwner.get(`/console/candidates/${found[0]!.id}?instance=${instance}`);
      assert.equal(candidatePage.statusCode, 200);
      assert.match(candidatePage.body, /Invited through<\/dt><dd>Ashby · Ashby <code>[0-9a-f-]{36}<\/code> \(application app-1, candidate c-1, job Analyst\)/);

      const tested = await asOwner.post('/console/integrations/test', { instance, partner: 'ashby', assessment: 'alpha' });
      assert.equal(tested.statusCode, 200, tested.body);
      assert.match(tested.body, /Test sent as Ashby would send it/);
      // Refusals come back beside their fields, and change nothing.
      const badKey = await asOwner.post('/console/integrations/settings', { instance, partner: 'ashby', apiKey: 'has a space' });
      assert.equal(badKey.statusCode, 400);
      assert.match(badKey.body, /The Ashby key was not saved:<\/p><ul><li><a href="#ashby-key">apiKey<\/a> must be 1-500 printable characters/);
      assert.match(badKey.body, /id="ashby-key" name="apiKey"[^>]*aria-invalid="true" aria-describedby="ashby-key-error">/);
      assert.match(badKey.body, /ending in <code>abcd<\/code>/, 'the key set before is kept');
      const badTest = await asOwner.post('/console/integrations/test', { instance, partner: 'greenhouse', assessment: 'no-such-test' });
      assert.equal(badTest.statusCode, 400, badTest.body);
      assert.match(badTest.body, /No test was sent:<\/p><ul><li><a href="#greenhouse-test">assessment<\/a>/);
      assert.match(badTest.body, /id="greenhouse-test" name="assessment" aria-invalid="true" aria-describedby="greenhouse-test-error">/);
      const retried = await asOwner.post(`/console/integrations/callbacks/999999999/retry`, { instance });
      assert.equal(retried.statusCode, 404);
      await ctx().request({ method: 'PUT', url: `/admin/v1/instances/${instance}/integrations/greenhouse`, payload: { sendEmail: true } });
    });

    it('externalReference: set on /v1/invite, returned by GET /v1/candidates/{id}; the score record is unchanged', async () => {
      const made = await invite(ctx(), { instance, key }, { email: 'ref@example.com', firstName: 'Re', lastName: 'Ference', externalReference: 'application-48213' }, ['alpha']);
      const candidate = (await ctx().request({ method: 'GET', url: `/v1/candidates/${made.candidateId}`, headers: { 'x-api-key': key } })).json();
      assert.equal(candidate.invitations[0].externalReference, 'application-48213');
      assert.equal(candidate.invitations[0].source, 'api');
      // Webhook events carry it beside the record (the body every endpoint receives).
      const { rows } = await ctx().db.query<{ body: string }>(`SELECT body FROM outbox_events WHERE type = 'invitation.created' ORDER BY id DESC LIMIT 1`);
      const event = JSON.parse(rows[0]!.body);
      assert.equal(event.data.externalReference, 'application-48213');
      assert.equal('externalReference' in event.data.score, false);
      const score = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${made.candidateId}`, headers: { 'x-api-key': key, instance } })).json();
      assert.equal('externalReference' in score[0], false);
      const bad = await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': key, instance },
        payload: { email: 'ref2@example.com', firstName: 'Re', lastName: 'F', assessments: ['alpha'], externalReference: 'x'.repeat(201) },
      });
      assert.equal(bad.statusCode, 400);
    });
  },
  { webhookAllowPrivateNetworks: true, ashbyApiUrl: ats.base },
);
