// The portal and the e-mails in the candidate's language: chosen by the invitation's language,
// else the browser's Accept-Language, else the instance's default (and the footer's switcher
// over all of them); the instance default's validation; and the rough edges a new candidate met
// (submitting with gaps asks first, chips marked by more than colour, "Select all that apply"
// once, accuracy to one decimal, a truthful invalid-link page).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { RenderedMessage } from '../src/modules/mail/invitation-message.js';
import type { Mailer } from '../src/modules/mail/mailer.js';
import { describeEachStore, sampleAssessment, type TestContext } from './harness.js';
import { runCli } from './support/cli.js';
import { candidate as portalCandidate, invite } from './support/portal.js';

const FORM = 'application/x-www-form-urlencoded';
const sent: RenderedMessage[] = [];
const mailer: Mailer = {
  description: 'kept in memory by the test',
  async send(_from, message) {
    sent.push(message);
    return { status: 'SENT', messageId: `<${sent.length}@test>`, detail: 'kept' };
  },
  close() {},
};

/** A candidate invited (with `extra` on the invite) and signed in; requests carry `headers` too. */
const candidate = (ctx: TestContext, t: { instance: string; key: string }, email: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  portalCandidate(ctx, t, { email, firstName: 'Lena', lastName: 'Vogel', ...extra }, ['alpha'], { headers });

const htmlLang = (body: string) => /<html lang="([^"]+)" dir="([^"]+)">/.exec(body)?.slice(1);

describeEachStore(
  'the portal and e-mails in the candidate language',
  (ctx) => {
    async function tenant(settings: Record<string, unknown> = {}) {
      const instance = await ctx().instance('lang');
      if (Object.keys(settings).length > 0) {
        const changed = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: settings });
        assert.equal(changed.statusCode, 200, changed.body);
      }
      await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha', typing: true }));
      return { instance, key: await ctx().key([instance]) };
    }

    it("speaks German on every page when the invite says language: 'de' (de-AT too), whatever the browser says", async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'lena@example.com', { language: 'de-AT' }, { 'accept-language': 'es, en;q=0.5' });
      const dashboard = await c.get('/portal/');
      assert.deepEqual(htmlLang(dashboard.body), ['de', 'ltr']);
      assert.match(dashboard.body, /<h1>Guten Tag, Lena<\/h1>/);
      assert.match(dashboard.body, /20 Minuten · <span class="status status-invited">Nicht begonnen<\/span>/);
      assert.match(dashboard.body, /Zum Inhalt springen/);
      assert.match(c.intro.body, /Zeitlimit: <strong>20 Minuten<\/strong>/);
      assert.match(c.intro.body, /5 Fragen, darunter ein Tipptest/);
      assert.match(c.intro.body, />Test beginnen<\/button>/);
      assert.equal((await c.form('/portal/a/alpha/start')).statusCode, 303);
      const q1 = await c.get('/portal/a/alpha?q=1');
      assert.match(q1.body, /<h1 class="question-number">Frage 1 von 5<\/h1>/);
      assert.match(q1.body, /Wählen Sie eine Antwort/);
      assert.match(q1.body, /Verbleibende Zeit: <span id="timer-value">20 Min\.<\/span>/);
      assert.match(q1.body, />Speichern und weiter<\/button>/);
      assert.match(q1.body, /data-messages="[^"]*Gespeichert/, "the script's messages, in German");
      const q2 = await c.get('/portal/a/alpha?q=2');
      assert.match(q2.body, /Wählen Sie alle zutreffenden Antworten/);
      const review = await c.get('/portal/a/alpha?q=review');
      assert.match(review.body, /Sie haben 0 von 5 beantwortet\. Noch nicht beantwortet: <a href="\/portal\/a\/alpha\?q=1">Frage 1<\/a>, /);
      assert.match(review.body, /<a href="\/portal\/a\/alpha\?q=5">Tipptest<\/a>/);
      const confirm = await c.form('/portal/a/alpha/submit', { from: 'review' });
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /Sie haben 5 Fragen nicht beantwortet\. Möchten Sie trotzdem abgeben\?/);
      assert.match(confirm.body, />Trotzdem abgeben<\/button>/);
      assert.equal((await c.form('/portal/a/alpha/submit')).statusCode, 303);
      assert.match((await c.get('/portal/a/alpha')).body, /Alpha: abgeschlossen/);
      assert.match((await c.get('/portal/')).body, /Sie haben alle Tests abgeschlossen/);
    });

    it('speaks Spanish from Accept-Language when the invite names no language (or one without a catalogue)', async () => {
      const t = await tenant();
      for (const [email, extra] of [
        ['ana@example.com', {}],
        ['joao@example.com', { language: 'pt-BR' }],
      ] as const) {
        const c = await candidate(ctx(), t, email, extra, { 'accept-language': 'fr-CH, fr;q=0.9, es;q=0.8, de;q=0.7' });
        assert.deepEqual(htmlLang((await c.get('/portal/')).body), ['es', 'ltr'], email);
        assert.match((await c.get('/portal/')).body, /<h1>Hola, Lena<\/h1>/);
        assert.match(c.intro.body, /Tiempo límite: <strong>20 minutos<\/strong>/);
        assert.match(c.intro.body, />Comenzar la evaluación<\/button>/);
      }
      // Pages without a session follow the browser too.
      const landing = await ctx().request({ method: 'GET', url: '/portal/', headers: { 'accept-language': 'es-MX' } });
      assert.match(landing.body, /Abriendo sus evaluaciones/);
      assert.deepEqual(htmlLang(landing.body), ['es', 'ltr']);
    });

    it("falls back to the instance's default language, else English", async () => {
      const german = await tenant({ defaultLanguage: 'de' });
      const c = await candidate(ctx(), german, 'default@example.com', {}, { 'accept-language': 'pt-BR, pt;q=0.9' });
      assert.deepEqual(htmlLang((await c.get('/portal/')).body), ['de', 'ltr']);
      const plain = await tenant();
      const d = await candidate(ctx(), plain, 'plain@example.com', { language: 'pt-BR' });
      assert.deepEqual(htmlLang((await d.get('/portal/')).body), ['en', 'ltr']);
      assert.match((await d.get('/portal/')).body, /<h1>Hello Lena<\/h1>/);
    });

    it("lets the candidate switch languages in the footer, back to the same page; refuses other languages and other sites' addresses", async () => {
      const t = await tenant();
      const c = await candidate(ctx(), t, 'switch@example.com', { language: 'de' });
      assert.match((await c.get('/portal/')).body, /<button type="submit" class="lang-choice" name="lang" value="es" lang="es">Español<\/button>/);
      const post = (fields: Record<string, string>) =>
        ctx().request({ method: 'POST', url: '/portal/language', headers: { cookie: c.cookie, 'content-type': FORM }, payload: new URLSearchParams(fields).toString() });
      const switched = await post({ lang: 'es', back: '/portal/a/alpha' });
      assert.equal(switched.statusCode, 303);
      assert.equal(switched.headers.location, '/portal/a/alpha');
      const chosen = String(switched.headers['set-cookie']);
      assert.match(chosen, /^ac_lang=es; Path=\/portal; HttpOnly; SameSite=Strict/);
      const page = await c.get('/portal/a/alpha', { cookie: `${c.cookie}; ${chosen.split(';')[0]}` });
      assert.deepEqual(htmlLang(page.body), ['es', 'ltr'], "the candidate's own choice comes first");
      for (const back of ['//evil.example/portal/', 'https://evil.example/', '/portal/\\\\evil.example', '/console/']) {
        assert.equal((await post({ lang: 'en', back })).headers.location, '/portal/', back);
      }
      for (const lang of ['fr', 'EN', '', 'de-AT']) {
        const refused = await post({ lang, back: '/portal/' });
        assert.equal(refused.statusCode, 400, lang);
        assert.equal(refused.headers['set-cookie'], undefined, 'nothing is kept');
      }
      const crossSite = await ctx().request({ method: 'POST', url: '/portal/language', headers: { origin: 'https://evil.example', 'content-type': FORM }, payload: 'lang=es' });
      assert.equal(crossSite.statusCode, 403);
    });

    it("validates the instance's default language: only languages with a catalogue, and a refusal changes nothing", async () => {
      const instance = await ctx().instance('deflang');
      const created = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: `${instance}-x`, defaultLanguage: 'es' } });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().defaultLanguage, 'es');
      assert.equal(
        (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === instance).defaultLanguage,
        'en',
        'English by default',
      );
      for (const bad of ['fr', 'de-AT', 'DE', '', 7, null]) {
        const refused = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { defaultLanguage: bad } });
        assert.equal(refused.statusCode, 400, String(bad));
        if (typeof bad === 'string') assert.match(refused.body, /must be a language with a catalogue: en, de, es/);
        const made = await ctx().request({ method: 'POST', url: '/admin/v1/instances', payload: { name: `${instance}-bad`, defaultLanguage: bad } });
        assert.equal(made.statusCode, 400);
      }
      const list = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json() as { name: string; defaultLanguage: string }[];
      assert.equal(list.find((i) => i.name === instance)!.defaultLanguage, 'en', 'unchanged');
      assert.equal(
        list.some((i) => i.name === `${instance}-bad`),
        false,
        'not made',
      );
      const changed = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { defaultLanguage: 'de' } });
      assert.equal(changed.json().defaultLanguage, 'de');
    });

    it("writes the e-mail in the invitation's language, else the instance default; the reminder too", async () => {
      const t = await tenant({ mailFromName: 'Beispiel GmbH' });
      const before = sent.length;
      const invited = await invite(ctx(), t, { email: 'mail.de@example.com', firstName: 'Jonas', lastName: 'Brandt', language: 'de' }, ['alpha'], { query: '?sendInvite=true' });
      assert.equal(invited.invitationStatus, 'SENT', invited.response.body);
      const mail = sent[before]!;
      assert.equal(mail.subject, 'Ihre Einladung von Beispiel GmbH: Alpha');
      assert.match(mail.text, /^Guten Tag Jonas,$/m);
      assert.match(mail.text, /Beispiel GmbH lädt Sie zu folgendem Test ein:/);
      assert.match(mail.text, /^ {2}- Alpha \(20 Minuten\)$/m);
      assert.match(mail.text, /gültig bis zum \d{1,2}\. \S+ \d{4} um \d{2}:\d{2} \(UTC\)/);
      assert.match(mail.html, /<html lang="de">/);
      assert.match(mail.html, />Test beginnen<\/a>/);

      const spanish = await tenant({ defaultLanguage: 'es' });
      await invite(ctx(), spanish, { email: 'mail.es@example.com', firstName: 'Ana', lastName: 'Ruiz' }, ['alpha'], { query: '?sendInvite=true' });
      assert.match(sent.at(-1)!.text, /^Hola, Ana:$/m, "the instance's default without a language on the invite");
    });
  },
  { mailer },
);

describeEachStore('rough edges a new candidate met', (ctx) => {
  async function tenant() {
    const instance = await ctx().instance('edge');
    await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha', typing: true }));
    return { instance, key: await ctx().key([instance]) };
  }

  it('asks before submitting with gaps, naming how many; submits at once without gaps', async () => {
    const t = await tenant();
    const c = await candidate(ctx(), t, 'gaps@example.com');
    await c.form('/portal/a/alpha/start');
    assert.equal((await c.save('q1', 1)).statusCode, 204);
    assert.equal((await c.save('q3', '1250')).statusCode, 204);
    const review = await c.get('/portal/a/alpha?q=review');
    assert.match(review.body, /<input type="hidden" name="from" value="review">/);
    const asked = await c.form('/portal/a/alpha/submit', { from: 'review' });
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /<h1>Submit with unanswered questions\?<\/h1>/);
    assert.match(asked.body, /You have 3 unanswered questions\. Submit anyway\?/);
    assert.match(
      asked.body,
      /<a href="\/portal\/a\/alpha\?q=2">question 2<\/a>, <a href="\/portal\/a\/alpha\?q=4">question 4<\/a>, <a href="\/portal\/a\/alpha\?q=5">typing test<\/a>/,
    );
    assert.match(asked.body, /<button type="submit" class="primary" id="submit">Submit anyway<\/button>/);
    assert.match(asked.body, /<a class="button" href="\/portal\/a\/alpha\?q=review">Go back to the review<\/a>/);
    const state = await ctx().db.query<{ finished: Date | null }>(
      'SELECT t.finished_at AS finished FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1',
      [c.candidateId],
    );
    assert.equal(state.rows[0]!.finished, null, 'asking submitted nothing');
    assert.equal((await c.form('/portal/a/alpha/submit')).statusCode, 303, 'the confirm page submits');
    assert.match((await c.get('/portal/a/alpha')).body, /Alpha: completed/);

    const whole = await candidate(ctx(), t, 'nogaps@example.com');
    await whole.form('/portal/a/alpha/start');
    for (const [q, v] of [
      ['q1', 1],
      ['q2', [0, 2]],
      ['q3', '1250'],
      ['q4', 'I listened.'],
    ] as const)
      assert.equal((await whole.save(q, v)).statusCode, 204);
    await ctx().request({ method: 'POST', url: '/portal/api/a/alpha/typing/start', headers: { cookie: whole.cookie, 'x-csrf-token': whole.csrf }, payload: {} });
    await ctx().request({
      method: 'POST',
      url: '/portal/api/a/alpha/typing',
      headers: { cookie: whole.cookie, 'x-csrf-token': whole.csrf },
      payload: { typed: 'x', intervals: [] },
    });
    assert.equal((await whole.form('/portal/a/alpha/submit', { from: 'review' })).statusCode, 303, 'nothing open: no question asked');
  });

  it('marks answered and open chips by more than colour, says "Select all that apply" once, and shows accuracy to one decimal', async () => {
    const t = await tenant();
    const c = await candidate(ctx(), t, 'chips@example.com');
    await c.form('/portal/a/alpha/start');
    await c.save('q1', 1);
    const q2 = await c.get('/portal/a/alpha?q=2');
    assert.match(q2.body, /class="step answered"[^>]*><span class="mark" aria-hidden="true">✓<\/span>1<span class="visually-hidden"> \(answered\)<\/span>/);
    assert.match(q2.body, /class="step open"[^>]*>3<span class="visually-hidden"> \(not answered\)<\/span>/);
    assert.match(q2.body, /class="step open"[^>]*>Typing<span class="visually-hidden"> \(not answered\)<\/span>/);
    assert.equal(q2.body.match(/Select all that apply/g)?.length, 1);

    // One wrong character in the passage: 99.x %, not a rounded 100 %.
    const typing = await c.get('/portal/a/alpha?q=5');
    const passage = /<blockquote class="passage"[^>]*>([\s\S]*?)<\/blockquote>/
      .exec(typing.body)![1]!
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
    const headers = { cookie: c.cookie, 'x-csrf-token': c.csrf };
    await ctx().request({ method: 'POST', url: '/portal/api/a/alpha/typing/start', headers, payload: {} });
    const typed = `${passage.slice(0, 10)}${passage[10] === 'x' ? 'y' : 'x'}${passage.slice(11)}`;
    const result = await ctx().request({
      method: 'POST',
      url: '/portal/api/a/alpha/typing',
      headers,
      payload: { typed, intervals: Array.from({ length: typed.length - 1 }, () => 150) },
    });
    assert.equal(result.statusCode, 200, result.body);
    const accuracy = result.json().accuracy as number;
    assert.ok(accuracy < 100 && accuracy > 95, String(accuracy));
    const done = await c.get('/portal/a/alpha?q=5');
    const shown = /words per minute, ([\d.]+)%/.exec(done.body)?.[1];
    assert.equal(shown, (Math.floor(accuracy * 10) / 10).toFixed(1), 'one decimal, never rounded up');
    assert.doesNotMatch(done.body, /100(\.0)?%/);
  });

  it('says on the invalid-link page what is true and what to do, and answers unknown portal pages with a page', async () => {
    const page = await ctx().request({ method: 'GET', url: '/portal/link-invalid' });
    assert.equal(page.statusCode, 404);
    assert.match(page.body, /This link does not work/);
    assert.match(page.body, /does not cancel earlier links: each link keeps working until it expires or until every assessment it opens is done/);
    assert.match(page.body, /most recent invitation e-mail/);
    assert.doesNotMatch(page.body, /was replaced/);
    const german = await ctx().request({ method: 'GET', url: '/portal/link-invalid', headers: { 'accept-language': 'de-DE,de;q=0.9' } });
    assert.match(german.body, /Eine neue Einladung macht frühere Links nicht ungültig/);
    const missing = await ctx().request({ method: 'GET', url: '/portal/nothing-here', headers: { 'accept-language': 'es' } });
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
    assert.match(missing.body, /Página no encontrada/);
    const api = await ctx().request({ method: 'GET', url: '/portal/api/nothing-here' });
    assert.equal(api.statusCode, 404);
    assert.match(String(api.headers['content-type']), /^application\/problem\+json/);
  });
});

describeEachStore('the CLI sets the default language', (ctx) => {
  let url: string;
  before(async () => {
    url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
  });
  const cli = (args: string[]) => runCli(url, args);

  it('sets --default-language, and refuses a language without a catalogue before asking the server', async () => {
    const instance = await ctx().instance('clilang');
    const set = await cli(['instance', 'update', instance, '--default-language', 'de', '--json']);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(JSON.parse(set.stdout).defaultLanguage, 'de');
    for (const bad of ['fr', 'de-AT', '']) {
      const refused = await cli(['instance', 'update', instance, '--default-language', bad]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /--default-language must be a language with a catalogue: en, de, es/);
    }
    const created = await cli(['instance', 'create', `${instance}-es`, '--default-language', 'es', '--json']);
    assert.equal(JSON.parse(created.stdout).defaultLanguage, 'es');
    const listed = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json() as { name: string; defaultLanguage: string }[];
    assert.equal(listed.find((i) => i.name === instance)!.defaultLanguage, 'de', 'the refused ones changed nothing');
  });
});

describeEachStore(
  'rate-limited portal pages in the candidate language',
  (ctx) => {
    it('turns a guessing address away with a page in its language that says how long to wait', async () => {
      const headers = { cookie: `ac_session=${'A'.repeat(43)}`, 'accept-language': 'de' };
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await ctx().request({ method: 'GET', url: '/portal/', remoteAddress: '203.0.113.9', headers })).statusCode);
      const refused = await ctx().request({ method: 'GET', url: '/portal/', remoteAddress: '203.0.113.9', headers });
      assert.equal(refused.statusCode, 429, String(statuses));
      assert.match(String(refused.headers['content-type']), /^text\/html/);
      const wait = Number(refused.headers['retry-after']);
      assert.ok(wait > 0);
      assert.match(refused.body, /<h1>Bitte warten Sie einen Moment<\/h1>/);
      assert.match(refused.body, new RegExp(`Bitte warten Sie ${wait} Sekunden? und versuchen Sie es dann erneut`));
    });
  },
  { authFailuresPerMinute: 2 },
);
