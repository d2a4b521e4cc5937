// ThreadJobs: a job's answer from its thread, a module's error as an error, and a job over its
// time limit refused as such (ThreadTimeout) with its thread ended, the next job served by a new one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ThreadJobs, ThreadTimeout } from './thread-jobs.js';

describe('jobs on a thread of their own', () => {
  it('answers, fails with the module’s error, and ends a job over its time limit, then serves on', async () => {
    const jobs = new ThreadJobs(new URL('../../test/fixtures/thread-jobs-worker.js', import.meta.url), { what: 'the test job', timeoutMs: 500, heapMb: 64 });
    // The first job's limit does not count the thread's start (loading its module through tsx can take seconds).
    assert.deepEqual(await jobs.run({ busyMs: 50 }), { busied: 50 });
    await assert.rejects(jobs.run({ busyMs: 0, fail: true }), /the test job could not be made: asked to fail/);
    await assert.rejects(jobs.run({ busyMs: 5000 }), (error: unknown) => error instanceof ThreadTimeout && /took longer than 500 ms/.test(error.message));
    assert.deepEqual(await jobs.run({ busyMs: 10 }), { busied: 10 }, 'a new thread serves the next job');
  });
});
