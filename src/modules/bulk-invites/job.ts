// The background work of bulk invites: every node invites pending rows of running files, one row
// per transaction, each claimed with FOR UPDATE SKIP LOCKED so that nodes share the rows instead of
// repeating them. The rows are in the database: a restart continues where the last run stopped,
// and the page that started a file need not stay open.
import type { Job } from '../../jobs/runner.js';
import { inviteRow, type RowDeps } from './invite-row.js';

/** Rows one run invites before it lets other jobs run (it runs again at once while rows wait). */
export const ROWS_PER_RUN = 50;

export function bulkInviteJob(deps: RowDeps, everyMs: number, options: { rowsPerRun?: number } = {}): Job {
  const limit = options.rowsPerRun ?? ROWS_PER_RUN;
  let backlog = false;
  return {
    name: 'bulk-invites',
    everyMs,
    soonerMs: () => (backlog ? 0 : undefined),
    async run(now) {
      backlog = false;
      let done = 0;
      while (done < limit) {
        const outcome = await inviteRow(deps, now);
        if (outcome.kind === 'none') return done;
        done++;
      }
      backlog = true;
      return done;
    },
  };
}
