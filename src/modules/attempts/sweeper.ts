// Completes attempts whose time ran out although the candidate never came back: no request from
// the candidate is needed for the record to turn COMPLETED. Safe on several nodes (SKIP LOCKED).
// Deadlines are read by the app's clock (as they are set); the run's own budget and the rest of an
// attempt that failed are monotonic time (monotonicMs), since they pace this process, not the domain.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { Job } from '../../jobs/runner.js';
import { completeExpired, nextDeadlineInMs } from './completion.js';
import { monotonicMs } from '../../domain/clock.js';

// A run completes batches for at most RUN_BUDGET_MS (so that a stop never waits long for it);
// when it stopped with attempts still due, the next run follows at once instead of a whole
// interval later: 10,000 deadlines in one minute are worked off as fast as the database allows.
// A batch is one transaction of a fixed number of statements (completeExpired).
const BATCH = 50;
const RUN_BUDGET_MS = 1000;
// Batches are independent transactions (each claims its attempts with SKIP LOCKED), so a run
// works on several at once, and one batch's round trips overlap another's.
const PARALLEL = 4;
// Between runs the sweep sleeps until the next deadline when that comes before its interval, so an
// attempt is completed within moments of its deadline rather than up to an interval later; never
// less than MIN_WAIT_MS, so that a stream of deadlines is taken in batches, not one wake-up each.
// An attempt that could not be completed rests for an interval before it is tried again (and
// does not count as the next deadline meanwhile), so one failing attempt cannot make every
// run of a busy minute fail on it again and log it again.
const MIN_WAIT_MS = 200;

export function deadlineSweepJob(db: Database, everyMs: number, log: FastifyBaseLogger, clock: () => Date): Job {
  let backlog = false;
  /** After a run without a backlog: ms until the next open attempt's deadline. */
  let next: number | undefined;
  /** Attempts that could not be completed, and when (monotonicMs()) each may be tried again. */
  const resting = new Map<string, number>();
  return {
    name: 'deadline-sweep',
    everyMs,
    async run() {
      const started = monotonicMs();
      let completed = 0;
      backlog = false;
      next = undefined;
      for (const [attemptId, until] of resting) if (until <= started) resting.delete(attemptId);
      const failed = (attemptId: string, error: unknown) => {
        resting.set(attemptId, monotonicMs() + everyMs);
        log.error({ err: error, attemptId }, 'could not complete an attempt whose time ran out; passing it over');
      };
      // One list of attempts to pass over for all the run's workers: one that fails is tried once.
      const passedOver = [...resting.keys()];
      /** One batch; true when it was full, so more may be due. */
      const batch = async () => {
        const done = await completeExpired(db, clock(), BATCH, failed, passedOver);
        completed += done;
        return done === BATCH;
      };
      const worker = async () => {
        for (;;) {
          if (monotonicMs() - started >= RUN_BUDGET_MS) {
            backlog = true;
            return;
          }
          if (!(await batch())) return;
        }
      };
      // The first batch runs alone: the usual run (fewer than a batch due) is one transaction, and
      // workers beside it would only split its attempts between them. A full batch means a backlog,
      // which the workers then share.
      if (await batch()) await Promise.all(Array.from({ length: PARALLEL }, worker));
      if (completed > 0) log.info({ completed, backlog }, 'completed attempts whose time ran out');
      if (!backlog) next = await nextDeadlineInMs(db, clock(), [...resting.keys()]);
      return completed;
    },
    soonerMs: () => {
      if (backlog) return 0;
      if (next === undefined || next >= everyMs) return undefined;
      return Math.max(MIN_WAIT_MS, Math.ceil(next));
    },
  };
}
