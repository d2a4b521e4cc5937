// Completes attempts whose time ran out although the candidate never came back: no request from
// the candidate is needed for the record to turn COMPLETED. Safe on several nodes (SKIP LOCKED).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import { completeExpired } from './repository.js';

export function startDeadlineSweep(db: Database, everyMs: number, log: FastifyBaseLogger): () => Promise<void> {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = completeExpired(db, 20, (attemptId, error) => log.error({ err: error, attemptId }, 'could not complete an attempt whose time ran out; passing it over'))
      .then((n) => {
        if (n > 0) log.info({ completed: n }, 'completed attempts whose time ran out');
      })
      .catch((error) => log.warn({ err: error }, 'deadline sweep failed; retrying'))
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
