// The invite command's SQL on the invitations table (service.ts holds the rules).
import type { Queryable } from '../../../db/database.js';

/**
 * Adds the invitations of the candidate to these assessments that do not exist yet, in the order
 * of the ids (a fixed order keeps two invites of one candidate from deadlocking each other),
 * expiring after the instance's invite lifetime; the ids of those it made.
 */
export async function insertMissingInvitations(
  tx: Queryable,
  input: { instanceId: string; candidateId: string; assessmentIds: string[]; at: Date; source: string },
): Promise<string[]> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO invitations (instance_id, candidate_id, assessment_id, expires_at, source)
     SELECT $1, $2, id, $4::timestamptz + make_interval(days => (SELECT invite_ttl_days FROM instances WHERE id = $1)), $5 FROM unnest($3::uuid[]) AS t(id) ORDER BY id
     ON CONFLICT (candidate_id, assessment_id) DO NOTHING
     RETURNING id`,
    [input.instanceId, input.candidateId, input.assessmentIds, input.at, input.source],
  );
  return rows.map((r) => String(r.id));
}

/** The id of the candidate's invitation to an assessment (it exists). */
export async function invitationIdOf(tx: Queryable, candidateId: string, assessmentId: string): Promise<string> {
  const { rows } = await tx.query<{ id: string }>('SELECT id::text AS id FROM invitations WHERE candidate_id = $1 AND assessment_id = $2', [candidateId, assessmentId]);
  return rows[0]!.id;
}

export async function setExternalReference(tx: Queryable, invitationIds: string[], reference: string): Promise<void> {
  await tx.query('UPDATE invitations SET external_reference = $2 WHERE id = ANY($1::bigint[])', [invitationIds, reference]);
}

/**
 * Renews invitations not yet started: open (not withdrawn, not expired) until at least
 * `expiresAt`, with the invite's accommodation and language where it gives them.
 */
export async function renewInvitations(tx: Queryable, invitationIds: string[], change: { expiresAt: Date; extraTimePercent?: number; language?: string }): Promise<void> {
  await tx.query(
    `UPDATE invitations SET expires_at = greatest(expires_at, $2), cancelled_at = NULL, expired_at = NULL,
            extra_time_percent = coalesce($3, extra_time_percent), language = coalesce($4, language)
      WHERE id = ANY($1::bigint[])`,
    [invitationIds, change.expiresAt, change.extraTimePercent ?? null, change.language ?? null],
  );
}
