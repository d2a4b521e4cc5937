// The console over HTTP: signing in and out, sessions and their timeouts, CSRF, the sign-in
// limit, every role against every route, and the results a reviewer works with: the report, the
// review queue, and a review that turns GET /v1/score from PENDING to a result.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachStore, sampleAssessment } from './harness.js';
import { TINY_PNG } from './support/images.js';
import { takeAssessment } from './support/take.js';
import { movingClock } from './support/clock.js';
import { consoleAs as as, consoleUser as user, cookieOf, FORM, formOf, signIn } from './support/console.js';

const time = movingClock();
const clock = time.now;
const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

const SCORE_WORDS: Record<string, string> = { PASS: 'Pass', LOW_PASS: 'Low pass', FAIL: 'Fail' };

describeEachStore(
  'console',
  (ctx) => {
    let a: string;
    let b: string;
    let keyA: string;
    const people: Record<string, { id: string; password: string }> = {};

    it('creates users with a one-time password, refuses weak passwords, and lists them', async () => {
      a = await ctx().instance('ca');
      b = await ctx().instance('cb');
      await ctx().publish(a, sampleAssessment('alpha', { name: 'Alpha' }));
      await ctx().publish(b, sampleAssessment('alpha', { name: 'Alpha B' }));
      keyA = await ctx().key([a]);
      people.owner = await user(ctx(), `owner-${a}@example.com`, 'owner');
      people.manager = await user(ctx(), `manager-${a}@example.com`, 'manager', [a]);
      people.reviewer = await user(ctx(), `reviewer-${a}@example.com`, 'reviewer', [a]);
      assert.match(people.owner.password, /^[A-Za-z0-9]{20}$/);
      for (const [password, why] of [
        ['short', /at least 12/],
        ['password1234', /too common/],
        ['qwertyuiop123!', /too common/],
        ['abcabcabcabc', /too common/],
      ] as const) {
        const refused = await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email: `weak-${a}@example.com`, role: 'owner', password } });
        assert.equal(refused.statusCode, 400, password);
        assert.match(refused.json().errors[0].detail, why);
      }
      const duplicate = await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email: `OWNER-${a}@example.com`, role: 'owner' } });
      assert.equal(duplicate.statusCode, 409);
      const noInstance = await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email: `r2-${a}@example.com`, role: 'reviewer' } });
      assert.equal(noInstance.statusCode, 400);
      const list = (await ctx().request({ method: 'GET', url: '/admin/v1/users' })).json() as { email: string; instances: string[] }[];
      assert.deepEqual(list.find((u) => u.email === `reviewer-${a}@example.com`)?.instances, [a]);
      assert.ok(list.every((u) => !('password' in u) && !('passwordHash' in u)));
    });

    it('sends every console route to sign-in without a session: GET by redirect, changes with 401', async () => {
      // The router's tree, turned back into full paths (each level is indented by 4 characters).
      const stack: string[] = [];
      const routes: [string, string, string][] = [];
      for (const line of ctx().app.printRoutes({ commonPrefix: false }).split('\n')) {
        const at = line.search(/[^\s│├└─]/);
        const match = /^(\S+) \(([A-Z, ]+)\)$/.exec(line.slice(at));
        if (at < 0 || !match) continue;
        stack[at / 4] = match[1]!;
        stack.length = at / 4 + 1;
        routes.push(['', stack.join(''), match[2]!]);
      }
      routes.splice(0, routes.length, ...routes.filter(([, path]) => path.startsWith('/console/')));
      assert.ok(routes.length >= 15, `found ${routes.length} console routes`);
      let checked = 0;
      for (const [, route, methods] of routes) {
        // The sign-in page, its assets and single sign-on's start and return are for people not signed in yet.
        if (/^\/console\/(sign-in|assets\/|sso)/.test(route!)) continue;
        const url = route!.replace(/:id/g, '00000000-0000-0000-0000-000000000000').replace(/:action/g, 'disable');
        for (const method of methods!.split(',').map((m) => m.trim())) {
          if (method === 'HEAD') continue;
          const response = await ctx().request({ method: method as 'GET' | 'POST', url, headers: { 'content-type': FORM }, payload: method === 'POST' ? '_csrf=x' : undefined });
          if (method === 'GET') {
            assert.equal(response.statusCode, 303, `${method} ${url}`);
            assert.match(String(response.headers.location), /^\/console\/sign-in/);
          } else assert.equal(response.statusCode, 401, `${method} ${url}`);
          checked++;
        }
      }
      assert.ok(checked >= 15, `checked ${checked}`);
    });

    it('signs in with one answer for every wrong credential, and out again', async () => {
      const wrong = await signIn(ctx(), `owner-${a}@example.com`, 'not the password at all');
      const unknown = await signIn(ctx(), `nobody-${a}@example.com`, 'not the password at all');
      assert.equal(wrong.statusCode, 401);
      assert.equal(unknown.statusCode, 401);
      const message = (r: LightMyRequestResponse) => /role="alert"[^>]*>([^<]+)</.exec(r.body)![1];
      assert.equal(message(wrong), message(unknown));
      assert.equal(cookieOf(wrong, 'ac_console'), undefined);

      const ok = await signIn(ctx(), `Owner-${a}@Example.com`, people.owner!.password);
      assert.equal(ok.statusCode, 303);
      const setCookie = ([] as string[]).concat(ok.headers['set-cookie'] ?? []).find((c) => c.startsWith('ac_console='))!;
      assert.match(setCookie, /HttpOnly/);
      assert.match(setCookie, /SameSite=Strict/);
      assert.match(setCookie, /Path=\/console/);
      const cookie = setCookie.split(';')[0]!;
      const home = await ctx().request({ method: 'GET', url: '/console/', headers: { cookie } });
      assert.equal(home.statusCode, 200);
      assert.match(home.body, /Overview of/);
      assert.equal(home.headers['cache-control'], 'no-store');
      assert.match(String(home.headers['content-security-policy']), /script-src 'self'/);
      assert.doesNotMatch(home.body, /<script>|style=|onclick=/);
      const csrf = /name="csrf-token" content="([^"]+)"/.exec(home.body)![1]!;
      const out = await ctx().request({ method: 'POST', url: '/console/sign-out', headers: { cookie, 'content-type': FORM }, payload: formOf({ _csrf: csrf }) });
      assert.equal(out.statusCode, 303);
      const after = await ctx().request({ method: 'GET', url: '/console/', headers: { cookie } });
      assert.equal(after.statusCode, 303);
      assert.match(String(after.headers.location), /^\/console\/sign-in\?next=/);
    });

    it('refuses state changes without the CSRF token or from another site, and sign-in from another site', async () => {
      const owner = await as(ctx(), `owner-${a}@example.com`, people.owner!.password);
      const noToken = await ctx().request({ method: 'POST', url: '/console/keys', headers: { cookie: owner.cookie, 'content-type': FORM }, payload: formOf({ instance: a }) });
      assert.equal(noToken.statusCode, 403);
      const foreign = await owner.post('/console/keys', { instance: a }, { origin: 'https://evil.example' });
      assert.equal(foreign.statusCode, 403);
      const crossSite = await owner.post('/console/keys', { instance: a }, { 'sec-fetch-site': 'cross-site' });
      assert.equal(crossSite.statusCode, 403);
      const loginCsrf = await signIn(ctx(), `owner-${a}@example.com`, people.owner!.password, { headers: { origin: 'https://evil.example' } });
      assert.equal(loginCsrf.statusCode, 403);
      assert.equal(cookieOf(loginCsrf, 'ac_console'), undefined);
      // The portal's rule (src/http/same-origin.ts): a POST saying Sec-Fetch-Site: none was not
      // typed by a person (only navigations are), and without Origin the Referer decides.
      for (const headers of [{ 'sec-fetch-site': 'none' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }, { referer: 'https://evil.example/page' }] as Record<
        string,
        string
      >[]) {
        const refused = await owner.post('/console/keys', { instance: a }, headers);
        assert.equal(refused.statusCode, 403, JSON.stringify(headers));
      }
      const keys = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${a}` })).json() as unknown[];
      assert.equal(keys.length, 1, 'no key was made by the refused requests');
      for (const headers of [{ origin: 'http://portal.test', 'sec-fetch-site': 'same-origin' }, { referer: 'http://portal.test/console/keys' }] as Record<string, string>[]) {
        const accepted = await owner.post('/console/keys', { instance: a }, headers);
        assert.equal(accepted.statusCode < 400, true, `${JSON.stringify(headers)}: ${accepted.statusCode}`);
      }
      const after = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${a}` })).json() as unknown[];
      assert.equal(after.length, 3, 'the same-origin requests made their keys');
    });

    it('gives each role exactly its pages and actions', async () => {
      const reviewer = await as(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password);
      const manager = await as(ctx(), `manager-${a}@example.com`, people.manager!.password);
      const owner = await as(ctx(), `owner-${a}@example.com`, people.owner!.password);
      const key = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${a}` })).json()[0].id as string;
      const table: [string, Awaited<ReturnType<typeof as>>, () => Promise<LightMyRequestResponse>, number][] = [
        ['reviewer reads A', reviewer, () => reviewer.get(`/console/candidates?instance=${a}`), 200],
        ['reviewer reads B', reviewer, () => reviewer.get(`/console/candidates?instance=${b}`), 403],
        ['reviewer overview B', reviewer, () => reviewer.get(`/console/?instance=${b}`), 403],
        ['reviewer queue A', reviewer, () => reviewer.get(`/console/reviews?instance=${a}`), 200],
        ['reviewer keys', reviewer, () => reviewer.get(`/console/keys?instance=${a}`), 403],
        ['reviewer creates a key', reviewer, () => reviewer.post('/console/keys', { instance: a }), 403],
        ['reviewer revokes a key', reviewer, () => reviewer.post(`/console/keys/${key}/revoke`, { instance: a }), 403],
        ['reviewer audit', reviewer, () => reviewer.get('/console/audit'), 403],
        ['manager keys A', manager, () => manager.get(`/console/keys?instance=${a}`), 200],
        ['manager keys B', manager, () => manager.get(`/console/keys?instance=${b}`), 403],
        ['manager creates a key in B', manager, () => manager.post('/console/keys', { instance: b }), 403],
        ['manager audit', manager, () => manager.get('/console/audit'), 403],
        ['owner keys B', owner, () => owner.get(`/console/keys?instance=${b}`), 200],
        ['owner audit', owner, () => owner.get('/console/audit'), 200],
      ];
      for (const [name, , call, status] of table) assert.equal((await call()).statusCode, status, name);
      const reviewerHome = await reviewer.get('/console/');
      assert.doesNotMatch(reviewerHome.body, /API keys|Audit log/, 'the reviewer is not shown what they cannot open');
      assert.doesNotMatch(reviewerHome.body, new RegExp(`value="${b}"`), 'nor instances they cannot read');
    });

    it('shows the report with the same numbers as GET /v1/score, and a review turns PENDING into a result', async () => {
      const candidateId = await takeAssessment(ctx(), a, keyA, { email: `zoe-${a}@example.com`, firstName: 'Zoë', lastName: 'Ågren' });
      const score = async () => (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': keyA } })).json()[0];
      assert.equal((await score()).scoreStatus, 'PENDING');

      const reviewer = await as(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password);
      for (const q of ['zoe', 'ZOË Å', 'agren', `zoe-${a}`]) {
        const found = await reviewer.get(`/console/candidates?instance=${a}&q=${encodeURIComponent(q)}`);
        assert.match(found.body, new RegExp(`/console/candidates/${candidateId}`), q);
      }
      const none = await reviewer.get(`/console/candidates?instance=${a}&q=xyz`);
      assert.doesNotMatch(none.body, new RegExp(candidateId));
      const filtered = await reviewer.get(`/console/candidates?instance=${a}&status=COMPLETED&score=PENDING&assessment=alpha`);
      assert.match(filtered.body, new RegExp(candidateId));
      assert.equal((await reviewer.get(`/console/candidates?instance=${a}&status=bogus`)).statusCode, 400);

      const report = await reviewer.get(`/console/candidates/${candidateId}?instance=${a}`);
      assert.equal(report.statusCode, 200);
      assert.match(report.body, /Zoë Ågren/);
      assert.match(report.body, /<h1>Zoë Ågren<\/h1>/, 'whose report: the name alone (the frame says the company)');
      assert.match(report.body, /apologised &amp; fixed the &lt;order&gt;/, 'the answer is shown escaped');
      assert.match(report.body, /Proctoring timeline/);
      assert.match(report.body, new RegExp(`${(await score()).completion} %`));
      assert.equal((await reviewer.get(`/console/candidates/${candidateId}?instance=${b}`)).statusCode, 403);

      const queue = await reviewer.get(`/console/reviews?instance=${a}`);
      assert.match(queue.body, /Describe a time you helped a customer/);
      const attemptId = /name="attemptId" value="([^"]+)"/.exec(queue.body)![1]!;
      assert.equal((await reviewer.post('/console/reviews', { instance: a, attemptId, questionId: 'q4', score: '101' })).statusCode, 400);
      assert.equal((await reviewer.post('/console/reviews', { instance: a, attemptId, questionId: 'q4', score: 'abc' })).statusCode, 400);
      assert.equal((await score()).scoreStatus, 'PENDING', 'refused reviews change nothing');
      const saved = await reviewer.post('/console/reviews', { instance: a, attemptId, questionId: 'q4', score: '100', comment: 'Clear and kind', next: 'queue' });
      assert.equal(saved.statusCode, 303, saved.body);
      const record = await score();
      assert.notEqual(record.scoreStatus, 'PENDING');
      const after = await reviewer.get(`/console/candidates/${candidateId}?instance=${a}`);
      assert.match(after.body, new RegExp(`Total score</dt><dd>${record.totalScore} %`), 'the console shows the total the API gives');
      for (const category of record.categoryScores as { name: string; score: string }[]) {
        assert.match(after.body, new RegExp(`${category.name}</th><td>${category.score} %`), category.name);
      }
      const audit = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=50' })).json() as { actor: string; action: string }[];
      assert.ok(
        audit.some((e) => e.actor === `user:reviewer-${a}@example.com` && e.action === 'review.score'),
        'the review is audited with the acting user',
      );

      // A retake: managers only; the report then lists the earlier attempt with its result.
      assert.doesNotMatch(after.body, /Let them retake/, 'a reviewer is not offered a retake');
      assert.equal((await reviewer.post(`/console/candidates/${candidateId}/retake`, { instance: a, assessmentId: 'alpha' })).statusCode, 403);
      const manager = await as(ctx(), `manager-${a}@example.com`, people.manager!.password);
      assert.match((await manager.get(`/console/candidates/${candidateId}?instance=${a}`)).body, /Let them retake Alpha/);
      const retaken = await manager.post(`/console/candidates/${candidateId}/retake`, { instance: a, assessmentId: 'alpha' });
      assert.equal(retaken.statusCode, 303, retaken.body);
      const reopened = await manager.get(String(retaken.headers.location));
      assert.match(reopened.body, /The candidate may take it again; the earlier attempt stays in the history\. The e-mail with a fresh link was sent\./);
      assert.match(reopened.body, new RegExp(`Earlier attempts[\\s\\S]*${SCORE_WORDS[record.scoreStatus as string]} ${record.totalScore} %`));
      assert.equal((await score()).assessmentStatus, 'INVITED');
      assert.equal((await manager.post(`/console/candidates/${candidateId}/retake`, { instance: a, assessmentId: 'alpha' })).statusCode, 409, 'not twice');
      const entries = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=50' })).json() as { actor: string; action: string; target: string }[];
      assert.ok(
        entries.some((e) => e.actor === `user:manager-${a}@example.com` && e.action === 'invitation.retake' && e.target === `${candidateId}/alpha`),
        'audited',
      );
    });

    it('creates a key shown once, and a revoked key is refused by the API at once', async () => {
      const manager = await as(ctx(), `manager-${a}@example.com`, people.manager!.password);
      const created = await manager.post('/console/keys', { instance: a, label: 'ATS <prod>', rateLimit: '120' });
      assert.equal(created.statusCode, 200, created.body);
      const key = /<code class="secret" id="new-key">([^<]+)</.exec(created.body)![1]!;
      assert.match(created.body, /ATS &lt;prod&gt;/);
      assert.equal((await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).statusCode, 200);
      const id = /New key (key_[0-9a-f]{16})/.exec(created.body)![1]!;
      assert.doesNotMatch((await manager.get(`/console/keys?instance=${a}`)).body, new RegExp(key), 'never shown again');
      const keysBefore = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${a}` })).json().length;
      const refused = await manager.post('/console/keys', { instance: a, label: 'Typed <label>', rateLimit: '1e3' });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /<div class="error-summary" role="alert" id="key-errors"><p class="error">No key was made:<\/p><ul><li><a href="#key-rate">rateLimit<\/a>/);
      assert.match(
        refused.body,
        /id="key-rate" name="rateLimit"[^>]*value="1e3" aria-invalid="true" aria-describedby="key-rate-error"><p class="field-error" id="key-rate-error">must be a whole number/,
      );
      assert.match(refused.body, /id="key-label" name="label"[^>]*value="Typed &lt;label&gt;"/, 'what was typed comes back, escaped');
      const tooLong = await manager.post('/console/keys', { instance: a, label: 'x'.repeat(201) });
      assert.match(tooLong.body, /<p class="field-error" id="key-label-error">is longer than 200 characters<\/p>/);
      assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${a}` })).json().length, keysBefore, 'no key was made');
      const revoked = await manager.post(`/console/keys/${id}/revoke`, { instance: a });
      assert.equal(revoked.statusCode, 303);
      assert.equal((await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).statusCode, 401);
    });

    it("changes a key's rate limit and the instance settings, by the admin API's rules", async () => {
      const manager = await as(ctx(), `manager-${a}@example.com`, people.manager!.password);
      const reviewer = await as(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password);
      const id = (await ctx().request({ method: 'GET', url: `/admin/v1/keys?instance=${a}` })).json().find((k: { revokedAt: unknown }) => !k.revokedAt).id as string;
      const badRate = await manager.post(`/console/keys/${id}/rate-limit`, { instance: a, rateLimit: '0x10' });
      assert.equal(badRate.statusCode, 400);
      assert.match(badRate.body, new RegExp(`The rate limit of ${id} was not changed:</p><ul><li><a href="#rate-${id}">rateLimit</a>`));
      assert.match(badRate.body, new RegExp(`id="rate-${id}" name="rateLimit"[^>]*value="0x10"[^>]*aria-invalid="true"`));
      assert.equal((await reviewer.post(`/console/keys/${id}/rate-limit`, { instance: a, rateLimit: '5' })).statusCode, 403);
      assert.equal((await manager.post(`/console/keys/${id}/rate-limit`, { instance: a, rateLimit: '45' })).statusCode, 303);
      const limited = await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': keyA } });
      assert.match(String(limited.headers['ratelimit-policy']), /q=45;/);

      assert.equal((await reviewer.get(`/console/settings?instance=${a}`)).statusCode, 403);
      // The portal URL and the sender address are the operator's and owners' (test/security-roles.test.ts).
      const owner = await as(ctx(), `owner-${a}@example.com`, people.owner!.password);
      const bad = await owner.post('/console/settings', { instance: a, portalUrl: 'javascript:alert(1)', inviteTtlDays: '500', mailFromName: 'HR', mailFromAddress: '' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /<div class="error-summary" role="alert" id="settings-errors">.*<a href="#set-portal">portalUrl<\/a>.*<a href="#set-ttl">inviteTtlDays<\/a>/s);
      assert.match(
        bad.body,
        /id="set-ttl" name="inviteTtlDays" aria-describedby="set-ttl-hint set-ttl-error" aria-invalid="true" min="1" max="365" step="1" required value="500"><p class="field-error" id="set-ttl-error">/,
      );
      const saved = await owner.post('/console/settings', {
        instance: a,
        portalUrl: 'https://jobs.example.com/',
        inviteTtlDays: '30',
        mailFromName: 'Acme Hiring',
        mailFromAddress: 'hiring@example.com',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const instance = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === a);
      assert.deepEqual(
        [instance.portalUrl, instance.inviteTtlDays, instance.mailFromName, instance.mailFromAddress],
        ['https://jobs.example.com', 30, 'Acme Hiring', 'hiring@example.com'],
      );
      await owner.post('/console/settings', { instance: a, portalUrl: '', inviteTtlDays: '14', mailFromName: '', mailFromAddress: '' });
      const reminders = await owner.post('/console/settings', {
        instance: a,
        portalUrl: '',
        inviteTtlDays: '14',
        mailFromName: '',
        mailFromAddress: '',
        reminderDays: '',
        reportLinkDays: '30',
      });
      assert.equal(reminders.statusCode, 303, reminders.body);
      const settings = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === a);
      assert.deepEqual([settings.reminderDays, settings.reportLinkDays], [null, 30], 'reminders off, report links for 30 days');
      const refused = await owner.post('/console/settings', {
        instance: a,
        portalUrl: '',
        inviteTtlDays: '14',
        mailFromName: '',
        mailFromAddress: '',
        reminderDays: '99',
        reportLinkDays: '0',
      });
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /reminderDays/);
      assert.match(refused.body, /reportLinkDays/);
      const cleared = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === a);
      assert.deepEqual([cleared.portalUrl, cleared.inviteTtlDays, cleared.mailFromName], [null, 14, null]);
    });

    it("sets the branding and the logo on the settings page, by the admin API's rules, and shows the company", async () => {
      const manager = await as(ctx(), `manager-${a}@example.com`, people.manager!.password);
      const reviewer = await as(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password);
      const base = { instance: a, portalUrl: '', inviteTtlDays: '14', mailFromName: '', mailFromAddress: '', reminderDays: '2', reportLinkDays: '90' };
      const show = async () => (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === a);
      const form = await manager.get(`/console/settings?instance=${a}`);
      for (const field of ['displayName', 'accentColor', 'supportEmail', 'privacyUrl']) assert.match(form.body, new RegExp(`name="${field}"`));
      assert.match(form.body, /<form method="post" action="\/console\/settings\/logo" enctype="multipart\/form-data"/);
      assert.match(form.body, /<input type="file" id="set-logo" name="logo" accept="image\/png,image\/jpeg,image\/webp" aria-describedby="set-logo-hint" required>/);

      const saved = await manager.post('/console/settings', {
        ...base,
        displayName: '  Acme Console Ltd ',
        accentColor: '#1d6b57',
        supportEmail: 'jobs@acme.example',
        privacyUrl: 'https://acme.example/privacy',
      });
      assert.equal(saved.statusCode, 303, saved.body);
      const set = await show();
      assert.deepEqual([set.displayName, set.accentColor, set.supportEmail, set.privacyUrl], ['Acme Console Ltd', '#1D6B57', 'jobs@acme.example', 'https://acme.example/privacy']);
      const page = await manager.get(`/console/settings?instance=${a}`);
      assert.match(page.body, /<span class="instance-name"><span class="separator" aria-hidden="true">· <\/span>Acme Console Ltd<\/span>/, 'the header names the company');
      assert.match(page.body, /Candidates now see the company as <strong>Acme Console Ltd<\/strong>/);

      for (const [fields, message] of [
        [{ accentColor: '#FFD700' }, /#FFD700 has a contrast ratio of 1\.4:1 against white; AA needs 4\.5:1/],
        [{ accentColor: 'gold' }, /accentColor/],
        [{ displayName: 'x'.repeat(101) }, /displayName/],
        [{ supportEmail: 'nobody' }, /supportEmail/],
        [{ privacyUrl: 'http://acme.example/privacy' }, /<a href="#set-privacy">privacyUrl<\/a> must be an https:\/\/ address/],
      ] as [Record<string, string>, RegExp][]) {
        const refused = await manager.post('/console/settings', { ...base, displayName: 'Should Not Stick', ...fields });
        assert.equal(refused.statusCode, 400, JSON.stringify(fields));
        assert.match(refused.body, /Nothing was saved/);
        assert.match(refused.body, message, JSON.stringify(fields));
        const [name] = Object.keys(fields);
        assert.match(refused.body, new RegExp(`name="${name}"[^>]* aria-invalid="true"`), `${name} is marked beside itself`);
      }
      assert.deepEqual(await show(), set, 'a refused form changes nothing');

      // The logo, as a browser sends a file input: multipart/form-data.
      const upload = (bytes: Buffer, type: string, who = manager, filename = 'logo.png') => {
        const boundary = '----acBoundary7MA4YWxkTrZu0gW';
        const part = (headers: string, body: Buffer | string) => Buffer.concat([Buffer.from(`--${boundary}\r\n${headers}\r\n\r\n`), Buffer.from(body), Buffer.from('\r\n')]);
        const payload = Buffer.concat([
          part('Content-Disposition: form-data; name="_csrf"', who.csrf),
          part('Content-Disposition: form-data; name="instance"', a),
          part(`Content-Disposition: form-data; name="logo"; filename="${filename}"\r\nContent-Type: ${type}`, bytes),
          Buffer.from(`--${boundary}--\r\n`),
        ]);
        return ctx().request({
          method: 'POST',
          url: '/console/settings/logo',
          headers: { cookie: who.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload,
        });
      };
      assert.equal((await upload(TINY_PNG, 'image/png', reviewer)).statusCode, 403, 'a reviewer may not');
      for (const [bytes, type, status, message] of [
        [Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml', 415, /SVG logos are refused/],
        [Buffer.from('not an image at all'), 'image/png', 400, /bytes are not a PNG, JPEG or WebP image/],
        [Buffer.concat([TINY_PNG, Buffer.alloc(250 * 1024)]), 'image/png', 413, /The logo is 251 KB; the limit is 200 KB/],
        [Buffer.alloc(0), 'image/png', 400, /Choose a logo file/],
      ] as [Buffer, string, number, RegExp][]) {
        const refused = await upload(bytes, type);
        assert.equal(refused.statusCode, status, refused.body);
        assert.match(refused.body, message);
      }
      assert.equal((await show()).logoUrl, null, 'no logo yet');
      const uploaded = await upload(TINY_PNG, 'image/png');
      assert.equal(uploaded.statusCode, 303, uploaded.body);
      const withLogo = await show();
      assert.match(withLogo.logoUrl, /^\/brand\//);
      assert.ok(
        (await manager.get(`/console/settings?instance=${a}`)).body.includes(`<img class="logo-preview" src="${withLogo.logoUrl}" alt="The current logo of Acme Console Ltd">`),
      );
      assert.equal((await manager.post('/console/settings/logo/remove', { instance: a })).statusCode, 303);
      assert.equal((await show()).logoUrl, null);
      const audit = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=20' })).json() as { action: string }[];
      assert.ok(audit.some((e) => e.action === 'instance.logo.set') && audit.some((e) => e.action === 'instance.logo.remove'));

      // An empty field clears the setting: the company is the instance's name again.
      assert.equal((await manager.post('/console/settings', { ...base, displayName: '', accentColor: '', supportEmail: '', privacyUrl: '' })).statusCode, 303);
      const cleared = await show();
      assert.deepEqual([cleared.displayName, cleared.accentColor, cleared.supportEmail, cleared.privacyUrl, cleared.company], [null, null, null, null, a]);
    });

    it('manages webhook endpoints (secret shown once), and the overview tells of a disabled one', async () => {
      const manager = await as(ctx(), `manager-${a}@example.com`, people.manager!.password);
      const reviewer = await as(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password);
      assert.equal((await reviewer.get(`/console/webhooks?instance=${a}`)).statusCode, 403);
      const refused = await manager.post('/console/webhooks', [
        ['instance', a],
        ['url', 'gopher://x'],
        ['events', 'score.finalized'],
      ]);
      assert.equal(refused.statusCode, 400);
      assert.match(refused.body, /<strong>No endpoint yet\.<\/strong> Add the address of a receiver above/, 'the empty list says what to do');
      // The error at the top links to the field, the field says it beside itself, and what was typed and ticked is kept.
      assert.match(refused.body, /<div class="error-summary" role="alert" id="hook-errors">.*<a href="#hook-url">url<\/a>/s);
      assert.match(
        refused.body,
        /id="hook-url" name="url" required maxlength="2000" placeholder="[^"]+" value="gopher:\/\/x" aria-invalid="true" aria-describedby="hook-url-error"/,
      );
      assert.match(refused.body, /<p class="field-error" id="hook-url-error">[^<]+<\/p>/);
      assert.match(refused.body, /value="score.finalized" checked/);
      const made = await manager.post('/console/webhooks', [
        ['instance', a],
        ['url', 'https://ats.example.com/hooks'],
        ['events', 'score.finalized'],
        ['events', 'assessment.completed'],
      ]);
      assert.equal(made.statusCode, 200, made.body);
      assert.match(made.body, /<code class="secret">whsec_/);
      const id = /Endpoint (ep_[0-9a-f]{16})/.exec(made.body)![1]!;
      const listed = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${a}/webhooks` })).json();
      assert.deepEqual(listed.find((e: { id: string }) => e.id === id).events, ['score.finalized', 'assessment.completed']);
      const listedPage = (await manager.get(`/console/webhooks?instance=${a}`)).body;
      assert.doesNotMatch(listedPage, /whsec_/, 'the secret is shown once');
      assert.doesNotMatch(listedPage, /No endpoint yet/);
      assert.match(listedPage, /Nothing sent yet: events go out as they happen/);
      assert.equal((await manager.post(`/console/webhooks/${id}/disable`, { instance: a })).statusCode, 303);
      assert.match((await manager.get(`/console/?instance=${a}`)).body, /1 webhook endpoint is disabled/);
      assert.equal((await manager.post(`/console/webhooks/${id}/enable`, { instance: a })).statusCode, 303);
      const rotated = await manager.post(`/console/webhooks/${id}/rotate-secret`, { instance: a });
      assert.match(rotated.body, /keeps signing for 24 hours/);
    });

    it('ends sessions after 30 idle minutes by the clock', async () => {
      const owner = await as(ctx(), `owner-${a}@example.com`, people.owner!.password);
      time.offset += 29 * 60_000;
      assert.equal((await owner.get('/console/')).statusCode, 200, 'activity keeps it alive');
      time.offset += 31 * 60_000;
      assert.equal((await owner.get('/console/')).statusCode, 303, 'idle for 31 minutes');
    });

    it('limits sign-in attempts per account, right password or not, with no hint of which accounts exist', async () => {
      const email = `limited-${a}@example.com`;
      const { password } = await user(ctx(), email, 'reviewer', [a]);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await signIn(ctx(), email, 'wrong password number ' + i)).statusCode);
      assert.deepEqual(statuses, Array(10).fill(401));
      const blocked = await signIn(ctx(), email, password);
      assert.equal(blocked.statusCode, 429);
      assert.match(String(blocked.headers['retry-after']), /^\d+$/);
      const unknown: number[] = [];
      for (let i = 0; i < 11; i++) unknown.push((await signIn(ctx(), `ghost-${a}@example.com`, 'whatever password')).statusCode);
      assert.equal(unknown.at(-1), 429, 'an unknown account is limited the same way');
    });

    it('disabling a user ends their session; no password or session value ever reaches the log', async () => {
      const reviewer = await as(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password);
      assert.equal((await ctx().request({ method: 'POST', url: `/admin/v1/users/${people.reviewer!.id}/disable` })).statusCode, 200);
      assert.equal((await reviewer.get('/console/')).statusCode, 303);
      assert.equal((await signIn(ctx(), `reviewer-${a}@example.com`, people.reviewer!.password)).statusCode, 401);
      const log = logLines.join('');
      assert.ok(log.length > 0, 'the log was captured');
      for (const secret of [people.owner!.password, people.manager!.password, people.reviewer!.password, reviewer.cookie.split('=')[1]!]) {
        assert.ok(!log.includes(secret), 'a secret reached the log');
      }
    });
  },
  { now: clock, logStream },
);

describeEachStore('console: content, invitations and users', (ctx) => {
  let a: string;
  let owner: Awaited<ReturnType<typeof as>>;
  let reviewer: Awaited<ReturnType<typeof as>>;

  it('publishes content from the browser form with every problem at its line, and previews it', async () => {
    a = await ctx().instance('cc');
    await ctx().publish(a, sampleAssessment('alpha', { name: 'Alpha' }));
    const o = await user(ctx(), `owner-${a}@example.com`, 'owner');
    const r = await user(ctx(), `reviewer-${a}@example.com`, 'reviewer', [a]);
    owner = await as(ctx(), `owner-${a}@example.com`, o.password);
    reviewer = await as(ctx(), `reviewer-${a}@example.com`, r.password);

    const broken = 'id: beta\nname: Beta\ndescription: x\ndurationMinutes: -5\npassScore: 70\nlowPassScore: 50\ncategories: []\nquestions: []\n';
    const refused = await owner.post('/console/assessments', { instance: a, source: broken });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Line 4[^<]*:<\/strong> <code>durationMinutes<\/code>/);
    assert.match(refused.body, /nothing was published/);
    assert.match(refused.body, /durationMinutes: -5/, 'the document stays in the box to be fixed');
    assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/instances/${a}/assessments` })).json().length, 1);

    const published = await owner.post('/console/assessments', { instance: a, source: sampleAssessment('beta', { name: 'Beta <b>' }) });
    assert.equal(published.statusCode, 200, published.body);
    assert.match(published.body, /Published beta \(version 1\)/);
    assert.match(published.body, /Beta &lt;b&gt;/);
    assert.equal((await reviewer.post('/console/assessments', { instance: a, source: sampleAssessment('gamma') })).statusCode, 403);

    const preview = await reviewer.get(`/console/assessments/beta/preview?instance=${a}`);
    assert.equal(preview.statusCode, 200);
    assert.match(preview.body, /What is 2 \+ 2\?/);
    assert.match(preview.body, /id="p1-o0"/);
    const scores = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${a}/assessments` })).json();
    assert.ok(scores.length === 2);
    const attempts = await ctx().db.query(`SELECT count(*)::int AS n FROM attempts t JOIN assessments s ON s.id = t.assessment_id WHERE s.slug = 'beta'`);
    assert.equal((attempts.rows[0] as { n: number }).n, 0, 'a preview makes no attempt');
    assert.equal((await reviewer.get(`/console/assessments/nope/preview?instance=${a}`)).statusCode, 404);
  });

  it('invites by the same rules as the API, and resends with the relay answer', async () => {
    const bad = await owner.post('/console/invitations', { instance: a, email: 'not-an-email', firstName: 'A', lastName: 'B' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Nothing was sent/);
    // The error is in the summary at the top, linked to its field, and beside the field, which says it is invalid.
    assert.match(bad.body, /<div class="error-summary" role="alert" id="invite-errors">.*<a href="#inv-email">email<\/a>/s);
    assert.match(bad.body, /id="inv-email" name="email" aria-invalid="true" aria-describedby="inv-email-error"/);
    assert.match(bad.body, /<p class="field-error" id="inv-email-error">[^<]+<\/p>/);
    const unknown = await owner.post('/console/invitations', { instance: a, email: 'x@example.com', firstName: 'X', lastName: 'Y', assessments: 'nope' });
    assert.equal(unknown.statusCode, 400);
    assert.match(unknown.body, /not a published assessment/);
    const ok = await owner.post('/console/invitations', [
      ['instance', a],
      ['email', 'ines@example.com'],
      ['firstName', 'Inés'],
      ['lastName', 'Ruiz'],
      ['assessments', 'alpha'],
      ['assessments', 'beta'],
      ['sendInvite', 'true'],
    ]);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.match(ok.body, /Invited ines@example.com: the invitation e-mail is on its way\./);
    const candidateId = /\/console\/candidates\/([0-9a-f-]{36})/.exec(ok.body)![1]!;
    const key = await ctx().key([a]);
    const records = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json();
    assert.deepEqual(records.map((x: { assessmentId: string }) => x.assessmentId).sort(), ['alpha', 'beta']);
    const list = await owner.get(`/console/invitations?instance=${a}`);
    assert.match(list.body, /ines@example.com/);
    const deliveryId = /\/console\/invitations\/(\d+)\/resend/.exec(list.body)![1]!;
    assert.equal((await reviewer.post(`/console/invitations/${deliveryId}/resend`, { instance: a })).statusCode, 403);
    const resent = await owner.post(`/console/invitations/${deliveryId}/resend`, { instance: a });
    assert.equal(resent.statusCode, 200);
    assert.match(resent.body, /Sent again to ines@example.com: sent/);
    // The e-mails list: all, sent or failed, 50 a page with the total; a failed one listed under Failed only.
    await ctx().db.query(
      `INSERT INTO deliveries (instance_id, candidate_id, invite_link_id, recipient, status, response, duration_ms, attempted_at)
       SELECT instance_id, candidate_id, invite_link_id, 'bounce-' || n || '@example.com', 'FAILED', '550 no such mailbox', 5, now()
         FROM deliveries, generate_series(1, 51) n WHERE id = $1`,
      [deliveryId],
    );
    const all = await owner.get(`/console/invitations?instance=${a}`);
    assert.match(all.body, /E-mails 1–50 of 53/);
    assert.match(all.body, /<a href="[^"]*page=2#mail-heading" rel="next">Next<\/a>/);
    const failed = await owner.get(`/console/invitations?instance=${a}&mail=failed&page=2`);
    assert.match(failed.body, /E-mails 51–51 of 51/);
    assert.doesNotMatch(failed.body, /ines@example\.com/);
    assert.match(failed.body, /<a class="button" href="[^"]*mail=failed#mail-heading" aria-current="page">Failed<\/a>/);
    const sentOnly = await owner.get(`/console/invitations?instance=${a}&mail=sent`);
    assert.match(sentOnly.body, /E-mails 1–2 of 2/);
    for (const bad of ['mail=bounced', 'page=0', 'page=abc']) assert.equal((await owner.get(`/console/invitations?instance=${a}&${bad}`)).statusCode, 400, bad);
  });

  it('lets owners add users with a one-time password, disable and reset them; nobody else', async () => {
    assert.equal((await reviewer.get('/console/users')).statusCode, 403);
    assert.equal((await reviewer.post('/console/users', { email: 'x@example.com', role: 'owner' })).statusCode, 403);
    const made = await owner.post('/console/users', { email: `new-${a}@example.com`, role: 'reviewer', instances: a });
    assert.equal(made.statusCode, 200, made.body);
    const password = /<code class="secret">([^<]+)</.exec(made.body)![1]!;
    const newcomer = await as(ctx(), `new-${a}@example.com`, password);
    assert.equal((await newcomer.get(`/console/candidates?instance=${a}`)).statusCode, 200);
    assert.equal((await owner.post('/console/users', { email: `new-${a}@example.com`, role: 'reviewer', instances: a })).statusCode, 409);
    const bad = await owner.post('/console/users', { email: 'bad', role: 'manager', instances: a });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /<div class="error-summary" role="alert" id="user-errors">.*<a href="#user-email">email<\/a> is not an e-mail address/s);
    assert.match(bad.body, /id="user-email" name="email" required maxlength="254" autocomplete="off" value="bad" aria-invalid="true" aria-describedby="user-email-error"/);
    assert.match(bad.body, /<option value="manager" selected>/);
    assert.match(bad.body, new RegExp(`value="${a}" checked`));
    const id = (await ctx().request({ method: 'GET', url: '/admin/v1/users' })).json().find((u: { email: string }) => u.email === `new-${a}@example.com`).id;
    const reset = await owner.post(`/console/users/${id}/reset-password`);
    assert.equal(reset.statusCode, 200);
    assert.equal((await newcomer.get('/console/')).statusCode, 303, 'a reset ends the sessions');
    const audit = (await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=50' })).json() as { actor: string; action: string }[];
    for (const action of ['user.create', 'user.reset-password', 'assessment.import', 'invitation.create', 'delivery.resend']) {
      assert.ok(
        audit.some((e) => e.actor === `user:owner-${a}@example.com` && e.action === action),
        action,
      );
    }
  });
});
