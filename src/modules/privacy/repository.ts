// What the store holds about one candidate, read for an export (GDPR art. 15) and removed by an
// erasure (art. 17). Erasure keeps the candidate row with its id, erased_at and nothing personal,
// and the invitations with their numbers, so that GET /v1/score still reports the anonymous record;
// it deletes links, portal sessions, deliveries (they hold the address), answers, proctoring
// signals (addresses, user agents, details), webcam snapshots (their choice stays, without address or user agent), their voluntary self-identification, the feedback they gave after an assessment and the recruiters' decision, note and tags, and clears the attempts' first address, user agent
// and typed text. The invite answers kept for Idempotency-Key retries are sealed with keys the
// service does not store and hold no name or address (the candidate id and a link this erasure
// revokes): nothing ties them to the person without the client's keys; they expire in 24 hours.
import { eraseCandidateAttempts } from '../attempts/repository.js';
import { candidateReviews, eraseCandidateReviews } from '../reviews/repository.js';
import { anonymiseCandidate } from '../candidates/repository.js';
import { eraseCandidateMarks, marksOf, type CandidateMarks } from '../decisions/repository.js';
import { eraseCandidateMail } from '../invitations/repository/deliveries.js';
import { eraseCandidateBulkRows } from '../bulk-invites/erasure.js';
import { eraseCandidateSnapshots, snapshotsOfCandidate } from '../snapshots/repository.js';
import { eraseCandidateSelfId, selfIdOfCandidate } from '../equality/repository.js';
import type { Queryable } from '../../db/database.js';

export interface CandidateRow {
  id: string;
  instanceId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  createdAt: Date;
  updatedAt: Date;
  erasedAt: Date | null;
}

const CANDIDATE = `c.id, c.instance_id AS "instanceId", c.email, c.first_name AS "firstName", c.last_name AS "lastName",
  c.created_at AS "createdAt", c.updated_at AS "updatedAt", c.erased_at AS "erasedAt"`;

export type Selector = { email: string } | { candidateId: string };

/** The candidate of an instance by e-mail (case-insensitive) or id; with `lock`, FOR UPDATE. */
export async function findCandidate(db: Queryable, instanceId: string, selector: Selector, lock = false): Promise<CandidateRow | undefined> {
  const [where, value] = 'email' in selector ? ['lower(c.email) = lower($2)', selector.email] : ['c.id = $2::uuid', selector.candidateId];
  const { rows } = await db.query<CandidateRow>(`SELECT ${CANDIDATE} FROM candidates c WHERE c.instance_id = $1 AND ${where}${lock ? ' FOR UPDATE' : ''}`, [instanceId, value]);
  return rows[0];
}

/** Removes everything personal about the candidate (the row must be locked by the caller). */
export async function eraseCandidateRows(tx: Queryable, candidate: { id: string; instanceId: string }, at: Date): Promise<void> {
  // Each module erases what it owns, all in this one transaction.
  await eraseCandidateReviews(tx, candidate.id);
  await eraseCandidateAttempts(tx, candidate.id);
  await eraseCandidateSnapshots(tx, candidate.id);
  await eraseCandidateSelfId(tx, candidate.id);
  // Portal sessions go with the links they were opened from (ON DELETE CASCADE).
  await eraseCandidateMail(tx, candidate.id);
  await eraseCandidateMarks(tx, candidate.id);
  await eraseCandidateBulkRows(tx, candidate.id);
  await anonymiseCandidate(tx, candidate.id, at);
}

/**
 * Claims one candidate due for erasure under its instance's retention period at `now`: every
 * invitation closed (completed, withdrawn, or expired without being started), the last closed
 * more than retention_days ago, not erased yet. An invitation closes when it was finished, else
 * when it was withdrawn, else when it expired. Skips rows another node holds (FOR UPDATE SKIP
 * LOCKED), so several nodes share the work.
 */
export async function claimExpiredCandidate(tx: Queryable, now: Date): Promise<{ id: string; instanceId: string; instance: string } | undefined> {
  const { rows } = await tx.query<{ id: string; instanceId: string; instance: string }>(
    `SELECT c.id, c.instance_id AS "instanceId", s.name AS instance
       FROM candidates c JOIN instances s ON s.id = c.instance_id
      WHERE s.retention_days IS NOT NULL AND c.erased_at IS NULL
        AND NOT EXISTS (
          SELECT 1 FROM invitations i
           WHERE i.candidate_id = c.id AND i.finished_at IS NULL AND i.cancelled_at IS NULL
             AND NOT (i.assessment_status = 'INVITED' AND i.expires_at <= $1::timestamptz))
        AND (SELECT max(COALESCE(i.finished_at, i.cancelled_at, i.expires_at)) FROM invitations i WHERE i.candidate_id = c.id)
            < $1::timestamptz - make_interval(days => s.retention_days)
      ORDER BY c.id LIMIT 1 FOR UPDATE OF c SKIP LOCKED`,
    [now],
  );
  return rows[0];
}

export interface CandidateData {
  invitations: Record<string, unknown>[];
  inviteLinks: Record<string, unknown>[];
  portalSessions: Record<string, unknown>[];
  attempts: Record<string, unknown>[];
  deliveries: Record<string, unknown>[];
  audit: Record<string, unknown>[];
  marks: CandidateMarks;
  /** Per attempt of an assessment with webcam snapshots: the choice, and each snapshot with its JPEG as base64. */
  webcam: Record<string, unknown>[];
  /** Reviews of the candidate's answers (each reviewer's score, levels and comment), leads' settlements and assignments. */
  reviews: Record<string, unknown>[];
  /** Voluntary self-identification given after an assessment (per assessment: the answers and when). */
  selfIdentification: Record<string, unknown>[];
}

/** Everything stored about the candidate besides the candidate row. */
export async function candidateData(db: Queryable, candidateId: string): Promise<CandidateData> {
  const invitations = await db.query<Record<string, unknown>>(
    `SELECT i.id::text, s.slug AS "assessmentId", s.name AS "assessmentName", i.assessment_status AS "assessmentStatus", i.score_status AS "scoreStatus",
            i.completion::float8 AS completion, i.total_score::float8 AS "totalScore", i.typing_wpm::float8 AS "typingWpm", i.category_scores AS "categoryScores",
            i.red_flag AS "redFlag", i.started_at AS "startedAt", i.finished_at AS "finishedAt", i.created_at AS "createdAt"
       FROM invitations i JOIN assessments s ON s.id = i.assessment_id WHERE i.candidate_id = $1 ORDER BY s.slug, i.id`,
    [candidateId],
  );
  const inviteLinks = await db.query<Record<string, unknown>>(
    `SELECT l.id::text, (SELECT coalesce(array_agg(s.slug ORDER BY s.slug), '{}') FROM assessments s WHERE s.id = ANY(l.assessment_ids)) AS assessments,
            l.expires_at AS "expiresAt", l.revoked_at AS "revokedAt", l.created_at AS "createdAt"
       FROM invite_links l WHERE l.candidate_id = $1 ORDER BY l.id`,
    [candidateId],
  );
  const portalSessions = await db.query<Record<string, unknown>>(
    `SELECT created_at AS "createdAt", expires_at AS "expiresAt" FROM portal_sessions WHERE candidate_id = $1 ORDER BY created_at`,
    [candidateId],
  );
  const attempts = await db.query<Record<string, unknown>>(
    `SELECT a.id, s.slug AS "assessmentId", a.version, a.started_at AS "startedAt", a.deadline_at AS "deadlineAt", a.finished_at AS "finishedAt",
            a.end_reason AS "endReason", a.position, a.first_address AS "firstAddress", a.first_agent AS "firstAgent",
            a.typing_started_at AS "typingStartedAt", a.typing_text AS "typingText", a.typing_ms AS "typingMs",
            a.typing_wpm::float8 AS "typingWpm", a.typing_accuracy::float8 AS "typingAccuracy",
            coalesce((SELECT json_agg(json_build_object('questionId', w.question_id, 'value', w.value, 'answeredAt', w.answered_at,
                        'reviewScore', w.review_score::float8, 'reviewedAt', w.reviewed_at,
                        'reviewedBy', w.reviewed_by, 'reviewComment', w.review_comment) ORDER BY w.question_id) FROM answers w WHERE w.attempt_id = a.id), '[]') AS answers,
            coalesce((SELECT json_agg(json_build_object('at', p.at, 'kind', p.kind, 'detail', p.detail, 'source', p.source) ORDER BY p.id)
                        FROM proctor_signals p WHERE p.attempt_id = a.id), '[]') AS "proctoringSignals",
            (SELECT json_build_object('rating', f.rating, 'comment', f.comment, 'createdAt', f.created_at) FROM attempt_feedback f WHERE f.attempt_id = a.id) AS feedback
       FROM attempts a JOIN invitations i ON i.id = a.invitation_id JOIN assessments s ON s.id = a.assessment_id
      WHERE i.candidate_id = $1 ORDER BY a.started_at, a.id`,
    [candidateId],
  );
  const deliveries = await db.query<Record<string, unknown>>(
    `SELECT id::text, recipient, status, message_id AS "messageId", response, duration_ms AS "durationMs", attempted_at AS "attemptedAt"
       FROM deliveries WHERE candidate_id = $1 ORDER BY id`,
    [candidateId],
  );
  // Operator actions whose target names the candidate or one of their attempts (without the
  // operator's own address and user agent, which are not the candidate's data).
  const ids = [candidateId, ...attempts.rows.map((a) => String(a.id))];
  const audit = await db.query<Record<string, unknown>>(
    `SELECT id::text, at, actor, action, target, request_id AS "requestId", status
       FROM audit_log WHERE target IS NOT NULL AND EXISTS (SELECT 1 FROM unnest($1::text[]) AS t(id) WHERE strpos(audit_log.target, t.id) > 0) ORDER BY id`,
    [ids],
  );
  return {
    invitations: invitations.rows,
    inviteLinks: inviteLinks.rows,
    portalSessions: portalSessions.rows,
    attempts: attempts.rows,
    deliveries: deliveries.rows,
    audit: audit.rows,
    marks: await marksOf(db, candidateId),
    webcam: await snapshotsOfCandidate(db, candidateId),
    reviews: await candidateReviews(db, candidateId),
    selfIdentification: await selfIdOfCandidate(db, candidateId),
  };
}
