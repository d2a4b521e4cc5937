import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from '../../../test/harness.js';
import { publishLibraryFile } from '../../../test/support/library.js';
import { catalogueFiles } from '../../seed.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';

describeEachStore('assessments', (ctx) => {
  const list = async (key: string, headers: Record<string, string> = {}) => ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key, ...headers } });

  it('publishes content and lists it with the documented fields', async () => {
    const instance = await ctx().instance();
    const created = await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha', typing: true }));
    assert.equal(created.statusCode, 201);
    assert.deepEqual(created.json(), { id: 'alpha', instance, version: 1, outcome: 'created' });
    const key = await ctx().key([instance]);
    const response = await list(key);
    assert.equal(response.statusCode, 200);
    const [assessment] = response.json();
    assert.deepEqual(
      { ...assessment, updatedAt: typeof assessment.updatedAt },
      {
        id: 'alpha',
        name: 'Alpha',
        description: 'A short assessment used by the tests.',
        instance,
        durationMinutes: 20,
        categories: ['Reasoning', 'Writing', 'Typing'],
        typingTest: true,
        questionCount: 5,
        passScore: 70,
        lowPassScore: 50,
        version: 1,
        updatedAt: 'string',
      },
    );
  });

  it('keeps every version: unchanged content is not a new version, changed content is', async () => {
    const instance = await ctx().instance();
    await ctx().publish(instance, sampleAssessment('alpha'));
    const same = await ctx().publish(instance, sampleAssessment('alpha'));
    assert.equal(same.statusCode, 200);
    assert.equal(same.json().outcome, 'unchanged');
    const changed = await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha II', durationMinutes: 30 }));
    assert.deepEqual(changed.json(), { id: 'alpha', instance, version: 2, outcome: 'updated' });
    const { rows } = await ctx().db.query<{ version: number; name: string }>(
      `SELECT v.version, v.content->>'name' AS name FROM assessment_versions v JOIN assessments a ON a.id = v.assessment_id
         JOIN instances i ON i.id = a.instance_id WHERE i.name = $1 ORDER BY v.version`,
      [instance],
    );
    assert.deepEqual(rows, [
      { version: 1, name: 'Sample assessment' },
      { version: 2, name: 'Alpha II' },
    ]);
    const key = await ctx().key([instance]);
    const [listed] = (await list(key)).json();
    assert.equal(listed.name, 'Alpha II');
    assert.equal(listed.version, 2);
    assert.equal(listed.durationMinutes, 30);
  });

  it('accepts JSON content too', async () => {
    const instance = await ctx().instance();
    const content = {
      id: 'json-one',
      name: 'From JSON',
      description: 'd',
      durationMinutes: 5,
      passScore: 60,
      lowPassScore: 40,
      categories: [{ id: 'c', name: 'C' }],
      questions: [{ id: 'q', type: 'short-answer', category: 'c', prompt: '1+1?', accept: ['2'] }],
    };
    const response = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(content, null, 2),
    });
    assert.equal(response.statusCode, 201, response.body);
  });

  it('reports each problem of bad content with its path and line, and publishes nothing', async () => {
    const instance = await ctx().instance();
    const bad = sampleAssessment('alpha')
      .replace('passScore: 70', 'passScore: 170')
      .replace('    category: writing\n', '    category: nowhere\n')
      .replace('        correct: true\n  - id: q2', '  - id: q2');
    const response = await ctx().publish(instance, bad);
    assert.equal(response.statusCode, 400);
    const problem = response.json();
    assert.deepEqual(
      problem.errors.map((e: { name: string; line: number }) => [e.name, e.line]),
      [['passScore', 5]],
    );
    const fixedScore = bad.replace('passScore: 170', 'passScore: 70');
    const second = (await ctx().publish(instance, fixedScore)).json();
    const found = second.errors.map((e: { name: string; line: number; in: string; detail: string }) => `${e.in}:${e.name}@${e.line}: ${e.detail}`);
    assert.deepEqual(found, [
      'content:questions.0.options@18: must have exactly one correct option, has 0',
      'content:questions.3.category@38: "nowhere" is not a category of this assessment',
      'content:categories.1@11: category "writing" has no questions',
    ]);
    const yamlError = (await ctx().publish(instance, 'id: x\nname: [unclosed\n')).json();
    assert.equal(typeof yamlError.errors[0].line, 'number', 'a YAML syntax error names its line');
    const unknownField = (await ctx().publish(instance, `${sampleAssessment('alpha')}colour: blue\n`)).json();
    assert.deepEqual(
      unknownField.errors.map((e: { name: string }) => e.name),
      ['colour'],
    );
    const key = await ctx().key([instance]);
    assert.deepEqual((await list(key)).json(), []);
  });

  it('refuses content that is not YAML or JSON, and unknown instances', async () => {
    const instance = await ctx().instance();
    const wrongType = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: sampleAssessment(),
    });
    assert.equal(wrongType.statusCode, 415);
    const nowhere = await ctx().publish('no-such-instance', sampleAssessment());
    assert.equal(nowhere.statusCode, 404);
    const empty = await ctx().publish(instance, '');
    assert.equal(empty.statusCode, 400);
    const aliasBomb = await ctx().publish(
      instance,
      `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n`,
    );
    assert.equal(aliasBomb.statusCode, 400, 'an alias bomb is refused, not expanded');
  });

  it('lists only the instance in scope', async () => {
    const a = await ctx().instance();
    const b = await ctx().instance();
    await ctx().publish(a, sampleAssessment('shared', { name: 'In A' }));
    await ctx().publish(b, sampleAssessment('shared', { name: 'In B' }));
    const keyA = await ctx().key([a]);
    assert.deepEqual(
      (await list(keyA)).json().map((x: { name: string }) => x.name),
      ['In A'],
    );
    const adminList = await ctx().request({ method: 'GET', url: `/admin/v1/instances/${b}/assessments` });
    assert.deepEqual(
      adminList.json().map((x: { name: string }) => x.name),
      ['In B'],
    );
  });

  it('publishes the sample catalogue: the library of assessments, each with 2-5 categories and its questions', async () => {
    const instance = await ctx().instance();
    const files = catalogueFiles();
    assert.ok(files.length >= 12, `${files.length} files`);
    for (const file of files) {
      // As a folder is: the document with the media files it names beside it (catalogue/media/…).
      const response = await publishLibraryFile(ctx(), instance, file);
      assert.equal(response.statusCode, 201, `${file}: ${response.body}`);
    }
    const key = await ctx().key([instance]);
    const listed = (await list(key)).json();
    assert.deepEqual(
      listed.map((a: { id: string }) => a.id),
      files.map((file) => path.basename(file, '.yaml')),
    );
    assert.ok(
      listed.some((a: { typingTest: boolean }) => a.typingTest),
      'one has a typing test',
    );
    const types = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^ {4}type: ([a-z-]+)$/gm)].map((m) => m[1]);
    assert.deepEqual(
      [...new Set(files.flatMap(types))].sort(),
      ['coding', 'free-text', 'likert', 'multiple-choice', 'ranking', 'short-answer', 'single-choice'],
      'the catalogue shows every question type',
    );
    for (const assessment of listed) {
      assert.ok(assessment.categories.length >= 2 && assessment.categories.length <= 5, assessment.id);
      // The typing tests are a passage and two items to copy; the work-style questionnaire is the
      // short one: 6 statements and 2 rankings; a coding test has 4 or 5 programs to write.
      // test/catalogue.test.ts checks the content itself.
      const coding = ['javascript-fundamentals', 'python-fundamentals', 'problem-solving'].includes(assessment.id);
      const least = assessment.id.startsWith('typing-') ? 2 : coding ? 4 : assessment.id === 'work-style' ? 8 : 10;
      assert.ok(assessment.questionCount >= least, assessment.id);
      // The personality inventory has no pass mark (0 and 0); every other assessment has one.
      if (assessment.id === 'big-five') assert.equal(assessment.passScore, 0);
      else assert.ok(assessment.lowPassScore < assessment.passScore, assessment.id);
    }
  });
});
