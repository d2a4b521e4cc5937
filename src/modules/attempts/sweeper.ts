// Completes attempts whose time ran out although the candidate never came back: no request from
// the candidate is needed for the record to turn COMPLETED. Safe on several nodes (SKIP LOCKED).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { Job } from '../../jobs/runner.js';
import { completeExpired } from './repository.js';

// A run completes batches for at most RUN_BUDGET_MS (so that a stop never waits long for it);
// when it stopped with attempts still due, the next run follows at once instead of a whole
// interval later: 10,000 deadlines in one minute are worked off as fast as the database allows,
// one short transaction at a time, instead of 20 per interval.
const BATCH = 50;
const RUN_BUDGET_MS = 1000;
// Completions are independent transactions (each claims its attempt with SKIP LOCKED), so a run
// works on several at once: one at a time, a completion's round trips (answers, content, score,
// events) held the bench's backlog to about 50 a second.
const PARALLEL = 4;

export function deadlineSweepJob(db: Database, everyMs: number, log: FastifyBaseLogger): Job {
  let backlog = false;
  return {
    name: 'deadline-sweep',
    everyMs,
    async run() {
      const started = Date.now();
      let completed = 0;
      backlog = false;
      const worker = async () => {
        for (;;) {
          const done = await completeExpired(db, BATCH, (attemptId, error) => log.error({ err: error, attemptId }, 'could not complete an attempt whose time ran out; passing it over'));
          completed += done;
          if (done < BATCH) return;
          if (Date.now() - started >= RUN_BUDGET_MS) {
            backlog = true;
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      if (completed > 0) log.info({ completed, backlog }, 'completed attempts whose time ran out');
      return completed;
    },
    soonerMs: () => (backlog ? 0 : undefined),
  };
}
