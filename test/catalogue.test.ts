// The library: every file of catalogue/ read through the real importer, then checked as content a
// client may invite to (docs/library.md): the answers each question type needs, keys that are
// consistent and score 100 when given, no duplicated or near-duplicated prompts across the whole
// library, the reading level, roles and pilot times stated, and the pilot times plausible against
// the duration. Then every file is published into a store and each assessment is opened in the
// portal, every question page rendered, as a candidate would see it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { practiceOf, questionCount, scaleLabels, type QuestionContent } from '../src/modules/assessments/content-schema.js';
import { normaliseText, scoreAttempt, type AnswerValue } from '../src/modules/attempts/scoring.js';
import { catalogueFiles } from '../src/seed.js';
import { contentLanguages, localize, translationsOf } from '../src/modules/assessments/translations.js';
import { describeEachStore } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { publishLibraryFile } from './support/library.js';
import { invite, openPortal } from './support/portal.js';

const library = catalogueFiles().map((file) => {
  const parsed = parseAssessment(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(`${file}: ${JSON.stringify(parsed.errors)}`);
  return { file: path.basename(file), content: parsed.content };
});

/** The subjects the library must cover, each by the assessment that covers it. */
const SUBJECTS: Record<string, string> = {
  'numerical reasoning': 'numerical-reasoning',
  'verbal reasoning': 'verbal-reasoning',
  'abstract reasoning': 'abstract-reasoning',
  'attention to detail': 'attention-to-detail',
  'reading comprehension': 'reading-comprehension',
  'English grammar and vocabulary': 'english-grammar',
  'customer-service situational judgement': 'customer-service-judgement',
  'sales situational judgement': 'sales-judgement',
  'spreadsheet skills': 'spreadsheet-skills',
  'typing, basic': 'typing-basic',
  'typing, standard': 'typing-standard',
  'typing, advanced': 'typing-advanced',
  'Big Five personality': 'big-five',
  'programming in JavaScript': 'javascript-fundamentals',
  'programming in Python': 'python-fundamentals',
  'problem solving in JavaScript or Python': 'problem-solving',
};

/** Similarity above which two prompts count as near-duplicates (Jaccard on word bigrams). */
const NEAR_DUPLICATE = 0.7;

const words = (text: string) => normaliseText(text).match(/[\p{L}\p{N}]+/gu) ?? [];

/** Word bigrams (the words themselves for a text of one word). */
function shingles(text: string): Set<string> {
  const w = words(text);
  if (w.length < 2) return new Set(w);
  return new Set(w.slice(1).map((word, i) => `${w[i]} ${word}`));
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * What a question asks, apart from what it shares with the other questions of its assessment: a
 * line repeated verbatim in another prompt of the same assessment (a table, a passage, a policy,
 * "Is this statement true...") is a shared stimulus, not the question. Falls back to the whole
 * prompt when every line is shared.
 */
function stems(prompts: readonly string[]): string[] {
  const lines = prompts.map((p) =>
    p
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== ''),
  );
  const seen = new Map<string, number>();
  for (const ls of lines) for (const l of new Set(ls)) seen.set(l, (seen.get(l) ?? 0) + 1);
  return lines.map((ls, i) => {
    const own = ls.filter((l) => seen.get(l) === 1);
    return (own.length > 0 ? own : ls).join('\n') || prompts[i]!;
  });
}

/** The answer a question's key gives, as the portal would send it (free text: any reply, to be reviewed). */
function keyedAnswer(q: QuestionContent): AnswerValue {
  switch (q.type) {
    case 'single-choice':
      return q.options.findIndex((o) => o.correct);
    case 'multiple-choice':
      return q.options.flatMap((o, i) => (o.correct ? [i] : []));
    case 'short-answer':
      return q.accept[0]!;
    case 'likert':
      return q.reverse ? 0 : scaleLabels(q.scale).length - 1;
    case 'ranking':
      return q.key.map((id) => q.options.findIndex((o) => o.id === id));
    case 'free-text':
      return 'A reply for the reviewer.';
    case 'coding':
      // Graded by running the program (test/library-coding.test.ts runs the reference solutions);
      // here, a program graded 100.
      return { language: q.languages[0]!, source: 'graded' };
  }
}

/** Problems with one question's answers and key, beyond what the importer refuses. */
function answerProblems(q: QuestionContent, shuffled: boolean): string[] {
  const problems: string[] = [];
  if (q.type === 'single-choice' || q.type === 'multiple-choice') {
    if (q.options.length < 3 || q.options.length > 6) problems.push(`has ${q.options.length} options, not 3 to 6`);
    // Case is kept: an option may differ from another only in case on purpose (br-207 and BR-207).
    const texts = q.options.map((o) => o.text.trim().replace(/\s+/g, ' ').replace(/\.$/, ''));
    if (new Set(texts).size !== texts.length) problems.push('has two options that differ only in spaces or a final full stop');
    const correct = q.options.filter((o) => o.correct).length;
    if (q.type === 'single-choice' && correct !== 1) problems.push(`has ${correct} keyed options, not 1`);
    if (q.type === 'multiple-choice' && (correct === 0 || correct === q.options.length)) problems.push('must key some options, not all');
    if (shuffled && q.options.some((o) => /\b(all|none|both) of the (above|below)\b/i.test(o.text))) problems.push('refers to other options by position, but options are shuffled');
  }
  if (q.type === 'short-answer') {
    const accepted = q.accept.map(normaliseText);
    if (accepted.some((a) => a === '')) problems.push('accepts an empty answer');
    if (new Set(accepted).size !== accepted.length) problems.push('accepts the same answer twice');
  }
  if (q.type === 'likert' && ![5, 7].includes(scaleLabels(q.scale).length)) problems.push('has a scale of other than 5 or 7 points');
  if (q.type === 'ranking') {
    const ids = q.options.map((o) => o.id).sort();
    if (JSON.stringify([...q.key].sort()) !== JSON.stringify(ids)) problems.push('has a key that is not an order of its options');
  }
  if (q.type === 'free-text' && !q.guidance) problems.push('has no guidance for the reviewer');
  return problems;
}

const pilot = (q: { pilotSeconds?: number }) => q.pilotSeconds;

describe('the assessment library (catalogue/)', () => {
  it('has at least twelve assessments, covering every subject the library promises', () => {
    assert.ok(library.length >= 12, `${library.length} assessments`);
    const ids = library.map((a) => a.content.id);
    for (const [subject, id] of Object.entries(SUBJECTS)) assert.ok(ids.includes(id), `${subject}: no assessment "${id}"`);
    for (const { file, content } of library) assert.equal(file, `${content.id}.yaml`, 'each file is named by its id');
  });

  for (const { file, content } of library) {
    describe(file, () => {
      it('states what it measures, for which roles, and its reading level', () => {
        assert.ok(content.description.length >= 80, 'a description of what it measures');
        assert.ok(content.roles && content.roles.length >= 2, 'the roles it suits');
        assert.match(content.readingLevel ?? '', /^CEFR (A1|A2|B1|B2|C1|C2)$/, 'a reading level (CEFR)');
        assert.ok(content.instructions, 'instructions for the candidate');
        assert.ok(content.instructions.includes(`${content.durationMinutes} minutes`), `the instructions state the duration (${content.durationMinutes} minutes)`);
      });

      it('has a realistic length and every category used', () => {
        const coding = content.questions.some((q) => q.type === 'coding');
        const ability = content.typingTest === undefined;
        if (ability) assert.ok(questionCount(content) >= (coding ? 4 : 8), `${questionCount(content)} questions`);
        for (const category of content.categories) {
          const n = content.questions.filter((q) => q.category === category.id).length + (content.typingTest?.category === category.id ? 1 : 0);
          assert.ok(n >= (content.typingTest ? 1 : 2), `category ${category.id} has ${n} items`);
        }
      });

      it('gives every question exactly the answers its type needs, with a consistent key', () => {
        const problems = [content.practice ? [{ ...content.practice, id: 'practice' } as QuestionContent] : [], content.questions]
          .flat()
          .flatMap((q) => answerProblems(q, content.shuffleOptions === true).map((p) => `${q.id} ${p}`));
        assert.deepEqual(problems, []);
      });

      it('scores 100 in every category when every question is answered by its key (free text reviewed at 100)', () => {
        const answers = Object.fromEntries(content.questions.map((q) => [q.id, keyedAnswer(q)]));
        const reviews = Object.fromEntries(content.questions.filter((q) => q.type === 'free-text' || q.type === 'coding').map((q) => [q.id, 100]));
        const typingWpm = content.typingTest?.targetWpm;
        const result = scoreAttempt({ content, answers, reviews, ...(typingWpm === undefined ? {} : { typingWpm }) });
        assert.equal(result.completion, 100);
        assert.deepEqual(
          result.categoryScores.filter((c) => c.score !== 100),
          [],
        );
        assert.equal(result.totalScore, 100);
      });

      it('has a pilot time for every question, adding up to no more than the duration and at least a quarter of it', () => {
        const missing = content.questions.filter((q) => pilot(q) === undefined).map((q) => q.id);
        assert.deepEqual(missing, [], 'questions without pilotSeconds');
        if (content.typingTest) assert.ok(pilot(content.typingTest), 'the typing test has pilotSeconds');
        const total = content.questions.reduce((sum, q) => sum + pilot(q)!, 0) + (content.typingTest?.pilotSeconds ?? 0);
        assert.ok(total <= content.durationMinutes * 60, `pilot times add up to ${total} s, more than ${content.durationMinutes} minutes`);
        assert.ok(total >= content.durationMinutes * 15, `pilot times add up to ${total} s, under a quarter of ${content.durationMinutes} minutes`);
      });

      it('sets a pass mark below 100, and a low pass not above it', () => {
        assert.ok(content.passScore < 100 && content.lowPassScore <= content.passScore);
      });
    });
  }

  it('has no prompt twice, nor two prompts that are near-duplicates, anywhere in the library', () => {
    const questions = library.flatMap(({ content }) => {
      const own = stems(content.questions.map((q) => q.prompt));
      return content.questions.map((q, i) => ({ where: `${content.id}/${q.id}`, prompt: normaliseText(q.prompt), stem: own[i]!, shingles: shingles(own[i]!) }));
    });
    const exact = new Map<string, string>();
    const problems: string[] = [];
    for (const q of questions) {
      const before = exact.get(q.prompt);
      if (before) problems.push(`${q.where} repeats ${before}`);
      exact.set(q.prompt, q.where);
    }
    for (let i = 0; i < questions.length; i++) {
      for (let j = i + 1; j < questions.length; j++) {
        const similarity = jaccard(questions[i]!.shingles, questions[j]!.shingles);
        if (similarity >= NEAR_DUPLICATE) problems.push(`${questions[i]!.where} ~ ${questions[j]!.where} (${similarity.toFixed(2)})`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('the near-duplicate check sees through case, punctuation and a shared stimulus, and only that', () => {
    assert.equal(jaccard(shingles('Which team handled the MOST orders?'), shingles('which team handled the most orders')), 1);
    assert.ok(jaccard(shingles('Often feel blue.'), shingles('Seldom feel blue.')) < NEAR_DUPLICATE);
    assert.ok(jaccard(shingles('Which team handled the most orders in March?'), shingles('Which team handled the most orders in April?')) >= NEAR_DUPLICATE);
    assert.deepEqual(stems(['| a | b |\nWhich is larger?', '| a | b |\nWhich is smaller?']), ['Which is larger?', 'Which is smaller?']);
    assert.deepEqual(stems(['Same.', 'Same.']), ['Same.', 'Same.']);
  });

  it('the Big Five inventory is the published IPIP 50-item marker set: 10 items a factor, keyed as published, no pass mark', () => {
    const bigFive = library.find((a) => a.content.id === 'big-five')!.content;
    assert.equal(bigFive.questions.length, 50);
    assert.equal(bigFive.passScore, 0);
    assert.equal(bigFive.lowPassScore, 0);
    assert.match(bigFive.description, /https:\/\/ipip\.ori\.org\/newBigFive5broadKey\.htm/);
    // Minus-keyed items per factor in the published key (ipip.ori.org/newBigFive5broadKey.htm).
    const reversed: Record<string, number> = { extraversion: 5, agreeableness: 4, conscientiousness: 4, 'emotional-stability': 8, intellect: 3 };
    for (const [factor, minus] of Object.entries(reversed)) {
      const items = bigFive.questions.filter((q) => q.category === factor);
      assert.equal(items.length, 10, factor);
      assert.ok(
        items.every((q) => q.type === 'likert'),
        factor,
      );
      assert.equal(items.filter((q) => q.type === 'likert' && q.reverse).length, minus, `${factor}: reverse-keyed items`);
    }
    // Answering "Very accurate" to everything scores each factor by its share of plus-keyed items.
    const allAccurate = Object.fromEntries(bigFive.questions.map((q) => [q.id, 4]));
    const result = scoreAttempt({ content: bigFive, answers: allAccurate, reviews: {} });
    assert.deepEqual(
      result.categoryScores.map((c) => c.score),
      [50, 60, 60, 20, 70],
    );
    assert.equal(result.scoreStatus, 'PASS', 'no pass mark: a completed inventory never fails');
  });
});

/** The tests of English itself, which stay in English (docs/library.md#languages). */
const TESTS_OF_ENGLISH = ['english-grammar', 'reading-comprehension'];
/** Every other assessment of the library ships in German and Spanish too. */
const TRANSLATED = library.map((a) => a.content.id).filter((id) => !TESTS_OF_ENGLISH.includes(id));

describe('the library in German and Spanish', () => {
  it('translates every assessment that is not a test of English, and only those stay English', () => {
    assert.ok(TRANSLATED.length >= 17, `${TRANSLATED.length} translated`);
    assert.deepEqual(
      library.filter((a) => contentLanguages(a.content).length === 1).map((a) => a.content.id),
      TESTS_OF_ENGLISH,
    );
  });

  for (const id of TRANSLATED) {
    const file = catalogueFiles().find((f) => path.basename(f) === `${id}.yaml`)!;
    const parsed = parseAssessment(readFileSync(file, 'utf8'));
    if (!parsed.ok) throw new Error(id);
    const content = parsed.content;
    for (const lang of ['de', 'es'] as const) {
      it(`${id} in ${lang}: every candidate-facing text translated, and scored as in English`, () => {
        assert.deepEqual(contentLanguages(content), ['en', 'de', 'es']);
        assert.deepEqual(
          parsed.warnings.map((w) => w.path),
          [],
          'no text left out',
        );
        // Every translatable string, walked here on its own (not only by the importer's warnings).
        const given = translationsOf(content)[lang]!;
        const practice = practiceOf(content);
        const absent = [
          ...(['name', 'description', 'instructions'] as const).filter((field) => !given[field]),
          ...content.categories.filter((c) => !given.categories?.[c.id]).map((c) => `categories.${c.id}`),
          ...content.questions.flatMap((q) => {
            const t = given.questions?.[q.id];
            return [
              ...(t?.prompt ? [] : [`${q.id}.prompt`]),
              ...('options' in q && t?.options?.length !== q.options.length ? [`${q.id}.options`] : []),
              ...(q.type === 'likert' && typeof q.scale !== 'string' && !t?.scale && !q.scale.every((l) => given.scaleLabels?.[l]) ? [`${q.id}.scale`] : []),
            ];
          }),
          ...(practice && !given.practice?.prompt ? ['practice.prompt'] : []),
          ...(practice && 'options' in practice && given.practice?.options?.length !== practice.options.length ? ['practice.options'] : []),
          ...(practice?.explanation && !given.practice?.explanation ? ['practice.explanation'] : []),
          ...(content.typingTest && !given.typingTest?.passage ? ['typingTest.passage'] : []),
        ];
        assert.deepEqual(absent, [], `${lang}: every text given`);
        const shown = localize(content, lang);
        // Translated: every prompt and the instructions differ from the English, which state the duration in the language.
        assert.deepEqual(
          shown.questions.filter((q, i) => q.prompt === content.questions[i]!.prompt).map((q) => q.id),
          [],
        );
        assert.ok(shown.instructions?.includes(`${content.durationMinutes} ${lang === 'de' ? 'Minuten' : 'minutos'}`), 'the instructions state the duration');
        const labels = shown.questions.flatMap((q) => (q.type === 'likert' ? scaleLabels(q.scale) : []));
        assert.ok(!labels.some((l) => /accurate/i.test(l)), 'the Likert labels are translated');
        // Only texts change: ids, keys, correct options, accepted answers and scales' lengths are the content's.
        const strip = (c: typeof content) =>
          JSON.stringify(
            c.questions.map((q) => ({
              ...q,
              prompt: '',
              ...('options' in q ? { options: q.options.map((o) => ({ ...o, text: '' })) } : {}),
              ...(q.type === 'likert' ? { scale: scaleLabels(q.scale).length } : {}),
            })),
          );
        assert.equal(strip(shown), strip(content));
        const answers = Object.fromEntries(content.questions.map((q) => [q.id, keyedAnswer(q)]));
        // (The score record names categories in English whatever the language: attempts are scored on the content itself.)
        const scored = (c: typeof content) => {
          const result = scoreAttempt({ content: c, answers, reviews: {} });
          return { ...result, categoryScores: result.categoryScores.map((category, i) => ({ ...category, name: content.categories[i]!.id })) };
        };
        assert.deepEqual(scored(shown), scored(content));
        // Options stay distinct in the language, as the importer requires of the original.
        for (const q of shown.questions) if ('options' in q) assert.equal(new Set(q.options.map((o) => o.text)).size, q.options.length, q.id);
        // A typing test's passage is written for the language, in its own letters.
        if (content.typingTest) {
          assert.notEqual(shown.typingTest!.passage, content.typingTest.passage);
          assert.match(shown.typingTest!.passage, lang === 'de' ? /[äöüß]/ : /[áéíóúñ]/);
        }
      });
    }
  }
});

describeEachStore('the library through the importer and the portal', (ctx) => {
  it('publishes every catalogue file, lists each one, and renders its introduction and every question page', async () => {
    const instance = await ctx().instance();
    for (const { file } of library) {
      const published = await publishLibraryFile(ctx(), instance, path.join(path.dirname(catalogueFiles()[0]!), file));
      assert.equal(published.statusCode, 201, `${file}: ${published.body}`);
    }
    const key = await ctx().key([instance]);
    const listed = (await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).json() as { id: string; questionCount: number }[];
    assert.deepEqual(listed.map((a) => a.id).sort(), library.map((a) => a.content.id).sort());

    const ids = library.map((a) => a.content.id);
    const invited = await invite(ctx(), { instance, key }, { email: 'library@example.com', firstName: 'Lib', lastName: 'Rary' }, ids);
    const browser = await openPortal(ctx(), invited.link, ids[0]!);
    for (const { content } of library) {
      const intro = await browser.get(`/portal/a/${content.id}`);
      assert.equal(intro.statusCode, 200, `${content.id}: ${intro.body.slice(0, 300)}`);
      assert.ok(intro.body.includes(content.name.replace(/&/g, '&amp;')), `${content.id}: the introduction names the assessment`);
      assert.ok(intro.body.includes(`name="csrf-token" content="${browser.csrf}"`), `${content.id}: the introduction carries the session's form token`);
      const started = await browser.form(`/portal/a/${content.id}/start`);
      assert.equal(started.statusCode, 303, `${content.id}: ${started.body}`);
      for (let n = 1; n <= questionCount(content); n++) {
        const page = await browser.get(`/portal/a/${content.id}?q=${n}`);
        assert.equal(page.statusCode, 200, `${content.id} question ${n}`);
        assert.match(page.body, /<form/, `${content.id} question ${n} shows a form`);
      }
    }
  });

  it('the console lists each assessment with what it measures, its roles and reading level, and previews them', async () => {
    const instance = await ctx().instance();
    for (const id of ['big-five', 'spreadsheet-skills']) {
      assert.equal((await publishLibraryFile(ctx(), instance, path.join(path.dirname(catalogueFiles()[0]!), `${id}.yaml`))).statusCode, 201);
    }
    const user = await consoleUser(ctx(), `owner-${instance}@example.com`, 'owner');
    const owner = await consoleAs(ctx(), `owner-${instance}@example.com`, user.password);
    const listed = await owner.get(`/console/assessments?instance=${instance}`);
    assert.equal(listed.statusCode, 200);
    const sheet = library.find((a) => a.content.id === 'spreadsheet-skills')!.content;
    assert.ok(listed.body.includes(sheet.description.slice(0, 60)), 'the description');
    assert.match(listed.body, /<dt>For roles<\/dt><dd>Administrator, Data entry clerk, /);
    assert.match(listed.body, /<dt>Reading level<\/dt><dd>CEFR B1<\/dd>/);
    const preview = await owner.get(`/console/assessments/big-five/preview?instance=${instance}`);
    assert.equal(preview.statusCode, 200);
    assert.match(preview.body, /Reading level: CEFR B1\./);
    assert.match(preview.body, /For roles: Any role, /);
  });
});
