// The request budget and the refused-credentials limit counted in memory answer at once (no
// promise, no turn of the microtask queue), and through a promise when the count comes later
// (Redis): the same verdicts, the same RateLimit fields, either way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../../http/problem.js';
import { whenReady } from '../../domain/maybe.js';
import { MemoryCounter, type Counter } from './counter.js';
import { RefusalLimit, RequestBudget } from './rate-limit.js';

/** A counter whose every answer comes later, as Redis's do. */
function later(counter: MemoryCounter): Counter {
  return {
    hit: async (key, windowMs) => counter.hit(key, windowMs),
    peek: async (key) => counter.peek(key),
    undo: (key) => counter.undo(key),
    ready: async () => true,
    close: () => counter.close(),
  };
}

function reply(): FastifyReply & { fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  return {
    fields,
    header(name: string, value: string) {
      fields[name] = value;
      return this;
    },
  } as unknown as FastifyReply & { fields: Record<string, string> };
}

const request = { ip: '203.0.113.9', log: { warn() {} } } as unknown as FastifyRequest;

describe('limits counted in memory answer at once', () => {
  it('whenReady calls on at once with a value and after the promise with a promise', async () => {
    assert.equal(
      whenReady(2, (n) => n * 3),
      6,
    );
    const promised = whenReady(Promise.resolve(2), (n) => n * 3);
    assert.ok(promised instanceof Promise);
    assert.equal(await promised, 6);
    assert.throws(() =>
      whenReady(1, () => {
        throw new Error('now');
      }),
    );
    await assert.rejects(
      whenReady(Promise.resolve(1), () => {
        throw new Error('later');
      }) as Promise<never>,
    );
  });

  for (const [name, make] of [
    ['in memory', (c: MemoryCounter): Counter => c],
    ['through promises', later],
  ] as const) {
    it(`spends a key's budget and refuses the request past it, ${name}`, async () => {
      const budget = new RequestBudget(make(new MemoryCounter()), 600);
      const answers: ReturnType<typeof reply>[] = [];
      for (let i = 0; i < 2; i++) {
        const r = reply();
        const spent = budget.spend('key_a', 2, r);
        assert.equal(spent instanceof Promise, name !== 'in memory', 'a count in memory is known at once');
        await spent;
        answers.push(r);
      }
      assert.equal(answers[0]!.fields['ratelimit-policy'], '"default";q=2;w=60');
      assert.match(answers[0]!.fields.ratelimit!, /^"default";r=1;t=(60|59)$/);
      assert.match(answers[1]!.fields.ratelimit!, /^"default";r=0;t=(60|59)$/);
      const over = reply();
      let refused: unknown;
      try {
        await budget.spend('key_a', 2, over);
      } catch (error) {
        refused = error;
      }
      assert.ok(refused instanceof Problem);
      assert.equal(refused.status, 429);
      assert.match(String(refused.headers?.['retry-after']), /^(60|59)$/);
      assert.equal(refused.headers?.ratelimit, over.fields.ratelimit);
    });

    it(`turns an address away once its refusals reach the limit, ${name}`, async () => {
      const limit = new RefusalLimit(make(new MemoryCounter()), 2, 'v1');
      const checked = limit.check(request);
      assert.equal(checked instanceof Promise, name !== 'in memory');
      await checked;
      await limit.reserve(request);
      await limit.reserve(request);
      const refusal = await (async () => {
        try {
          await limit.check(request);
        } catch (error) {
          return error;
        }
      })();
      assert.ok(refusal instanceof Problem);
      assert.equal(refusal.status, 429);
      await limit.release(request);
      await limit.check(request);
    });
  }
});
