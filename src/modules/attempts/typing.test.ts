import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { alignmentErrors, measureTyping } from './typing.js';
import { RULES, redFlagReasons, typingSignals, type Signal } from './proctoring.js';

const passage = 'The quick brown fox jumps over the lazy dog while the warehouse team counts every box twice.';

describe('typing measures', () => {
  it('a perfect copy in one minute: net = gross = characters / 5', () => {
    const m = measureTyping(passage, passage, 60_000);
    assert.equal(m.errors, 0);
    assert.equal(m.accuracy, 100);
    assert.equal(m.grossWpm, passage.length / 5);
    assert.equal(m.netWpm, passage.length / 5);
  });

  it('charges one error for a skipped, doubled or wrong letter, not every letter after it', () => {
    assert.equal(alignmentErrors('The quick brwn fox', passage), 1);
    assert.equal(alignmentErrors('The quiick brown fox', passage), 1);
    assert.equal(alignmentErrors('The quack brown fox', passage), 1);
    assert.equal(alignmentErrors('The quick brown fox', passage), 0, 'stopping early is not an error');
  });

  it('net wpm is gross less errors per minute, never below zero', () => {
    const half = passage.slice(0, 50).replace('quick', 'qxick');
    const m = measureTyping(passage, half, 30_000);
    assert.equal(m.errors, 1);
    assert.equal(m.grossWpm, 50 / 5 / 0.5);
    assert.equal(m.netWpm, 20 - 2);
    assert.equal(measureTyping(passage, 'zzzzzzzzzzzzzzzzzzzz', 60_000).netWpm, 0);
    assert.equal(measureTyping(passage, '', 60_000).netWpm, 0);
  });

  it('property: net ≤ gross, accuracy within 0-100, errors ≤ typed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 150 }), fc.integer({ min: 0, max: 600_000 }), (typed, ms) => {
        const m = measureTyping(passage, typed, ms);
        assert.ok(m.netWpm <= m.grossWpm + 1e-9);
        assert.ok(m.netWpm >= 0);
        assert.ok(m.accuracy >= 0 && m.accuracy <= 100);
        assert.ok(m.errors <= m.typed);
      }),
      { numRuns: 300 },
    );
  });
});

describe('proctoring rules', () => {
  const at = new Date();
  const signals = (...kinds: Signal['kind'][]): Signal[] => kinds.map((kind) => ({ kind, at, detail: '' }));

  it('flags nothing for a clean attempt or a single glance away', () => {
    assert.deepEqual(redFlagReasons([]), []);
    assert.deepEqual(redFlagReasons(signals('page-hidden', 'focus-lost', 'copy', 'fullscreen-exit')), []);
  });

  it('flags any paste', () => assert.deepEqual(redFlagReasons(signals('paste')), ['pasted 1 time']));
  it(`flags leaving the page ${RULES.awayTimes} times`, () =>
    assert.deepEqual(redFlagReasons(signals('page-hidden', 'focus-lost', 'page-hidden')), ['left the page 3 times']));
  it('flags repeated copying', () => assert.deepEqual(redFlagReasons(signals('copy', 'copy')), ['copied from the page 2 times']));
  it('flags leaving full screen repeatedly', () =>
    assert.deepEqual(redFlagReasons(signals('fullscreen-exit', 'fullscreen-exit', 'fullscreen-exit')), ['left full screen 3 times']));
  it('flags a change of address or browser', () => {
    assert.deepEqual(redFlagReasons(signals('address-changed')), ['the IP address changed during the attempt']);
    assert.deepEqual(redFlagReasons(signals('agent-changed')), ['the browser changed during the attempt']);
  });
  it('flags implausible typing', () => {
    assert.deepEqual(typingSignals(250, 100, Array(100).fill(50).map((x, i) => x + (i % 7) * 10)).map((s) => s.kind), ['typing-too-fast']);
    assert.deepEqual(typingSignals(60, 100, []).map((s) => s.kind), ['typing-no-rhythm']);
    assert.deepEqual(typingSignals(60, 100, Array(100).fill(40)).map((s) => s.kind), ['typing-no-rhythm'], 'machine-regular intervals');
    assert.deepEqual(typingSignals(60, 100, Array(100).fill(0).map((_, i) => 120 + ((i * 37) % 90))), [], 'a human rhythm');
    assert.deepEqual(redFlagReasons(signals('typing-too-fast')), ['typing faster than 200 wpm']);
  });
});
