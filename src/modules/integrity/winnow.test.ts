import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tokenize } from './tokenize.js';
import { hash32, similarity, winnow } from './winnow.js';
import { fingerprintsOf, segments, SIMILARITY } from './similarity.js';

const kinds = (src: string, language: 'javascript' | 'python') => tokenize(src, language).map((t) => t.t);

describe('tokenize', () => {
  it('renames identifiers, normalises literals and drops comments and whitespace in JavaScript', () => {
    assert.deepEqual(kinds('const total = xs.reduce((a, b) => a + b, 0); // sum\n/* done */ return `x${1}`;', 'javascript'), [
      'const', 'V', '=', 'V', '.', 'V', '(', '(', 'V', ',', 'V', ')', '=>', 'V', '+', 'V', ',', 'N', ')', ';', 'return', 'S', ';',
    ]); // prettier-ignore
    assert.deepEqual(kinds('let s = "a\\"b"; s += 0x1F + 1.5e3;', 'javascript'), ['let', 'V', '=', 'S', ';', 'V', '+=', 'N', '+', 'N', ';']);
  });
  it('does the same in Python, strings with prefixes and triple quotes included', () => {
    assert.deepEqual(kinds('def total(xs):\n    # add\n    return sum(xs) + f"{1}" + """doc\n"""', 'python'), [
      'def', 'V', '(', 'V', ')', ':', 'return', 'V', '(', 'V', ')', '+', 'S', '+', 'S',
    ]); // prettier-ignore
    assert.deepEqual(kinds('x //= 2 ** 3', 'python'), ['V', '//=', 'N', '**', 'N']);
  });
  it('keeps where each token stands, and lowercases the words of a text', () => {
    const tokens = tokenize('Hello,  World’s end', 'text');
    assert.deepEqual(
      tokens.map((t) => t.t),
      ['hello', 'world’s', 'end'],
    );
    assert.equal('Hello,  World’s end'.slice(tokens[1]!.start, tokens[1]!.end), 'World’s');
    const code = 'let  abc = 1';
    const [, id] = tokenize(code, 'javascript');
    assert.equal(code.slice(id!.start, id!.end), 'abc');
  });
  it('ends on unterminated strings and comments', () => {
    assert.deepEqual(kinds('x = "open', 'javascript'), ['V', '=', 'S']);
    assert.deepEqual(kinds('x /* open', 'javascript'), ['V']);
    assert.deepEqual(kinds("x = '''open", 'python'), ['V', '=', 'S']);
  });
});

describe('winnow', () => {
  const tokens = (n: number) => Array.from({ length: n }, (_, i) => ({ t: `t${i}`, start: i, end: i + 1 }));
  it('keeps one fingerprint in every window of w k-grams (the density guarantee)', () => {
    const k = 3;
    const w = 4;
    const prints = winnow(tokens(60), k, w);
    const positions = prints.map((p) => p.start);
    for (let left = 0; left + w <= 60 - k + 1; left++)
      assert.ok(
        positions.some((p) => p >= left && p < left + w),
        `window at ${left}`,
      );
    assert.ok(prints.length < 60 - k + 1, 'fewer fingerprints than k-grams');
  });
  it('gives nothing for fewer tokens than k, and the smallest k-gram for fewer than a window', () => {
    assert.deepEqual(winnow(tokens(2), 3, 4), []);
    assert.equal(winnow(tokens(4), 3, 4).length, 1);
  });
  it('hashes to signed 32-bit integers, the same for the same text', () => {
    assert.equal(hash32('abc'), hash32('abc'));
    assert.notEqual(hash32('abc'), hash32('abd'));
    assert.ok(Number.isInteger(hash32('x')) && hash32('x') >= -(2 ** 31) && hash32('x') < 2 ** 31);
  });
  it('scores the overlap of fingerprint sets (Jaccard)', () => {
    assert.equal(similarity([1, 2, 3], [1, 2, 3]), 1);
    assert.equal(similarity([1, 2], [3, 4]), 0);
    assert.equal(similarity([1, 2, 3], [2, 3, 4]), 0.5);
    assert.equal(similarity([], []), 0);
  });
});

describe('similarity of answers', () => {
  const a = `function total(xs) {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) {
    sum += xs[i];
  }
  return sum;
}`;
  const renamed = `function total(values) {
  // add them up
  let acc = 10;
  for (let idx = 0; idx < values.length; idx++) { acc += values[idx]; }
  return acc;
}`;
  const other = `function total(xs) {
  return xs.reduce((a, b) => a + b, 0);
}`;
  const hashes = (src: string, language: 'javascript' | 'python' | 'text' = 'javascript') => fingerprintsOf(src, language).map((f) => f.hash);
  it('finds a program with renamed variables, other literals and comments the same', () => {
    assert.equal(similarity(hashes(a), hashes(renamed)), 1);
  });
  it('tells a different solution apart', () => {
    assert.ok(similarity(hashes(a), hashes(other)) < SIMILARITY.threshold, String(similarity(hashes(a), hashes(other))));
  });
  it('leaves out what every candidate was given (the starter code)', () => {
    const starter = 'function total(xs) {\n}\n';
    const given = fingerprintsOf(a, 'javascript', [starter]).map((f) => f.hash);
    assert.ok(given.length > 0 && given.length <= hashes(a).length);
  });
  it('compares texts by their lowercased words', () => {
    const t1 = 'I would first ask the customer what they expected, then explain the delay and offer a refund.';
    const t2 = 'i WOULD first ask the customer what they expected; then explain the delay, and offer a refund!';
    const t3 = 'Escalating to a manager is the right call when a customer is angry about shipping times.';
    assert.equal(similarity(hashes(t1, 'text'), hashes(t2, 'text')), 1);
    assert.ok(similarity(hashes(t1, 'text'), hashes(t3, 'text')) < SIMILARITY.threshold);
  });
  it('cuts a text into shared and unshared stretches, overlaps merged', () => {
    assert.deepEqual(
      segments('abcdefghij', [
        [2, 5],
        [4, 7],
      ]),
      [
        { text: 'ab', shared: false },
        { text: 'cdefg', shared: true },
        { text: 'hij', shared: false },
      ],
    );
    assert.deepEqual(segments('abc', []), [{ text: 'abc', shared: false }]);
  });
});
