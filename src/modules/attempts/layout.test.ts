// Property-based tests of an attempt's layout: a permutation, the same for the same seed, pools
// drawn to size, and a score that does not depend on the order shown.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseAssessment } from '../assessments/content.js';
import type { AssessmentContent } from '../assessments/content-schema.js';
import { attemptLayout, mulberry32, questionCount, shuffled } from './layout.js';
import { scoreAttempt, type AnswerValue } from './scoring.js';

function catalogue(name: string): AssessmentContent {
  const parsed = parseAssessment(readFileSync(path.resolve(import.meta.dirname, '..', '..', '..', 'catalogue', `${name}.yaml`), 'utf8'));
  assert.ok(parsed.ok);
  return parsed.content;
}

// Every demo assessment, shuffled both ways and with a pool on its first category.
const bases = ['numerical-reasoning', 'customer-support', 'data-entry', 'work-style'].map(catalogue);
const contentArb = fc
  .record({ base: fc.constantFrom(...bases), shuffleQuestions: fc.boolean(), shuffleOptions: fc.boolean(), pooled: fc.boolean(), draw: fc.nat() })
  .map(({ base, shuffleQuestions, shuffleOptions, pooled, draw }): AssessmentContent => {
    const first = base.categories[0]!.id;
    const size = base.questions.filter((q) => q.category === first).length;
    return { ...base, shuffleQuestions, shuffleOptions, ...(pooled ? { pools: [{ category: first, draw: 1 + (draw % size) }] } : {}) };
  });
const seedArb = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });

const isPermutationOf = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && [...a].sort().join('\u0001') === [...b].sort().join('\u0001');

/** Answers by id: each question of the content answered with a value its type accepts. */
const answersArb = (content: AssessmentContent) =>
  fc.tuple(...content.questions.map((q) => fc.option(answerArb(q), { nil: undefined }))).map((values) => Object.fromEntries(content.questions.map((q, i) => [q.id, values[i]])));
function answerArb(q: AssessmentContent['questions'][number]): fc.Arbitrary<AnswerValue> {
  switch (q.type) {
    case 'single-choice':
      return fc.nat(q.options.length - 1);
    case 'multiple-choice':
      return fc.subarray([...q.options.keys()], { minLength: 1 });
    case 'likert':
      return fc.nat(4);
    case 'ranking':
      return fc.shuffledSubarray([...q.options.keys()], { minLength: q.options.length, maxLength: q.options.length });
    case 'short-answer':
      return fc.constantFrom(...q.accept, 'wrong');
    case 'free-text':
      return fc.string({ minLength: 1 });
    case 'coding':
      return fc.constant({ language: q.languages[0]!, source: 'x' });
  }
}

describe('attempt layout', () => {
  it('is the same for the same seed, and (without pools) a permutation of the questions; option orders are permutations', () => {
    fc.assert(
      fc.property(contentArb, seedArb, (content, seed) => {
        const layout = attemptLayout(content, seed);
        assert.deepEqual(attemptLayout(content, seed), layout, 'the same seed, the same layout');
        assert.equal(new Set(layout.questions).size, layout.questions.length, 'no question twice');
        assert.equal(layout.questions.length, questionCount(content));
        if (!content.pools)
          assert.ok(
            isPermutationOf(
              layout.questions,
              content.questions.map((q) => q.id),
            ),
          );
        if (!content.shuffleQuestions) {
          const authored = content.questions.map((q) => q.id).filter((id) => layout.questions.includes(id));
          assert.deepEqual(layout.questions, authored, 'unshuffled: the authored order');
        }
        for (const [id, order] of Object.entries(layout.options)) {
          const q = content.questions.find((x) => x.id === id)!;
          assert.ok(q.type === 'single-choice' || q.type === 'multiple-choice', 'only choice questions have their options shuffled');
          assert.ok(isPermutationOf(order, [...q.options.keys()]));
        }
        if (!content.shuffleOptions) assert.deepEqual(layout.options, {});
      }),
      { numRuns: 300 },
    );
  });

  it('draws exactly the pool size from a pooled category and keeps every other question', () => {
    fc.assert(
      fc.property(contentArb, seedArb, (content, seed) => {
        const layout = attemptLayout(content, seed);
        for (const category of content.categories) {
          const ids = content.questions.filter((q) => q.category === category.id).map((q) => q.id);
          const given = layout.questions.filter((id) => ids.includes(id));
          const pool = content.pools?.find((p) => p.category === category.id);
          assert.equal(given.length, pool ? pool.draw : ids.length);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('scores a shuffled attempt the same as the unshuffled one for the same answers', () => {
    fc.assert(
      fc.property(
        contentArb.chain((content) => fc.tuple(fc.constant(content), seedArb, answersArb(content), fc.integer({ min: 0, max: 200 }))),
        ([content, seed, answers, wpm]) => {
          const shuffledLayout = attemptLayout(content, seed);
          // The same questions in the authored order, options as written: the same answers (by id).
          const plain = attemptLayout({ ...content, shuffleQuestions: false, shuffleOptions: false }, seed);
          assert.ok(isPermutationOf(plain.questions, shuffledLayout.questions), 'the same draw from the same seed');
          const score = (questionIds: string[]) => scoreAttempt({ content, questionIds, answers, reviews: {}, typingWpm: content.typingTest ? wpm : undefined });
          assert.deepEqual(score(shuffledLayout.questions), score(plain.questions));
          assert.deepEqual(score([...shuffledLayout.questions].reverse()), score(plain.questions));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a candidate choosing by what they see scores the same whatever order the options were shown in', () => {
    const content = { ...bases[0]!, shuffleOptions: true };
    const choice = content.questions.filter((q) => q.type === 'single-choice');
    fc.assert(
      fc.property(seedArb, fc.array(fc.nat(), { minLength: choice.length, maxLength: choice.length }), (seed, picks) => {
        const layout = attemptLayout(content, seed);
        // The candidate picks an option by its text; the page posts that option's own index.
        const texts = choice.map((q, i) => (q.type === 'single-choice' ? q.options[picks[i]! % q.options.length]!.text : ''));
        const posted = Object.fromEntries(
          choice.map((q, i) => {
            const order = layout.options[q.id]!;
            const place = order.findIndex((index) => q.type === 'single-choice' && q.options[index]!.text === texts[i]);
            return [q.id, order[place]!];
          }),
        );
        const unshuffled = Object.fromEntries(choice.map((q, i) => [q.id, q.type === 'single-choice' ? q.options.findIndex((o) => o.text === texts[i]) : 0]));
        assert.deepEqual(scoreAttempt({ content, answers: posted, reviews: {} }), scoreAttempt({ content, answers: unshuffled, reviews: {} }));
      }),
    );
  });

  it('with a pool, the maximum is that of the drawn questions: all of them right scores 100', () => {
    const base = bases[0]!;
    const content: AssessmentContent = { ...base, pools: [{ category: 'arithmetic', draw: 2 }] };
    const layout = attemptLayout(content, 42);
    const right = Object.fromEntries(
      content.questions.map((q): [string, AnswerValue] => [
        q.id,
        q.type === 'single-choice'
          ? q.options.findIndex((o) => o.correct)
          : q.type === 'multiple-choice'
            ? [...q.options.keys()].filter((i) => q.options[i]!.correct)
            : q.type === 'short-answer'
              ? q.accept[0]!
              : '',
      ]),
    );
    const result = scoreAttempt({ content, questionIds: layout.questions, answers: right, reviews: {} });
    assert.equal(result.totalScore, 100);
    assert.equal(result.completion, 100);
    // Answers to questions not drawn count for nothing: the same score without them.
    const own = Object.fromEntries(Object.entries(right).filter(([id]) => layout.questions.includes(id)));
    assert.deepEqual(scoreAttempt({ content, questionIds: layout.questions, answers: own, reviews: {} }), result);
  });

  it('the generator is deterministic, spreads its values, and the shuffle is uniform enough', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const values = Array.from({ length: 1000 }, () => a());
    assert.deepEqual(
      values,
      Array.from({ length: 1000 }, () => b()),
    );
    assert.ok(values.every((v) => v >= 0 && v < 1));
    // Each of the 6 orders of 3 items about 1/6 of 6000 shuffles.
    const counts = new Map<string, number>();
    const random = mulberry32(2026);
    for (let i = 0; i < 6000; i++) {
      const key = shuffled([1, 2, 3], random).join('');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    assert.equal(counts.size, 6);
    for (const n of counts.values()) assert.ok(n > 850 && n < 1150, `${n} of 6000`);
  });
});
