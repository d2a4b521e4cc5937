// The invite command's SQL on the invitations table (service.ts holds the rules).
import type { Queryable } from '../../../db/database.js';
import type { BrandSource } from '../../tenants/branding.js';

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

/** A link's row, with what an e-mail and the portal need of its instance. */
export type InsertedLink = { linkId: string; expiresAt: Date; portalUrl: string | null } & BrandSource;

/** Stores a sign-in link (by its token's hash) for a candidate and assessments, expiring after the instance's invite lifetime. */
export async function insertLink(tx: Queryable, link: { instanceId: string; candidateId: string; tokenHash: Buffer; assessmentIds: string[]; at: Date }): Promise<InsertedLink> {
  const { rows } = await tx.query<InsertedLink>(
    `WITH n AS (
       SELECT id, portal_url, name, mail_from_name, mail_from_address, display_name, accent_color, support_email, privacy_url, invite_ttl_days,
              (SELECT l.sha256 FROM instance_logos l WHERE l.instance_id = instances.id) AS logo_sha256
         FROM instances WHERE id = $1
     ), link AS (
       INSERT INTO invite_links (instance_id, candidate_id, token_hash, assessment_ids, expires_at)
       SELECT n.id, $2, $3, $4, $5::timestamptz + make_interval(days => n.invite_ttl_days) FROM n
       RETURNING id, expires_at
     )
     SELECT link.id AS "linkId", link.expires_at AS "expiresAt", n.portal_url AS "portalUrl", n.name, n.mail_from_name AS "mailFromName",
            n.mail_from_address AS "mailFromAddress", n.display_name AS "displayName", n.accent_color AS "accentColor",
            n.support_email AS "supportEmail", n.privacy_url AS "privacyUrl", n.logo_sha256 AS "logoSha256"
       FROM link, n`,
    [link.instanceId, link.candidateId, link.tokenHash, link.assessmentIds, link.at],
  );
  return rows[0]!;
}

/** The candidate's completed and scored invitations: the assessment (slug and id), the attempt's version, the total and the categories' scores. */
export async function scoredResultsOfCandidate(
  db: Queryable,
  candidateId: string,
): Promise<{ slug: string; assessmentId: string; version: number; total: string; categories: { name: string; score: string | number }[] }[]> {
  const { rows } = await db.query<{ slug: string; assessmentId: string; version: number; total: string; categories: { name: string; score: string | number }[] }>(
    `SELECT a.slug, a.id AS "assessmentId", t.version, i.total_score::text AS total, i.category_scores AS categories
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id
       JOIN attempts t ON t.invitation_id = i.id AND t.superseded_at IS NULL
      WHERE i.candidate_id = $1 AND i.assessment_status = 'COMPLETED' AND i.score_status <> 'PENDING'`,
    [candidateId],
  );
  return rows;
}
