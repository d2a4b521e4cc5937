// What the candidate portal reads of invitations: the ones a sign-in link opens, in its order,
// then every other invitation of the candidate that is still open (not started in time, or in
// progress), oldest first: one link shows everything the candidate has left to do, since links
// to those assessments, older or newer, let them in anyway.
import type { Queryable } from '../../../db/database.js';
import { LIMIT_MINUTES } from '../record.js';

export interface OpenedInvitation {
  invitationId: string;
  assessmentId: string;
  slug: string;
  name: string;
  durationMinutes: number;
  status: 'INVITED' | 'IN_PROGRESS' | 'COMPLETED';
  /** Withdrawn by the company, or not started in time: the candidate can no longer open it. */
  closed: 'withdrawn' | 'expired' | null;
}

export async function openedInvitations(db: Queryable, candidateId: string, assessmentIds: string[], now: Date): Promise<OpenedInvitation[]> {
  const { rows } = await db.query<OpenedInvitation>(
    `SELECT i.id AS "invitationId", s.id AS "assessmentId", s.slug, s.name, ${LIMIT_MINUTES} AS "durationMinutes", i.assessment_status AS status,
            CASE WHEN i.cancelled_at IS NOT NULL THEN 'withdrawn' WHEN i.assessment_status = 'INVITED' AND i.expires_at <= $3 THEN 'expired' END AS closed
       FROM invitations i JOIN assessments s ON s.id = i.assessment_id
      WHERE i.candidate_id = $1
        AND (i.assessment_id = ANY($2::uuid[])
             OR (i.cancelled_at IS NULL AND (i.assessment_status = 'IN_PROGRESS' OR (i.assessment_status = 'INVITED' AND i.expires_at > $3))))
      ORDER BY array_position($2::uuid[], i.assessment_id) NULLS LAST, i.created_at, s.slug`,
    [candidateId, assessmentIds, now],
  );
  return rows;
}

/** The languages the invitations of a sign-in link were made with (BCP 47 tags), in the link's order. */
export async function invitationLanguages(db: Queryable, candidateId: string, assessmentIds: string[]): Promise<string[]> {
  const { rows } = await db.query<{ language: string }>(
    `SELECT i.language FROM invitations i
      WHERE i.candidate_id = $1 AND i.assessment_id = ANY($2::uuid[]) AND i.language IS NOT NULL
      ORDER BY array_position($2::uuid[], i.assessment_id)`,
    [candidateId, assessmentIds],
  );
  return rows.map((r) => r.language);
}
