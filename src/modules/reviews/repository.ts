// The tables of reviewing together: answer_reviews (each reviewer's review of an answer),
// review_settlements (a lead's final score where the reviews disagreed), review_assignments (who
// is to review an answer, and when their overdue reminder went) and review_leads (users marked
// lead of an instance). The final score itself is the answer's review score (the attempts module's).
import type { Queryable } from '../../db/database.js';
import type { RubricContent } from '../assessments/content-schema.js';
import { REVIEW_CURRENT } from '../attempts/completion.js';
import { versionContent } from '../assessments/repository.js';
import type { RubricChoice } from './rubric.js';
import { isUuid } from '../../domain/ids.js';

export interface Review {
  reviewer: string;
  score: number;
  criteria: RubricChoice | null;
  comment: string | null;
  reviewedAt: Date;
}

export interface Settlement {
  score: number;
  comment: string | null;
  settledBy: string;
  settledAt: Date;
}

export interface Assignee {
  userId: string;
  email: string;
  assignedAt: Date;
}

/** The candidate and instance an attempt belongs to; undefined when it is not the instance's. */
export async function attemptInInstance(db: Queryable, instanceId: string, attemptId: string): Promise<boolean> {
  if (!isUuid(attemptId)) return false;
  const { rows } = await db.query('SELECT 1 FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE t.id = $1 AND i.instance_id = $2', [attemptId, instanceId]);
  return rows.length > 0;
}

const REVIEW = `reviewer, score::float8 AS score, criteria, comment, reviewed_at AS "reviewedAt"`;

export async function reviewsOfAnswer(db: Queryable, attemptId: string, questionId: string): Promise<Review[]> {
  const { rows } = await db.query<Review>(`SELECT ${REVIEW} FROM answer_reviews WHERE attempt_id = $1 AND question_id = $2 ORDER BY reviewed_at, id`, [attemptId, questionId]);
  return rows;
}

/** Stores a reviewer's review of an answer, replacing their earlier one. */
export async function saveReview(db: Queryable, input: { attemptId: string; questionId: string } & Review): Promise<void> {
  await db.query(
    `INSERT INTO answer_reviews (attempt_id, question_id, reviewer, score, criteria, comment, reviewed_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
     ON CONFLICT (attempt_id, question_id, reviewer) DO UPDATE SET score = excluded.score, criteria = excluded.criteria, comment = excluded.comment, reviewed_at = excluded.reviewed_at`,
    [input.attemptId, input.questionId, input.reviewer, input.score, input.criteria === null ? null : JSON.stringify(input.criteria), input.comment, input.reviewedAt],
  );
}

export async function settlementOf(db: Queryable, attemptId: string, questionId: string): Promise<Settlement | undefined> {
  const { rows } = await db.query<Settlement>(
    `SELECT score::float8 AS score, comment, settled_by AS "settledBy", settled_at AS "settledAt" FROM review_settlements WHERE attempt_id = $1 AND question_id = $2`,
    [attemptId, questionId],
  );
  return rows[0];
}

export async function saveSettlement(db: Queryable, input: { attemptId: string; questionId: string } & Settlement): Promise<void> {
  await db.query(
    `INSERT INTO review_settlements (attempt_id, question_id, score, comment, settled_by, settled_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (attempt_id, question_id) DO UPDATE SET score = excluded.score, comment = excluded.comment, settled_by = excluded.settled_by, settled_at = excluded.settled_at`,
    [input.attemptId, input.questionId, input.score, input.comment, input.settledBy, input.settledAt],
  );
}

export async function assigneesOf(db: Queryable, attemptId: string, questionId: string): Promise<Assignee[]> {
  const { rows } = await db.query<Assignee>(
    `SELECT r.user_id AS "userId", u.email, r.assigned_at AS "assignedAt" FROM review_assignments r JOIN users u ON u.id = r.user_id
      WHERE r.attempt_id = $1 AND r.question_id = $2 ORDER BY r.assigned_at, u.email`,
    [attemptId, questionId],
  );
  return rows;
}

/** Assigns the answer to the user; false when they were already. */
export async function addAssignment(db: Queryable, input: { attemptId: string; questionId: string; userId: string; by: string; at: Date }): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO review_assignments (attempt_id, question_id, user_id, assigned_by, assigned_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1`,
    [input.attemptId, input.questionId, input.userId, input.by, input.at],
  );
  return rows.length > 0;
}

/** Takes the assignment away; false when there was none. */
export async function removeAssignment(db: Queryable, input: { attemptId: string; questionId: string; userId: string }): Promise<boolean> {
  const { rows } = await db.query('DELETE FROM review_assignments WHERE attempt_id = $1 AND question_id = $2 AND user_id = $3 RETURNING 1', [
    input.attemptId,
    input.questionId,
    input.userId,
  ]);
  return rows.length > 0;
}

/** Marks (or unmarks) a user lead of an instance's reviews. */
export async function setLead(db: Queryable, input: { instanceId: string; userId: string; lead: boolean; by: string; at: Date }): Promise<void> {
  if (input.lead) {
    await db.query(`INSERT INTO review_leads (instance_id, user_id, marked_by, marked_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`, [
      input.instanceId,
      input.userId,
      input.by,
      input.at,
    ]);
  } else {
    await db.query('DELETE FROM review_leads WHERE instance_id = $1 AND user_id = $2', [input.instanceId, input.userId]);
  }
}

export async function isMarkedLead(db: Queryable, instanceId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM review_leads WHERE instance_id = $1 AND user_id = $2', [instanceId, userId]);
  return rows.length > 0;
}

export interface InstanceReviewer {
  id: string;
  email: string;
  role: 'owner' | 'manager' | 'reviewer';
  lead: boolean;
}

/** The console users who may review in the instance (owners, and those granted it), not disabled, with whether they are marked lead. */
export async function reviewersOfInstance(db: Queryable, instanceId: string): Promise<InstanceReviewer[]> {
  const { rows } = await db.query<InstanceReviewer>(
    `SELECT u.id, u.email, u.role, EXISTS (SELECT 1 FROM review_leads l WHERE l.instance_id = $1 AND l.user_id = u.id) AS lead
       FROM users u WHERE u.disabled_at IS NULL AND (u.role = 'owner' OR EXISTS (SELECT 1 FROM user_instances g WHERE g.user_id = u.id AND g.instance_id = $1))
      ORDER BY lower(u.email)`,
    [instanceId],
  );
  return rows;
}

/** The free-text questions the candidate answered in an attempt (for assigning a whole attempt). */
export async function answeredFreeText(db: Queryable, attemptId: string): Promise<string[]> {
  const { rows } = await db.query<{ assessmentId: string; version: number; questions: string[] }>(
    `SELECT t.assessment_id AS "assessmentId", t.version, coalesce((SELECT array_agg(a.question_id ORDER BY a.question_id) FROM answers a WHERE a.attempt_id = t.id), '{}') AS questions
       FROM attempts t WHERE t.id = $1`,
    [attemptId],
  );
  const row = rows[0];
  if (!row) return [];
  const content = await versionContent(db, row.assessmentId, row.version);
  return row.questions.filter((id) => content.questions.find((q) => q.id === id)?.type === 'free-text');
}

export type ReviewState = 'awaiting' | 'in-review' | 'disagreement' | 'settled';

export interface BoardItem {
  attemptId: string;
  candidateId: string;
  candidateName: string;
  candidateEmail: string | null;
  assessmentId: string;
  assessmentName: string;
  questionId: string;
  prompt: string;
  guidance: string | null;
  rubric: RubricContent | null;
  answer: string;
  answeredAt: Date;
  finishedAt: Date;
  reviews: Review[];
  assignees: Assignee[];
  settlement: Settlement | null;
  /** The final score (the answer's review score) when there is one. */
  final: { score: number; by: string; at: Date } | null;
  state: ReviewState;
}

/** Where an answer stands: settled (a final score), a disagreement (enough reviews, no final), in review (some), awaiting (none). */
export function stateOf(item: Pick<BoardItem, 'final' | 'settlement' | 'reviews'>, reviewersPerAnswer: number): ReviewState {
  if (item.final !== null || item.settlement !== null) return 'settled';
  if (item.reviews.length >= reviewersPerAnswer) return 'disagreement';
  return item.reviews.length > 0 ? 'in-review' : 'awaiting';
}

/**
 * The free-text answers of the instance's completed attempts (not withdrawn, not replaced), with
 * their reviews, assignees and state, oldest completion first. `open` keeps those without a final
 * score; otherwise settled ones come too (after the open ones). At most `limit`.
 */
export async function reviewBoard(db: Queryable, instance: { id: string; reviewersPerAnswer: number }, options: { open: boolean; limit?: number }): Promise<BoardItem[]> {
  const { rows } = await db.query<
    Omit<BoardItem, 'prompt' | 'guidance' | 'rubric' | 'answer' | 'state' | 'final'> & {
      assessmentUuid: string;
      version: number;
      value: unknown;
      finalScore: number | null;
      finalBy: string | null;
      finalAt: Date | null;
    }
  >(
    `SELECT t.id AS "attemptId", i.candidate_id AS "candidateId", coalesce(c.first_name || ' ' || c.last_name, 'Erased candidate') AS "candidateName", c.email AS "candidateEmail",
            s.slug AS "assessmentId", s.name AS "assessmentName", t.assessment_id AS "assessmentUuid", t.version, a.question_id AS "questionId", a.value,
            a.answered_at AS "answeredAt", t.finished_at AS "finishedAt",
            CASE WHEN ${REVIEW_CURRENT} THEN a.review_score::float8 END AS "finalScore", CASE WHEN ${REVIEW_CURRENT} THEN a.reviewed_by END AS "finalBy",
            CASE WHEN ${REVIEW_CURRENT} THEN a.reviewed_at END AS "finalAt",
            coalesce((SELECT json_agg(json_build_object('reviewer', r.reviewer, 'score', r.score::float8, 'criteria', r.criteria, 'comment', r.comment, 'reviewedAt', r.reviewed_at) ORDER BY r.reviewed_at, r.id)
                        FROM answer_reviews r WHERE r.attempt_id = t.id AND r.question_id = a.question_id), '[]') AS reviews,
            coalesce((SELECT json_agg(json_build_object('userId', g.user_id, 'email', u.email, 'assignedAt', g.assigned_at) ORDER BY g.assigned_at, u.email)
                        FROM review_assignments g JOIN users u ON u.id = g.user_id WHERE g.attempt_id = t.id AND g.question_id = a.question_id), '[]') AS assignees,
            (SELECT json_build_object('score', x.score::float8, 'comment', x.comment, 'settledBy', x.settled_by, 'settledAt', x.settled_at)
               FROM review_settlements x WHERE x.attempt_id = t.id AND x.question_id = a.question_id) AS settlement
       FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id
       JOIN assessments s ON s.id = i.assessment_id JOIN candidates c ON c.id = i.candidate_id
      WHERE i.instance_id = $1 AND t.finished_at IS NOT NULL AND t.superseded_at IS NULL AND t.end_reason <> 'cancelled' AND jsonb_typeof(a.value) = 'string'
        AND ($3::boolean IS FALSE OR (NOT ${REVIEW_CURRENT} AND NOT EXISTS (SELECT 1 FROM review_settlements x WHERE x.attempt_id = t.id AND x.question_id = a.question_id)))
      ORDER BY ${REVIEW_CURRENT}, t.finished_at, t.id, a.question_id
      LIMIT $2`,
    [instance.id, options.limit ?? 500, options.open],
  );
  const items: BoardItem[] = [];
  for (const row of rows) {
    const content = await versionContent(db, row.assessmentUuid, row.version);
    const question = content.questions.find((q) => q.id === row.questionId);
    if (question?.type !== 'free-text') continue;
    const { assessmentUuid: _a, version: _v, value, finalScore, finalBy, finalAt, ...rest } = row;
    const final = finalScore === null ? null : { score: finalScore, by: finalBy ?? '', at: finalAt! };
    const reviews = rest.reviews.map((r) => ({ ...r, reviewedAt: new Date(r.reviewedAt) }));
    const item = { ...rest, reviews, final, prompt: question.prompt, guidance: question.guidance ?? null, rubric: question.rubric ?? null, answer: String(value) };
    items.push({ ...item, state: stateOf(item, instance.reviewersPerAnswer) });
  }
  return items;
}

/**
 * Of one candidate, for a reviewer's blind sight, in one query: whether the reviewer has reviewed
 * any of their answers, and whether any of their answers waits in the reviewer's queue (as
 * `queueOf` judges the open board: a free-text answer of a completed attempt, without a final
 * score or a settlement, short of reviews, not reviewed by them, assigned to them or, when they may
 * take those, to nobody).
 */
export async function reviewerAndCandidate(
  db: Queryable,
  input: { instanceId: string; candidateId: string; reviewer: string; userId: string; reviewersPerAnswer: number; takesUnassigned: boolean },
): Promise<{ reviewed: boolean; queued: boolean }> {
  const { rows } = await db.query<{ reviewed: boolean; queued: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM answer_reviews r JOIN attempts t ON t.id = r.attempt_id JOIN invitations i ON i.id = t.invitation_id
                     WHERE i.instance_id = $1 AND i.candidate_id = $2 AND r.reviewer = $3) AS reviewed,
            EXISTS (SELECT 1 FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id
                     WHERE i.instance_id = $1 AND i.candidate_id = $2
                       AND t.finished_at IS NOT NULL AND t.superseded_at IS NULL AND t.end_reason <> 'cancelled' AND jsonb_typeof(a.value) = 'string'
                       AND NOT ${REVIEW_CURRENT}
                       AND NOT EXISTS (SELECT 1 FROM review_settlements x WHERE x.attempt_id = a.attempt_id AND x.question_id = a.question_id)
                       AND (SELECT count(*) FROM answer_reviews r WHERE r.attempt_id = a.attempt_id AND r.question_id = a.question_id) < $5
                       AND NOT EXISTS (SELECT 1 FROM answer_reviews r WHERE r.attempt_id = a.attempt_id AND r.question_id = a.question_id AND r.reviewer = $3)
                       AND (EXISTS (SELECT 1 FROM review_assignments g WHERE g.attempt_id = a.attempt_id AND g.question_id = a.question_id AND g.user_id = $4)
                            OR ($6 AND NOT EXISTS (SELECT 1 FROM review_assignments g JOIN users u ON u.id = g.user_id WHERE g.attempt_id = a.attempt_id AND g.question_id = a.question_id)))
                       AND EXISTS (SELECT 1 FROM assessment_versions v, jsonb_array_elements(v.content->'questions') q
                                    WHERE v.assessment_id = t.assessment_id AND v.version = t.version AND q->>'id' = a.question_id AND q->>'type' = 'free-text')) AS queued`,
    [input.instanceId, input.candidateId, input.reviewer, input.userId, input.reviewersPerAnswer, input.takesUnassigned],
  );
  return rows[0]!;
}

export interface OverdueAssignment {
  attemptId: string;
  questionId: string;
  userId: string;
  email: string;
  instance: string;
  assessmentName: string;
  dueAt: Date;
}

/**
 * Assignments overdue at `now` whose reviewer was not reminded yet and has not reviewed, of
 * answers still without a final score, claimed (FOR UPDATE SKIP LOCKED) so that nodes share them.
 */
export async function claimOverdue(tx: Queryable, now: Date, limit: number): Promise<OverdueAssignment[]> {
  const { rows } = await tx.query<OverdueAssignment>(
    `SELECT g.attempt_id AS "attemptId", g.question_id AS "questionId", g.user_id AS "userId", u.email, n.name AS instance, s.name AS "assessmentName",
            greatest(t.finished_at, g.assigned_at) + make_interval(hours => n.review_due_hours) AS "dueAt"
       FROM review_assignments g JOIN users u ON u.id = g.user_id JOIN attempts t ON t.id = g.attempt_id JOIN invitations i ON i.id = t.invitation_id
       JOIN instances n ON n.id = i.instance_id JOIN assessments s ON s.id = i.assessment_id JOIN answers a ON a.attempt_id = g.attempt_id AND a.question_id = g.question_id
      WHERE g.reminded_at IS NULL AND n.review_due_hours IS NOT NULL AND u.disabled_at IS NULL
        AND t.finished_at IS NOT NULL AND t.superseded_at IS NULL AND t.end_reason <> 'cancelled' AND a.review_score IS NULL
        AND greatest(t.finished_at, g.assigned_at) + make_interval(hours => n.review_due_hours) <= $1
        AND NOT EXISTS (SELECT 1 FROM answer_reviews r WHERE r.attempt_id = g.attempt_id AND r.question_id = g.question_id AND r.reviewer = 'user:' || lower(u.email))
        AND NOT EXISTS (SELECT 1 FROM review_settlements x WHERE x.attempt_id = g.attempt_id AND x.question_id = g.question_id)
      ORDER BY g.assigned_at LIMIT $2 FOR UPDATE OF g SKIP LOCKED`,
    [now, limit],
  );
  return rows;
}

/** How many assignments of the instance are overdue at `now` (as claimOverdue judges them, reminded or not), for the overview. */
export async function overdueAssignments(db: Queryable, instanceId: string, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM review_assignments g JOIN users u ON u.id = g.user_id JOIN attempts t ON t.id = g.attempt_id JOIN invitations i ON i.id = t.invitation_id
       JOIN instances n ON n.id = i.instance_id JOIN answers a ON a.attempt_id = g.attempt_id AND a.question_id = g.question_id
      WHERE i.instance_id = $1 AND n.review_due_hours IS NOT NULL AND u.disabled_at IS NULL
        AND t.finished_at IS NOT NULL AND t.superseded_at IS NULL AND t.end_reason <> 'cancelled' AND a.review_score IS NULL
        AND greatest(t.finished_at, g.assigned_at) + make_interval(hours => n.review_due_hours) <= $2
        AND NOT EXISTS (SELECT 1 FROM answer_reviews r WHERE r.attempt_id = g.attempt_id AND r.question_id = g.question_id AND r.reviewer = 'user:' || lower(u.email))
        AND NOT EXISTS (SELECT 1 FROM review_settlements x WHERE x.attempt_id = g.attempt_id AND x.question_id = g.question_id)`,
    [instanceId, now],
  );
  return rows[0]!.n;
}

/** Records that the overdue reminder of an assignment went; false when it had gone already (or the assignment is gone). */
export async function markReminded(db: Queryable, input: { attemptId: string; questionId: string; userId: string; at: Date }): Promise<boolean> {
  const { rows } = await db.query(
    'UPDATE review_assignments SET reminded_at = $4 WHERE attempt_id = $1 AND question_id = $2 AND user_id = $3 AND reminded_at IS NULL RETURNING 1',
    [input.attemptId, input.questionId, input.userId, input.at],
  );
  return rows.length > 0;
}

const OF_CANDIDATE = `SELECT t.id FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1`;

/** Erasure: the reviews of the candidate's answers (scores, levels, comments), settlements and assignments go; the final scores on the record stay. */
export async function eraseCandidateReviews(tx: Queryable, candidateId: string): Promise<void> {
  await tx.query(`DELETE FROM answer_reviews WHERE attempt_id IN (${OF_CANDIDATE})`, [candidateId]);
  await tx.query(`DELETE FROM review_settlements WHERE attempt_id IN (${OF_CANDIDATE})`, [candidateId]);
  await tx.query(`DELETE FROM review_assignments WHERE attempt_id IN (${OF_CANDIDATE})`, [candidateId]);
}

/** The data export: every review, settlement and assignment of the candidate's answers. */
export async function candidateReviews(db: Queryable, candidateId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT r.attempt_id AS "attemptId", r.question_id AS "questionId", 'review' AS kind, r.reviewer AS "by", r.score::float8 AS score, r.criteria, r.comment, r.reviewed_at AS at
       FROM answer_reviews r WHERE r.attempt_id IN (${OF_CANDIDATE})
     UNION ALL
     SELECT x.attempt_id, x.question_id, 'settlement', x.settled_by, x.score::float8, NULL, x.comment, x.settled_at
       FROM review_settlements x WHERE x.attempt_id IN (${OF_CANDIDATE})
     UNION ALL
     SELECT g.attempt_id, g.question_id, 'assignment', 'user:' || lower(u.email), NULL, NULL, NULL, g.assigned_at
       FROM review_assignments g JOIN users u ON u.id = g.user_id WHERE g.attempt_id IN (${OF_CANDIDATE})
     ORDER BY 1, 2, 8`,
    [candidateId],
  );
  return rows;
}

/** Whether a console user leads the instance's reviews: owners and managers do, reviewers when marked lead. */
export async function userLeads(db: Queryable, instanceId: string, user: { id: string; role: string }): Promise<boolean> {
  return user.role !== 'reviewer' || isMarkedLead(db, instanceId, user.id);
}
