// The candidate's feedback after submitting an assessment: a rating of 1 to 5 and an optional
// comment, one per attempt, never changed once given. The console shows it per assessment; the
// privacy erase deletes it with the candidate's answers (eraseCandidateAttempts).
import type { Queryable } from '../../db/database.js';
import { invalidInput } from '../../domain/errors.js';
import type { CommandContext } from '../../domain/command.js';

export const FEEDBACK_COMMENT_MAX = 1000;

export interface Feedback {
  rating: number;
  comment: string | null;
  createdAt: Date;
}

/** Checks the form's fields; returns the rating and the comment (null when empty) or throws 400. */
export function checkFeedback(rating: unknown, comment: unknown): { rating: number; comment: string | null } {
  const errors: { in: 'body'; name: string; detail: string }[] = [];
  const value = typeof rating === 'string' && /^[1-5]$/.test(rating) ? Number(rating) : Number.isInteger(rating) ? (rating as number) : NaN;
  if (!(value >= 1 && value <= 5)) errors.push({ in: 'body', name: 'rating', detail: 'must be a whole number from 1 to 5' });
  if (comment !== undefined && typeof comment !== 'string') errors.push({ in: 'body', name: 'comment', detail: 'must be text' });
  const text = typeof comment === 'string' ? comment.trim() : '';
  if (text.length > FEEDBACK_COMMENT_MAX) errors.push({ in: 'body', name: 'comment', detail: `must be at most ${FEEDBACK_COMMENT_MAX} characters, has ${text.length}` });
  if (text.includes('\u0000')) errors.push({ in: 'body', name: 'comment', detail: 'must not contain a NUL character' });
  if (errors.length > 0) throw invalidInput(errors, errors.map((e) => `${e.name} ${e.detail}`).join('; '));
  return { rating: value, comment: text === '' ? null : text };
}

/** Stores the feedback of a finished attempt; false when it already has some (nothing changes). */
export async function saveFeedback(ctx: CommandContext, input: { attemptId: string; feedback: { rating: number; comment: string | null } }): Promise<boolean> {
  const { attemptId, feedback } = input;
  const { rows } = await ctx.tx.query(
    `INSERT INTO attempt_feedback (attempt_id, rating, comment, created_at)
     SELECT id, $2, $3, $4 FROM attempts WHERE id = $1 AND finished_at IS NOT NULL
     ON CONFLICT (attempt_id) DO NOTHING RETURNING attempt_id`,
    [attemptId, feedback.rating, feedback.comment, ctx.now],
  );
  return rows.length > 0;
}

export async function feedbackOf(db: Queryable, attemptId: string): Promise<Feedback | undefined> {
  const { rows } = await db.query<Feedback>('SELECT rating, comment, created_at AS "createdAt" FROM attempt_feedback WHERE attempt_id = $1', [attemptId]);
  return rows[0];
}

export interface FeedbackSummary {
  count: number;
  /** Mean rating, one decimal; null without feedback. */
  average: number | null;
  /** How many gave 1, 2, 3, 4 and 5. */
  distribution: [number, number, number, number, number];
  /** The latest comments, newest first, with their candidate as the console shows candidates. */
  comments: { rating: number; comment: string; at: Date; candidateId: string; candidateName: string | null }[];
}

/** Feedback per assessment (by its slug) of an instance: every attempt, retakes' history included. */
export async function feedbackSummaries(db: Queryable, instanceId: string, latest = 10): Promise<Map<string, FeedbackSummary>> {
  const { rows } = await db.query<{ slug: string; rating: number; count: number }>(
    `SELECT s.slug, f.rating, count(*)::int AS count FROM attempt_feedback f JOIN attempts t ON t.id = f.attempt_id
       JOIN invitations i ON i.id = t.invitation_id JOIN assessments s ON s.id = i.assessment_id
      WHERE i.instance_id = $1 GROUP BY s.slug, f.rating`,
    [instanceId],
  );
  const { rows: comments } = await db.query<FeedbackSummary['comments'][number] & { slug: string }>(
    `SELECT slug, rating, comment, at, "candidateId", "candidateName" FROM (
       SELECT s.slug, f.rating, f.comment, f.created_at AS at, c.id AS "candidateId",
              CASE WHEN c.erased_at IS NULL THEN c.first_name || ' ' || c.last_name END AS "candidateName",
              row_number() OVER (PARTITION BY s.slug ORDER BY f.created_at DESC, f.attempt_id) AS n
         FROM attempt_feedback f JOIN attempts t ON t.id = f.attempt_id JOIN invitations i ON i.id = t.invitation_id
         JOIN assessments s ON s.id = i.assessment_id JOIN candidates c ON c.id = i.candidate_id
        WHERE i.instance_id = $1 AND f.comment IS NOT NULL) x
      WHERE n <= $2 ORDER BY slug, at DESC`,
    [instanceId, latest],
  );
  const out = new Map<string, FeedbackSummary>();
  const of = (slug: string) => {
    let summary = out.get(slug);
    if (!summary) out.set(slug, (summary = { count: 0, average: null, distribution: [0, 0, 0, 0, 0], comments: [] }));
    return summary;
  };
  for (const row of rows) {
    const summary = of(row.slug);
    summary.distribution[row.rating - 1] = row.count;
    summary.count += row.count;
  }
  for (const summary of out.values()) {
    const sum = summary.distribution.reduce((total, n, i) => total + n * (i + 1), 0);
    summary.average = Math.round((10 * sum) / summary.count) / 10;
  }
  for (const { slug, ...comment } of comments) of(slug).comments.push(comment);
  return out;
}
