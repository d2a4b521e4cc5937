import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HEADLESS_AGENT, paceSignal, redFlagOf, redFlagReasonsOf, riskOf, RULES } from './proctoring.js';

describe('risk level', () => {
  it('is low with no signal', () => assert.deepEqual(riskOf({}), { level: 'low', reasons: [] }));
  it('is medium for signals below the red-flag rules, an answer without typing or a machine pace', () => {
    assert.deepEqual(riskOf({ 'focus-lost': 1, copy: 1 }), { level: 'medium', reasons: ['left the page once', 'copied from the page once'] });
    assert.deepEqual(riskOf({ 'untyped-answer': 2 }), { level: 'medium', reasons: ['2 answers appeared without typing'] });
    assert.deepEqual(riskOf({ 'machine-pace': 1, 'fullscreen-exit': 2 }), {
      level: 'medium',
      reasons: ['answers came at a near-constant pace faster than a person reads', 'left full screen 2 times'],
    });
  });
  it('is high exactly when a red-flag rule holds, automation included; the red flag is "high"', () => {
    assert.deepEqual(riskOf({ paste: 1, 'focus-lost': 1 }), { level: 'high', reasons: ['pasted 1 time'] });
    assert.deepEqual(riskOf({ automation: 1 }).reasons, ['the browser was controlled by automation software']);
    for (const counts of [{}, { copy: 1 }, { paste: 1 }, { automation: 2 }, { 'page-hidden': 3 }, { 'untyped-answer': 5 }]) {
      assert.equal(redFlagOf(counts), redFlagReasonsOf(counts).length > 0, JSON.stringify(counts));
    }
    assert.equal(redFlagOf({ paste: 0 }), false);
  });
});

describe('machine pace', () => {
  const at = (...seconds: number[]) => seconds.map((s) => new Date(Date.UTC(2026, 0, 1) + s * 1000));
  it('flags at least five answers at near-constant intervals under the reading time', () => {
    const signal = paceSignal(at(0, 1, 2, 3, 4.1));
    assert.equal(signal?.kind, 'machine-pace');
    assert.match(signal!.detail, /^5 answers every 1\.0 s \(median\), variation 0\.0\d$/);
  });
  it('leaves a person alone: too few answers, slow answers, or irregular ones', () => {
    assert.equal(paceSignal(at(0, 1, 2, 3)), undefined, 'four answers');
    assert.equal(paceSignal(at(0, 20, 41, 60, 85)), undefined, 'slow');
    assert.equal(paceSignal(at(0, 0.5, 2.9, 3.2, 8)), undefined, 'irregular');
    assert.equal(paceSignal(at(0, RULES.minAnswerIntervalMs / 1000, 6, 9, 12)), undefined, 'at the reading time');
  });
});

describe('headless user agents', () => {
  it('knows HeadlessChrome and drivers, not ordinary browsers', () => {
    assert.ok(HEADLESS_AGENT.test('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36'));
    assert.ok(!HEADLESS_AGENT.test('Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36'));
    assert.ok(!HEADLESS_AGENT.test('Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:140.0) Gecko/20100101 Firefox/140.0'));
  });
});
