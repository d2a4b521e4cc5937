// The equality module's tables: self_id_settings (per instance: on or off, and its questions) and
// self_identifications (per invitation: the candidate's answers). The answers are read only here:
// by the adverse-impact report's counts, the portal's form (the candidate's own), the data export,
// and deleted by erasure. Nothing else joins them: not the candidate's report, not the API, not
// webhooks.
import type { Queryable } from '../../db/database.js';
import type { SelfIdQuestion } from './questions.js';

export interface SelfIdSettings {
  enabled: boolean;
  /** The instance's own questions; null: the default set. */
  own: SelfIdQuestion[] | null;
  /** When and by whom they were last changed; null: never (the defaults). */
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** An instance without a row of its own offers the default questions. */
export async function selfIdSettings(db: Queryable, instanceId: string): Promise<SelfIdSettings> {
  const { rows } = await db.query<SelfIdSettings>(
    `SELECT enabled, questions AS own, updated_at AS "updatedAt", updated_by AS "updatedBy" FROM self_id_settings WHERE instance_id = $1`,
    [instanceId],
  );
  return rows[0] ?? { enabled: true, own: null, updatedAt: null, updatedBy: null };
}

export async function writeSelfIdSettings(tx: Queryable, input: { instanceId: string; enabled: boolean; own: SelfIdQuestion[] | null; at: Date; by: string }): Promise<void> {
  await tx.query(
    `INSERT INTO self_id_settings (instance_id, enabled, questions, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (instance_id) DO UPDATE SET enabled = EXCLUDED.enabled, questions = EXCLUDED.questions, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
    [input.instanceId, input.enabled, input.own === null ? null : JSON.stringify(input.own), input.at, input.by],
  );
}

/** What the command needs of the invitation the answers are for. */
export async function invitationOf(db: Queryable, invitationId: string): Promise<{ instanceId: string; candidateId: string; completed: boolean } | undefined> {
  const { rows } = await db.query<{ instanceId: string; candidateId: string; completed: boolean }>(
    `SELECT instance_id AS "instanceId", candidate_id AS "candidateId", assessment_status = 'COMPLETED' AS completed FROM invitations WHERE id = $1`,
    [invitationId],
  );
  return rows[0];
}

/** The candidate's answers for one invitation (question id to option id), for their own form. */
export async function selfIdOf(db: Queryable, invitationId: string): Promise<Record<string, string> | undefined> {
  const { rows } = await db.query<{ answers: Record<string, string> }>(`SELECT answers FROM self_identifications WHERE invitation_id = $1`, [invitationId]);
  return rows[0]?.answers;
}

/** Stores the answers of an invitation, replacing any given before; none at all removes them. */
export async function replaceSelfId(tx: Queryable, input: { invitationId: string; instanceId: string; answers: Record<string, string>; at: Date }): Promise<void> {
  if (Object.keys(input.answers).length === 0) {
    await tx.query(`DELETE FROM self_identifications WHERE invitation_id = $1`, [input.invitationId]);
    return;
  }
  await tx.query(
    `INSERT INTO self_identifications (invitation_id, instance_id, answers, recorded_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (invitation_id) DO UPDATE SET answers = EXCLUDED.answers, recorded_at = EXCLUDED.recorded_at`,
    [input.invitationId, input.instanceId, JSON.stringify(input.answers), input.at],
  );
}

/** The candidate's self-identification per assessment, for the data export. */
export async function selfIdOfCandidate(db: Queryable, candidateId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT a.slug AS "assessmentId", s.answers, s.recorded_at AS "recordedAt"
       FROM self_identifications s JOIN invitations i ON i.id = s.invitation_id JOIN assessments a ON a.id = i.assessment_id
      WHERE i.candidate_id = $1 ORDER BY a.slug, s.invitation_id`,
    [candidateId],
  );
  return rows;
}

/** Erasure (and the retention sweep, which erases the same way): the candidate's answers go. */
export async function eraseCandidateSelfId(tx: Queryable, candidateId: string): Promise<void> {
  await tx.query(`DELETE FROM self_identifications WHERE invitation_id IN (SELECT id FROM invitations WHERE candidate_id = $1)`, [candidateId]);
}

/** One cell of the report: invitations completed and scored in the period whose answer to `question` was `option` (null: none given). */
export interface GroupCount {
  question: string;
  option: string | null;
  completed: number;
  selected: number;
}

export interface ImpactCounts {
  /** Completed and scored in the period: the people the report counts. */
  scored: number;
  /** Completed in the period but still awaiting a score (a free-text answer to review): not counted. */
  awaitingScore: number;
  /** Of the scored, how many answered at least one question. */
  answered: number;
  groups: GroupCount[];
}

/**
 * The counts of the adverse-impact report for one assessment: the invitations completed in
 * [from, to) and scored, per question and answer, and how many of them were selected (their
 * score status one of `selected`). Counts only: no person, no score, no answer leaves here.
 */
export async function impactCounts(
  db: Queryable,
  input: { instanceId: string; assessmentId: string; from: Date; to: Date; questions: string[]; selected: string[] },
): Promise<ImpactCounts> {
  const params = [input.instanceId, input.assessmentId, input.from, input.to];
  const period = `i.instance_id = $1 AND i.assessment_id = $2 AND i.assessment_status = 'COMPLETED' AND i.finished_at >= $3 AND i.finished_at < $4`;
  const totals = await db.query<{ scored: number; awaitingScore: number; answered: number }>(
    `SELECT count(*) FILTER (WHERE i.score_status <> 'PENDING')::int AS scored,
            count(*) FILTER (WHERE i.score_status = 'PENDING')::int AS "awaitingScore",
            count(s.invitation_id) FILTER (WHERE i.score_status <> 'PENDING')::int AS answered
       FROM invitations i LEFT JOIN self_identifications s ON s.invitation_id = i.id
      WHERE ${period}`,
    params,
  );
  const groups = await db.query<GroupCount>(
    `SELECT q.id AS question, s.answers ->> q.id AS option, count(*)::int AS completed,
            count(*) FILTER (WHERE i.score_status = ANY($6::text[]))::int AS selected
       FROM invitations i CROSS JOIN unnest($5::text[]) AS q(id) LEFT JOIN self_identifications s ON s.invitation_id = i.id
      WHERE ${period} AND i.score_status <> 'PENDING'
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [...params, input.questions, input.selected],
  );
  return { ...totals.rows[0]!, groups: groups.rows };
}

/** What the portal's form needs: the instance's own questions (null: the default set) and the candidate's answers so far; undefined when the instance does not ask. */
export async function selfIdForm(db: Queryable, instanceId: string, invitationId: string): Promise<{ own: SelfIdQuestion[] | null; current: Record<string, string> } | undefined> {
  const settings = await selfIdSettings(db, instanceId);
  if (!settings.enabled) return undefined;
  return { own: settings.own, current: (await selfIdOf(db, invitationId)) ?? {} };
}
