import type { Queryable } from '../../db/database.js';
import type { InvitationRow } from './format.js';

export interface ScoreFilter {
  instanceIds: string[];
  candidateIds?: string[];
  assessmentIds?: string[];
}

export const PAGE_SIZE = 1000;

/**
 * One page of invitations in scope, in id order after `afterId`. Pages by key rather than by
 * offset, so that each page costs the same however deep into the export it is.
 */
export async function scorePage(db: Queryable, filter: ScoreFilter, afterId: string, limit = PAGE_SIZE): Promise<(InvitationRow & { id: string })[]> {
  const params: unknown[] = [filter.instanceIds, afterId, limit];
  const where = ['i.instance_id = ANY($1::uuid[])', 'i.id > $2::bigint'];
  if (filter.candidateIds) {
    params.push(filter.candidateIds);
    where.push(`i.candidate_id = ANY($${params.length}::uuid[])`);
  }
  if (filter.assessmentIds) {
    // Resolved to row ids first: given the ids themselves, the planner reads just their
    // invitations through invitations_assessment; given slugs to join on, it walked every
    // invitation of the instance in id order (37 ms at 30,000 invitations, growing with them).
    const { rows: found } = await db.query<{ id: string }>('SELECT id FROM assessments WHERE instance_id = ANY($1::uuid[]) AND slug = ANY($2::text[])', [
      filter.instanceIds,
      filter.assessmentIds,
    ]);
    if (found.length === 0) return [];
    // One assessment (the usual case) is an equality, so that invitations_assessment
    // (assessment_id, id) also gives the order and a page reads just its own rows.
    params.push(found.length === 1 ? found[0]!.id : found.map((a) => a.id));
    where.push(found.length === 1 ? `i.assessment_id = $${params.length}::uuid` : `i.assessment_id = ANY($${params.length}::uuid[])`);
  }
  const { rows } = await db.query<InvitationRow & { id: string }>(
    `SELECT i.id, i.candidate_id AS "candidateId", a.slug AS "assessmentId", a.name AS "assessmentName",
            i.assessment_status AS "assessmentStatus", i.score_status AS "scoreStatus",
            i.completion, i.total_score AS "totalScore", i.typing_wpm AS "typingWpm",
            i.category_scores AS "categoryScores", i.red_flag AS "redFlag",
            (extract(epoch FROM i.started_at) * 1000000)::bigint::text AS "startedMicros",
            (extract(epoch FROM i.finished_at) * 1000000)::bigint::text AS "finishedMicros"
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id
      WHERE ${where.join(' AND ')}
      ORDER BY i.id
      LIMIT $3`,
    params,
  );
  return rows;
}
