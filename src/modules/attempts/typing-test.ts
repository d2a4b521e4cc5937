// The typing test as stored: its clock started and stopped by the server, the result measured
// from the text and that clock, and the signals the keystrokes raise.
import type { Queryable } from '../../db/database.js';
import type { CommandContext } from '../../domain/command.js';
import { conflict, notFound } from '../../domain/errors.js';
import { localize } from '../assessments/translations.js';
import { lockInvitationOfAttempt } from '../invitations/machine.js';
import { setTypingSpeed } from '../invitations/record.js';
import { typingSignals } from './proctoring.js';
import { updateCompletion, type Attempt } from './repository.js';
import { versionContent } from '../assessments/repository.js';
import { recordSignalIn } from './signals.js';
import { CHARACTERS_PER_WORD, measureTyping } from './typing.js';

/** The candidate starts the typing test: its clock starts at the command's time, within the attempt's deadline (409 otherwise). */
export async function startTyping(ctx: CommandContext, input: { attempt: Attempt }): Promise<void> {
  const { rows } = await ctx.tx.query(
    `UPDATE attempts SET typing_started_at = coalesce(typing_started_at, $2::timestamptz)
      WHERE id = $1 AND finished_at IS NULL AND deadline_at > $2::timestamptz AND typing_wpm IS NULL RETURNING id`,
    [input.attempt.id, ctx.now],
  );
  if (rows.length === 0) throw conflict('The typing test cannot be started now');
}

/**
 * The candidate submits the typing test: scored from the text and the server's own clock (from its
 * start to the command's time); the keystroke intervals the page reports are never trusted for the
 * score, only cross-checked against that clock and against the shape of human typing
 * (typingSignals), whose signals are recorded in the same transaction.
 */
export async function submitTyping(ctx: CommandContext, input: { attempt: Attempt; typed: string; intervalsMs: number[] }): Promise<{ netWpm: number; accuracy: number }> {
  const { attempt, typed, intervalsMs } = input;
  const { tx } = ctx;
  const content = await versionContent(tx, attempt.assessmentId, attempt.version);
  if (!content.typingTest) throw notFound('This assessment has no typing test');
  await lockInvitationOfAttempt(tx, attempt.id);
  const { rows } = await tx.query<{ ms: number }>(
    `SELECT greatest(0, (extract(epoch FROM $2::timestamptz - typing_started_at) * 1000))::int AS ms FROM attempts
      WHERE id = $1 AND finished_at IS NULL AND deadline_at > $2::timestamptz AND typing_started_at IS NOT NULL AND typing_wpm IS NULL FOR UPDATE`,
    [attempt.id, ctx.now],
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
  for (const signal of typingSignals(measure.netWpm, measure.typed, intervalsMs, ms)) await recordSignalIn(tx, attempt, signal.kind, signal.detail, 'server');
  return { netWpm: measure.netWpm, accuracy: measure.accuracy };
}

/** The typing test's result of an attempt, once it was taken. */
export async function typingResult(db: Queryable, attemptId: string): Promise<{ netWpm: number; accuracy: number } | undefined> {
  const { rows } = await db.query<{ netWpm: number; accuracy: number }>(
    'SELECT typing_wpm::float8 AS "netWpm", typing_accuracy::float8 AS accuracy FROM attempts WHERE id = $1 AND typing_wpm IS NOT NULL',
    [attemptId],
  );
  return rows[0];
}
