// Attempts as stored: starting one (pinned to the current version), saving answers while the
// time lasts, closing a withdrawn one, making one history for a retake (signals.ts keeps its
// proctoring signals, typing-test.ts its typing test, completion.ts completes and scores it).
import type { Queryable } from '../../db/database.js';
import { conflict, invalidInput, notFound } from '../../domain/errors.js';
import type { CommandContext } from '../../domain/command.js';
import { allow, lockInvitationById } from '../invitations/machine.js';
import { scaleLabels, type AssessmentContent, type QuestionContent } from '../assessments/content-schema.js';
import { shownLanguage } from '../assessments/translations.js';
import { DEFAULT_LANGUAGE, LANGUAGES, isLang, type Lang } from '../../i18n/i18n.js';
import { isAnswered, isPermutation, type AnswerValue } from './scoring.js';
import { attemptLayout, authoredLayout, newSeed, type AttemptLayout } from './layout.js';
import { startingPoint, markStarted, setCompletion } from '../invitations/record.js';
import { eraseFingerprintsOfCandidate } from '../integrity/similarity.js';
import { versionContent } from '../assessments/repository.js';

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

export const ATTEMPT = `a.id, a.invitation_id AS "invitationId", a.assessment_id AS "assessmentId", a.version,
  a.started_at AS "startedAt", a.deadline_at AS "deadlineAt", a.finished_at AS "finishedAt", a.end_reason AS "endReason",
  a.position, a.typing_started_at AS "typingStartedAt", a.typing_wpm AS "typingWpm",
  a.first_address AS "firstAddress", a.first_agent AS "firstAgent", a.superseded_at AS "supersededAt", a.layout,
  a.content_language AS language`;

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

/** An attempt that is finished, or past its time: its answers can no longer change (409). */
export const closedAttempt = () => conflict('This assessment is finished: answers can no longer change');

/** The invitation's completion from the attempt's answers and typing test (in the caller's transaction). */
export async function updateCompletion(tx: Queryable, attempt: Attempt, content: AssessmentContent) {
  const items = layoutOf(attempt, content).questions.length + (content.typingTest ? 1 : 0);
  const { rows } = await tx.query<{ done: number }>(
    `SELECT ((SELECT count(*) FROM answers WHERE attempt_id = $1) + (SELECT count(*) FROM attempts WHERE id = $1 AND typing_wpm IS NOT NULL))::int AS done`,
    [attempt.id],
  );
  await setCompletion(tx, attempt.invitationId, Math.round((10000 * rows[0]!.done) / items) / 100);
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
