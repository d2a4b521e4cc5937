// The content rules of shuffling, question pools and the practice question: what is accepted, and
// for every mistake a message at its path and line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAssessment } from './content.js';

const HEAD = `id: numbers
name: Numbers
description: d
durationMinutes: 10
passScore: 50
lowPassScore: 40
categories:
  - id: sums
    name: Sums
  - id: words
    name: Words
questions:
  - id: s1
    category: sums
    type: short-answer
    prompt: 1 + 1?
    accept: ["2"]
  - id: s2
    category: sums
    type: short-answer
    prompt: 2 + 2?
    accept: ["4"]
  - id: s3
    category: sums
    type: single-choice
    prompt: 3 + 3?
    options:
      - text: "6"
        correct: true
      - text: "7"
  - id: w1
    category: words
    type: free-text
    prompt: Say something.
`;

/** Parses HEAD + the rest, expecting failure; returns "path@line: message" lines. */
function problems(rest: string): string[] {
  const parsed = parseAssessment(HEAD + rest);
  assert.equal(parsed.ok, false, 'expected errors');
  return parsed.ok ? [] : parsed.errors.map((e) => `${e.path}@${e.line}: ${e.message}`);
}

const PRACTICE = `practice:
  type: single-choice
  prompt: 2 + 5?
  options:
    - text: "7"
      correct: true
    - text: "8"
  explanation: Two and five make seven.
`;

describe('shuffling, pools and the practice question in content', () => {
  it('accepts shuffleQuestions, shuffleOptions, pools and a practice question of any type', () => {
    const parsed = parseAssessment(`${HEAD}shuffleQuestions: true\nshuffleOptions: true\npools:\n  - category: sums\n    draw: 2\n${PRACTICE}`);
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.errors));
    assert.equal(parsed.content.shuffleQuestions, true);
    assert.deepEqual(parsed.content.pools, [{ category: 'sums', draw: 2 }]);
    // The practice question's id defaults to "practice"; it has no category.
    assert.deepEqual(parsed.content.practice, {
      id: 'practice',
      type: 'single-choice',
      prompt: '2 + 5?',
      options: [{ text: '7', correct: true }, { text: '8' }],
      explanation: 'Two and five make seven.',
    });
    for (const practice of [
      'practice:\n  type: likert\n  prompt: I like sums.\n  scale: agreement-5\n',
      'practice:\n  type: short-answer\n  prompt: 1 + 2?\n  accept: ["3"]\n',
      'practice:\n  type: free-text\n  prompt: Tell us.\n',
      'practice:\n  type: ranking\n  prompt: Order.\n  options:\n    - { id: a, text: A }\n    - { id: b, text: B }\n    - { id: c, text: C }\n  key: [c, b, a]\n',
    ]) {
      const ok = parseAssessment(HEAD + practice);
      assert.ok(ok.ok, JSON.stringify(!ok.ok && ok.errors));
    }
    // A draw of the whole pool is allowed (every question, in an order of its own).
    assert.ok(parseAssessment(`${HEAD}pools:\n  - category: sums\n    draw: 3\n`).ok);
  });

  it('refuses a draw below 1 or above the pool, an unknown or repeated category, and unknown fields', () => {
    assert.deepEqual(problems('pools:\n  - category: sums\n    draw: 0\n'), ['pools.0.draw@37: must be at least 1, is 0']);
    assert.deepEqual(problems('pools:\n  - category: sums\n    draw: -2\n'), ['pools.0.draw@37: must be at least 1, is -2']);
    assert.deepEqual(problems('pools:\n  - category: sums\n    draw: 4\n'), ['pools.0.draw@37: must be at most 3, the number of questions in category "sums", is 4']);
    assert.deepEqual(problems('pools:\n  - category: sums\n    draw: 1.5\n'), ['pools.0.draw@37: must be integer']);
    assert.deepEqual(problems('pools:\n  - category: maths\n    draw: 1\n'), ['pools.0.category@36: "maths" is not a category of this assessment']);
    assert.deepEqual(problems('pools:\n  - category: sums\n    draw: 1\n  - category: sums\n    draw: 2\n'), ['pools.1.category@38: "sums" has another pool already']);
    assert.deepEqual(problems('pools:\n  - category: sums\n'), ['pools.0@36: is missing "draw"']);
    assert.deepEqual(problems('pools:\n  - category: sums\n    draw: 1\n    weight: 2\n'), ['pools.0.weight@38: "weight" is not a known field']);
    assert.deepEqual(problems('pools: []\n'), ['pools@35: must have at least 1 item, has 0']);
    assert.deepEqual(problems('shuffleQuestions: yes please\n'), ['shuffleQuestions@35: must be boolean']);
    assert.deepEqual(problems('shuffleOptions: 1\n'), ['shuffleOptions@35: must be boolean']);
  });

  it('refuses a practice question that is not a valid question of its type, or that would be scored', () => {
    assert.deepEqual(problems('practice:\n  type: essay\n  prompt: Hi\n'), [
      'practice.type@36: must be one of: single-choice, multiple-choice, short-answer, free-text, likert, ranking',
    ]);
    assert.deepEqual(problems(PRACTICE.replace('  prompt:', '  category: sums\n  prompt:')), [
      'practice.category@37: a practice question is never scored, so it takes no "category": remove it',
    ]);
    assert.deepEqual(problems(PRACTICE.replace('  prompt:', '  points: 2\n  prompt:')), [
      'practice.points@37: a practice question is never scored, so it takes no "points": remove it',
    ]);
    assert.deepEqual(problems(PRACTICE.replace('    - text: "8"\n', '    - text: "8"\n      correct: true\n')), [
      'practice.options@38: must have exactly one correct option, has 2',
    ]);
    assert.deepEqual(problems(PRACTICE.replace('  prompt: 2 + 5?\n', '')), ['practice@35: is missing "prompt"']);
    assert.deepEqual(problems(PRACTICE.replace('  explanation: Two and five make seven.\n', '  hint: x\n')), ['practice.hint@42: "hint" is not a known field']);
    assert.deepEqual(problems('practice:\n  type: likert\n  prompt: I like sums.\n  scale: agree\n'), [
      'practice.scale@38: "agree" is not a scale: use one of agreement-5, agreement-7, frequency-5, or a list of 5 or 7 labels',
    ]);
    assert.deepEqual(problems('practice: yes\n'), ['practice@35: must be object']);
  });
});
