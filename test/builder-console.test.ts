// The question builder in the console (forms posted as a browser without script posts them): a
// new assessment's settings and questions saved into the draft one form at a time, the same draft
// the file editor shows; a refused form changes nothing and names the field; questions moved and
// deleted; reviewers refused; the draft previewed and published as a new version.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { draftDocument, questionsOf } from '../src/modules/assessments/builder.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

describeEachStore('question builder in the console', (ctx) => {
  let instance: string;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;

  before(async () => {
    instance = await ctx().instance('build');
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
    const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
  });

  const draftSource = async (slug: string | null) =>
    (
      await ctx().db.query<{ source: string }>(
        `SELECT d.source FROM assessment_drafts d JOIN instances i ON i.id = d.instance_id LEFT JOIN assessments a ON a.id = d.assessment_id
          WHERE i.name = $1 AND ${slug === null ? 'd.assessment_id IS NULL' : 'a.slug = $2'}`,
        slug === null ? [instance] : [instance, slug],
      )
    ).rows[0]?.source;
  const NEW = '/console/assessments/new/build';
  const settings = {
    action: 'settings',
    id: 'built',
    name: 'Built <with> forms',
    description: 'Made in the builder.',
    durationMinutes: '25',
    passScore: '60',
    lowPassScore: '40',
    'categories.0.id': 'skills',
    'categories.0.name': 'Skills',
  };

  it('saves a new assessment form by form into the draft the file editor shows, and publishes it', async () => {
    const page = await manager.get(`${NEW}?instance=${instance}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>New assessment<\/h1>/);

    // Not a number: refused, nothing saved, the field named.
    const refused = await manager.post(NEW, { instance, ...settings, durationMinutes: 'half an hour' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /The settings were not saved/);
    assert.match(refused.body, /id="f-durationMinutes"[^>]*aria-invalid="true"/);
    assert.match(refused.body, /must be a whole number, is &quot;half an hour&quot;/);
    assert.equal(await draftSource(null), undefined);
    // The importer's rule: low pass above pass.
    const rule = await manager.post(NEW, { instance, ...settings, lowPassScore: '80' });
    assert.equal(rule.statusCode, 400);
    assert.match(rule.body, /<p class="field-error" id="f-lowPassScore-error">must not be above passScore<\/p>/);
    assert.equal(await draftSource(null), undefined);

    const saved = await manager.post(NEW, { instance, ...settings });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `${NEW}?instance=${instance}&saved=settings`);
    const doc = draftDocument((await draftSource(null))!)!;
    assert.equal(doc.name, 'Built <with> forms');
    assert.equal(doc.durationMinutes, 25);
    const overview = await manager.get(saved.headers.location as string);
    assert.match(overview.body, /Built &lt;with&gt; forms/);
    assert.doesNotMatch(overview.body, /Built <with>/);

    // A single-choice question without its right answer: refused beside the options, nothing saved.
    const before = await draftSource(null);
    const question = {
      instance,
      type: 'single-choice',
      id: 'q1',
      category: 'skills',
      prompt: 'Which is **right**?',
      'options.0.text': 'This',
      'options.1.text': 'That',
      'options.2.text': '',
    };
    const noAnswer = await manager.post(`${NEW}/questions/new`, question);
    assert.equal(noAnswer.statusCode, 400);
    assert.match(noAnswer.body, /must have exactly one correct option, has 0/);
    assert.equal(await draftSource(null), before);
    const added = await manager.post(`${NEW}/questions/new`, { ...question, correct: '0' });
    assert.equal(added.statusCode, 303, added.body);
    assert.equal(added.headers.location, `${NEW}?instance=${instance}&saved=question#question-1`);
    const coding = await manager.post(`${NEW}/questions/new`, {
      instance,
      type: 'coding',
      id: 'q2',
      category: 'skills',
      prompt: 'Write sum(a, b).',
      'languages.javascript': 'on',
      entry: 'sum',
      'starterCode.javascript': 'function sum(a, b) {\n}\n',
      'examples.0.args': '[1, 2]',
      'examples.0.expected': '3',
      'tests.0.args': '[2, 2]',
      'tests.0.expected': '4',
      'tests.1.args': '[-1, 1]',
      'tests.1.expected': '0',
    });
    assert.equal(coding.statusCode, 303, coding.body);
    const free = await manager.post(`${NEW}/questions/new`, {
      instance,
      type: 'free-text',
      id: 'q3',
      category: 'skills',
      prompt: 'Tell us about a bug you fixed.',
      guidance: 'Look for a method.',
      'rubric.criteria.0.id': 'method',
      'rubric.criteria.0.name': 'Method',
      'rubric.criteria.0.levels': '0 | None | No method\n2 | Clear | A clear method',
    });
    assert.equal(free.statusCode, 303, free.body);

    // The file editor shows the same draft.
    const file = await manager.get(`/console/assessments/new?instance=${instance}`);
    assert.match(file.body, /id: built/);
    assert.match(file.body, /entry: sum/);
    assert.match(file.body, /No problems: this would publish/);

    // Moved: the coding question first; then back with Move down; a question deleted and added again.
    assert.equal((await manager.post(NEW, { instance, action: 'up', question: '2' })).statusCode, 303);
    assert.deepEqual(
      questionsOf(draftDocument((await draftSource(null))!)!).map((q) => q.id),
      ['q2', 'q1', 'q3'],
    );
    const outOfRange = await manager.post(NEW, { instance, action: 'up', question: '1' });
    assert.equal(outOfRange.statusCode, 400);
    assert.deepEqual(
      questionsOf(draftDocument((await draftSource(null))!)!).map((q) => q.id),
      ['q2', 'q1', 'q3'],
    );
    assert.equal((await manager.post(NEW, { instance, action: 'move', question: '1', to: '3' })).statusCode, 303);
    assert.deepEqual(
      questionsOf(draftDocument((await draftSource(null))!)!).map((q) => q.id),
      ['q1', 'q3', 'q2'],
    );
    // The form of a saved question shows what was saved.
    const form = await manager.get(`${NEW}/questions/3?instance=${instance}`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<input type="text" id="f-tests-1-args" name="tests.1.args"[^>]*value="\[-1,1\]"/);

    // Reviewers may not.
    assert.equal((await reviewer.post(NEW, { instance, ...settings })).statusCode, 403);

    const preview = await manager.get(`${NEW}/preview?instance=${instance}`);
    assert.equal(preview.statusCode, 200, preview.body);
    assert.match(preview.body, /Which is <strong>right<\/strong>\?/);
    assert.match(preview.body, /Tell us about a bug you fixed/);

    const published = await manager.post(NEW, { instance, action: 'publish' });
    assert.equal(published.statusCode, 303, published.body);
    assert.equal(published.headers.location, `/console/assessments/built/build?instance=${instance}&published=1&outcome=created`);
    assert.equal(await draftSource(null), undefined);
    const after = await manager.get(published.headers.location as string);
    assert.match(after.body, /Published version 1/);
    assert.match(after.body, /No draft: this is version 1 as published/);
  });

  it('edits a published assessment: a question changed from its form, published as version 2', async () => {
    const page = await manager.get(`/console/assessments/alpha/build/questions/1?instance=${instance}`);
    assert.equal(page.statusCode, 200, page.body);
    const values = [...page.body.matchAll(/<input type="text" id="[^"]+" name="([^"]+)"[^>]*value="([^"]*)"/g)].map(
      (m) => [m[1]!, m[2]!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')] as [string, string],
    );
    const prompt = /<textarea id="f-prompt" name="prompt"[^>]*>([^<]*)<\/textarea>/.exec(page.body)![1]!;
    const checked = [...page.body.matchAll(/name="(correct|options\.\d+\.correct)" value="([^"]*)" checked/g)].map((m) => [m[1]!, m[2]!] as [string, string]);
    const category = /<option value="([^"]+)" selected>/.exec(page.body)![1]!;
    const saved = await manager.post(`/console/assessments/alpha/build/questions/1`, [
      ['instance', instance],
      ['prompt', `${prompt} (changed)`],
      ['category', category],
      ...values,
      ...checked,
    ]);
    assert.equal(saved.statusCode, 303, saved.body);
    const doc = draftDocument((await draftSource('alpha'))!)!;
    assert.match(String(questionsOf(doc)[0]!.prompt), /\(changed\)$/);
    const published = await manager.post('/console/assessments/alpha/build', { instance, action: 'publish' });
    assert.equal(published.statusCode, 303, published.body);
    assert.match(String(published.headers.location), /published=2&outcome=updated$/);
  });

  /** A question's form posted by its Upload button, as a browser sends it: multipart, the form's fields with it. */
  function upload(url: string, fields: [string, string][], file: { name: string; bytes: Buffer } | undefined) {
    const boundary = '----acBuilderMedia' + Math.random().toString(16).slice(2);
    const part = (name: string, body: Buffer | string, filename?: string) =>
      Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"\r\nContent-Type: image/png` : ''}\r\n\r\n`,
        ),
        Buffer.from(body),
        Buffer.from('\r\n'),
      ]);
    const payload = Buffer.concat([
      part('_csrf', manager.csrf),
      part('instance', instance),
      ...fields.map(([name, value]) => part(name, value)),
      part('file', file?.bytes ?? '', file?.name ?? ''),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    return ctx().request({ method: 'POST', url, headers: { cookie: manager.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
  }

  it('uploads a picture with its alternative text into a question prompt (not saved until the question is), and refuses one without', async () => {
    const sharp = (await import('sharp')).default;
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#2a6' } })
      .png()
      .toBuffer();
    const before = await draftSource('alpha');
    const media = async () => (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessment_media')).rows[0]!.n;
    const stored = await media();
    const fields: [string, string][] = [
      ['prompt', 'What is shown?'],
      ['category', 'general'],
      ['id', 'shown'],
    ];
    const refused = await upload('/console/assessments/alpha/build/questions/new/media', [...fields, ['type', 'short-answer'], ['media-text', '  ']], {
      name: 'chart.png',
      bytes: png,
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.match(refused.body, /<p class="field-error" id="f-media-text-error">is required for a picture: write what it shows/);
    assert.match(refused.body, /What is shown\?<\/textarea>/);
    assert.equal(await media(), stored);
    const uploaded = await upload('/console/assessments/alpha/build/questions/new/media', [...fields, ['type', 'short-answer'], ['media-text', 'A green rectangle']], {
      name: 'chart.png',
      bytes: png,
    });
    assert.equal(uploaded.statusCode, 200, uploaded.body);
    assert.match(uploaded.body, /What is shown\?\n\n!\[A green rectangle\]\(media:[0-9a-f]{64}\.png\)<\/textarea>/);
    assert.match(uploaded.body, /<h1>New short answer question<\/h1>/);
    assert.equal(await media(), stored + 1);
    assert.equal(await draftSource('alpha'), before, 'the draft is saved with the question, not with the upload');
  });

  it('refuses a question number or type that is not there, and a draft it cannot read', async () => {
    assert.equal((await manager.get(`/console/assessments/alpha/build/questions/99?instance=${instance}`)).statusCode, 404);
    assert.equal((await manager.get(`/console/assessments/alpha/build/questions/new?instance=${instance}&type=essay`)).statusCode, 400);
    assert.equal((await manager.post('/console/assessments/alpha/build/questions/new', { instance, type: 'essay', prompt: 'x' })).statusCode, 400);
    assert.equal((await manager.get(`/console/assessments/nope/build?instance=${instance}`)).statusCode, 404);
    // A draft saved as a file that is not a mapping: the builder says so and sends to the file editor.
    assert.equal((await manager.post('/console/assessments/alpha/edit', { instance, action: 'save', source: '- just\n- a list\n' })).statusCode, 303);
    const page = await manager.get(`/console/assessments/alpha/build?instance=${instance}`);
    assert.match(page.body, /not an assessment document the builder can read/);
    const refused = await manager.post('/console/assessments/alpha/build', { instance, action: 'delete', question: '1' });
    assert.equal(refused.statusCode, 400);
    assert.equal(await draftSource('alpha'), '- just\n- a list\n');
  });
});
