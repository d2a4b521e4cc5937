import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { scaleLabels, type AssessmentContent, type QuestionContent } from '../assessments/content-schema.js';
import { footrule, maxFootrule, normaliseText, numericValue, questionCredit, scoreAttempt, shortAnswerMatches, type AnswerValue } from './scoring.js';

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

type Likert = Extract<QuestionContent, { type: 'likert' }>;
type Ranking = Extract<QuestionContent, { type: 'ranking' }>;

/** The point that scores highest on a Likert item: the top of the scale, or the bottom when reverse-keyed. */
const likertBest = (q: Likert) => (q.reverse ? 0 : scaleLabels(q.scale).length - 1);
/** The key's order as option indexes, the answer that earns full credit. */
const keyOrder = (q: Ranking) => q.key.map((id) => q.options.findIndex((o) => o.id === id));

/** A ranking of 3-8 options, listed in a random order, with a random key. */
const rankingArb: fc.Arbitrary<Ranking> = fc.integer({ min: 3, max: 8 }).chain((n) =>
  fc
    .tuple(fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }), fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }))
    .map(([listed, key]): Ranking => ({
      id: 'r',
      category: 'a',
      type: 'ranking',
      prompt: 'p',
      options: listed.map((i) => ({ id: `o${i}`, text: `Option ${i}` })),
      key: key.map((i) => `o${i}`),
    })),
);
/** A ranking with an order of its options (a permutation of their indexes). */
const rankedArb = rankingArb.chain((q) => fc.tuple(fc.constant(q), fc.shuffledSubarray([...q.options.keys()], { minLength: q.options.length, maxLength: q.options.length })));

const likertArb: fc.Arbitrary<Likert> = fc
  .record({
    scale: fc.oneof(
      fc.constantFrom('agreement-5', 'agreement-7', 'frequency-5'),
      fc.constantFrom(5, 7).map((k) => Array.from({ length: k }, (_, i) => `L${i}`)),
    ),
    reverse: fc.boolean(),
  })
  .map(({ scale, reverse }): Likert => ({ id: 'l', category: 'a', type: 'likert', prompt: 'p', scale, reverse }));
const likertAnsweredArb = likertArb.chain((q) => fc.tuple(fc.constant(q), fc.nat(scaleLabels(q.scale).length - 1)));

describe('Likert items', () => {
  const item = (over: Partial<Likert> = {}): Likert => ({ id: 'l', category: 'a', type: 'likert', prompt: 'p', scale: 'agreement-5', ...over });

  it('scores point x of k as (x − 1) / (k − 1), reverse-keyed as (k − x) / (k − 1)', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((x) => questionCredit(item(), x, undefined)),
      [0, 0.25, 0.5, 0.75, 1],
    );
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((x) => questionCredit(item({ reverse: true }), x, undefined)),
      [1, 0.75, 0.5, 0.25, 0],
    );
    assert.deepEqual(
      [0, 3, 6].map((x) => questionCredit(item({ scale: 'agreement-7' }), x, undefined)),
      [0, 0.5, 1],
    );
    assert.equal(questionCredit(item({ scale: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], reverse: true }), 1, undefined), 5 / 6);
  });

  it('unanswered or out of range earns 0, the same as the lowest keyed point', () => {
    assert.equal(questionCredit(item(), undefined, undefined), 0);
    assert.equal(questionCredit(item({ reverse: true }), undefined, undefined), 0);
    assert.equal(questionCredit(item(), 5, undefined), 0);
    assert.equal(questionCredit(item(), -1, undefined), 0);
    assert.equal(questionCredit(item(), 1.5, undefined), 0);
  });

  it('property: credit lies in [0, 1], and the keyed best point earns 1, the keyed worst 0', () => {
    fc.assert(
      fc.property(likertAnsweredArb, ([q, x]) => {
        const credit = questionCredit(q, x, undefined)!;
        assert.ok(credit >= 0 && credit <= 1, String(credit));
        const k = scaleLabels(q.scale).length;
        assert.equal(questionCredit(q, likertBest(q), undefined), 1);
        assert.equal(questionCredit(q, k - 1 - likertBest(q), undefined), 0);
      }),
      { numRuns: 300 },
    );
  });

  it('property: reverse keying mirrors the scale: reverse(x) = 1 − forward(x) = forward(k − 1 − x)', () => {
    fc.assert(
      fc.property(likertAnsweredArb, ([q, x]) => {
        const k = scaleLabels(q.scale).length;
        const forward = { ...q, reverse: false };
        const reverse = { ...q, reverse: true };
        assert.ok(Math.abs(questionCredit(reverse, x, undefined)! - (1 - questionCredit(forward, x, undefined)!)) < 1e-12);
        assert.equal(questionCredit(reverse, x, undefined), questionCredit(forward, k - 1 - x, undefined));
      }),
      { numRuns: 300 },
    );
  });

  it('property: never answering scores no more than any answer (skipping cannot help)', () => {
    fc.assert(
      fc.property(likertAnsweredArb, ([q, x]) => assert.ok(questionCredit(q, undefined, undefined)! <= questionCredit(q, x, undefined)!)),
      { numRuns: 200 },
    );
  });

  it('property: a category of Likert items of one scale and equal points scores (sum − min) / (max − min) of the keyed scores', () => {
    const scaleArb = fc.record({
      k: fc.constantFrom(5, 7),
      items: fc.array(fc.record({ reverse: fc.boolean(), x: fc.option(fc.nat(6), { nil: undefined }) }), { minLength: 1, maxLength: 12 }),
      points: fc.integer({ min: 1, max: 5 }),
    });
    fc.assert(
      fc.property(scaleArb, ({ k, items, points }) => {
        const questions = items.map(({ reverse }, i): Likert => ({
          id: `l${i}`,
          category: 'a',
          type: 'likert',
          prompt: 'p',
          scale: k === 5 ? 'agreement-5' : 'agreement-7',
          reverse,
          points,
        }));
        const answers = Object.fromEntries(items.map(({ x }, i) => [`l${i}`, x === undefined ? undefined : x % k]));
        const c = content({ categories: [{ id: 'a', name: 'A' }], questions });
        const result = scoreAttempt({ content: c, answers, reviews: {} });
        // Unanswered items count as the lowest keyed score, 1.
        const sum = items.reduce((total, { reverse, x }) => total + (x === undefined ? 1 : reverse ? k - (x % k) : (x % k) + 1), 0);
        const [min, max] = [items.length, items.length * k];
        const expected = (100 * (sum - min)) / (max - min);
        assert.ok(Math.abs(result.categoryScores[0]!.score - expected) <= 0.005 + 1e-9, `${result.categoryScores[0]!.score} vs ${expected}`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('ranking questions', () => {
  const ranking: Ranking = {
    id: 'r',
    category: 'a',
    type: 'ranking',
    prompt: 'p',
    options: [
      { id: 'c', text: 'C' },
      { id: 'a', text: 'A' },
      { id: 'd', text: 'D' },
      { id: 'b', text: 'B' },
    ],
    key: ['a', 'b', 'c', 'd'],
  };

  it('scores 1 − footrule / ⌊n²/2⌋ against the key', () => {
    // Options by index: 0 = C, 1 = A, 2 = D, 3 = B.
    assert.equal(questionCredit(ranking, [1, 3, 0, 2], undefined), 1, 'the key: A B C D');
    assert.equal(questionCredit(ranking, [2, 0, 3, 1], undefined), 0, 'the reverse: D C B A');
    assert.equal(questionCredit(ranking, [3, 1, 0, 2], undefined), 1 - 2 / 8, 'B A C D: one adjacent swap');
    assert.equal(questionCredit(ranking, [3, 0, 2, 1], undefined), 1 - 6 / 8, 'B C D A: three options one place off, one three');
    // The reverse is not the only order as far from the key as can be: each option two places off is too.
    assert.equal(questionCredit(ranking, [0, 2, 1, 3], undefined), 0, 'C D A B');
    assert.deepEqual([3, 4, 5, 6, 7, 8].map(maxFootrule), [4, 8, 12, 18, 24, 32]);
  });

  it('an answer that is not a permutation of the options earns 0', () => {
    for (const bad of [undefined, [1, 3, 0], [1, 3, 0, 0], [1, 3, 0, 4], [1, 3, 0, 2, 2], 'ABCD', 2]) {
      assert.equal(questionCredit(ranking, bad as AnswerValue | undefined, undefined), 0, JSON.stringify(bad));
    }
  });

  it('property: credit lies in [0, 1]; the key earns 1 and its reverse 0', () => {
    fc.assert(
      fc.property(rankedArb, ([q, order]) => {
        const credit = questionCredit(q, order, undefined)!;
        assert.ok(credit >= 0 && credit <= 1, String(credit));
        assert.equal(questionCredit(q, keyOrder(q), undefined), 1);
        assert.equal(questionCredit(q, keyOrder(q).reverse(), undefined), 0);
        // Only the key earns full credit.
        assert.equal(credit === 1, JSON.stringify(order) === JSON.stringify(keyOrder(q)));
      }),
      { numRuns: 500 },
    );
  });

  it('property: the score does not depend on the order the options are listed (presented) in', () => {
    fc.assert(
      fc.property(
        rankedArb.chain(([q, order]) =>
          fc.tuple(fc.constant(q), fc.constant(order), fc.shuffledSubarray([...q.options.keys()], { minLength: q.options.length, maxLength: q.options.length })),
        ),
        ([q, order, relisting]) => {
          // The same options listed in another order; the same ranking, by option, in its indexes.
          const relisted: Ranking = { ...q, options: relisting.map((i) => q.options[i]!) };
          const sameOrder = order.map((i) => relisting.indexOf(i));
          assert.equal(questionCredit(relisted, sameOrder, undefined), questionCredit(q, order, undefined));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('property: reversing an answer swaps its distances to the key and to the key’s reverse', () => {
    fc.assert(
      fc.property(rankedArb, ([q, order]) => {
        const keyPlace = q.options.map((o) => q.key.indexOf(o.id));
        const toKey = footrule(order, keyPlace);
        const reversedKeyPlace = keyPlace.map((p) => q.options.length - 1 - p);
        const toReverse = footrule(order, reversedKeyPlace);
        const credit = questionCredit(q, order, undefined)!;
        const reversedCredit = questionCredit(q, [...order].reverse(), undefined)!;
        // Reversing the answer swaps its distances to the key and to the key's reverse.
        assert.equal(footrule([...order].reverse(), keyPlace), toReverse);
        if (toKey <= toReverse) assert.ok(credit >= reversedCredit);
      }),
      { numRuns: 300 },
    );
  });

  it('property: moving one option a place towards its place in the key never lowers the credit', () => {
    fc.assert(
      fc.property(
        rankedArb.chain(([q, order]) => fc.tuple(fc.constant(q), fc.constant(order), fc.nat(q.options.length - 2))),
        ([q, order, at]) => {
          const keyPlace = q.options.map((o) => q.key.indexOf(o.id));
          // Swap the neighbours at `at` and `at + 1` when that puts them in the key's relative order.
          if (keyPlace[order[at]!]! < keyPlace[order[at + 1]!]!) return;
          const swapped = [...order];
          [swapped[at], swapped[at + 1]] = [swapped[at + 1]!, swapped[at]!];
          assert.ok(questionCredit(q, swapped, undefined)! >= questionCredit(q, order, undefined)!);
        },
      ),
      { numRuns: 500 },
    );
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
    fc
      .record({ n: fc.integer({ min: 2, max: 6 }), right: fc.nat(5), points: fc.integer({ min: 1, max: 5 }), cat: fc.constantFrom('a', 'b') })
      .map(({ n, right, points, cat }): QuestionContent => ({
        id: '',
        category: cat,
        type: 'single-choice',
        prompt: 'p',
        points,
        options: Array.from({ length: n }, (_, i) => ({ text: `o${i}`, correct: i === right % n })),
      })),
    fc
      .record({ flags: fc.array(fc.boolean(), { minLength: 2, maxLength: 6 }), points: fc.integer({ min: 1, max: 5 }), cat: fc.constantFrom('a', 'b') })
      .map(({ flags, points, cat }): QuestionContent => {
        const correct = flags.map((f, i) => (i === 0 ? true : i === 1 ? false : f));
        return { id: '', category: cat, type: 'multiple-choice', prompt: 'p', points, options: correct.map((c, i) => ({ text: `o${i}`, correct: c })) };
      }),
    fc
      .record({ points: fc.integer({ min: 1, max: 5 }), cat: fc.constantFrom('a', 'b') })
      .map(({ points, cat }): QuestionContent => ({ id: '', category: cat, type: 'short-answer', prompt: 'p', points, accept: ['42'] })),
    fc
      .record({
        scale: fc.constantFrom('agreement-5', 'agreement-7', 'frequency-5'),
        reverse: fc.boolean(),
        points: fc.integer({ min: 1, max: 5 }),
        cat: fc.constantFrom('a', 'b'),
      })
      .map(({ scale, reverse, points, cat }): QuestionContent => ({ id: '', category: cat, type: 'likert', prompt: 'p', points, scale, reverse })),
    rankingArb.map((q) => ({ ...q, points: 2 })),
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
    q.type === 'single-choice'
      ? q.options.findIndex((o) => o.correct)
      : q.type === 'multiple-choice'
        ? q.options.flatMap((o, i) => (o.correct ? [i] : []))
        : q.type === 'likert'
          ? likertBest(q)
          : q.type === 'ranking'
            ? keyOrder(q)
            : '42';
  const wrongAnswer = (q: QuestionContent): AnswerValue =>
    q.type === 'single-choice'
      ? q.options.findIndex((o) => !o.correct)
      : q.type === 'multiple-choice'
        ? q.options.flatMap((o, i) => (o.correct ? [] : [i]))
        : q.type === 'likert'
          ? scaleLabels(q.scale).length - 1 - likertBest(q)
          : q.type === 'ranking'
            ? keyOrder(q).reverse()
            : 'nope';
  const answersArb = (c: AssessmentContent) =>
    fc
      .array(fc.constantFrom('right', 'wrong', 'none'), { minLength: c.questions.length, maxLength: c.questions.length })
      .map((kinds) => Object.fromEntries(c.questions.map((q, i) => [q.id, kinds[i] === 'right' ? correctAnswer(q) : kinds[i] === 'wrong' ? wrongAnswer(q) : undefined])));

  it('property: every score and completion lies within 0-100', () => {
    fc.assert(
      fc.property(
        assessmentArb.chain((c) => fc.tuple(fc.constant(c), answersArb(c))),
        ([c, answers]) => {
          const r = scoreAttempt({ content: c, answers, reviews: {} });
          for (const n of [r.totalScore, r.completion, ...r.categoryScores.map((s) => s.score)]) assert.ok(n >= 0 && n <= 100, String(n));
        },
      ),
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
      fc.property(
        assessmentArb.chain((c) => fc.tuple(fc.constant(c), answersArb(c))),
        ([c, answers]) => {
          const r = scoreAttempt({ content: c, answers, reviews: {} });
          const [wa, wb] = c.categories.map((x) => x.weight ?? 1) as [number, number];
          const expected = (wa * r.categoryScores[0]!.score + wb * r.categoryScores[1]!.score) / (wa + wb);
          assert.ok(Math.abs(r.totalScore - expected) <= 0.01 + 1e-9, `${r.totalScore} vs ${expected}`);
          // Heavier weight on a category pulls the total towards it.
          const heavier = scoreAttempt({ content: { ...c, categories: [{ ...c.categories[0]!, weight: wa * 10 }, c.categories[1]!] }, answers, reviews: {} });
          const [a, b] = r.categoryScores.map((s) => s.score) as [number, number];
          if (a > b) assert.ok(heavier.totalScore >= r.totalScore - 0.01);
          if (a < b) assert.ok(heavier.totalScore <= r.totalScore + 0.01);
        },
      ),
      { numRuns: 500 },
    );
  });
});
