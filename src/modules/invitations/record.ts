// The invitation row is the score record clients read: only this module writes it. The attempts
// module reports what happened (started, progress, a red flag, typing speed, completed, scored)
// through these functions, inside its own transaction; each change that clients are told about
// emits its webhook event in the same transaction.
import type { Queryable } from '../../db/database.js';
import { emitInvitationEvents, emitRecordEvents } from '../webhooks/events.js';
import { recordsFrom, toInstanceRecord } from '../scores/repository.js';
import type { InvitationRow } from '../scores/format.js';

/** A row of `recordsFrom`: a record's columns and its instance. */
type RecordRow = InvitationRow & { instance: string; instanceId: string };

export interface RecordScore {
  scoreStatus: 'PENDING' | 'LOW_PASS' | 'PASS' | 'FAIL';
  completion: number;
  totalScore: number;
  categoryScores: { name: string; score: number }[];
  redFlag: boolean;
  typingWpm: number;
}

/** What the attempts module needs to pin an attempt: the invitation's assessment and its current version, locked. */
/** The candidate's time limit in minutes: the assessment's, plus the invite's extra time rounded up. */
export const LIMIT_MINUTES = 'ceil(s.duration_minutes * (100 + i.extra_time_percent) / 100.0)::int';

export async function lockForStart(tx: Queryable, invitationId: string): Promise<{ assessmentId: string; version: number; minutes: number }> {
  const { rows } = await tx.query<{ assessmentId: string; version: number; minutes: number }>(
    `SELECT i.assessment_id AS "assessmentId", s.current_version AS version, ${LIMIT_MINUTES} AS minutes
       FROM invitations i JOIN assessments s ON s.id = i.assessment_id WHERE i.id = $1 FOR UPDATE OF i`,
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

export async function setTypingSpeed(tx: Queryable, invitationId: string, wpm: number): Promise<void> {
  await tx.query('UPDATE invitations SET typing_wpm = $2 WHERE id = $1', [invitationId, wpm]);
}

export async function markCompleted(tx: Queryable, invitationId: string, finishedAt: Date, now: Date): Promise<void> {
  // The change and the record it leaves in one statement (a completion is the sweep's hot path).
  const { rows } = await tx.query<RecordRow>(
    `WITH changed AS (UPDATE invitations SET assessment_status = 'COMPLETED', finished_at = $2 WHERE id = $1 RETURNING *) ${recordsFrom('changed')}`,
    [invitationId, finishedAt],
  );
  await emitRecordEvents(tx, 'assessment.completed', rows.map(toInstanceRecord), now);
}

/**
 * Writes the score of a completed attempt. Leaving PENDING emits score.finalized (also after a
 * manual review); a change of a finalized record (a re-review) emits score.updated.
 */
export async function setScore(tx: Queryable, invitationId: string, score: RecordScore, now: Date): Promise<void> {
  const { rows } = await tx.query<RecordRow & { before: string; changed: boolean }>(
    `WITH old AS (SELECT score_status, total_score, category_scores, completion, red_flag, typing_wpm FROM invitations WHERE id = $1 FOR UPDATE),
     changed AS (
       UPDATE invitations i SET score_status = $2, completion = $3, total_score = $4, category_scores = $5, red_flag = $6, typing_wpm = $7
         FROM old WHERE i.id = $1
       RETURNING i.*, old.score_status AS before,
                 (old.score_status, old.total_score, old.category_scores, old.completion, old.red_flag, old.typing_wpm)
                   IS DISTINCT FROM (i.score_status, i.total_score, i.category_scores, i.completion, i.red_flag, i.typing_wpm) AS changed)
     ${recordsFrom('changed', ', i.before, i.changed')}`,
    [invitationId, score.scoreStatus, score.completion, score.totalScore, JSON.stringify(score.categoryScores), score.redFlag, score.typingWpm],
  );
  const row = rows[0];
  if (!row || score.scoreStatus === 'PENDING') return;
  const type = row.before === 'PENDING' ? 'score.finalized' : row.changed ? 'score.updated' : undefined;
  if (type) await emitRecordEvents(tx, type, [toInstanceRecord(row)], now);
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
