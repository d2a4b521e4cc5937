// The typing test as stored: its clock started and stopped by the server, the result measured
// from the text and that clock, and the signals the keystrokes raise.
import type { Database, Queryable } from '../../db/database.js';
import { conflict, notFound } from '../../domain/errors.js';
import { localize } from '../assessments/translations.js';
import { lockInvitationOfAttempt } from '../invitations/machine.js';
import { setTypingSpeed } from '../invitations/record.js';
import { typingSignals } from './proctoring.js';
import { updateCompletion, versionContent, type Attempt } from './repository.js';
import { recordSignal } from './signals.js';
import { CHARACTERS_PER_WORD, measureTyping } from './typing.js';

/**
 * Starts the typing clock. `at` is the time by the app's injected clock (tests move theirs);
 * null, the default, takes the database's now(): one clock for every node, so that a test started
 * on one node and submitted on another is timed right.
 */
export async function startTyping(db: Queryable, attempt: Attempt, at: Date | null = null): Promise<void> {
  const { rows } = await db.query(
    `UPDATE attempts SET typing_started_at = coalesce(typing_started_at, $2::timestamptz, now())
      WHERE id = $1 AND finished_at IS NULL AND deadline_at > now() AND typing_wpm IS NULL RETURNING id`,
    [attempt.id, at],
  );
  if (rows.length === 0) throw conflict('The typing test cannot be started now');
}

/**
 * Scores the typing test from the text and the server's own clock (from its start to now: the
 * database's, or the app's injected one); the keystroke intervals the page reports are never trusted for the score, only
 * cross-checked against that clock and against the shape of human typing (typingSignals).
 */
export async function submitTyping(
  db: Database,
  attempt: Attempt,
  typed: string,
  intervalsMs: number[],
  /** The time by the app's injected clock; null: the database's now(), as startTyping. */
  at: Date | null = null,
): Promise<{ netWpm: number; accuracy: number }> {
  const content = await versionContent(db, attempt.assessmentId, attempt.version);
  if (!content.typingTest) throw notFound('This assessment has no typing test');
  const result = await db.transaction(async (tx) => {
    await lockInvitationOfAttempt(tx, attempt.id);
    const { rows } = await tx.query<{ ms: number }>(
      `SELECT greatest(0, (extract(epoch FROM coalesce($2::timestamptz, now()) - typing_started_at) * 1000))::int AS ms FROM attempts
        WHERE id = $1 AND finished_at IS NULL AND deadline_at > now() AND typing_started_at IS NOT NULL AND typing_wpm IS NULL FOR UPDATE`,
      [attempt.id, at],
    );
    if (rows.length === 0) throw conflict('The typing test is not running');
    const ms = rows[0]!.ms;
    // The passage the candidate was shown: the one written for the attempt's language, if any.
    const passage = localize(content, attempt.language).typingTest!.passage;
    const measure = measureTyping(passage, typed, ms, CHARACTERS_PER_WORD[attempt.language] ?? 5);
    await tx.query(`UPDATE attempts SET typing_text = $2, typing_ms = $3, typing_wpm = $4, typing_accuracy = $5 WHERE id = $1`, [
      attempt.id,
      typed.slice(0, 10_000),
      ms,
      Math.min(9999, Math.round(measure.netWpm * 100) / 100),
      Math.round(measure.accuracy * 100) / 100,
    ]);
    await setTypingSpeed(tx, attempt.invitationId, Math.min(9999, Math.round(measure.netWpm * 100) / 100));
    await updateCompletion(tx, attempt, content);
    return { measure, signals: typingSignals(measure.netWpm, measure.typed, intervalsMs, ms) };
  });
  for (const signal of result.signals) await recordSignal(db, attempt, signal.kind, signal.detail, 'server');
  return { netWpm: result.measure.netWpm, accuracy: result.measure.accuracy };
}

/** The typing test's result of an attempt, once it was taken. */
export async function typingResult(db: Queryable, attemptId: string): Promise<{ netWpm: number; accuracy: number } | undefined> {
  const { rows } = await db.query<{ netWpm: number; accuracy: number }>(
    'SELECT typing_wpm::float8 AS "netWpm", typing_accuracy::float8 AS accuracy FROM attempts WHERE id = $1 AND typing_wpm IS NOT NULL',
    [attemptId],
  );
  return rows[0];
}
