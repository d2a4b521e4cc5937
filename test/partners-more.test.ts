// The adapters of Workable, SmartRecruiters, HiBob and Lever, end to end. Each ATS is played by a
// stand-in written from its public partner documentation (its request and answer shapes, not
// ours): Workable's "Assessment Providers" contract (workable.readme.io/page/assessment-providers),
// SmartRecruiters' Assessment API (2021) (developers.smartrecruiters.com), Bob's Hiring Assessments
// API (apidocs.hibob.com), Lever's assessment use case with the candidate stage change webhook
// (hire.lever.co/developer). A candidate takes the test in the portal with the e-mailed link, and
// the stand-in receives the status and the result as the ATS documents them, authenticated so.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, it } from 'node:test';
import { QUICK_ASSESSMENT, describeEachStore } from './harness.js';
import { QUICK_ANSWERS, linkMailedTo, receivedAt, standIn } from './support/ats.js';
import { movingClock } from './support/clock.js';
import { runCli } from './support/cli.js';
import { consoleAs, consoleUser } from './support/console.js';
import { takeWithLink } from './support/take.js';
import { partnerHttp } from '../src/modules/integrations/worker.js';

/** Bob-Signature as Bob's documentation gives it: the base64 HMAC-SHA512 of the body under the webhook secret. */
const bobSignature = (secret: string, body: string) => createHmac('sha512', secret).update(body).digest('base64');

/** The app's log: refusals are written there, never with the credential refused. */
const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

const ats = await standIn();
after(() => ats.close());
const clock = movingClock();

describeEachStore(
  'ATS adapters: Workable, SmartRecruiters, HiBob, Lever',
  (ctx) => {
    let instance: string;
    let key: string;
    let otherKey: string;
    let url: string;
    const settle = () => ctx().app.jobs.runAndSettle('partner-callbacks');
    /** Runs the callbacks after each retry delay in turn (the clock moved, never a wait), until none is pending. */
    const settleWithRetries = async () => {
      for (let i = 0; i < 4; i++) {
        await settle();
        clock.offset += 6 * 60_000;
      }
    };
    const call = (method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string>, payload?: unknown) =>
      ctx().request({ method, url: path, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const callbacksOf = async (publicId: string) =>
      (
        await ctx().db.query<{ event: string; status: string; attempts: number; last_status: number | null }>(
          `SELECT c.event, c.status, c.attempts, c.last_status FROM partner_callbacks c JOIN partner_links l ON l.id = c.link_id WHERE l.public_id = $1 ORDER BY c.id`,
          [publicId],
        )
      ).rows;
    const invitationsOf = async (email: string) =>
      (
        await ctx().db.query<{ source: string; state: string }>(
          `SELECT i.source, i.cancelled_at IS NOT NULL AS state FROM invitations i JOIN candidates c ON c.id = i.candidate_id WHERE c.email = $1`,
          [email],
        )
      ).rows;

    /** An event as Bob sends it (IDs only), for company `companyId`. */
    const bobEvent = (type: string, id: string, companyId = 4242) =>
      JSON.stringify({ companyId, type, triggeredAt: new Date(clock.now()).toISOString(), version: 'v2', data: { assessmentRequestId: id } });
    const toBob = (body: string, signature: string) =>
      ctx().request({
        method: 'POST',
        url: '/partners/hibob/events',
        headers: { 'content-type': 'application/json', ...(signature ? { 'bob-signature': signature } : {}) },
        payload: body,
      });

    /** A webhook as Lever sends it, signed as Lever documents: hex HMAC-SHA256 of token + triggeredAt under the signature token. */
    const leverEvent = (event: string, opportunityId: string, toStageId?: string) => {
      const token = `tok-${Math.random().toString(36).slice(2)}`;
      const triggeredAt = clock.now().getTime();
      const signature = createHmac('sha256', 'lv-signature-token').update(`${token}${triggeredAt}`).digest('hex');
      return {
        triggeredAt,
        event,
        signature,
        token,
        data: { candidateId: `cand-${opportunityId}`, contactId: `contact-${opportunityId}`, opportunityId, fromStageId: 'stage-new', toStageId },
      };
    };
    const toLever = (body: object) =>
      ctx().request({ method: 'POST', url: '/partners/lever/webhook', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) });

    before(async () => {
      // One stand-in serves both stores' suites, one after the other: each starts with it empty.
      ats.received.length = 0;
      ats.routes.length = 0;
      instance = await ctx().instance('more');
      assert.ok((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode < 300);
      key = await ctx().key([instance]);
      // Another instance, with nothing published: its key sees nothing of the first.
      otherKey = await ctx().key([await ctx().instance('other')]);
      url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    });

    it('Workable: the CLI connects it; tests are listed; an assessment is created once however often it is sent; the result is PUT to callback_url with Workable’s token', async () => {
      const connected = await runCli(url, ['ats', 'workable', '--instance', instance, '--token', 'wk-secret-token-7a1e', '--json']);
      assert.equal(connected.code, 0, connected.stderr);
      assert.deepEqual(JSON.parse(connected.stdout).secretHints, { token: '7a1e' });
      assert.doesNotMatch(connected.stdout, /wk-secret-token/);
      // Stored sealed: the token is nowhere in the row as text.
      const { rows: stored } = await ctx().db.query<{ row: string; sealed: Buffer }>(
        `SELECT row_to_json(s)::text AS row, sealed_secrets AS sealed FROM partner_settings s WHERE partner = 'workable'`,
      );
      for (const row of stored) {
        assert.doesNotMatch(row.row, /wk-secret-token/);
        assert.equal(Buffer.from(row.sealed).includes('wk-secret-token'), false);
      }
      const bearer = { authorization: `Bearer ${key}` };

      const tests = await call('GET', '/partners/workable/tests', bearer);
      assert.equal(tests.statusCode, 200, tests.body);
      assert.deepEqual(tests.json(), { tests: [{ id: 'quick', name: 'Quick check' }] });
      assert.deepEqual((await call('GET', '/partners/workable/tests', { authorization: `Bearer ${otherKey}` })).json(), { tests: [] });

      const order = {
        test_id: 'quick',
        job_shortcode: 'GROOVYJOB',
        job_title: 'Analyst',
        candidate: { first_name: 'Wanda', last_name: 'Workable', email: 'wanda.workable@example.com', phone: '+30 210 0000000' },
        callback_url: `${ats.base}/workable/spi/v3/assessments/wk-1`,
      };
      const created = await call('POST', '/partners/workable/assessments', bearer, order);
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json().id as string;
      assert.ok(id);
      const again = await call('POST', '/partners/workable/assessments', bearer, order);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().id, id, 'a retried order is the same assessment');
      assert.deepEqual(
        (await invitationsOf('wanda.workable@example.com')).map((i) => i.source),
        ['workable'],
      );
      // Another instance's key does not reach this instance's tests.
      const elsewhere = await call('POST', '/partners/workable/assessments', { authorization: `Bearer ${otherKey}` }, { ...order, callback_url: `${ats.base}/x` });
      assert.equal(elsewhere.statusCode, 400);
      assert.match(elsewhere.json().error, /quick/);

      ats.routes.push((r) => (r.url.startsWith('/workable/') ? { status: 200, json: {} } : undefined));
      await takeWithLink(ctx(), linkMailedTo(ctx().mailDir, 'wanda.workable@example.com'), undefined, QUICK_ANSWERS, { slug: 'quick' });
      await settle();
      const [put] = receivedAt(ats, '/workable/spi/v3/assessments/wk-1');
      assert.ok(put, JSON.stringify(ats.received));
      assert.equal(put.method, 'PUT');
      assert.equal(put.headers.authorization, 'Bearer wk-secret-token-7a1e');
      const result = JSON.parse(put.body);
      assert.equal(result.status, 'completed');
      assert.equal(result.score, 100);
      assert.equal(result.grade, 'PASS');
      assert.match(result.summary, /Reasoning 100%/);
      const report = await ctx().request({ method: 'GET', url: result.results_url.replace('http://portal.test', '') });
      assert.equal(report.statusCode, 200);
      assert.match(report.body, /Wanda/);
      const pdf = await ctx().request({ method: 'GET', url: result.attachments[0].url.replace('http://portal.test', '') });
      assert.equal(pdf.headers['content-type'], 'application/pdf');
    });

    it('Workable: a wrong or missing token is 401 {error} (logged without the token); bad orders are 400 and invite nobody', async () => {
      for (const authorization of ['Bearer ack_not_a_key', `Basic ${Buffer.from(`${key}:`).toString('base64')}`, '']) {
        const refused = await call('GET', '/partners/workable/tests', { authorization });
        assert.equal(refused.statusCode, 401, authorization);
        assert.deepEqual(Object.keys(refused.json()), ['error']);
        assert.match(String(refused.headers['www-authenticate']), /^Bearer/);
      }
      const refusals = logLines.filter((line) => line.includes('ATS credential refused'));
      assert.ok(
        refusals.some((line) => line.includes('"partner":"workable"')),
        'the refusal is logged',
      );
      for (const line of logLines) assert.doesNotMatch(line, /ack_not_a_key/, 'never with the credential');
      const bearer = { authorization: `Bearer ${key}` };
      const base = { test_id: 'quick', candidate: { first_name: 'B', last_name: 'Ad', email: 'bad.workable@example.com' }, callback_url: `${ats.base}/workable/x` };
      for (const [body, field] of [
        [{ ...base, test_id: 'nope' }, 'nope'],
        [{ ...base, candidate: { ...base.candidate, email: 'nope' } }, 'email'],
        [{ ...base, callback_url: 'ftp://x' }, 'callback_url'],
        [{ ...base, callback_url: undefined }, 'callback_url'],
      ] as const) {
        const refused = await call('POST', '/partners/workable/assessments', bearer, body);
        assert.equal(refused.statusCode, 400, refused.body);
        assert.match(refused.json().error, new RegExp(field));
      }
      assert.deepEqual(await invitationsOf('bad.workable@example.com'), []);
    });

    it('Workable: a callback answered 500, then not at all, is tried again as the clock moves, and succeeds once Workable answers', async () => {
      const bearer = { authorization: `Bearer ${key}` };
      const created = await call('POST', '/partners/workable/assessments', bearer, {
        test_id: 'quick',
        candidate: { first_name: 'Rita', last_name: 'Retry', email: 'rita.workable@example.com' },
        callback_url: `${ats.base}/workable/spi/v3/assessments/wk-2`,
      });
      const id = created.json().id as string;
      ats.failWith({ status: 500, json: { error: 'down' } });
      await takeWithLink(ctx(), linkMailedTo(ctx().mailDir, 'rita.workable@example.com'), undefined, QUICK_ANSWERS, { slug: 'quick' });
      await settle();
      assert.deepEqual(
        (await callbacksOf(id)).map((c) => [c.status, c.attempts, c.last_status]),
        [['pending', 1, 500]],
      );
      ats.failWith('hang');
      clock.offset += 6_000;
      await settle();
      assert.deepEqual(
        (await callbacksOf(id)).map((c) => [c.status, c.attempts, c.last_status]),
        [['pending', 2, null]],
      );
      ats.failWith(null);
      await settleWithRetries();
      assert.deepEqual(
        (await callbacksOf(id)).map((c) => [c.status, c.attempts]),
        [['succeeded', 3]],
      );
      assert.equal(receivedAt(ats, '/workable/spi/v3/assessments/wk-2', 'PUT').length, 3);
      // Without WEBHOOK_ALLOW_PRIVATE_NETWORKS the same request to a loopback address is refused by the address guard, unsent.
      const guarded = await partnerHttp({ allowPrivate: false, timeoutMs: 300 }).call('PUT', `${ats.base}/workable/spi/v3/assessments/wk-2`, {}, '{}');
      assert.equal(guarded.response, 'address not allowed');
      assert.equal(receivedAt(ats, '/workable/spi/v3/assessments/wk-2', 'PUT').length, 3);
    });

    it('SmartRecruiters: packages listed; an order placed twice invites once; started and the result go under the order with an OAuth token of the customer’s client', async () => {
      const connected = await runCli(url, ['ats', 'smartrecruiters', '--instance', instance, '--client-id', 'sr-client-1', '--client-secret', 'sr-secret-9b2c']);
      assert.equal(connected.code, 0, connected.stderr);
      assert.match(connected.stdout, /clientSecret set \(…9b2c\), clientId sr-client-1/);
      // SmartRecruiters' side: its token endpoint (client credentials) and the order's status and results.
      let issued = 0;
      ats.routes.push((r) => {
        if (r.url === '/sr/identity/oauth/token' && r.method === 'POST') {
          const form = new URLSearchParams(r.body);
          if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== 'sr-client-1' || form.get('client_secret') !== 'sr-secret-9b2c')
            return { status: 401, json: { error: 'invalid_client' } };
          issued += 1;
          return { status: 200, json: { access_token: `sr-access-${issued}`, token_type: 'Bearer', expires_in: 1800 } };
        }
        if (!r.url.startsWith('/sr/assessments/orders/')) return undefined;
        if (!/^Bearer sr-access-\d$/.test(r.headers.authorization ?? '')) return { status: 401, json: { code: 'UNAUTHORIZED', message: 'bad token' } };
        return r.url.endsWith('/status') ? { status: 204 } : { status: 201, json: {} };
      });
      const bearer = { authorization: `Bearer ${key}` };
      const packages = await call('GET', '/partners/smartrecruiters/packages', bearer);
      assert.equal(packages.statusCode, 200, packages.body);
      assert.deepEqual(packages.json(), { totalFound: 1, content: [{ id: 'quick', name: 'Quick check', description: 'One question, scored at once.', durationMinutes: 10 }] });
      assert.deepEqual((await call('GET', '/partners/smartrecruiters/packages', { authorization: `Bearer ${otherKey}` })).json(), { totalFound: 0, content: [] });
      const listed = await runCli(url, ['ats', 'list', '--instance', instance]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /smartrecruiters .*clientSecret.*clientId=sr-client-1/);
      assert.doesNotMatch(listed.stdout, /sr-secret-9b2c|wk-secret-token/);
      const wrong = await call('GET', '/partners/smartrecruiters/packages', { authorization: 'Bearer ack_wrong' });
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(Object.keys(wrong.json()).sort(), ['code', 'message']);
      assert.equal(wrong.json().code, 'UNAUTHORIZED');

      const order = {
        id: 'sr-order-1001',
        packageId: 'quick',
        candidate: { id: 'c-77', firstName: 'Sam', lastName: 'Smart', email: 'sam.sr@example.com' },
        job: { id: 'job-5', name: 'Support lead' },
        company: { id: 'co-1', name: 'Orlando Magic Inc.' },
        requestor: { firstName: 'Rob', lastName: 'Kaman', email: 'rob@example.com' },
      };
      const placed = await call('POST', '/partners/smartrecruiters/orders', bearer, order);
      assert.equal(placed.statusCode, 201, placed.body);
      assert.equal(placed.json().orderId, 'sr-order-1001');
      const again = await call('POST', '/partners/smartrecruiters/orders', bearer, order);
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().assessmentId, placed.json().assessmentId);
      assert.equal((await invitationsOf('sam.sr@example.com')).length, 1);
      const invalid = await call('POST', '/partners/smartrecruiters/orders', bearer, { ...order, id: 'sr-order-x', packageId: 'nope' });
      assert.equal(invalid.statusCode, 400);
      assert.equal(invalid.json().code, 'INVALID_REQUEST');

      const link = linkMailedTo(ctx().mailDir, 'sam.sr@example.com');
      await takeWithLink(ctx(), link, 'started', [], { slug: 'quick' });
      await settle();
      await takeWithLink(ctx(), link, undefined, QUICK_ANSWERS, { slug: 'quick' }).catch(() => undefined);
      await settle();
      await settle();
      const [status] = receivedAt(ats, '/sr/assessments/orders/sr-order-1001/status', 'PUT');
      assert.deepEqual(JSON.parse(status!.body), { status: 'IN_PROGRESS' });
      assert.equal(status!.headers.authorization, 'Bearer sr-access-1');
      const [results] = receivedAt(ats, '/sr/assessments/orders/sr-order-1001/results', 'POST');
      assert.ok(results, JSON.stringify(ats.received.map((r) => r.url)));
      const body = JSON.parse(results.body);
      assert.deepEqual(body.score, { value: 100, max: 100 });
      assert.equal(body.status, 'COMPLETED');
      assert.equal(body.passed, true);
      assert.match(body.resultUrl, /^http:\/\/portal\.test\/reports\//);
      assert.match(body.attachments[0].url, /\.pdf\?/);
      assert.equal(issued, 1, 'the token is kept until it nearly expires');
    });

    it('SmartRecruiters: a withdrawn order cancels the invitation and says CANCELLED; a wrong client secret keeps the callback waiting, never sent with a bad token', async () => {
      const bearer = { authorization: `Bearer ${key}` };
      const order = { id: 'sr-order-2002', packageId: 'quick', candidate: { firstName: 'Cal', lastName: 'Cancel', email: 'cal.sr@example.com' } };
      assert.equal((await call('POST', '/partners/smartrecruiters/orders', bearer, order)).statusCode, 201);
      // Another instance's key cannot withdraw this instance's order.
      assert.equal((await call('DELETE', '/partners/smartrecruiters/orders/sr-order-2002', { authorization: `Bearer ${otherKey}` })).statusCode, 404);
      const withdrawn = await call('DELETE', '/partners/smartrecruiters/orders/sr-order-2002', bearer);
      assert.equal(withdrawn.statusCode, 204, withdrawn.body);
      assert.deepEqual(
        (await invitationsOf('cal.sr@example.com')).map((i) => i.state),
        [true],
      );
      const unknown = await call('DELETE', '/partners/smartrecruiters/orders/sr-order-none', bearer);
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().code, 'NOT_FOUND');
      await settle();
      const [cancelled] = receivedAt(ats, '/sr/assessments/orders/sr-order-2002/status', 'PUT');
      assert.deepEqual(JSON.parse(cancelled!.body), { status: 'CANCELLED' });

      await ctx().request({ method: 'PUT', url: `/admin/v1/instances/${instance}/integrations/smartrecruiters`, payload: { secrets: { clientSecret: 'not-the-secret' } } });
      const third = { id: 'sr-order-3003', packageId: 'quick', candidate: { firstName: 'Wes', lastName: 'Wrong', email: 'wes.sr@example.com' } };
      const placed = await call('POST', '/partners/smartrecruiters/orders', bearer, third);
      await takeWithLink(ctx(), linkMailedTo(ctx().mailDir, 'wes.sr@example.com'), 'started', [], { slug: 'quick' });
      await settle();
      assert.deepEqual(
        (await callbacksOf(placed.json().assessmentId)).map((c) => [c.status, c.attempts]),
        [['pending', 1]],
      );
      assert.equal(receivedAt(ats, '/sr/assessments/orders/sr-order-3003/status').length, 0);
    });

    it('HiBob: connecting publishes the packages; a signed trigger (delivered twice) reads the context and invites once; Bob hears in_progress, then passed with the score, by PATCH of the assessment', async () => {
      ats.routes.push((r) => {
        if (!r.url.startsWith('/hibob/')) return undefined;
        if (r.headers.authorization !== 'Bearer hb-access-token-5d6e') return { status: 401, json: { error: 'unauthorized' } };
        if (r.url === '/hibob/hiring/assessments/packages' && r.method === 'PUT') return { status: 204 };
        const id = /^\/hibob\/hiring\/assessments\/(\d+)$/.exec(r.url)?.[1];
        if (id && r.method === 'PATCH') return { status: 204 };
        if (id && r.method === 'GET')
          return {
            status: 200,
            json: {
              id: Number(id),
              candidate: { id: `cand-${id}`, firstName: 'Bea', lastName: `Bob${id}`, email: `bea.${id}@example.com` },
              requester: { id: 'emp-1', email: 'recruiter@example.com' },
              jobOpening: { id: 'job-9', title: 'Payroll specialist' },
              package: { id: 'quick', name: 'Quick check' },
              requestedAt: '2026-12-01T10:00:00Z',
            },
          };
        return undefined;
      });
      const connected = await runCli(url, [
        'ats',
        'hibob',
        '--instance',
        instance,
        '--company-id',
        '4242',
        '--access-token',
        'hb-access-token-5d6e',
        '--webhook-secret',
        'hb-webhook-secret',
      ]);
      assert.equal(connected.code, 0, connected.stderr);
      assert.match(connected.stdout, /1 package published to HiBob/);
      assert.doesNotMatch(connected.stdout, /hb-access-token|hb-webhook-secret/);
      const [published] = receivedAt(ats, '/hibob/hiring/assessments/packages', 'PUT');
      assert.deepEqual(
        JSON.parse(published!.body).packages.map((p: { id: string }) => p.id),
        ['quick'],
      );

      const triggered = bobEvent('assessment.triggered', '98765');
      for (let i = 0; i < 2; i++) {
        const delivered = await toBob(triggered, bobSignature('hb-webhook-secret', triggered));
        assert.equal(delivered.statusCode, 204, delivered.body);
      }
      assert.equal((await invitationsOf('bea.98765@example.com')).length, 1);
      assert.equal(receivedAt(ats, '/hibob/hiring/assessments/98765', 'GET').length, 1, 'a delivery again asks Bob nothing');

      const link = linkMailedTo(ctx().mailDir, 'bea.98765@example.com');
      await takeWithLink(ctx(), link, 'started', [], { slug: 'quick' });
      await takeWithLink(ctx(), link, undefined, QUICK_ANSWERS, { slug: 'quick' }).catch(() => undefined);
      await settle();
      await settle();
      const patches = receivedAt(ats, '/hibob/hiring/assessments/98765', 'PATCH').map((r) => JSON.parse(r.body));
      assert.deepEqual(
        patches.map((p) => p.status),
        ['in_progress', 'passed'],
      );
      assert.equal(patches[1].score, 100);
      assert.equal(patches[1].verdict, 'PASS');
      assert.deepEqual(patches[1].sectionSummary, [{ name: 'Reasoning', score: 100 }]);
      assert.match(patches[1].resultUrl, /\/reports\//);
      for (const p of patches) assert.equal('assessmentRequestId' in p, false, 'the id is in the path, never the body');
    });

    it('HiBob: a wrong signature or another company is 401 {error}; a cancelled assessment is withdrawn and Bob hears nothing more; Bob’s API failing is 503 (Bob delivers again)', async () => {
      const triggered = bobEvent('assessment.triggered', '98766');
      for (const [body, signature] of [
        [triggered, bobSignature('not-the-secret', triggered)],
        [triggered, ''],
        [bobEvent('assessment.triggered', '98766', 9999), bobSignature('hb-webhook-secret', bobEvent('assessment.triggered', '98766', 9999))],
      ] as const) {
        const refused = await toBob(body, signature);
        assert.equal(refused.statusCode, 401, refused.body);
        assert.deepEqual(Object.keys(refused.json()), ['error']);
      }
      assert.deepEqual(await invitationsOf('bea.98766@example.com'), []);
      assert.ok(logLines.some((line) => line.includes('ATS credential refused') && line.includes('"partner":"hibob"')));
      for (const line of logLines) assert.doesNotMatch(line, /hb-webhook-secret|not-the-secret/);

      ats.failWith({ status: 502, json: { error: 'bad gateway' } });
      const down = await toBob(triggered, bobSignature('hb-webhook-secret', triggered));
      assert.equal(down.statusCode, 503, down.body);
      assert.deepEqual(await invitationsOf('bea.98766@example.com'), []);
      ats.failWith(null);
      assert.equal((await toBob(triggered, bobSignature('hb-webhook-secret', triggered))).statusCode, 204);
      assert.equal((await invitationsOf('bea.98766@example.com')).length, 1);

      const cancelled = bobEvent('assessment.cancelled', '98766');
      assert.equal((await toBob(cancelled, bobSignature('hb-webhook-secret', cancelled))).statusCode, 204);
      assert.deepEqual(
        (await invitationsOf('bea.98766@example.com')).map((i) => i.state),
        [true],
      );
      await settle();
      assert.equal(receivedAt(ats, '/hibob/hiring/assessments/98766', 'PATCH').length, 0);
    });

    it('Lever: a signed stage change into the chosen stage invites the opportunity’s contact once; notes tell the start and the result with the report and its PDF; archiving withdraws; a bad signature is 401', async () => {
      const basicKey = `Basic ${Buffer.from('lv-api-key-3f9a:').toString('base64')}`;
      ats.routes.push((r) => {
        if (!r.url.startsWith('/lever/')) return undefined;
        if (r.headers.authorization !== basicKey) return { status: 401, json: { code: 'UnauthorizedError', message: 'Invalid API key' } };
        const id = /^\/lever\/opportunities\/([^/]+)/.exec(r.url)?.[1];
        if (id && r.url.endsWith('/notes') && r.method === 'POST') return { status: 201, json: { data: { noteId: `note-${id}` } } };
        if (id && r.method === 'GET')
          return { status: 200, json: { data: { id, name: `Lena ${id}`, contact: `contact-${id}`, emails: [`lena.${id}@example.com`], stage: 'stage-assess', tags: [] } } };
        return undefined;
      });
      const connected = await runCli(url, [
        'ats',
        'lever',
        '--instance',
        instance,
        '--api-key',
        'lv-api-key-3f9a',
        '--stage',
        'stage-assess',
        '--assessment',
        'quick',
        '--signature-token',
        'lv-signature-token',
      ]);
      assert.equal(connected.code, 0, connected.stderr);
      assert.match(connected.stdout, /apiKey set \(…3f9a\)/);

      assert.equal((await toLever(leverEvent('candidateStageChange', 'opp-1', 'stage-phone'))).statusCode, 200);
      assert.deepEqual(await invitationsOf('lena.opp-1@example.com'), [], 'another stage invites nobody');
      for (let i = 0; i < 2; i++) {
        const entered = await toLever(leverEvent('candidateStageChange', 'opp-1', 'stage-assess'));
        assert.equal(entered.statusCode, 200, entered.body);
      }
      assert.deepEqual(
        (await invitationsOf('lena.opp-1@example.com')).map((i) => i.source),
        ['lever'],
      );
      assert.equal(receivedAt(ats, '/lever/opportunities/opp-1', 'GET').length, 1);

      const refused = await toLever({ ...leverEvent('candidateStageChange', 'opp-2', 'stage-assess'), signature: 'ab'.repeat(32) });
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(Object.keys(refused.json()), ['error']);
      assert.deepEqual(await invitationsOf('lena.opp-2@example.com'), []);

      const link = linkMailedTo(ctx().mailDir, 'lena.opp-1@example.com');
      await takeWithLink(ctx(), link, 'started', [], { slug: 'quick' });
      await takeWithLink(ctx(), link, undefined, QUICK_ANSWERS, { slug: 'quick' }).catch(() => undefined);
      await settle();
      await settle();
      const notes = receivedAt(ats, '/lever/opportunities/opp-1/notes', 'POST').map((r) => JSON.parse(r.body).value as string);
      assert.equal(notes.length, 2, JSON.stringify(notes));
      assert.match(notes[0]!, /^Started the assessment quick/);
      assert.match(notes[1]!, /completed\. PASS: 100% overall; Reasoning 100%/);
      const pdf = /PDF: (\S+)/.exec(notes[1]!)![1]!;
      assert.equal((await ctx().request({ method: 'GET', url: pdf.replace('http://portal.test', '') })).headers['content-type'], 'application/pdf');

      assert.equal((await toLever(leverEvent('candidateStageChange', 'opp-3', 'stage-assess'))).statusCode, 200);
      const archived = await toLever({
        ...leverEvent('candidateArchiveChange', 'opp-3'),
        data: { opportunityId: 'opp-3', toArchived: { archivedAt: Date.now(), reason: 'r-1' }, fromArchived: null },
      });
      assert.equal(archived.statusCode, 200);
      assert.deepEqual(
        (await invitationsOf('lena.opp-3@example.com')).map((i) => i.state),
        [true],
      );
    });

    it('console: the Integrations page shows each ATS with what to paste and whether it is connected; an owner (not a manager) connects one, secrets never shown again; refusals sit beside their fields', async () => {
      const owner = await consoleUser(ctx(), `owner-more-${ctx().store}@ats.example`, 'owner');
      const manager = await consoleUser(ctx(), `manager-more-${ctx().store}@ats.example`, 'manager', [instance]);
      const asOwner = await consoleAs(ctx(), `owner-more-${ctx().store}@ats.example`, owner.password);
      const page = await asOwner.get(`/console/integrations?instance=${instance}`);
      assert.equal(page.statusCode, 200, page.body);
      for (const address of ['/partners/workable', '/partners/smartrecruiters', '/partners/hibob/events', '/partners/lever/webhook'])
        assert.ok(page.body.includes(`http://portal.test${address}`), address);
      assert.match(page.body, /<h2 id="workable">Workable <span class="badge">connected<\/span>/);
      assert.match(page.body, /Workable token \(the one Workable issued for results\)<\/dt><dd>set \(ending in <code>7a1e<\/code>\)/);
      assert.doesNotMatch(page.body, /wk-secret-token|hb-access-token|lv-api-key|sr-secret/);

      const made = await asOwner.post('/console/integrations/key', { instance, partner: 'smartrecruiters' });
      const madeKey = /<code class="secret">([^<]+)<\/code>/.exec(made.body)![1]!;
      assert.equal((await call('GET', '/partners/smartrecruiters/packages', { authorization: `Bearer ${madeKey}` })).statusCode, 200);

      const saved = await asOwner.post('/console/integrations/settings', {
        instance,
        partner: 'hibob',
        option_companyId: '4242',
        secret_accessToken: 'hb-access-token-5d6e',
        secret_webhookSecret: '',
      });
      assert.equal(saved.statusCode, 200, saved.body);
      assert.match(saved.body, /HiBob settings saved\. 1 package published to HiBob\./);
      assert.match(saved.body, /Webhook signing secret<\/dt><dd>set \(ending in <code>cret<\/code>\)/, 'a blank field keeps the secret');

      const bad = await asOwner.post('/console/integrations/settings', { instance, partner: 'lever', secret_apiKey: 'has a space' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /Lever was not connected:<\/p><ul><li><a href="#lever-apiKey">secrets\.apiKey<\/a> must be 1-500 printable characters without spaces/);
      assert.match(bad.body, /id="lever-apiKey" name="secret_apiKey"[^>]*aria-invalid="true" aria-describedby="lever-apiKey-error">/);

      // The candidate page says which ATS invited them, with the ATS's ids of it.
      const { rows } = await ctx().db.query<{ id: string }>(`SELECT id FROM candidates WHERE email = 'lena.opp-1@example.com'`);
      const candidatePage = await asOwner.get(`/console/candidates/${rows[0]!.id}?instance=${instance}`);
      assert.match(candidatePage.body, /Invited through<\/dt><dd>Lever · Lever <code>[0-9a-f-]{36}<\/code> \(opportunity opp-1, candidate cand-opp-1\)/);

      const asManager = await consoleAs(ctx(), `manager-more-${ctx().store}@ats.example`, manager.password);
      const refused = await asManager.post('/console/integrations/settings', { instance, partner: 'workable', secret_token: 'other-token' });
      assert.equal(refused.statusCode, 403);
      assert.match((await asManager.get(`/console/integrations?instance=${instance}`)).body, /Only an owner \(or the operator\) may connect Workable/);
    });
  },
  {
    webhookAllowPrivateNetworks: true,
    webhookTimeoutMs: 300,
    logStream,
    now: clock.now,
    hibobApiUrl: `${ats.base}/hibob`,
    leverApiUrl: `${ats.base}/lever`,
    smartrecruitersApiUrl: `${ats.base}/sr`,
  },
);
