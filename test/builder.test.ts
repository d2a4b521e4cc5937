// The question builder's forms and the content: every question of the catalogue (all the types)
// read into its form and back is the same question, the settings likewise; a form's problems
// (not a number, not JSON, a place given twice) and the importer's rules land on the field they
// are about; what a form does not show is kept.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  applySettings,
  draftDocument,
  fieldOfPath,
  isQuestionType,
  newDocument,
  questionErrors,
  questionFromValues,
  questionValues,
  questionsOf,
  settingsErrors,
  settingsValues,
} from '../src/modules/assessments/builder.js';
import { parseAssessment } from '../src/modules/assessments/content.js';

const CATALOGUE = path.join(import.meta.dirname, '..', 'catalogue');
const catalogue = readdirSync(CATALOGUE)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => ({ file: f, doc: draftDocument(readFileSync(path.join(CATALOGUE, f), 'utf8'))! }));

describe('question builder: forms and content', () => {
  it('reads every catalogue question into its form and back unchanged, for every type', () => {
    const types = new Set<string>();
    for (const { file, doc } of catalogue) {
      for (const q of questionsOf(doc)) {
        assert.ok(isQuestionType(q.type), `${file}: ${String(q.type)}`);
        types.add(q.type);
        const back = questionFromValues(q.type, questionValues(q), q);
        assert.deepEqual(back.problems, [], `${file} ${String(q.id)}`);
        assert.deepEqual(back.question, q, `${file} ${String(q.id)}`);
        // Without the question as it was (a new question), the form alone gives the same question but for what it does not show.
        const fresh = questionFromValues(q.type, questionValues(q), undefined).question;
        const { pilotSeconds: _p, weight: _w, ...shown } = q as Record<string, unknown>;
        const plain = (value: unknown) => JSON.parse(JSON.stringify(value), (_key, v: unknown) => (typeof v === 'string' ? v.trim() : v));
        assert.deepEqual(plain(fresh), plain(shown), `${file} ${String(q.id)} from the form alone`);
      }
    }
    assert.deepEqual([...types].sort(), ['coding', 'free-text', 'likert', 'multiple-choice', 'ranking', 'short-answer', 'single-choice']);
  });

  it("reads every catalogue assessment's settings into the form and back unchanged", () => {
    for (const { file, doc } of catalogue) {
      const back = applySettings(doc, settingsValues(doc), false);
      assert.deepEqual(back.problems, [], file);
      assert.deepEqual(back.doc, doc, file);
      assert.deepEqual(settingsErrors(back.doc), [], file);
    }
  });

  it('says which field is not a number, not JSON, or gives a place twice', () => {
    const settings = applySettings(
      newDocument(),
      { name: 'N', description: 'D', durationMinutes: 'twenty', passScore: '70', lowPassScore: '5O', 'categories.0.id': 'general', 'categories.0.name': 'General' },
      true,
    );
    assert.deepEqual(
      settings.problems.map((p) => p.name),
      ['durationMinutes', 'lowPassScore'],
    );
    const coding = questionFromValues(
      'coding',
      { id: 'c', category: 'general', prompt: 'P', 'languages.python': 'on', entry: 'f', 'tests.0.args': '[1,', 'tests.0.expected': '2' },
      undefined,
    );
    assert.deepEqual(coding.problems, [{ name: 'tests.0.args', detail: 'must be JSON, such as [1, 2] or "text" or {"a": 1}' }]);
    const ranking = questionFromValues(
      'ranking',
      {
        id: 'r',
        category: 'general',
        prompt: 'P',
        'options.0.id': 'a',
        'options.0.text': 'A',
        'options.0.rank': '1',
        'options.1.id': 'b',
        'options.1.text': 'B',
        'options.1.rank': '1',
      },
      undefined,
    );
    assert.deepEqual(
      ranking.problems.map((p) => p.name),
      ['options.1.rank'],
    );
  });

  it("finds the importer's problems with a question and its settings, beside their fields, whatever the rest of the draft holds", () => {
    const doc = newDocument();
    // A draft whose settings are not written yet still has its question checked.
    const single = questionFromValues(
      'single-choice',
      { id: 'q1', category: 'general', prompt: 'Which?', 'options.0.text': 'A', 'options.1.text': 'B', 'options.2.text': '' },
      undefined,
    ).question;
    doc.questions = [single];
    const errors = questionErrors(doc, 0);
    assert.deepEqual(errors, [{ path: 'options', message: 'must have exactly one correct option, has 0' }]);
    assert.equal(fieldOfPath('options', ['options.0.text', 'options']), 'options');
    assert.equal(fieldOfPath('rubric.criteria.0.levels.1.label', ['rubric.criteria.0.levels', 'prompt']), 'rubric.criteria.0.levels');
    assert.deepEqual(
      settingsErrors(doc).map((e) => e.path),
      ['id', 'name', 'description'],
    );
    const bad = applySettings(doc, { ...settingsValues(doc), id: 'x', name: 'X', description: 'D', passScore: '40', lowPassScore: '60' }, true).doc;
    assert.deepEqual(settingsErrors(bad), [{ path: 'lowPassScore', message: 'must not be above passScore' }]);
  });

  it('publishes what the forms write: a new document with a question of each type is valid content', () => {
    const doc = newDocument();
    doc.id = 'built';
    doc.name = 'Built';
    doc.description = 'Made with forms';
    doc.questions = [];
    const questions = questionsOf(catalogue.find((c) => c.file === 'javascript-fundamentals.yaml')!.doc);
    for (const q of questions) (doc.questions as unknown[]).push({ ...questionFromValues(q.type as never, questionValues(q), undefined).question, category: 'general' });
    const parsed = parseAssessment(JSON.stringify(doc));
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.errors));
  });
});
