// The hot paths' histogram must read exactly as prom-client's own Histogram does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { FastHistogram } from './fast-histogram.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.25, 1];

describe('FastHistogram', () => {
  it('gives the same exposition text as prom-client for the same observations', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            route: fc.constantFrom('/v1/score', '/v1/invite', 'unmatched', 'a"b\\c\nd'),
            status: fc.constantFrom('200', '429'),
            value: fc.oneof(fc.constantFrom(...BOUNDS, 0, 5), fc.double({ min: 0, max: 3, noNaN: true })),
          }),
          { maxLength: 60 },
        ),
        async (observations) => {
          const ours = new Registry();
          const theirs = new Registry();
          const fast = new FastHistogram('probe_seconds', 'A probe', ['route', 'status_code'], BOUNDS, ours);
          const reference = new Histogram({ name: 'probe_seconds', help: 'A probe', labelNames: ['route', 'status_code'], buckets: BOUNDS, registers: [theirs] });
          for (const { route, status, value } of observations) {
            fast.child({ route, status_code: status }).observe(value);
            reference.observe({ route, status_code: status }, value);
          }
          const sorted = (text: string) => text.split('\n').sort();
          assert.deepEqual(sorted(await ours.metrics()), sorted(await theirs.metrics()));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps one child per label set, and refuses bounds that are not increasing', () => {
    const registry = new Registry();
    const h = new FastHistogram('kept_seconds', 'Kept', ['query'], [1, 2], registry);
    assert.equal(h.child({ query: 'a' }), h.child({ query: 'a' }));
    assert.notEqual(h.child({ query: 'a' }), h.child({ query: 'b' }));
    assert.throws(() => new FastHistogram('bad_seconds', 'Bad', ['x'], [2, 1], registry), /increasing/);
    assert.throws(() => new FastHistogram('kept_seconds', 'Again', ['x'], [1], registry), /already been registered/);
  });
});
