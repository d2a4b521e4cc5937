import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { AssessmentContent, QuestionContent } from '../assessments/content-schema.js';
import { normaliseText, numericValue, questionCredit, scoreAttempt, shortAnswerMatches, type AnswerValue } from './scoring.js';

const single: QuestionContent = { id: 's', category: 'a', type: 'single-choice', prompt: 'p', options: [{ text: 'x' }, { text: 'y', correct: true }, { text: 'z' }] };
const multiple: QuestionContent = {
  id: 'm',
  category: 'a',
  type: 'multiple-choice',
  prompt: 'p',
  options: [{ text: 'a', correct: true }, { text: 'b' }, { text: 'c', correct: true }, { text: 'd' }],
};
const short: QuestionContent = { id: 'h', category: 'a', type: 'short-answer', prompt: 'p', accept: ['1250', 'Paris'] };
const free: QuestionContent = { id: 'f', category: 'b', type: 'free-text', prompt: 'p' };

describe('question credit', () => {
  it('single choice: the correct option or nothing', () => {
    assert.equal(questionCredit(single, 1, undefined), 1);
    assert.equal(questionCredit(single, 0, undefined), 0);
    assert.equal(questionCredit(single, 7, undefined), 0);
    assert.equal(questionCredit(single, undefined, undefined), 0);
  });

  it('multiple choice: (right − wrong) / correct, never below 0', () => {
    assert.equal(questionCredit(multiple, [0, 2], undefined), 1);
    assert.equal(questionCredit(multiple, [0], undefined), 0.5);
    assert.equal(questionCredit(multiple, [0, 1], undefined), 0);
    assert.equal(questionCredit(multiple, [0, 2, 1], undefined), 0.5);
    assert.equal(questionCredit(multiple, [0, 1, 2, 3], undefined), 0, 'choosing everything earns nothing');
    assert.equal(questionCredit(multiple, [1, 3], undefined), 0);
    assert.equal(questionCredit(multiple, [], undefined), 0);
  });

  it('short answer: normalised text or the same number', () => {
    for (const given of ['1250', '1,250', ' 1250 ', '1250.00', '$1,250', '1250.', 'paris', '  PARIS ', 'Paris.']) {
      assert.equal(questionCredit(short, given, undefined), 1, given);
    }
    for (const given of ['125', '12,50', '1250x', 'Pariss', '', '   ', 'one thousand']) {
      assert.equal(questionCredit(short, given, undefined), 0, given);
    }
  });

  it('free text: awaits review, then the reviewer’s share', () => {
    assert.equal(questionCredit(free, 'An answer', undefined), null);
    assert.equal(questionCredit(free, 'An answer', 75), 0.75);
    assert.equal(questionCredit(free, '', undefined), 0, 'an empty answer needs no review');
  });
});

describe('text and number normalisation', () => {
  it('numbers', () => {
    assert.equal(numericValue('1,234,567.5'), 1234567.5);
    assert.equal(numericValue('12.5%'), 12.5);
    assert.equal(numericValue('-3'), -3);
    assert.equal(numericValue('1,23'), undefined);
    assert.equal(numericValue('abc'), undefined);
    assert.equal(numericValue(''), undefined);
  });
  it('text', () => {
    assert.equal(normaliseText('  Hello   World. '), 'hello world');
    assert.equal(shortAnswerMatches('ＰＡＲＩＳ', ['Paris']), true, 'full-width letters fold');
  });
});

const content = (over: Partial<AssessmentContent> = {}): AssessmentContent => ({
  id: 't',
  name: 'T',
  description: 'd',
  durationMinutes: 10,
  passScore: 70,
  lowPassScore: 50,
  categories: [
    { id: 'a', name: 'A', weight: 3 },
    { id: 'b', name: 'B', weight: 1 },
  ],
  questions: [single, multiple, short, free],
  ...over,
});

describe('scoreAttempt', () => {
  it('weights categories and points, and reports completion', () => {
    const result = scoreAttempt({ content: content(), answers: { s: 1, m: [0], h: 'nope', f: 'text' }, reviews: { f: 40 } });
    // A: (1 + 0.5 + 0) / 3 = 50 %; B: 40 %; total (3×50 + 1×40) / 4 = 47.5
    assert.deepEqual(result, {
      completion: 100,
      totalScore: 47.5,
      categoryScores: [
        { name: 'A', score: 50 },
        { name: 'B', score: 40 },
      ],
      awaitingReview: [],
      scoreStatus: 'FAIL',
    });
  });

  it('stays PENDING while a free-text answer awaits review', () => {
    const result = scoreAttempt({ content: content(), answers: { s: 1, m: [0, 2], h: '1250', f: 'text' }, reviews: {} });
    assert.equal(result.scoreStatus, 'PENDING');
    assert.deepEqual(result.awaitingReview, ['f']);
    assert.equal(scoreAttempt({ content: content(), answers: { s: 1, m: [0, 2], h: '1250', f: 'text' }, reviews: { f: 100 } }).scoreStatus, 'PASS');
  });

  it('decides PASS, LOW_PASS and FAIL at the thresholds, inclusive', () => {
    const c = content({ questions: [short], categories: [{ id: 'a', name: 'A' }], passScore: 100, lowPassScore: 0 });
    assert.equal(scoreAttempt({ content: c, answers: { h: '1250' }, reviews: {} }).scoreStatus, 'PASS');
    assert.equal(scoreAttempt({ content: c, answers: { h: 'x' }, reviews: {} }).scoreStatus, 'LOW_PASS');
    assert.equal(scoreAttempt({ content: { ...c, lowPassScore: 0.01 }, answers: {}, reviews: {} }).scoreStatus, 'FAIL');
  });

  it('counts the typing test as a question of its category', () => {
    const c = content({
      questions: [single],
      categories: [
        { id: 'a', name: 'A' },
        { id: 'typing', name: 'Typing' },
      ],
      typingTest: { category: 'typing', passage: 'x'.repeat(60), targetWpm: 40 },
    });
    const taken = scoreAttempt({ content: c, answers: { s: 1 }, reviews: {}, typingWpm: 30 });
    assert.deepEqual(taken.categoryScores, [
      { name: 'A', score: 100 },
      { name: 'Typing', score: 75 },
    ]);
    assert.equal(taken.completion, 100);
    const fast = scoreAttempt({ content: c, answers: { s: 1 }, reviews: {}, typingWpm: 95 });
    assert.equal(fast.categoryScores[1]!.score, 100, 'capped at the target');
    const skipped = scoreAttempt({ content: c, answers: { s: 1 }, reviews: {} });
    assert.equal(skipped.completion, 50);
    assert.equal(skipped.categoryScores[1]!.score, 0);
  });

  // Property-based: random assessments and answers.
  const questionArb: fc.Arbitrary<QuestionContent> = fc.oneof(
    fc.record({ n: fc.integer({ min: 2, max: 6 }), right: fc.nat(5), points: fc.integer({ min: 1, max: 5 }), cat: fc.constantFrom('a', 'b') }).map(
      ({ n, right, points, cat }): QuestionContent => ({
        id: '',
        category: cat,
        type: 'single-choice',
        prompt: 'p',
        points,
        options: Array.from({ length: n }, (_, i) => ({ text: `o${i}`, correct: i === right % n })),
      }),
    ),
    fc.record({ flags: fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }), points: fc.integer({ min: 1, max: 5 }), cat: fc.constantFrom('a', 'b') }).map(
      ({ flags, points, cat }): QuestionContent => {
        const correct = flags.map((f, i) => (i === 0 ? true : i === 1 ? false : f));
        return { id: '', category: cat, type: 'multiple-choice', prompt: 'p', points, options: correct.map((c, i) => ({ text: `o${i}`, correct: c })) };
      },
    ),
    fc.record({ points: fc.integer({ min: 1, max: 5 }), cat: fc.constantFrom('a', 'b') }).map(
      ({ points, cat }): QuestionContent => ({ id: '', category: cat, type: 'short-answer', prompt: 'p', points, accept: ['42'] }),
    ),
  );
  const assessmentArb = fc
    .record({
      questions: fc.array(questionArb, { minLength: 2, maxLength: 12 }),
      wa: fc.integer({ min: 1, max: 10 }),
      wb: fc.integer({ min: 1, max: 10 }),
    })
    .map(({ questions, wa, wb }) =>
      content({
        categories: [
          { id: 'a', name: 'A', weight: wa },
          { id: 'b', name: 'B', weight: wb },
        ],
        // Both categories need a question.
        questions: questions.map((q, i) => ({ ...q, id: `q${i}`, category: i === 0 ? 'a' : i === 1 ? 'b' : q.category })),
      }),
    );
  const correctAnswer = (q: QuestionContent): AnswerValue =>
    q.type === 'single-choice' ? q.options.findIndex((o) => o.correct) : q.type === 'multiple-choice' ? q.options.flatMap((o, i) => (o.correct ? [i] : [])) : '42';
  const wrongAnswer = (q: QuestionContent): AnswerValue =>
    q.type === 'single-choice' ? q.options.findIndex((o) => !o.correct) : q.type === 'multiple-choice' ? q.options.flatMap((o, i) => (o.correct ? [] : [i])) : 'nope';
  const answersArb = (c: AssessmentContent) =>
    fc.array(fc.constantFrom('right', 'wrong', 'none'), { minLength: c.questions.length, maxLength: c.questions.length }).map((kinds) =>
      Object.fromEntries(c.questions.map((q, i) => [q.id, kinds[i] === 'right' ? correctAnswer(q) : kinds[i] === 'wrong' ? wrongAnswer(q) : undefined])),
    );

  it('property: every score and completion lies within 0-100', () => {
    fc.assert(
      fc.property(assessmentArb.chain((c) => fc.tuple(fc.constant(c), answersArb(c))), ([c, answers]) => {
        const r = scoreAttempt({ content: c, answers, reviews: {} });
        for (const n of [r.totalScore, r.completion, ...r.categoryScores.map((s) => s.score)]) assert.ok(n >= 0 && n <= 100, String(n));
      }),
      { numRuns: 500 },
    );
  });

  it('property: answering one more question correctly never lowers any score', () => {
    fc.assert(
      fc.property(
        assessmentArb.chain((c) => fc.tuple(fc.constant(c), answersArb(c), fc.nat())),
        ([c, answers, pick]) => {
          const q = c.questions[pick % c.questions.length]!;
          const before = scoreAttempt({ content: c, answers, reviews: {} });
          const after = scoreAttempt({ content: c, answers: { ...answers, [q.id]: correctAnswer(q) }, reviews: {} });
          assert.ok(after.totalScore >= before.totalScore);
          after.categoryScores.forEach((s, i) => assert.ok(s.score >= before.categoryScores[i]!.score));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: all correct scores 100 and passes; nothing answered scores 0', () => {
    fc.assert(
      fc.property(assessmentArb, (c) => {
        const all = scoreAttempt({ content: c, answers: Object.fromEntries(c.questions.map((q) => [q.id, correctAnswer(q)])), reviews: {} });
        assert.equal(all.totalScore, 100);
        assert.equal(all.completion, 100);
        assert.equal(all.scoreStatus, 'PASS');
        const none = scoreAttempt({ content: c, answers: {}, reviews: {} });
        assert.equal(none.totalScore, 0);
        assert.equal(none.completion, 0);
      }),
      { numRuns: 300 },
    );
  });

  it('property: the total is the weight-average of the category scores', () => {
    fc.assert(
      fc.property(assessmentArb.chain((c) => fc.tuple(fc.constant(c), answersArb(c))), ([c, answers]) => {
        const r = scoreAttempt({ content: c, answers, reviews: {} });
        const [wa, wb] = c.categories.map((x) => x.weight ?? 1) as [number, number];
        const expected = (wa * r.categoryScores[0]!.score + wb * r.categoryScores[1]!.score) / (wa + wb);
        assert.ok(Math.abs(r.totalScore - expected) <= 0.01 + 1e-9, `${r.totalScore} vs ${expected}`);
        // Heavier weight on a category pulls the total towards it.
        const heavier = scoreAttempt({ content: { ...c, categories: [{ ...c.categories[0]!, weight: wa * 10 }, c.categories[1]!] }, answers, reviews: {} });
        const [a, b] = r.categoryScores.map((s) => s.score) as [number, number];
        if (a > b) assert.ok(heavier.totalScore >= r.totalScore - 0.01);
        if (a < b) assert.ok(heavier.totalScore <= r.totalScore + 0.01);
      }),
      { numRuns: 500 },
    );
  });
});
