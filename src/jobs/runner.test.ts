// The job runner's turns, on a clock the test moves: a job runs at its interval, and a failure is
// logged as an error unless it is the database failing fast during an outage that is logged once
// elsewhere.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import pino from 'pino';
import { DatabaseUnavailable } from '../db/database.js';
import { JobRunner, type Job } from './runner.js';

/** A pino logger at debug whose lines are kept, as level name and message. */
function recordingLog() {
  const lines: { level: string; msg: string }[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(toEntry(line)) });
  return { lines, log };
}
const toEntry = (line: string) => {
  const { level, msg } = JSON.parse(line) as { level: number; msg: string };
  return { level: pino.levels.labels[level]!, msg };
};

/** Lets the timer's callback and the job's promise settle after the clock moved. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('background jobs', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('runs a job at its interval and logs a failure as an error, and the database failing fast at debug', async () => {
    const { lines, log } = recordingLog();
    const failures = [new Error('a bug'), new DatabaseUnavailable(new Error('connect ECONNREFUSED')), undefined];
    let runs = 0;
    const job: Job = {
      name: 'probe',
      everyMs: 1000,
      async run() {
        const failure = failures[runs++];
        if (failure) throw failure;
        return 1;
      },
    };
    const runner = new JobRunner(log, () => new Date(0));
    runner.add(job);
    runner.start();
    for (let turn = 1; turn <= 3; turn++) {
      mock.timers.tick(999);
      await settle();
      assert.equal(runs, turn - 1, 'not before its interval');
      mock.timers.tick(1);
      await settle();
      assert.equal(runs, turn);
    }
    await runner.stop();
    assert.deepEqual(lines, [
      { level: 'error', msg: 'background job failed; it runs again at its next turn' },
      { level: 'debug', msg: 'background job skipped: the database is unreachable' },
      { level: 'debug', msg: 'background job' },
    ]);
  });
});
