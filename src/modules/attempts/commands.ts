// The candidate's side as commands of the attempts module: saving an answer, moving between
// questions, submitting, and completing an attempt whose time ran out. Each takes the command
// context ({tx, actor, requestId, now}) and a typed input, and the invitation's state machine
// decides every move of the invitation (submit, by the candidate or by the clock). The portal and
// its JSON API only parse, call these and render; the deadline sweep calls completeOverdue's
// batch form (completion.ts).
import type { CommandContext } from '../../domain/command.js';
import { notFound } from '../../domain/errors.js';
import { allow, lockInvitationById, type InvitationState } from '../invitations/machine.js';
import { completeAttemptIn } from './completion.js';
import { checkAnswer, closedAttempt, layoutOf, versionContent, ATTEMPT, type Attempt } from './repository.js';
import { isAnswered } from './scoring.js';
import { observePaceIn } from './signals.js';

/** The attempt and its invitation, locked in that order (the lock order of every path); undefined when there is none. */
async function lockAttempt(ctx: CommandContext, attemptId: string): Promise<{ attempt: Attempt; state: InvitationState; started: boolean } | undefined> {
  const { rows } = await ctx.tx.query<{ invitationId: string }>('SELECT invitation_id::text AS "invitationId" FROM attempts WHERE id = $1', [attemptId]);
  if (!rows[0]) return undefined;
  const invitation = await lockInvitationById(ctx.tx, rows[0].invitationId, ctx.now);
  if (!invitation) return undefined;
  const attempt = (await ctx.tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.id = $1 FOR UPDATE`, [attemptId])).rows[0];
  return attempt && { attempt, state: invitation.state, started: invitation.facts.started };
}

export interface Submitted {
  /** The attempt was completed by this command (false: it was already, or the invitation was withdrawn first). */
  completed: boolean;
  /** It has coding answers to grade in the sandbox (after the commit: seconds for Python). */
  codingToGrade: boolean;
}

/**
 * The candidate submits their attempt. The machine decides: in progress, it is completed and
 * scored (its pace judged first, for the red flag); completed or withdrawn already (a double
 * click, a cancel that won), nothing changes; an attempt past its time ends at its deadline.
 */
export async function submitAttempt(ctx: CommandContext, input: { attemptId: string }): Promise<Submitted> {
  return complete(ctx, input.attemptId, 'submitted');
}

/**
 * Completes an attempt whose time ran out (a page read after the deadline; the sweep does the same
 * in batches): the clock's submit, decided by the machine as the candidate's is. Nothing when the
 * attempt is still within its time.
 */
export async function completeOverdue(ctx: CommandContext, input: { attemptId: string }): Promise<Submitted> {
  return complete(ctx, input.attemptId, 'time-limit');
}

async function complete(ctx: CommandContext, attemptId: string, reason: 'submitted' | 'time-limit'): Promise<Submitted> {
  const found = await lockAttempt(ctx, attemptId);
  if (!found) throw notFound('No such attempt');
  const { attempt } = found;
  if (reason === 'time-limit' && attempt.deadlineAt.getTime() > ctx.now.getTime()) return { completed: false, codingToGrade: false };
  const outcome = allow(found.state, 'submit', { started: found.started });
  if (!('to' in outcome) || attempt.finishedAt) return { completed: false, codingToGrade: false };
  const content = await versionContent(ctx.tx, attempt.assessmentId, attempt.version);
  if (reason === 'submitted') await observePaceIn(ctx.tx, attempt);
  await completeAttemptIn(ctx.tx, attempt, reason, ctx.now);
  return { completed: true, codingToGrade: content.questions.some((q) => q.type === 'coding') };
}

/** A question of the attempt's layout, or 404. */
async function shownQuestion(ctx: CommandContext, attempt: Attempt, questionId: string) {
  const content = await versionContent(ctx.tx, attempt.assessmentId, attempt.version);
  const shown = layoutOf(attempt, content).questions;
  const question = shown.includes(questionId) ? content.questions.find((q) => q.id === questionId) : undefined;
  if (!question) throw notFound(`No question ${questionId} in this attempt`);
  return { content, shown, question };
}

/**
 * The candidate saves an answer (or clears it) and where they are: checked against the question
 * the attempt shows, then one statement (save_answer) that writes only while the attempt is open
 * and within its time, by the command's clock. It is one statement, atomic by itself, so that the
 * command may run without a transaction around it (runOneStatement): a save is the busiest write.
 * Refused (409) once the attempt is finished or past its time.
 */
export async function saveAnswer(ctx: CommandContext, input: { attempt: Attempt; questionId: string; value: unknown; position: number }): Promise<void> {
  const { attempt } = input;
  const { content, shown, question } = await shownQuestion(ctx, attempt, input.questionId);
  const answer = checkAnswer(question, input.value);
  const items = shown.length + (content.typingTest ? 1 : 0);
  const { rows } = await ctx.tx.query<{ saved: boolean }>('/* answer_save */ SELECT save_answer($1, $2, $3, $4::jsonb, $5, $6, $7) AS saved', [
    attempt.id,
    input.position,
    question.id,
    isAnswered(question, answer) ? JSON.stringify(answer) : null,
    items,
    attempt.invitationId,
    ctx.now,
  ]);
  if (!rows[0]?.saved) throw closedAttempt();
}

/** The candidate moves to another question without answering: only where they are changes, while the attempt is open. */
export async function moveTo(ctx: CommandContext, input: { attempt: Attempt; position: number }): Promise<void> {
  await ctx.tx.query('UPDATE attempts SET position = $2 WHERE id = $1 AND finished_at IS NULL AND deadline_at > $3', [input.attempt.id, input.position, ctx.now]);
}
