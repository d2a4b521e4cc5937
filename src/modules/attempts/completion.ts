// Completing attempts, by submission or by the clock (the deadline sweep), and scoring them: the
// result is written onto the invitation in the same transaction. Reviews and coding grades that
// score an answer later write through here too.
import { isUnavailable, type Database, type Queryable } from '../../db/database.js';
import { runCommand, systemRequest, type CommandContext } from '../../domain/command.js';
import { conflict, notFound } from '../../domain/errors.js';
import type { AssessmentContent, QuestionContent } from '../assessments/content-schema.js';
import { storeFingerprints, type AnswerToFingerprint } from '../integrity/similarity.js';
import { decide, lockInvitationOfAttempt, stateSql, type InvitationState } from '../invitations/machine.js';
import { markCompleted, setScores } from '../invitations/record.js';
import { inOneStatement } from '../webhooks/repository.js';
import { instancesWrote } from '../../db/replica.js';
import { redFlagOf } from './proctoring.js';
import { ATTEMPT, layoutOf, type Attempt } from './repository.js';
import { versionContent } from '../assessments/repository.js';
import { scoreAttempt, type AnswerValue } from './scoring.js';
import { countsOfTally, DISMISSED_SQL, type SignalTally } from './signals.js';
import { isUuid } from '../../domain/ids.js';
/**
 * Completes an attempt and writes its score onto the invitation. Idempotent: completing a
 * completed attempt changes nothing. Must run inside a transaction (it locks the attempt); given
 * the attempt row already locked in this transaction, it is not read again.
 */
export async function completeAttemptIn(tx: Queryable, attempt: string | Attempt, reason: 'submitted' | 'time-limit', now: Date): Promise<Attempt | undefined> {
  const locked = typeof attempt === 'string' ? (await tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.id = $1 FOR UPDATE`, [attempt])).rows[0] : attempt;
  if (!locked) return undefined;
  const ended = (await completeAttemptsIn(tx, [locked], reason, now)).get(locked.id);
  // The row as the completion left it (the attempt as it was when it was finished already).
  return ended ? { ...locked, finishedAt: ended.at, endReason: ended.reason } : locked;
}

/**
 * Completes attempts locked in this transaction and writes their scores onto their invitations,
 * in a fixed number of statements however many there are (the sweep completes its batches so).
 * Those already finished are left as they are.
 */
async function completeAttemptsIn(
  tx: Queryable,
  attempts: Attempt[],
  reason: 'submitted' | 'time-limit',
  now: Date,
): Promise<Map<string, { at: Date; reason: Attempt['endReason'] }>> {
  const open = attempts.filter((attempt) => !attempt.finishedAt);
  if (open.length === 0) return new Map();
  // Past the deadline, the attempt ended at the deadline, whoever notices it and when.
  const finished = await tx.query<{ id: string; at: Date; reason: string }>(
    `UPDATE attempts SET finished_at = CASE WHEN $3::timestamptz >= deadline_at THEN deadline_at ELSE $3::timestamptz END,
            end_reason = CASE WHEN $3::timestamptz >= deadline_at THEN 'time-limit' ELSE $2 END
      WHERE id = ANY($1::uuid[]) RETURNING id, finished_at AS at, end_reason AS reason`,
    [open.map((attempt) => attempt.id), reason, now],
  );
  const ended = new Map(finished.rows.map((row) => [row.id, { at: row.at, reason: row.reason as Attempt['endReason'] }]));
  // The two records' events (assessment.completed, score.finalized) go to the outbox in one statement.
  await inOneStatement(tx, async () => {
    await markCompleted(
      tx,
      open.map((attempt) => ({ invitationId: attempt.invitationId, finishedAt: ended.get(attempt.id)!.at })),
      now,
    );
    await writeScores(tx, open, now, { fingerprint: true });
  });
  return ended;
}

/**
 * Scores attempts from what is stored and writes the results onto their invitations. `attempts`
 * are rows locked in this transaction (their typing speeds are current). Their answers and
 * proctoring signals are read in one statement.
 */
async function writeScores(tx: Queryable, attempts: Attempt[], now: Date, options: { fingerprint?: boolean } = {}): Promise<void> {
  const { rows } = await tx.query<{ id: string; answers: { questionId: string; value: AnswerValue; review: number | null }[] } & SignalTally>(
    `SELECT t.id,
            coalesce((SELECT json_agg(json_build_object('questionId', question_id, 'value', value, 'review', CASE WHEN ${REVIEW_CURRENT} THEN review_score END))
                        FROM answers WHERE attempt_id = t.id), '[]') AS answers,
            (SELECT signal_counts FROM attempts WHERE id = t.id) AS counts,
            (SELECT dismissed_kinds FROM attempts WHERE id = t.id) AS "dismissedKinds", ${DISMISSED_SQL('t.id')} AS dismissed
       FROM unnest($1::uuid[]) AS t(id)`,
    [attempts.map((attempt) => attempt.id)],
  );
  const stored = new Map(rows.map((row) => [row.id, row]));
  const scores = [];
  const fingerprints = [];
  for (const attempt of attempts) {
    const content = await versionContent(tx, attempt.assessmentId, attempt.version);
    const { answers, ...tally } = stored.get(attempt.id)!;
    const wpm = attempt.typingWpm;
    const score = scoreAttempt({
      content,
      questionIds: layoutOf(attempt, content).questions,
      answers: Object.fromEntries(answers.map((r) => [r.questionId, r.value])),
      reviews: Object.fromEntries(answers.filter((r) => r.review !== null).map((r) => [r.questionId, Number(r.review)])),
      typingWpm: wpm === null ? undefined : Number(wpm),
    });
    const flagged = redFlagOf(countsOfTally(tally));
    // At completion only: the answers compared with other candidates' (rescoring after a review
    // changes no answer). An attempt completed now has none stored yet, so one with nothing to
    // compare (no program, no free text) costs no statement.
    const printed = options.fingerprint ? toFingerprint(content, answers) : [];
    if (printed.length > 0) fingerprints.push({ attemptId: attempt.id, answers: printed });
    scores.push({
      invitationId: attempt.invitationId,
      score: {
        scoreStatus: score.scoreStatus,
        completion: score.completion,
        totalScore: score.totalScore,
        categoryScores: score.categoryScores,
        redFlag: flagged,
        typingWpm: Number(wpm ?? 0),
      },
    });
  }
  await setScores(tx, scores, now);
  await storeFingerprints(tx, fingerprints);
}

/** The answers compared with other candidates' (docs/integrity.md): programs, and free texts. */
function toFingerprint(content: AssessmentContent, answers: { questionId: string; value: AnswerValue }[]): AnswerToFingerprint[] {
  const out: AnswerToFingerprint[] = [];
  for (const { questionId, value } of answers) {
    const question = content.questions.find((q) => q.id === questionId);
    if (question?.type === 'free-text' && typeof value === 'string') out.push({ questionId, language: 'text', text: value });
    if (question?.type === 'coding' && typeof value === 'object' && value !== null && !Array.isArray(value) && (value.language === 'javascript' || value.language === 'python')) {
      const starter = question.starterCode?.[value.language];
      out.push({ questionId, language: value.language, text: value.source, given: starter ? [starter] : [] });
    }
  }
  return out;
}

/**
 * Open attempts past their deadline, but not those in `passedOver` ($1); each caller adds its
 * order, limit and lock (`FOR UPDATE OF a, i SKIP LOCKED`: the attempt and its invitation, so that
 * a command holding the invitation, a cancel, is passed over rather than waited for).
 */
const CLAIM_EXPIRED = `SELECT ${ATTEMPT}, ${stateSql('$3::timestamptz')} AS "invitationState", i.instance_id AS "instanceId" FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE a.finished_at IS NULL AND a.deadline_at <= $3::timestamptz AND NOT (a.id = ANY($1::uuid[]))`;

/**
 * The claimed attempts whose completion the state machine allows (the clock's submit of an
 * invitation in progress); one it refuses (an open attempt of an invitation whose record says
 * otherwise: damaged data) is reported through onError and passed over, as a fault is.
 */
function dueByMachine<T extends Attempt & { invitationState: InvitationState }>(rows: T[], onError: (attemptId: string, error: unknown) => void, passedOver: string[]): T[] {
  return rows.filter((row) => {
    const outcome = decide(row.invitationState, 'submit', { started: true });
    if ('to' in outcome) return true;
    if (!passedOver.includes(row.id)) passedOver.push(row.id);
    onError(row.id, conflict('refuse' in outcome ? outcome.refuse : `the invitation is ${row.invitationState}: nothing to complete`));
    return false;
  });
}

/**
 * Completes up to `batch` attempts whose time ran out, all in one transaction of a fixed number of
 * statements: one at a time, each completion was a transaction of nine round trips and a commit,
 * and 10,000 deadlines in a minute outran a busy node. They are taken with SKIP LOCKED, so that
 * several sweeps (other nodes, or workers of one run) complete each attempt once. When the batch
 * fails on one attempt, it is rolled back and its attempts are completed one by one, so that the
 * others complete and the faulty one is reported (through onError) and passed over for the rest
 * of this sweep rather than retried first every time. `passedOver` (ids, added to as attempts
 * fail) may be shared by sweeps running side by side, and may start with attempts to leave alone.
 * Returns how many it completed.
 */
export async function completeExpired(
  db: Database,
  now: Date,
  batch = 20,
  onError: (attemptId: string, error: unknown) => void = () => {},
  passedOver: string[] = [],
): Promise<number> {
  let taken: string[] = [];
  try {
    return await runCommand(
      db,
      systemRequest('deadline-sweep', now),
      async ({ tx, afterCommit }) => {
        const { rows } = await tx.query<Attempt & { invitationState: InvitationState; instanceId: string }>(
          `${CLAIM_EXPIRED} ORDER BY a.deadline_at LIMIT $2 FOR UPDATE OF a, i SKIP LOCKED`,
          [passedOver, batch, now],
        );
        // A worker sharing `passedOver` may have failed one of these and let go of it after this
        // statement was sent with the list as it was then: it is not taken up again.
        const claimed = dueByMachine(
          rows.filter((row) => !passedOver.includes(row.id)),
          onError,
          passedOver,
        );
        taken = claimed.map((row) => row.id);
        await completeAttemptsIn(tx, claimed, 'time-limit', now);
        afterCommit(() => instancesWrote([...new Set(claimed.map((row) => row.instanceId))]));
        return claimed.length;
      },
      'deadline_sweep_completion',
    );
  } catch (error) {
    // The database being away ends the sweep; a fault in the batch has it done one by one.
    if (taken.length === 0 || isUnavailable(error)) throw error;
    let done = 0;
    for (const attemptId of taken) if (await completeOneExpired(db, now, attemptId, onError, passedOver)) done++;
    return done;
  }
}

/** Completes one attempt whose time ran out, unless another sweep has it; a fault reports it and passes it over. */
async function completeOneExpired(db: Database, now: Date, attemptId: string, onError: (attemptId: string, error: unknown) => void, passedOver: string[]): Promise<boolean> {
  if (passedOver.includes(attemptId)) return false;
  try {
    return await runCommand(
      db,
      systemRequest('deadline-sweep', now),
      async ({ tx, afterCommit }) => {
        const { rows } = await tx.query<Attempt & { invitationState: InvitationState; instanceId: string }>(`${CLAIM_EXPIRED} AND a.id = $2 FOR UPDATE OF a, i SKIP LOCKED`, [
          passedOver,
          attemptId,
          now,
        ]);
        const due = dueByMachine(rows, onError, passedOver);
        if (!due[0]) return false;
        try {
          await completeAttemptsIn(tx, due, 'time-limit', now);
          afterCommit(() => instancesWrote([due[0]!.instanceId]));
        } catch (error) {
          // Passed over before the rollback lets go of it, so that sweeps sharing `passedOver`
          // (the same run's other workers) do not take it up again.
          if (!isUnavailable(error)) passedOver.push(attemptId);
          throw error;
        }
        return true;
      },
      'deadline_sweep_completion',
    );
  } catch (error) {
    if (isUnavailable(error)) throw error;
    if (!passedOver.includes(attemptId)) passedOver.push(attemptId);
    onError(attemptId, error);
    return false;
  }
}

/**
 * How long until the next open attempt's deadline (other than those in `skip`), in ms from `now`
 * (the app's clock, which deadlines are set and checked by); undefined when no attempt is open.
 * Zero or less: one is due already.
 */
export async function nextDeadlineInMs(db: Queryable, now: Date, skip: string[] = []): Promise<number | undefined> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT (extract(epoch FROM (SELECT min(deadline_at) FROM attempts WHERE finished_at IS NULL AND NOT (id = ANY($1::uuid[]))) - $2::timestamptz) * 1000)::float8 AS ms`,
    [skip, now],
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : ms;
}

/** The hash of an answer's value that a review is bound to (SQL, over the answers row). */
export const ANSWER_HASH = `sha256(convert_to(value::text, 'UTF8'))`;
/** True when the answers row's review scored the value it has now (SQL). */
export const REVIEW_CURRENT = `(review_score IS NOT NULL AND review_value_hash = ${ANSWER_HASH})`;

/**
 * Locks a free-text answer of a completed attempt for a review (the invitation first, then the
 * attempt, as completion does) and returns the attempt, the question and the answer's text. The
 * rules of reviewing: an attempt in progress is refused (409: its answers may still change), so
 * are one replaced by a retake and one withdrawn; a question not answered is not found.
 */
export async function lockReviewableAnswer(
  tx: Queryable,
  attemptId: string,
  questionId: string,
): Promise<{ attempt: Attempt; question: Extract<QuestionContent, { type: 'free-text' }>; answer: string }> {
  if (!isUuid(attemptId)) throw notFound('No such attempt');
  await lockInvitationOfAttempt(tx, attemptId);
  const { rows } = await tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.id = $1 FOR UPDATE`, [attemptId]);
  const attempt = rows[0];
  if (!attempt) throw notFound('No such attempt');
  const content = await versionContent(tx, attempt.assessmentId, attempt.version);
  const question = content.questions.find((q) => q.id === questionId);
  if (!question || question.type !== 'free-text') throw notFound(`No free-text question ${questionId} in this attempt`);
  if (!attempt.finishedAt) {
    throw conflict('This attempt is still in progress: its answers can change until it is completed, so they can be scored only then');
  }
  if (attempt.supersededAt) throw conflict('This attempt was replaced by a retake: it is history, and scoring it would change nothing');
  if (attempt.endReason === 'cancelled') throw conflict('This attempt was withdrawn by the company: it is never scored');
  const answer = await tx.query<{ value: AnswerValue }>('SELECT value FROM answers WHERE attempt_id = $1 AND question_id = $2', [attemptId, questionId]);
  if (!answer.rows[0]) throw notFound('The candidate did not answer this question');
  return { attempt, question, answer: String(answer.rows[0].value) };
}

/**
 * Sets (or, with a null score, clears) the final review score of a free-text answer locked by
 * lockReviewableAnswer in this transaction, and rescores the attempt. The score is stored with the
 * hash of the answer it scored and counts only while the answer has that value. The reviews
 * module decides the final score (one review, the mean of several, or a lead's).
 */
export async function writeReviewScore(
  ctx: CommandContext,
  input: { attempt: Attempt; questionId: string; score: number | null; by: string; comment: string | null },
): Promise<void> {
  if (input.score === null) {
    await ctx.tx.query(
      'UPDATE answers SET review_score = NULL, reviewed_at = NULL, reviewed_by = NULL, review_comment = NULL, review_value_hash = NULL WHERE attempt_id = $1 AND question_id = $2',
      [input.attempt.id, input.questionId],
    );
  } else {
    await ctx.tx.query(
      `UPDATE answers SET review_score = $3, reviewed_at = $6, reviewed_by = $4, review_comment = $5, review_value_hash = ${ANSWER_HASH}
        WHERE attempt_id = $1 AND question_id = $2`,
      [input.attempt.id, input.questionId, Math.round(input.score * 100) / 100, input.by, input.comment, ctx.now],
    );
  }
  await writeScores(ctx.tx, [input.attempt], ctx.now);
}

/**
 * Records the grade of a coding answer of a finished attempt (the share, 0-100, of its hidden
 * tests' points passed, found by the sandbox: coding-grades.ts) and rescores the attempt. The
 * grade is kept as the answer's review score, bound to the graded value like an operator's review,
 * so it counts only while the answer has that value. Returns false, changing nothing, when the
 * attempt is not finished, was replaced or withdrawn, or the answer is no longer that value.
 */
export async function recordCodingGrade(
  ctx: CommandContext,
  input: { attemptId: string; questionId: string; value: AnswerValue; grade: number; summary: string },
): Promise<boolean> {
  const { tx } = ctx;
  await lockInvitationOfAttempt(tx, input.attemptId);
  const { rows } = await tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.id = $1 FOR UPDATE`, [input.attemptId]);
  const attempt = rows[0];
  if (!attempt || !attempt.finishedAt || attempt.supersededAt || attempt.endReason === 'cancelled') return false;
  const content = await versionContent(tx, attempt.assessmentId, attempt.version);
  if (content.questions.find((q) => q.id === input.questionId)?.type !== 'coding') return false;
  const grade = Math.min(100, Math.max(0, input.grade));
  const updated = await tx.query(
    `UPDATE answers SET review_score = $3, reviewed_at = $5, reviewed_by = 'coding-sandbox', review_comment = $6, review_value_hash = ${ANSWER_HASH}
      WHERE attempt_id = $1 AND question_id = $2 AND value = $4::jsonb RETURNING 1`,
    [input.attemptId, input.questionId, grade, JSON.stringify(input.value), ctx.now, input.summary.slice(0, 500)],
  );
  if (updated.rows.length === 0) return false;
  await writeScores(tx, [attempt], ctx.now);
  return true;
}
