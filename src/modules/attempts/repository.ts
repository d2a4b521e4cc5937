// Attempts as stored: starting one (pinned to the current version), saving answers while the
// time lasts, and completing it, by submission or by the clock (signals.ts keeps its proctoring
// signals, typing-test.ts its typing test).
// Completion scores the attempt and writes the result onto the invitation, in one transaction.
import { isUnavailable, type Database, type Queryable } from '../../db/database.js';
import { conflict, invalidInput, notFound } from '../../domain/errors.js';
import type { CommandContext } from '../../domain/command.js';
import { allow, lockInvitationById, lockInvitationOfAttempt } from '../invitations/machine.js';
import { scaleLabels, type AssessmentContent, type QuestionContent } from '../assessments/content-schema.js';
import { shownLanguage } from '../assessments/translations.js';
import { DEFAULT_LANGUAGE, LANGUAGES, isLang, type Lang } from '../../i18n/i18n.js';
import { redFlagOf } from './proctoring.js';
import { countsOfTally, DISMISSED_SQL, type SignalTally } from './signals.js';
import { isAnswered, isPermutation, scoreAttempt, type AnswerValue } from './scoring.js';
import { attemptLayout, authoredLayout, newSeed, type AttemptLayout } from './layout.js';
import { startingPoint, markCompleted, markStarted, setCompletion, setScores } from '../invitations/record.js';
import { eraseFingerprintsOfCandidate, storeFingerprints, type AnswerToFingerprint } from '../integrity/similarity.js';

export interface Attempt {
  id: string;
  invitationId: string;
  assessmentId: string;
  version: number;
  startedAt: Date;
  deadlineAt: Date;
  finishedAt: Date | null;
  endReason: 'submitted' | 'time-limit' | 'cancelled' | null;
  position: number;
  typingStartedAt: Date | null;
  typingWpm: string | null;
  firstAddress: string | null;
  firstAgent: string | null;
  /** When a retake replaced it (then it is history); null for the current attempt. */
  supersededAt: Date | null;
  /** What this attempt shows (questions drawn and their order, option orders); null before layouts existed. */
  layout: AttemptLayout | null;
  /** The language its content is shown in, chosen at the start and kept (assessments/translations.ts). */
  language: Lang;
}

/** The layout the attempt shows: its stored one, or the authored order for an attempt older than layouts. */
export const layoutOf = (attempt: Pick<Attempt, 'layout'>, content: AssessmentContent): AttemptLayout => attempt.layout ?? authoredLayout(content);

const ATTEMPT = `a.id, a.invitation_id AS "invitationId", a.assessment_id AS "assessmentId", a.version,
  a.started_at AS "startedAt", a.deadline_at AS "deadlineAt", a.finished_at AS "finishedAt", a.end_reason AS "endReason",
  a.position, a.typing_started_at AS "typingStartedAt", a.typing_wpm AS "typingWpm",
  a.first_address AS "firstAddress", a.first_agent AS "firstAgent", a.superseded_at AS "supersededAt", a.layout,
  a.content_language AS language`;

// Published versions never change, so their content is kept in memory once read.
const contentCache = new Map<string, AssessmentContent>();

export async function versionContent(db: Queryable, assessmentId: string, version: number): Promise<AssessmentContent> {
  const key = `${assessmentId}/${version}`;
  const cached = contentCache.get(key);
  if (cached) return cached;
  const { rows } = await db.query<{ content: AssessmentContent }>('SELECT content FROM assessment_versions WHERE assessment_id = $1 AND version = $2', [assessmentId, version]);
  const content = rows[0]!.content;
  if (contentCache.size > 1000) contentCache.clear();
  contentCache.set(key, content);
  return content;
}

export async function findAttempt(db: Queryable, invitationId: string): Promise<Attempt | undefined> {
  const { rows } = await db.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.invitation_id = $1 AND a.superseded_at IS NULL`, [invitationId]);
  return rows[0];
}

/**
 * Starts the attempt of an invitation (the candidate's command), or returns the one already
 * started (a second tab, a retry). The invitation is locked first and its state decides: one
 * withdrawn, expired or completed meanwhile (a cancel that won the race) is refused (409).
 * `language` is the candidate's portal language: the content is shown in it for the whole attempt
 * when the version has its translation, else in English; an attempt already started keeps its own.
 */
export async function startAttempt(ctx: CommandContext, input: { invitationId: string; client: { address: string; agent: string }; language?: unknown }): Promise<Attempt> {
  const { tx } = ctx;
  if (input.language !== undefined && !isLang(input.language)) {
    throw invalidInput([{ in: 'body', name: 'language', detail: `must be one of ${Object.keys(LANGUAGES).join(', ')}` }]);
  }
  const inv = await lockInvitationById(tx, input.invitationId, ctx.now);
  if (!inv) throw notFound('No such invitation');
  const existing = await findAttempt(tx, input.invitationId);
  if (existing && inv.state === 'IN_PROGRESS') return existing;
  if ('same' in allow(inv.state, 'start', inv.facts)) {
    if (existing) return existing;
    throw conflict('This assessment cannot be started');
  }
  const invitation = await startingPoint(tx, input.invitationId);
  // The duration is that of the version being pinned, which the summary row describes. The
  // layout is drawn here, once, from a fresh seed: a retake starts a new attempt, so a new draw.
  const seed = newSeed();
  const content = await versionContent(tx, invitation.assessmentId, invitation.version);
  const layout = attemptLayout(content, seed);
  const language = shownLanguage(content, (input.language as Lang | undefined) ?? DEFAULT_LANGUAGE);
  const inserted = await tx.query<Attempt>(
    `INSERT INTO attempts AS a (invitation_id, assessment_id, version, started_at, deadline_at, first_address, first_agent, seed, layout, content_language)
     VALUES ($1, $2, $3, $9, $9::timestamptz + make_interval(mins => $4), $5, $6, $7, $8, $10) RETURNING ${ATTEMPT}`,
    [
      input.invitationId,
      invitation.assessmentId,
      invitation.version,
      invitation.minutes,
      input.client.address,
      input.client.agent,
      seed,
      JSON.stringify(layout),
      ctx.now,
      language,
    ],
  );
  const attempt = inserted.rows[0]!;
  await markStarted(tx, input.invitationId, attempt.startedAt, ctx.now);
  return attempt;
}

export async function answersOf(db: Queryable, attemptId: string): Promise<Record<string, AnswerValue>> {
  const { rows } = await db.query<{ questionId: string; value: AnswerValue }>('SELECT question_id AS "questionId", value FROM answers WHERE attempt_id = $1', [attemptId]);
  return Object.fromEntries(rows.map((r) => [r.questionId, r.value]));
}

// PostgreSQL stores no NUL character, in text or in jsonb: refused here rather than failing there.
const NUL_DETAIL = 'must not contain a NUL character';

/** Checks an answer's shape against its question; returns the value to store. */
export function checkAnswer(question: QuestionContent, value: unknown): AnswerValue {
  const bad = (detail: string) => invalidInput([{ in: 'body', name: 'value', detail }], detail);
  switch (question.type) {
    case 'single-choice':
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) >= question.options.length) throw bad('must be the index of one option');
      return value as number;
    case 'multiple-choice': {
      if (!Array.isArray(value) || !value.every((v) => Number.isInteger(v) && v >= 0 && v < question.options.length)) {
        throw bad('must be a list of option indexes');
      }
      return [...new Set(value as number[])].sort((a, b) => a - b);
    }
    case 'short-answer':
      if (typeof value !== 'string' || value.length > 200) throw bad('must be text of at most 200 characters');
      if (value.includes('\u0000')) throw bad(NUL_DETAIL);
      return value;
    case 'likert':
      if (!isAnswered(question, value as AnswerValue)) throw bad(`must be the index of one point of the scale, 0 to ${scaleLabels(question.scale).length - 1}`);
      return value as number;
    case 'ranking':
      if (!isPermutation(value, question.options.length)) throw bad(`must list every option index from 0 to ${question.options.length - 1} once, first-ranked first`);
      return value;
    case 'coding': {
      const max = question.maxSourceLength ?? 20000;
      const answer = value as { language?: unknown; source?: unknown } | null;
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer) || Object.keys(answer).some((k) => k !== 'language' && k !== 'source')) {
        throw bad('must be an object with "language" and "source"');
      }
      if (typeof answer.language !== 'string' || !question.languages.includes(answer.language as never)) throw bad(`language must be one of ${question.languages.join(', ')}`);
      if (typeof answer.source !== 'string' || answer.source.length > max) throw bad(`source must be text of at most ${max} characters`);
      if (answer.source.includes('\u0000')) throw bad(NUL_DETAIL);
      return { language: answer.language, source: answer.source };
    }
    case 'free-text': {
      const max = question.maxLength ?? 4000;
      if (typeof value !== 'string' || value.length > max) throw bad(`must be text of at most ${max} characters`);
      if (value.includes('\u0000')) throw bad(NUL_DETAIL);
      return value;
    }
  }
}

const closed = () => conflict('This assessment is finished: answers can no longer change');

/** Saves one answer while the attempt is open and within its time; updates completion. */
export async function saveAnswer(db: Database, attempt: Attempt, questionId: string, value: unknown, position: number, now: Date): Promise<void> {
  const content = await versionContent(db, attempt.assessmentId, attempt.version);
  const shown = layoutOf(attempt, content).questions;
  const question = shown.includes(questionId) ? content.questions.find((q) => q.id === questionId) : undefined;
  if (!question) throw notFound(`No question ${questionId} in this attempt`);
  const answer = checkAnswer(question, value);
  // One round trip (the function save_answer, migration 0018): the position, the answer (or its
  // removal when cleared) and the invitation's completion (of the questions this attempt shows), atomically.
  const items = shown.length + (content.typingTest ? 1 : 0);
  const { rows } = await db.query<{ saved: boolean }>('/* answer_save */ SELECT save_answer($1, $2, $3, $4::jsonb, $5, $6, $7) AS saved', [
    attempt.id,
    position,
    questionId,
    isAnswered(question, answer) ? JSON.stringify(answer) : null,
    items,
    attempt.invitationId,
    now,
  ]);
  if (!rows[0]?.saved) throw closed();
}

export async function movePosition(db: Queryable, attempt: Attempt, position: number): Promise<void> {
  await db.query('UPDATE attempts SET position = $2 WHERE id = $1 AND finished_at IS NULL', [attempt.id, position]);
}

/** The invitation's completion from the attempt's answers and typing test (in the caller's transaction). */
export async function updateCompletion(tx: Queryable, attempt: Attempt, content: AssessmentContent) {
  const items = layoutOf(attempt, content).questions.length + (content.typingTest ? 1 : 0);
  const { rows } = await tx.query<{ done: number }>(
    `SELECT ((SELECT count(*) FROM answers WHERE attempt_id = $1) + (SELECT count(*) FROM attempts WHERE id = $1 AND typing_wpm IS NOT NULL))::int AS done`,
    [attempt.id],
  );
  await setCompletion(tx, attempt.invitationId, Math.round((10000 * rows[0]!.done) / items) / 100);
}

/**
 * Completes an attempt and writes its score onto the invitation. Idempotent: completing a
 * completed attempt changes nothing. Must run inside a transaction (it locks the attempt); given
 * the attempt row already locked in this transaction, it is not read again.
 */
export async function completeAttemptIn(tx: Queryable, attempt: string | Attempt, reason: 'submitted' | 'time-limit', now: Date): Promise<void> {
  const locked = typeof attempt === 'string' ? (await tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.id = $1 FOR UPDATE`, [attempt])).rows[0] : attempt;
  if (locked) await completeAttemptsIn(tx, [locked], reason, now);
}

/**
 * Completes attempts locked in this transaction and writes their scores onto their invitations,
 * in a fixed number of statements however many there are (the sweep completes its batches so).
 * Those already finished are left as they are.
 */
async function completeAttemptsIn(tx: Queryable, attempts: Attempt[], reason: 'submitted' | 'time-limit', now: Date): Promise<void> {
  const open = attempts.filter((attempt) => !attempt.finishedAt);
  if (open.length === 0) return;
  // Past the deadline, the attempt ended at the deadline, whoever notices it and when.
  const finished = await tx.query<{ id: string; at: Date }>(
    `UPDATE attempts SET finished_at = CASE WHEN $3::timestamptz >= deadline_at THEN deadline_at ELSE $3::timestamptz END,
            end_reason = CASE WHEN $3::timestamptz >= deadline_at THEN 'time-limit' ELSE $2 END
      WHERE id = ANY($1::uuid[]) RETURNING id, finished_at AS at`,
    [open.map((attempt) => attempt.id), reason, now],
  );
  const at = new Map(finished.rows.map((row) => [row.id, row.at]));
  await markCompleted(
    tx,
    open.map((attempt) => ({ invitationId: attempt.invitationId, finishedAt: at.get(attempt.id)! })),
    now,
  );
  await writeScores(tx, open, now, { fingerprint: true });
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
    // At completion only: the answers compared with other candidates' (rescoring after a review changes no answer).
    if (options.fingerprint) fingerprints.push({ attemptId: attempt.id, answers: toFingerprint(content, answers) });
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

/** Completes an attempt (submitted, or found past its time). The invitation is locked first: a cancel that won leaves the attempt closed, and nothing is scored. */
export async function completeAttempt(db: Database, attemptId: string, reason: 'submitted' | 'time-limit', now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    if ((await lockInvitationOfAttempt(tx, attemptId)) !== undefined) await completeAttemptIn(tx, attemptId, reason, now);
  }, 'attempt_completion');
}

/**
 * Open attempts past their deadline, but not those in `passedOver` ($1); each caller adds its
 * order, limit and lock (`FOR UPDATE OF a, i SKIP LOCKED`: the attempt and its invitation, so that
 * a command holding the invitation, a cancel, is passed over rather than waited for).
 */
const CLAIM_EXPIRED = `SELECT ${ATTEMPT} FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE a.finished_at IS NULL AND a.deadline_at <= $3::timestamptz AND NOT (a.id = ANY($1::uuid[]))`;

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
    return await db.transaction(async (tx) => {
      const { rows } = await tx.query<Attempt>(`${CLAIM_EXPIRED} ORDER BY a.deadline_at LIMIT $2 FOR UPDATE OF a, i SKIP LOCKED`, [passedOver, batch, now]);
      // A worker sharing `passedOver` may have failed one of these and let go of it after this
      // statement was sent with the list as it was then: it is not taken up again.
      const claimed = rows.filter((row) => !passedOver.includes(row.id));
      taken = claimed.map((row) => row.id);
      await completeAttemptsIn(tx, claimed, 'time-limit', now);
      return claimed.length;
    }, 'deadline_sweep_completion');
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
    return await db.transaction(async (tx) => {
      const { rows } = await tx.query<Attempt>(`${CLAIM_EXPIRED} AND a.id = $2 FOR UPDATE OF a, i SKIP LOCKED`, [passedOver, attemptId, now]);
      if (!rows[0]) return false;
      try {
        await completeAttemptsIn(tx, rows, 'time-limit', now);
      } catch (error) {
        // Passed over before the rollback lets go of it, so that sweeps sharing `passedOver`
        // (the same run's other workers) do not take it up again.
        if (!isUnavailable(error)) passedOver.push(attemptId);
        throw error;
      }
      return true;
    }, 'deadline_sweep_completion');
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
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(attemptId)) throw notFound('No such attempt');
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

/** Closes the open attempt of a withdrawn invitation, unscored; nothing when none is open. */
export async function closeWithdrawn(tx: Queryable, invitationId: string, now: Date): Promise<void> {
  await tx.query(`UPDATE attempts SET finished_at = least($2, deadline_at), end_reason = 'cancelled' WHERE invitation_id = $1 AND finished_at IS NULL AND superseded_at IS NULL`, [
    invitationId,
    now,
  ]);
}

/** Erasure: a candidate's answers, signals, typed text and client addresses go; the scores stay. */
export async function eraseCandidateAttempts(tx: Queryable, candidateId: string): Promise<void> {
  const attempts = `SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`;
  await tx.query(`DELETE FROM answers WHERE attempt_id IN (${attempts})`, [candidateId]);
  await tx.query(`DELETE FROM proctor_signals WHERE attempt_id IN (${attempts})`, [candidateId]);
  await tx.query(`DELETE FROM attempt_feedback WHERE attempt_id IN (${attempts})`, [candidateId]);
  await tx.query(`UPDATE attempts SET first_address = NULL, first_agent = NULL, typing_text = NULL WHERE id IN (${attempts})`, [candidateId]);
  await eraseFingerprintsOfCandidate(tx, candidateId);
}

/**
 * Makes the finished attempt of an invitation history, for a retake: it keeps its answers and
 * signals, and the score record as it stood. Returns whether there was one.
 */
export async function supersedeAttempt(tx: Queryable, invitationId: string, now: Date): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE attempts SET superseded_at = $2,
            result = (SELECT jsonb_build_object('assessmentStatus', assessment_status, 'scoreStatus', score_status, 'totalScore', total_score::float8)
                        FROM invitations WHERE id = $1)
      WHERE invitation_id = $1 AND superseded_at IS NULL AND finished_at IS NOT NULL RETURNING id`,
    [invitationId, now],
  );
  return rows.length > 0;
}
