// The invitation row is the score record clients read: only this module writes it. The attempts
// module reports what happened (started, progress, a red flag, typing speed, completed, scored)
// through these functions, inside its own transaction; each change that clients are told about
// emits its webhook event in the same transaction.
import type { Queryable } from '../../db/database.js';
import { emitInvitationEvents, emitRecordEvents } from '../webhooks/events.js';
import { recordsFrom, toInstanceRecord, type RecordSource as RecordRow } from '../scores/repository.js';

export interface RecordScore {
  scoreStatus: 'PENDING' | 'LOW_PASS' | 'PASS' | 'FAIL';
  completion: number;
  totalScore: number;
  categoryScores: { name: string; score: number }[];
  redFlag: boolean;
  typingWpm: number;
}

/** The candidate's time limit in minutes: the assessment's, plus the invite's extra time rounded up. */
export const LIMIT_MINUTES = 'ceil(s.duration_minutes * (100 + i.extra_time_percent) / 100.0)::int';

/** What an attempt starts from: the invitation's assessment, its current version and the candidate's time limit (the invitation is locked by the caller). */
export async function startingPoint(tx: Queryable, invitationId: string): Promise<{ assessmentId: string; version: number; minutes: number }> {
  const { rows } = await tx.query<{ assessmentId: string; version: number; minutes: number }>(
    `SELECT i.assessment_id AS "assessmentId", s.current_version AS version, ${LIMIT_MINUTES} AS minutes
       FROM invitations i JOIN assessments s ON s.id = i.assessment_id WHERE i.id = $1`,
    [invitationId],
  );
  return rows[0]!;
}

export async function markStarted(tx: Queryable, invitationId: string, startedAt: Date, now: Date): Promise<void> {
  await tx.query(`UPDATE invitations SET assessment_status = 'IN_PROGRESS', started_at = $2 WHERE id = $1`, [invitationId, startedAt]);
  await emitInvitationEvents(tx, 'assessment.started', [invitationId], now);
}

export async function setCompletion(tx: Queryable, invitationId: string, completion: number): Promise<void> {
  await tx.query('UPDATE invitations SET completion = $2 WHERE id = $1', [invitationId, completion]);
}

export async function setRedFlag(tx: Queryable, invitationId: string, flagged: boolean): Promise<void> {
  await tx.query('UPDATE invitations SET red_flag = $2 WHERE id = $1', [invitationId, flagged]);
}

/**
 * A reviewer's change of the red flag (a dismissed signal): the record changes, and a finalized
 * record's change is announced as score.updated, so that clients see the flag they should.
 */
export async function changeRedFlag(tx: Queryable, invitationId: string, flagged: boolean, now: Date): Promise<boolean> {
  const { rows } = await tx.query<{ finalized: boolean }>(
    `UPDATE invitations SET red_flag = $2 WHERE id = $1 AND red_flag IS DISTINCT FROM $2 RETURNING score_status <> 'PENDING' AS finalized`,
    [invitationId, flagged],
  );
  if (rows[0]?.finalized) await emitInvitationEvents(tx, 'score.updated', [invitationId], now);
  return rows.length > 0;
}

export async function setTypingSpeed(tx: Queryable, invitationId: string, wpm: number): Promise<void> {
  await tx.query('UPDATE invitations SET typing_wpm = $2 WHERE id = $1', [invitationId, wpm]);
}

/** Marks invitations completed (the attempts' finishing times), in one statement with the records they leave. */
export async function markCompleted(tx: Queryable, completed: { invitationId: string; finishedAt: Date }[], now: Date): Promise<void> {
  if (completed.length === 0) return;
  // The change and the records it leaves in one statement (a completion is the sweep's hot path).
  const { rows } = await tx.query<RecordRow>(
    `WITH done AS (SELECT * FROM unnest($1::bigint[], $2::timestamptz[]) AS t(id, finished_at)),
     changed AS (UPDATE invitations i SET assessment_status = 'COMPLETED', finished_at = done.finished_at FROM done WHERE i.id = done.id RETURNING i.*)
     ${recordsFrom('changed')} ORDER BY i.id`,
    [completed.map((c) => c.invitationId), completed.map((c) => c.finishedAt)],
  );
  await emitRecordEvents(tx, 'assessment.completed', rows.map(toInstanceRecord), now);
}

/**
 * Writes the scores of completed attempts onto their invitations, in one statement. Leaving
 * PENDING emits score.finalized (also after a manual review); a change of a finalized record (a
 * re-review) emits score.updated.
 */
export async function setScores(tx: Queryable, scores: { invitationId: string; score: RecordScore }[], now: Date): Promise<void> {
  if (scores.length === 0) return;
  const { rows } = await tx.query<RecordRow & { id: string; before: string; changed: boolean }>(
    `WITH input AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::numeric[], $4::numeric[], $5::jsonb[], $6::boolean[], $7::numeric[])
                      AS t(id, score_status, completion, total_score, category_scores, red_flag, typing_wpm)),
     old AS (SELECT i.id, i.score_status, i.total_score, i.category_scores, i.completion, i.red_flag, i.typing_wpm
               FROM invitations i JOIN input ON input.id = i.id FOR UPDATE OF i),
     changed AS (
       UPDATE invitations i SET score_status = input.score_status, completion = input.completion, total_score = input.total_score,
              category_scores = input.category_scores, red_flag = input.red_flag, typing_wpm = input.typing_wpm
         FROM input JOIN old ON old.id = input.id WHERE i.id = input.id
       RETURNING i.*, old.score_status AS before,
                 (old.score_status, old.total_score, old.category_scores, old.completion, old.red_flag, old.typing_wpm)
                   IS DISTINCT FROM (i.score_status, i.total_score, i.category_scores, i.completion, i.red_flag, i.typing_wpm) AS changed)
     ${recordsFrom('changed', ', i.before, i.changed')} ORDER BY i.id`,
    [
      scores.map((s) => s.invitationId),
      scores.map((s) => s.score.scoreStatus),
      scores.map((s) => s.score.completion),
      scores.map((s) => s.score.totalScore),
      scores.map((s) => JSON.stringify(s.score.categoryScores)),
      scores.map((s) => s.score.redFlag),
      scores.map((s) => s.score.typingWpm),
    ],
  );
  const pending = new Set(scores.filter((s) => s.score.scoreStatus === 'PENDING').map((s) => s.invitationId));
  const announced = rows.filter((row) => !pending.has(row.id));
  await emitRecordEvents(tx, 'score.finalized', announced.filter((row) => row.before === 'PENDING').map(toInstanceRecord), now);
  await emitRecordEvents(tx, 'score.updated', announced.filter((row) => row.before !== 'PENDING' && row.changed).map(toInstanceRecord), now);
}

/**
 * Opens an invitation again for a retake: the record goes back to INVITED with nothing scored,
 * to be started until the instance's invite lifetime from now. A record that had been finalized
 * changed, so it is announced as score.updated (with the record as it is now).
 */
export async function resetForRetake(tx: Queryable, invitationId: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE invitations i SET assessment_status = 'INVITED', score_status = 'PENDING', completion = 0, total_score = 0, typing_wpm = 0,
            category_scores = '[]', red_flag = false, started_at = NULL, finished_at = NULL, cancelled_at = NULL, expired_at = NULL,
            reminded_at = NULL, expires_at = $2::timestamptz + make_interval(days => (SELECT invite_ttl_days FROM instances n WHERE n.id = i.instance_id))
      WHERE id = $1`,
    [invitationId, now],
  );
  await emitInvitationEvents(tx, 'score.updated', [invitationId], now);
}
