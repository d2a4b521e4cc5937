// Lookups of an attempt for the reviews: whose it is (within an instance), and where its record stands.
import type { Queryable } from '../../db/database.js';
import { isUuid } from '../../domain/ids.js';

/** The candidate and assessment of an attempt of the instance; undefined for another instance's. */
export async function attemptOwner(db: Queryable, instanceId: string, attemptId: string): Promise<{ candidateId: string; assessmentId: string } | undefined> {
  if (!isUuid(attemptId)) return undefined;
  const { rows } = await db.query<{ candidateId: string; assessmentId: string }>(
    `SELECT i.candidate_id AS "candidateId", s.slug AS "assessmentId" FROM attempts t JOIN invitations i ON i.id = t.invitation_id JOIN assessments s ON s.id = i.assessment_id
      WHERE t.id = $1 AND i.instance_id = $2`,
    [attemptId, instanceId],
  );
  return rows[0];
}

/** Where an attempt's record stands after a review. */
export async function attemptResult(db: Queryable, attemptId: string): Promise<{ scoreStatus: string; totalScore: number }> {
  const { rows } = await db.query<{ scoreStatus: string; totalScore: number }>(
    'SELECT i.score_status AS "scoreStatus", i.total_score::float8 AS "totalScore" FROM invitations i JOIN attempts t ON t.invitation_id = i.id WHERE t.id = $1',
    [attemptId],
  );
  return rows[0]!;
}
