// The decisions module's tables: candidate_decisions (one per candidate) and candidate_tags.
import type { Queryable } from '../../db/database.js';

export const DECISIONS = ['advance', 'hold', 'reject'] as const;
export type Decision = (typeof DECISIONS)[number];

export interface CandidateDecision {
  decision: Decision;
  note: string | null;
  decidedBy: string;
  decidedAt: Date;
}

/** What a recruiter marked on a candidate: the decision (or none) and the tags as typed, in the order of their keys. */
export interface CandidateMarks {
  decision: CandidateDecision | null;
  tags: string[];
}

export async function marksOf(db: Queryable, candidateId: string): Promise<CandidateMarks> {
  const { rows } = await db.query<{ decision: CandidateDecision | null; tags: string[] }>(
    `SELECT (SELECT jsonb_build_object('decision', d.decision, 'note', d.note, 'decidedBy', d.decided_by, 'decidedAt', d.decided_at)
               FROM candidate_decisions d WHERE d.candidate_id = $1) AS decision,
            ARRAY(SELECT coalesce(t.label, t.tag) FROM candidate_tags t WHERE t.candidate_id = $1 ORDER BY t.tag) AS tags`,
    [candidateId],
  );
  const row = rows[0]!;
  return { decision: row.decision ? { ...row.decision, decidedAt: new Date(row.decision.decidedAt) } : null, tags: row.tags };
}

/** The marks of several candidates (a page of a list), by candidate id; candidates without any are absent. */
export async function marksOfMany(db: Queryable, candidateIds: string[]): Promise<Map<string, CandidateMarks>> {
  const marks = new Map<string, CandidateMarks>();
  if (candidateIds.length === 0) return marks;
  const decisions = await db.query<{ candidateId: string; decision: Decision; note: string | null; decidedBy: string; decidedAt: Date }>(
    `SELECT candidate_id AS "candidateId", decision, note, decided_by AS "decidedBy", decided_at AS "decidedAt"
       FROM candidate_decisions WHERE candidate_id = ANY($1::uuid[])`,
    [candidateIds],
  );
  const tags = await db.query<{ candidateId: string; tag: string }>(
    `SELECT candidate_id AS "candidateId", coalesce(label, tag) AS tag FROM candidate_tags WHERE candidate_id = ANY($1::uuid[]) ORDER BY candidate_tags.tag`,
    [candidateIds],
  );
  const of = (id: string) => marks.get(id) ?? (marks.set(id, { decision: null, tags: [] }), marks.get(id)!);
  for (const { candidateId, ...decision } of decisions.rows) of(candidateId).decision = decision;
  for (const { candidateId, tag } of tags.rows) of(candidateId).tags.push(tag);
  return marks;
}

/** The instance's tags in use (one label for each key), with how many candidates carry each (for the list's filter). */
export async function tagsInUse(db: Queryable, instanceId: string): Promise<{ tag: string; candidates: number }[]> {
  const { rows } = await db.query<{ tag: string; candidates: number }>(
    `SELECT min(coalesce(label, tag)) AS tag, count(*)::int AS candidates FROM candidate_tags WHERE instance_id = $1 GROUP BY candidate_tags.tag ORDER BY candidate_tags.tag LIMIT 500`,
    [instanceId],
  );
  return rows;
}

export async function writeDecision(
  tx: Queryable,
  input: { instanceId: string; candidateId: string; decision: Decision; note: string | null; by: string; at: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO candidate_decisions (candidate_id, instance_id, decision, note, decided_by, decided_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (candidate_id) DO UPDATE SET decision = EXCLUDED.decision, note = EXCLUDED.note, decided_by = EXCLUDED.decided_by, decided_at = EXCLUDED.decided_at`,
    [input.candidateId, input.instanceId, input.decision, input.note, input.by, input.at],
  );
}

export async function clearDecision(tx: Queryable, candidateId: string): Promise<void> {
  await tx.query(`DELETE FROM candidate_decisions WHERE candidate_id = $1`, [candidateId]);
}

/** Makes the candidate's tags exactly `tags` (keys and labels: commands.ts normaliseTags); a tag given again keeps its new label. */
export async function replaceTags(tx: Queryable, input: { instanceId: string; candidateId: string; tags: { tag: string; label: string }[] }): Promise<void> {
  const keys = input.tags.map((t) => t.tag);
  await tx.query(`DELETE FROM candidate_tags WHERE candidate_id = $1 AND NOT (tag = ANY($2::text[]))`, [input.candidateId, keys]);
  await tx.query(
    `INSERT INTO candidate_tags (candidate_id, instance_id, tag, label) SELECT $1, $2, t, l FROM unnest($3::text[], $4::text[]) AS u (t, l)
     ON CONFLICT (candidate_id, tag) DO UPDATE SET label = EXCLUDED.label`,
    [input.candidateId, input.instanceId, keys, input.tags.map((t) => t.label)],
  );
}

/** Erasure: the decision (its note may describe the person) and the tags go. */
export async function eraseCandidateMarks(tx: Queryable, candidateId: string): Promise<void> {
  await tx.query(`DELETE FROM candidate_decisions WHERE candidate_id = $1`, [candidateId]);
  await tx.query(`DELETE FROM candidate_tags WHERE candidate_id = $1`, [candidateId]);
}
