// Run in a child process by test/promise-tracking.test.ts (Node's test runner itself turns async
// hooks on, so the parent cannot look): serves what a node serves in a day (an invitation, the
// portal's pages through a whole attempt, score reads, the console's sign-in page) and prints
// whether promises are tracked afterwards. An AsyncLocalStorage entered anywhere, ours or a
// package's, makes Node 20 track every promise of the process from then on, at a cost to every
// request; executionAsyncId() inside a promise reaction is 0 only while none is.
import assert from 'node:assert/strict';
import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks';
import { createTestContext, sampleAssessment, storeKinds } from '../harness.js';
import { takeAssessment } from './take.js';

const tracked = async () => (await Promise.resolve().then(() => executionAsyncId())) !== 0;

const before = await tracked();
const ctx = await createTestContext(storeKinds()[0]!);
try {
  const instance = await ctx.instance('hooks');
  assert.equal((await ctx.publish(instance, sampleAssessment('alpha'))).statusCode, 201);
  const key = await ctx.key([instance]);
  const candidateId = await takeAssessment(ctx, instance, key, { email: 'hooks@example.com', firstName: 'Ada', lastName: 'Hooks' });
  const read = await ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key, instance } });
  assert.equal(read.statusCode, 200, read.body);
  assert.equal((await ctx.request({ method: 'GET', url: '/portal/' })).statusCode, 200);
  assert.ok((await ctx.request({ method: 'GET', url: '/console/login' })).statusCode < 500);
  const after = await tracked();
  // The check itself: a storage entered here is seen.
  new AsyncLocalStorage().run({}, () => {});
  const control = await tracked();
  process.stdout.write(JSON.stringify({ before, after, control }) + '\n');
} finally {
  await ctx.close();
}
