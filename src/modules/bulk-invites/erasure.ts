// A candidate's erasure in the bulk-invites module's tables (called by the privacy module's erasure).
import type { Statements } from '../../domain/command.js';

/**
 * Erases what bulk invites hold of a candidate (their rows' e-mail and cells, in every file of the
 * instance, matched by the candidate or by e-mail), in the transaction of the candidate's erasure
 * and before the candidate's own e-mail is gone; a row still to invite is left.
 */
export async function eraseCandidateBulkRows(tx: Statements, candidateId: string): Promise<void> {
  await tx.query(
    `UPDATE bulk_invite_rows r SET cells = '[]', email = NULL, notes = '[]', detail = 'erased',
            status = CASE WHEN r.status = 'pending' THEN 'skipped' ELSE r.status END
       FROM bulk_invites b, candidates c
      WHERE b.id = r.bulk_invite_id AND c.id = $1 AND b.instance_id = c.instance_id
        AND (r.candidate_id = c.id OR (c.email IS NOT NULL AND lower(r.email) = lower(c.email)))`,
    [candidateId],
  );
}
