// Fills the read model of GET /v1/score: the record text of every invitation whose record is
// missing (new, or cleared by a change in the same statement that made it; see the migration
// 0014-score-records.sql). Rows are claimed with FOR UPDATE SKIP LOCKED, so the text is made from
// the row as it stands under the lock, and nodes share the work. A read never waits for this: it
// formats a missing record itself.
import { runCommand, systemRequest, type CommandContext, type Transactional } from '../../domain/command.js';
import type { Job } from '../../jobs/runner.js';
import type { InvitationRow } from '../scores/format.js';
import { RECORD_COLUMNS } from '../scores/repository.js';
import { recordJson } from '../scores/schema.js';
import { monotonicMs } from '../../domain/clock.js';

const BATCH = 500;
const RUN_BUDGET_MS = 1000;

/**
 * Fills up to one batch of missing records as of `now`; returns how many. A command of the clock's
 * actor, like the other jobs' changes: the record is a projection of the invitation (no change of
 * state, nothing audited, no event), written in the command's transaction.
 */
export async function fillScoreRecords(db: Transactional, now: Date, limit = BATCH): Promise<number> {
  return runCommand(db, systemRequest('score-records', now), (ctx) => fillBatch(ctx, limit), 'score_records_fill');
}

async function fillBatch({ tx }: CommandContext, limit: number): Promise<number> {
  const { rows } = await tx.query<InvitationRow & { id: string }>(
    `SELECT ${RECORD_COLUMNS} FROM invitations i JOIN assessments a ON a.id = i.assessment_id
      WHERE i.record IS NULL ORDER BY i.id LIMIT $1 FOR UPDATE OF i SKIP LOCKED`,
    [limit],
  );
  if (rows.length === 0) return 0;
  await tx.query('UPDATE invitations AS i SET record = v.record FROM unnest($1::bigint[], $2::text[]) AS v(id, record) WHERE i.id = v.id', [
    rows.map((r) => String(r.id)),
    rows.map((r) => recordJson(r)),
  ]);
  return rows.length;
}

export function scoreRecordJob(db: Transactional, everyMs: number): Job {
  let backlog = false;
  return {
    name: 'score-records',
    everyMs,
    async run(now) {
      const started = monotonicMs();
      let filled = 0;
      backlog = false;
      for (;;) {
        const done = await fillScoreRecords(db, now);
        filled += done;
        if (done < BATCH) break;
        if (monotonicMs() - started >= RUN_BUDGET_MS) {
          backlog = true;
          break;
        }
      }
      return filled;
    },
    soonerMs: () => (backlog ? 0 : undefined),
  };
}
