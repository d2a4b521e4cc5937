// The library in the candidate's language, beyond texts: the typing tests' passages written for
// German and Spanish (the importer's checks of them), and a German candidate typing the German
// passage, scored against it with the German word length (src/modules/attempts/typing.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { describeEachStore } from './harness.js';
import { candidate } from './support/portal.js';

const CATALOGUE = path.join(import.meta.dirname, '..', 'catalogue');
const TYPING = readFileSync(path.join(CATALOGUE, 'typing-basic.yaml'), 'utf8');

it('refuses a typing passage with letters its language does not type, or for content without a typing test, and lists one left out', () => {
  const errors = (source: string) => {
    const parsed = parseAssessment(source);
    assert.equal(parsed.ok, false);
    return (parsed as { errors: { path: string; message: string }[] }).errors;
  };
  const spanishInGerman = errors(TYPING.replace('Der Laden öffnet jeden Morgen', 'Der Laden öffnet mañana'));
  assert.deepEqual(
    spanishInGerman.map((e) => e.path),
    ['translations.de.typingTest.passage'],
  );
  assert.match(spanishInGerman[0]!.message, /plain printable ASCII and the letters ÄÖÜäöüß, so that every de keyboard can type it; has "ñ"/);

  const workStyle = readFileSync(path.join(CATALOGUE, 'work-style.yaml'), 'utf8');
  const noTyping = errors(workStyle.replace('  de:\n    name: Arbeitsstil', '  de:\n    typingTest: { passage: Hallo Welt }\n    name: Arbeitsstil'));
  assert.deepEqual(
    noTyping.map((e) => `${e.path}: ${e.message}`),
    ['translations.de.typingTest: the assessment has no typing test to translate: remove it'],
  );

  const withoutGerman = TYPING.replace(/\n {4}typingTest:\n {6}passage: >-\n(?: {8}.*\n)+(?= {2}es:)/, '\n');
  assert.notEqual(withoutGerman, TYPING);
  const parsed = parseAssessment(withoutGerman);
  assert.equal(parsed.ok, true);
  assert.deepEqual(
    (parsed as { warnings: { path: string }[] }).warnings.map((w) => w.path),
    ['translations.de.typingTest.passage'],
  );
});

// The app's clock: the real time (the database's now() checks deadlines), moved by the test.
let now = new Date();

describeEachStore(
  'typing in the candidate language',
  (ctx) => {
    it('shows a German candidate the German passage and scores it at 6 characters a word, a Spanish one at 5.5', async () => {
      const instance = await ctx().instance();
      assert.equal((await ctx().publish(instance, TYPING)).statusCode, 201);
      const key = await ctx().key([instance]);
      for (const [lang, perWord, letters] of [
        ['de', 6, /Der Laden öffnet jeden Morgen um neun\./],
        ['es', 5.5, /La tienda abre a las nueve cada mañana\./],
      ] as const) {
        const typist = await candidate(ctx(), { instance, key }, { email: `typist-${lang}@example.com`, firstName: 'Lena', lastName: 'Vogel', language: lang }, ['typing-basic']);
        const started = await typist.form('/portal/a/typing-basic/start');
        assert.equal(started.statusCode, 303);
        const page = await typist.get('/portal/a/typing-basic?q=3');
        const passage = /<blockquote class="passage"[^>]*>([\s\S]*?)<\/blockquote>/
          .exec(page.body)![1]!
          .replace(/&#39;/g, "'")
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, '&');
        assert.match(passage, letters);
        assert.equal((await typist.post('/portal/api/a/typing-basic/typing/start', {})).statusCode, 204);
        now = new Date(now.getTime() + 60_000);
        const result = await typist.post('/portal/api/a/typing-basic/typing', { typed: passage, intervals: Array.from({ length: passage.length - 1 }, () => 150) });
        assert.equal(result.statusCode, 200, result.body);
        // A perfect copy of the language's own passage in one minute: its characters / the language's word length.
        assert.deepEqual(result.json(), { netWpm: Math.round((passage.length / perWord) * 100) / 100, accuracy: 100 });
      }
    });
  },
  { now: () => now },
);
