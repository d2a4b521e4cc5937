// Inviting one row of a running bulk invite: the background job's step (job.ts). The invite
// command itself (inviteCandidate) runs in the transaction that marks the row invited: the row
// (file id and line) is the idempotency key, so a row tried twice, or by two nodes, or again after
// a restart, invites once. The row's invite is audited as the person who started the file.
import { isUnavailable, type Database } from '../../db/database.js';
import { runCommand, type Actor, type CommandContext, type CommandRequest } from '../../domain/command.js';
import { DomainError } from '../../domain/errors.js';
import type { InvitationSource, LinkDeps, PreparedInvite } from '../invitations/deps.js';
import { emailInvite } from '../invitations/invitation-mail.js';
import { retryOnConflict } from '../invitations/retry.js';
import { inviteCandidate } from '../invitations/service.js';
import { forgetCells } from './commands.js';
import { rowInvite, type Mapping } from './csv.js';

/** What inviting a row needs: the invite's, and where the invitations say they came from. */
export interface RowDeps extends LinkDeps {
  db: Database;
  /** Hears an unexpected error that failed a row (for the operator's log). */
  onRowError?: (error: unknown, reference: string) => void;
}

export type RowOutcome = { kind: 'none' } | { kind: 'done'; bulkInviteId: string; line: number; status: 'invited' | 'failed' };

/**
 * Invites one pending row of a running bulk invite (the given one, or the next any node has not
 * claimed), then e-mails its link when the file asked for that. `none`: no such row is pending
 * (another node has it, or it was invited already).
 */
export async function inviteRow(deps: RowDeps, now: Date, which?: { bulkInviteId: string; line: number }): Promise<RowOutcome> {
  const request: CommandRequest = { actor: { kind: 'system', job: 'bulk-invites' }, requestId: 'job:bulk-invites', now };
  const made = await retryOnConflict(() =>
    runCommand(
      deps.db,
      request,
      async (ctx) => {
        const { rows } = await ctx.tx.query<{
          bulkInviteId: string;
          line: number;
          instanceId: string;
          cells: string[];
          headers: string[];
          mapping: Mapping;
          assessments: string[];
          sendInvite: boolean;
          startedBy: Actor;
        }>(
          `SELECT r.bulk_invite_id::text AS "bulkInviteId", r.line, r.cells, b.instance_id AS "instanceId", b.headers, b.mapping, b.assessments,
                  b.send_invite AS "sendInvite", b.started_by AS "startedBy"
             FROM bulk_invite_rows r JOIN bulk_invites b ON b.id = r.bulk_invite_id
            WHERE r.status = 'pending' AND b.status = 'running' ${which ? 'AND r.bulk_invite_id = $1 AND r.line = $2' : ''}
            ORDER BY r.bulk_invite_id, r.line LIMIT 1 FOR UPDATE OF r SKIP LOCKED`,
          which ? [which.bulkInviteId, which.line] : [],
        );
        const row = rows[0];
        if (!row) return undefined;
        const outcome = rowInvite(row.cells, row.mapping, row.headers, row.assessments);
        let prepared: PreparedInvite | undefined;
        let detail: string | null = null;
        if ('errors' in outcome) detail = outcome.errors.map((e) => `${e.column}: ${e.detail}`).join('; ');
        else {
          // The invite command itself, as the person who started; a refusal (an assessment
          // unpublished since the preview) undoes only its own writes and fails the row.
          const source: InvitationSource = row.startedBy.kind === 'user' ? 'console' : 'api';
          const inner: CommandContext = { ...ctx, actor: row.startedBy, requestId: `bulk-invite:${row.bulkInviteId}:${row.line}` };
          await ctx.tx.query('SAVEPOINT bulk_row');
          try {
            prepared = await inviteCandidate(inner, deps, { instanceId: row.instanceId, request: outcome.request, source });
            await ctx.tx.query('RELEASE SAVEPOINT bulk_row');
          } catch (error) {
            // The database away, or a conflict to retry: the whole row waits for the next try.
            const code = (error as { code?: unknown }).code;
            if (isUnavailable(error) || code === '40001' || code === '40P01') throw error;
            await ctx.tx.query('ROLLBACK TO SAVEPOINT bulk_row');
            if (error instanceof DomainError) detail = [error.message, ...(error.fields ?? []).map((f) => `${f.name}: ${f.detail}`)].join('; ');
            else {
              // Anything else (a fault of ours) fails this row alone rather than holding up every row
              // after it run after run; its detail stays in the service's log, not in the tenant's file.
              deps.onRowError?.(error, inner.requestId);
              detail = `could not be invited: an error on our side (reference ${inner.requestId}); invite this person on their own`;
            }
          }
        }
        const status = prepared ? 'invited' : 'failed';
        // What the invite left as it was (a completed assessment), as /v1/invite names it in `skipped`.
        if (prepared && prepared.skipped.length > 0) detail = prepared.skipped.map((k) => `${k.assessmentId}: ${k.detail}`).join('; ');
        await ctx.tx.query(`UPDATE bulk_invite_rows SET status = $3, candidate_id = $4, detail = $5, processed_at = $6 WHERE bulk_invite_id = $1 AND line = $2`, [
          row.bulkInviteId,
          row.line,
          status,
          prepared?.candidateId ?? null,
          detail?.slice(0, 1000) ?? null,
          ctx.now,
        ]);
        const { rows: finished } = await ctx.tx.query(
          `UPDATE bulk_invites SET status = 'done', finished_at = $2
            WHERE id = $1 AND status = 'running' AND NOT EXISTS (SELECT 1 FROM bulk_invite_rows WHERE bulk_invite_id = $1 AND status = 'pending')
            RETURNING id`,
          [row.bulkInviteId, ctx.now],
        );
        if (finished.length > 0) await forgetCells(ctx, row.bulkInviteId);
        return { row, status, prepared, request: 'request' in outcome ? outcome.request : undefined } as const;
      },
      'bulk_invite_row',
    ),
  );
  if (!made) return { kind: 'none' };
  const { row, status, prepared } = made;
  if (prepared && made.request && row.sendInvite && prepared.open.length > 0) {
    const mail = await emailInvite(deps, row.instanceId, prepared, made.request);
    await deps.db.query('UPDATE bulk_invite_rows SET mail_status = $3 WHERE bulk_invite_id = $1 AND line = $2', [row.bulkInviteId, row.line, mail]);
  }
  return { kind: 'done', bulkInviteId: row.bulkInviteId, line: row.line, status };
}
