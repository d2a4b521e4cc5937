// Completes attempts whose time ran out although the candidate never came back: no request from
// the candidate is needed for the record to turn COMPLETED. Safe on several nodes (SKIP LOCKED).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { Job } from '../../jobs/runner.js';
import { completeExpired } from './repository.js';

export function deadlineSweepJob(db: Database, everyMs: number, log: FastifyBaseLogger): Job {
  return {
    name: 'deadline-sweep',
    everyMs,
    async run() {
      const completed = await completeExpired(db, 20, (attemptId, error) => log.error({ err: error, attemptId }, 'could not complete an attempt whose time ran out; passing it over'));
      if (completed > 0) log.info({ completed }, 'completed attempts whose time ran out');
      return completed;
    },
  };
}
