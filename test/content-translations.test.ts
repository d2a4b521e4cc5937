// Content in the candidate's language: the importer's checks of a translations block (languages,
// question ids, list lengths) with their lines, the texts a translation leaves out listed as
// warnings (import, console import, editor check), the portal showing the content in the
// candidate's language or English with a notice, the language kept for the whole attempt, scoring
// the same in every language, and the language shown in GET /v1/candidates/{id} and the report.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { runCommand } from '../src/domain/command.js';
import { startAttempt } from '../src/modules/attempts/repository.js';
import { describeEachStore, type TestContext } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate as portalCandidate } from './support/portal.js';

/** An assessment in English, German and Spanish: choice questions, a Likert list scale, a ranking and a practice question. */
const TRANSLATED = `id: tr
name: Office check
description: Numbers and habits at work.
instructions: Answer every question. You have {minutes} minutes.
durationMinutes: 10
passScore: 60
lowPassScore: 40
practice:
  type: single-choice
  prompt: What is 1 + 1?
  options:
    - text: "2"
      correct: true
    - text: "3"
  explanation: One and one make two.
categories:
  - id: numbers
    name: Numbers
  - id: habits
    name: Habits
questions:
  - id: q1
    category: numbers
    type: single-choice
    prompt: Which colour is the sky on a clear day?
    options:
      - text: green
      - text: blue
        correct: true
      - text: red
  - id: q2
    category: numbers
    type: multiple-choice
    prompt: Which of these are fruits?
    options:
      - text: apple
        correct: true
      - text: carrot
      - text: pear
        correct: true
  - id: q3
    category: habits
    type: likert
    prompt: I plan my week ahead.
    scale: [Very inaccurate, Moderately inaccurate, Neither accurate nor inaccurate, Moderately accurate, Very accurate]
  - id: q4
    category: habits
    type: ranking
    prompt: Order the first steps with an angry customer.
    options:
      - { id: solve, text: Solve the problem }
      - { id: listen, text: Listen }
      - { id: thank, text: Thank them }
    key: [listen, solve, thank]
translations:
  de:
    name: Büro-Check
    description: Zahlen und Gewohnheiten bei der Arbeit.
    instructions: Beantworten Sie jede Frage. Sie haben {minutes} Minuten.
    categories: { numbers: Zahlen, habits: Gewohnheiten }
    scaleLabels:
      Very inaccurate: Trifft überhaupt nicht zu
      Moderately inaccurate: Trifft eher nicht zu
      Neither accurate nor inaccurate: Weder noch
      Moderately accurate: Trifft eher zu
      Very accurate: Trifft voll und ganz zu
    practice:
      prompt: Was ist 1 + 1?
      options: ["2", "3"]
      explanation: Eins und eins ergibt zwei.
    questions:
      q1: { prompt: Welche Farbe hat der Himmel an einem klaren Tag?, options: [grün, blau, rot] }
      q2: { prompt: Welche davon sind Obst?, options: [Apfel, Karotte, Birne] }
      q3: { prompt: Ich plane meine Woche im Voraus. }
      q4: { prompt: Ordnen Sie die ersten Schritte bei einem verärgerten Kunden., options: [Das Problem lösen, Zuhören, Danken] }
  es:
    name: Control de oficina
    description: Números y hábitos en el trabajo.
    instructions: Responda a cada pregunta. Dispone de {minutes} minutos.
    categories: { numbers: Números, habits: Hábitos }
    scaleLabels:
      Very inaccurate: Me describe muy mal
      Moderately inaccurate: Me describe bastante mal
      Neither accurate nor inaccurate: Ni bien ni mal
      Moderately accurate: Me describe bastante bien
      Very accurate: Me describe muy bien
    practice:
      prompt: ¿Cuánto es 1 + 1?
      options: ["2", "3"]
      explanation: Uno más uno son dos.
    questions:
      q1: { prompt: ¿De qué color es el cielo en un día despejado?, options: [verde, azul, rojo] }
      q2: { prompt: ¿Cuáles de estas son frutas?, options: [manzana, zanahoria, pera] }
      q3: { prompt: Planifico mi semana con antelación. }
      q4: { prompt: Ordene los primeros pasos con un cliente enfadado., options: [Resolver el problema, Escuchar, Dar las gracias] }
`;

/** The same assessment (another id) with a German translation that leaves texts out, and no Spanish one. */
const PARTIAL = TRANSLATED.slice(0, TRANSLATED.indexOf('translations:')).replace('id: tr\n', 'id: partial\n').concat(`translations:
  de:
    name: Büro-Check
    questions:
      q1: { prompt: Welche Farbe hat der Himmel an einem klaren Tag?, options: [grün, blau, rot] }
      q4: { options: [Das Problem lösen, Zuhören, Danken] }
`);

const lineOf = (source: string, text: string) => source.split('\n').findIndex((l) => l.includes(text)) + 1;

/** A candidate invited to `assessment` (with `extra` on the invite) and signed in; requests carry `headers`. */
const candidate = (ctx: TestContext, t: { instance: string; key: string }, assessment: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  portalCandidate(ctx, t, { email: `c${Math.random().toString(36).slice(2, 10)}@example.com`, firstName: 'Lena', lastName: 'Vogel', ...extra }, [assessment], { headers });

/** The text of a page without its markup, spaces collapsed. */
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

describeEachStore('content in the candidate language', (ctx) => {
  let t: { instance: string; key: string };

  before(async () => {
    const instance = await ctx().instance('tr');
    const published = await ctx().publish(instance, TRANSLATED);
    assert.equal(published.statusCode, 201, published.body);
    assert.deepEqual(published.json(), { id: 'tr', instance, version: 1, outcome: 'created' }, 'complete translations: no warnings');
    t = { instance, key: await ctx().key([instance]) };
  });

  it('refuses a translation into a language the portal does not speak, of a question that does not exist, or with another number of options, naming each line', async () => {
    const bad = TRANSLATED.replace('  es:\n', '  fr:\n')
      .replace('      q2: { prompt: Welche davon sind Obst?', '      q9: { prompt: Welche davon sind Obst?')
      .replace('options: [verde, azul, rojo]', 'options: [verde, azul]');
    const refused = await ctx().publish(t.instance, bad.replace('id: tr\n', 'id: bad\n'));
    assert.equal(refused.statusCode, 400, refused.body);
    const errors = (refused.json() as { errors: { name: string; line: number; detail: string }[] }).errors.map((e) => `${e.name}@${e.line}: ${e.detail}`);
    assert.deepEqual(errors, [`translations.fr@${lineOf(bad, '  fr:')}: "fr" is not a language content is translated into: use de or es (the content's own text is English)`]);
    // The language fixed, the other problems show, each at its line.
    const second = bad.replace('  fr:\n', '  es:\n');
    const refusedAgain = await ctx().publish(t.instance, second);
    assert.equal(refusedAgain.statusCode, 400);
    assert.deepEqual(
      (refusedAgain.json() as { errors: { name: string; line: number; detail: string }[] }).errors.map((e) => `${e.name}@${e.line}: ${e.detail}`),
      [
        `translations.de.questions.q9@${lineOf(second, '      q9:')}: "q9" is not a question of this assessment`,
        `translations.es.questions.q1.options@${lineOf(second, 'options: [verde, azul]')}: must have as many options as the original, 3, in the same order; has 2`,
      ],
    );
    // A named scale is the portal's to translate; scaleLabels only for labels the content has.
    const named = TRANSLATED.replace(
      'scale: [Very inaccurate, Moderately inaccurate, Neither accurate nor inaccurate, Moderately accurate, Very accurate]',
      'scale: agreement-5',
    ).replace('      q3: { prompt: Ich plane meine Woche im Voraus. }', '      q3: { prompt: Ich plane meine Woche im Voraus., scale: [a, b, c, d, e] }');
    const refusedScale = (await ctx().publish(t.instance, named)).json() as { errors: { name: string; detail: string }[] };
    assert.deepEqual(
      refusedScale.errors.map((e) => `${e.name}: ${e.detail}`),
      [
        'translations.de.scaleLabels.Very inaccurate: "Very inaccurate" is not a label of a scale of this assessment (named scales are translated already)',
        ...['Moderately inaccurate', 'Neither accurate nor inaccurate', 'Moderately accurate', 'Very accurate'].map(
          (l) => `translations.de.scaleLabels.${l}: "${l}" is not a label of a scale of this assessment (named scales are translated already)`,
        ),
        `translations.de.questions.q3.scale: the question uses the named scale "agreement-5", which the portal shows in the candidate's language already: remove it`,
        ...['Very inaccurate', 'Moderately inaccurate', 'Neither accurate nor inaccurate', 'Moderately accurate', 'Very accurate'].map(
          (l) => `translations.es.scaleLabels.${l}: "${l}" is not a label of a scale of this assessment (named scales are translated already)`,
        ),
      ],
    );
    // A text over the original's limit is refused as the original's would be.
    const long = TRANSLATED.replace('    name: Büro-Check\n', `    name: ${'B'.repeat(201)}\n`);
    const refusedLong = (await ctx().publish(t.instance, long)).json() as { errors: { name: string; detail: string }[] };
    assert.deepEqual(
      refusedLong.errors.map((e) => `${e.name}: ${e.detail}`),
      ['translations.de.name: must NOT have more than 200 characters'],
    );
    // Nothing was published by any of them.
    const listed = await ctx().request({ method: 'GET', url: `/admin/v1/instances/${t.instance}/assessments` });
    assert.deepEqual(
      (listed.json() as { id: string }[]).map((a) => a.id),
      ['tr'],
    );
  });

  it('lists the texts a translation leaves out as warnings, and publishes all the same', async () => {
    const published = await ctx().publish(t.instance, PARTIAL);
    assert.equal(published.statusCode, 201, published.body);
    const { warnings, ...result } = published.json() as { warnings: { path: string; line: number; message: string }[] };
    assert.deepEqual(result, { id: 'partial', instance: t.instance, version: 1, outcome: 'created' });
    assert.deepEqual(
      warnings.map((w) => `${w.path}: ${w.message}`),
      [
        ['description', 'description'],
        ['instructions', 'instructions'],
        ['categories.numbers', 'categories.0.name'],
        ['categories.habits', 'categories.1.name'],
        ['questions.q2.prompt', 'questions.1.prompt'],
        ['questions.q2.options', 'questions.1.options'],
        ['questions.q3.prompt', 'questions.2.prompt'],
        ['questions.q3.scale', 'questions.2.scale'],
        ['questions.q4.prompt', 'questions.3.prompt'],
        ['practice.prompt', 'practice.prompt'],
        ['practice.options', 'practice.options'],
        ['practice.explanation', 'practice.explanation'],
      ].map(([path, original]) => `translations.de.${path}: is missing: the Deutsch (de) text of ${original}, shown in English until it is given`),
    );
    // Each at the nearest line written: q4's missing prompt at q4, the missing description at de.
    const at = Object.fromEntries(warnings.map((w) => [w.path, w.line]));
    assert.equal(at['translations.de.questions.q4.prompt'], lineOf(PARTIAL, '      q4:'));
    assert.equal(at['translations.de.description'], lineOf(PARTIAL, '  de:'));

    // The console's import says how many, and the editor's check lists them (it would publish).
    const { password } = await consoleUser(ctx(), `manager-${t.instance}@example.com`, 'manager', [t.instance]);
    const manager = await consoleAs(ctx(), `manager-${t.instance}@example.com`, password);
    const imported = await manager.post('/console/assessments', { instance: t.instance, source: PARTIAL.replace('Büro-Check', 'Büro-Check 2') });
    assert.equal(imported.statusCode, 200, imported.body);
    assert.match(text(imported.body), /Published a new version of partial \(version 2\)\. 12 texts of its translations are missing and show in English/);
    const checked = await manager.post('/console/assessments/validate', { instance: t.instance, assessment: 'partial', source: PARTIAL });
    assert.equal(checked.statusCode, 200, checked.body);
    const check = (checked.json() as { check: string }).check;
    assert.match(text(check), /No problems: this would publish\. 12 texts of the translations are missing \(shown to those candidates in English\)/);
    assert.match(text(check), /translations\.de\.questions\.q4\.prompt is missing: the Deutsch \(de\) text of questions\.3\.prompt/);
    const complete = await manager.post('/console/assessments/validate', { instance: t.instance, assessment: 'tr', source: TRANSLATED });
    assert.doesNotMatch((complete.json() as { check: string }).check, /missing/);
  });

  it('shows a German candidate the assessment in German, practice question, intro and questions, and keeps German for the attempt', async () => {
    const c = await candidate(ctx(), t, 'tr', { language: 'de' });
    const intro = text(c.intro.body);
    assert.match(intro, /Büro-Check/);
    assert.match(intro, /Zahlen und Gewohnheiten bei der Arbeit\./);
    assert.match(intro, /Beantworten Sie jede Frage\. Sie haben 10 Minuten\./);
    assert.doesNotMatch(intro, /Office check|nicht verfügbar/);
    const practice = await c.get('/portal/a/tr/practice');
    assert.match(text(practice.body), /Was ist 1 \+ 1\?/);
    const checkedPractice = await c.form('/portal/a/tr/practice', { value: '1' });
    assert.match(text(checkedPractice.body), /Eins und eins ergibt zwei\./);
    assert.equal((await c.form('/portal/a/tr/start')).statusCode, 303);
    const pages = await Promise.all([1, 2, 3, 4].map((n) => c.get(`/portal/a/tr?q=${n}`)));
    const body = pages.map((p) => text(p.body)).join(' ');
    for (const shown of [
      'Welche Farbe hat der Himmel an einem klaren Tag?',
      'grün',
      'blau',
      'Welche davon sind Obst?',
      'Karotte',
      'Ich plane meine Woche im Voraus.',
      'Trifft voll und ganz zu',
      'Ordnen Sie die ersten Schritte',
      'Zuhören',
    ]) {
      assert.ok(body.includes(shown), `the German page shows "${shown}"`);
    }
    assert.doesNotMatch(body, /Which colour|Very accurate|Listen|Büro-Check.*nicht verfügbar/);
    // The content and the page are both German: no lang attribute of its own on the prompt.
    assert.doesNotMatch(pages[0]!.body, /class="prompt" id="prompt" lang=/);

    // Switching the portal to Spanish mid-attempt: the page is Spanish, the questions stay German, and it says why.
    await c.choose('es');
    const switched = await c.get('/portal/a/tr?q=1');
    assert.match(switched.body, /<html lang="es"/);
    assert.match(text(switched.body), /Welche Farbe hat der Himmel/);
    assert.match(text(switched.body), /Comenzó esta evaluación en alemán, así que seguirá en alemán hasta que la envíe\./);
    assert.match(switched.body, /<div class="prompt" id="prompt" lang="de">/, 'the German text is marked as German on a Spanish page');
    const { rows } = await ctx().db.query<{ language: string }>(
      `SELECT t.content_language AS language FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1`,
      [c.candidateId],
    );
    assert.deepEqual(rows, [{ language: 'de' }]);
  });

  it('shows a French-browser candidate, and a Spanish one on content without Spanish, the English content with a notice in their language', async () => {
    const french = await candidate(ctx(), t, 'tr', {}, { 'accept-language': 'fr-FR, fr;q=0.9' });
    assert.match(french.intro.body, /<html lang="en"/);
    assert.match(text(french.intro.body), /This assessment is not available in French; it is shown in English\./);
    assert.match(text(french.intro.body), /Office check/);
    assert.equal((await french.form('/portal/a/tr/start')).statusCode, 303);
    const question = text((await french.get('/portal/a/tr?q=1')).body);
    assert.match(question, /Which colour is the sky on a clear day\?/);
    assert.match(question, /This assessment is not available in French; it is shown in English\./);

    const spanish = await candidate(ctx(), t, 'partial', { language: 'es' });
    assert.match(spanish.intro.body, /<html lang="es"/);
    assert.match(text(spanish.intro.body), /Esta evaluación no está disponible en español; se muestra en inglés\./);
    assert.match(text(spanish.intro.body), /Numbers and habits at work\./);
    assert.equal((await spanish.form('/portal/a/partial/start')).statusCode, 303);
    const page = await spanish.get('/portal/a/partial?q=1');
    assert.match(text(page.body), /Which colour is the sky on a clear day\?/);
    assert.match(page.body, /<div class="prompt" id="prompt" lang="en">/, 'the English text is marked as English on a Spanish page');

    // A German candidate on the partial translation: German where it is given, English where not.
    const german = await candidate(ctx(), t, 'partial', { language: 'de' });
    assert.match(text(german.intro.body), /Büro-Check/);
    assert.match(text(german.intro.body), /Numbers and habits at work\./);
    assert.doesNotMatch(text(german.intro.body), /nicht verfügbar/);
  });

  it('scores the same choices the same in every language, and says which language was taken in the API and the report', async () => {
    const records: Record<string, unknown> = {};
    const ids: Record<string, string> = {};
    for (const language of ['en', 'de', 'es']) {
      const c = await candidate(ctx(), t, 'tr', { language });
      ids[language] = c.candidateId;
      assert.equal((await c.form('/portal/a/tr/start')).statusCode, 303);
      // The same choices by index: the second option, the first and third, the fourth point, listen-solve-thank.
      for (const [question, value] of [
        ['q1', 1],
        ['q2', [0, 2]],
        ['q3', 3],
        ['q4', [1, 0, 2]],
      ] as const) {
        assert.equal((await c.save(question, value)).statusCode, 204);
      }
      assert.equal((await c.form('/portal/a/tr/submit')).statusCode, 303);
      const score = await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}`, headers: { 'x-api-key': t.key, instance: t.instance } });
      assert.equal(score.statusCode, 200, score.body);
      const [record] = score.json() as Record<string, unknown>[];
      assert.ok(record, score.body);
      assert.equal('contentLanguage' in record, false, 'the score record keeps its shape');
      const { candidateId: _c, started: _s, finished: _f, ...scored } = record as Record<string, unknown>;
      records[language] = scored;
    }
    assert.deepEqual(records.de, records.en);
    assert.deepEqual(records.es, records.en);
    // Numbers all right, fruits all right, the fourth of five points (75 %), the ranking as keyed.
    assert.equal((records.en as { totalScore: string }).totalScore, '93.75');

    const { password } = await consoleUser(ctx(), `reader-${t.instance}@example.com`, 'manager', [t.instance]);
    const manager = await consoleAs(ctx(), `reader-${t.instance}@example.com`, password);
    for (const [language, name] of [
      ['de', 'German'],
      ['es', 'Spanish'],
      ['en', 'English'],
    ] as const) {
      const seen = await ctx().request({ method: 'GET', url: `/v1/candidates/${ids[language]}`, headers: { 'x-api-key': t.key, instance: t.instance } });
      assert.equal(seen.statusCode, 200, seen.body);
      const invitation = (seen.json() as { invitations: { contentLanguage?: string; reportUrl: string }[] }).invitations[0]!;
      assert.equal(invitation.contentLanguage, language);
      if (language === 'de') {
        // The report's PDF says it too.
        const url = new URL(invitation.reportUrl);
        const pdf = await ctx().request({ method: 'GET', url: `${url.pathname}.pdf${url.search}` });
        assert.equal(pdf.statusCode, 200);
        const dir = mkdtempSync(path.join(tmpdir(), 'ac-pdf-'));
        try {
          writeFileSync(path.join(dir, 'report.pdf'), pdf.rawPayload);
          const words = execFileSync('pdftotext', ['-layout', path.join(dir, 'report.pdf'), '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
          assert.match(words, /Language German \(de\); the questions below are in/);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      const report = await manager.get(`/console/candidates/${ids[language]}?instance=${t.instance}`);
      assert.equal(report.statusCode, 200);
      assert.match(text(report.body), new RegExp(`Language ${name} \\(${language}\\)${language === 'en' ? ' ' : '; the questions below are in English, as written'}`));
    }
    // Before the start, no language yet.
    const fresh = await candidate(ctx(), t, 'tr', { language: 'de' });
    const unstarted = await ctx().request({ method: 'GET', url: `/v1/candidates/${fresh.candidateId}`, headers: { 'x-api-key': t.key, instance: t.instance } });
    assert.equal('contentLanguage' in (unstarted.json() as { invitations: object[] }).invitations[0]!, false);
  });

  it('refuses to start an attempt in a language that is not a language of the portal, and starts nothing', async () => {
    const c = await candidate(ctx(), t, 'tr', { language: 'de' });
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id FROM invitations WHERE candidate_id = $1', [c.candidateId]);
    const start = (language: unknown) =>
      runCommand(
        ctx().db,
        { actor: { kind: 'candidate', id: c.candidateId }, requestId: 'test', now: new Date() },
        (cmd) => startAttempt(cmd, { invitationId: rows[0]!.id, client: { address: '127.0.0.1', agent: 'test' }, language }),
        'test_start',
      );
    await assert.rejects(start('fr'), (error: Error & { fields?: { name: string; detail: string }[] }) => {
      assert.deepEqual(
        error.fields?.map((f) => `${f.name}: ${f.detail}`),
        ['language: must be one of en, de, es'],
      );
      return true;
    });
    const { rows: attempts } = await ctx().db.query('SELECT 1 FROM attempts WHERE invitation_id = $1', [rows[0]!.id]);
    assert.equal(attempts.length, 0);
    const started = await start('es');
    assert.equal(started.language, 'es');
  });
});
