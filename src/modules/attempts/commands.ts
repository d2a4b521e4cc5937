// The candidate's side as commands of the attempts module: saving an answer, moving between
// questions, submitting, and completing an attempt whose time ran out. Each takes the command
// context ({tx, actor, requestId, now}) and a typed input, and the invitation's state machine
// decides every move of the invitation (submit, by the candidate or by the clock). The portal and
// its JSON API only parse, call these and render; the deadline sweep calls completeOverdue's
// batch form (completion.ts).
import type { CommandContext } from '../../domain/command.js';
import { forbidden, notFound } from '../../domain/errors.js';
import { allow, lockInvitationById, type InvitationState } from '../invitations/machine.js';
import { completeAttemptIn } from './completion.js';
import { instancesWrote } from '../../db/replica.js';
import { checkAnswer, closedAttempt, layoutOf, ATTEMPT, type Attempt } from './repository.js';
import { versionContent } from '../assessments/repository.js';
import { isAnswered } from './scoring.js';
import { observePaceIn } from './signals.js';
import { saveAgainAlone, type AnswerSaves, type SaveOutcome } from './answer-saves.js';

/**
 * The attempt and its invitation, locked in that order (the lock order of every path); undefined
 * when there is none. By the invitation's id (what the portal knows from its session), the
 * invitation is locked first and its current attempt then, without a read before.
 */
async function lockAttempt(
  ctx: CommandContext,
  ref: { attemptId: string } | { invitationId: string },
): Promise<{ attempt: Attempt; state: InvitationState; started: boolean; instanceId: string } | undefined> {
  let invitationId: string;
  if ('invitationId' in ref) invitationId = ref.invitationId;
  else {
    const { rows } = await ctx.tx.query<{ invitationId: string }>('SELECT invitation_id::text AS "invitationId" FROM attempts WHERE id = $1', [ref.attemptId]);
    if (!rows[0]) return undefined;
    invitationId = rows[0].invitationId;
  }
  const invitation = await lockInvitationById(ctx.tx, invitationId, ctx.now);
  if (!invitation) return undefined;
  const attempt = (
    'invitationId' in ref
      ? await ctx.tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.invitation_id = $1 AND a.superseded_at IS NULL FOR UPDATE`, [invitationId])
      : await ctx.tx.query<Attempt>(`SELECT ${ATTEMPT} FROM attempts a WHERE a.id = $1 FOR UPDATE`, [ref.attemptId])
  ).rows[0];
  return attempt && { attempt, state: invitation.state, started: invitation.facts.started, instanceId: invitation.instanceId };
}

export interface Submitted {
  /** The attempt was completed by this command (false: it was already, or the invitation was withdrawn first). */
  completed: boolean;
  /** It has coding answers to grade in the sandbox (after the commit: seconds for Python). */
  codingToGrade: boolean;
  /** The attempt as this command leaves it (finished when completed); undefined when the invitation has none (not started). */
  attempt?: Attempt;
  /** The instance whose invitation it is. */
  instanceId?: string;
}

/**
 * The candidate submits their attempt, named by its id or by its invitation's (the portal's, which
 * then reads nothing before this command). The machine decides: in progress, it is completed and
 * scored (its pace judged first, for the red flag); completed or withdrawn already (a double
 * click, a cancel that won), nothing changes; an attempt past its time ends at its deadline, as
 * the clock's completion ends it (its pace not judged). An invitation not started has no attempt:
 * nothing changes, and `attempt` is undefined; an attempt id not found is 404.
 */
export async function submitAttempt(ctx: CommandContext, input: { attemptId: string } | { invitationId: string }): Promise<Submitted> {
  if ('invitationId' in input) {
    const found = await lockAttempt(ctx, input);
    return found ? complete(ctx, found, 'submitted') : { completed: false, codingToGrade: false };
  }
  return complete(ctx, await lockAttempt(ctx, input), 'submitted');
}

/**
 * Completes an attempt whose time ran out (a page read after the deadline; the sweep does the same
 * in batches): the clock's submit, decided by the machine as the candidate's is. Nothing when the
 * attempt is still within its time.
 */
export async function completeOverdue(ctx: CommandContext, input: { attemptId: string }): Promise<Submitted> {
  return complete(ctx, await lockAttempt(ctx, input), 'time-limit');
}

async function complete(ctx: CommandContext, found: Awaited<ReturnType<typeof lockAttempt>>, reason: 'submitted' | 'time-limit'): Promise<Submitted> {
  if (!found) throw notFound('No such attempt');
  const { attempt, instanceId } = found;
  const overdue = attempt.deadlineAt.getTime() <= ctx.now.getTime();
  if (reason === 'time-limit' && !overdue) return { completed: false, codingToGrade: false, attempt, instanceId };
  const outcome = allow(found.state, 'submit', { started: found.started });
  if (!('to' in outcome) || attempt.finishedAt) return { completed: false, codingToGrade: false, attempt, instanceId };
  const content = await versionContent(ctx.tx, attempt.assessmentId, attempt.version);
  // Submitted past its time, it ends at its deadline as the clock ends it: its pace is not judged.
  if (reason === 'submitted' && !overdue) await observePaceIn(ctx.tx, attempt);
  const finished = await completeAttemptIn(ctx.tx, attempt, overdue ? 'time-limit' : reason, ctx.now);
  // Read your writes: the instance's keys read the completion from the primary for a moment.
  ctx.afterCommit(() => instancesWrote([instanceId]));
  return { completed: true, codingToGrade: content.questions.some((q) => q.type === 'coding'), attempt: finished ?? attempt, instanceId };
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
 * The candidate saves an answer (or clears it), and where they are when `position` is given:
 * checked against the question the attempt shows and the question's kind of answer, then written
 * only while the attempt is open and within its time by the command's clock and, when `session`
 * is given (the hash of the portal session's cookie), while that session holds. Refused (409)
 * once the attempt is finished or past its time, 403 once the session has ended.
 *
 * Each write is one statement, atomic by itself, so that the command may run without a
 * transaction around it (runOneStatement): a save is the busiest write. An answer given again
 * (nearly every save) is save_answer_again: the attempt locked in share mode and the answer's row
 * updated in place, nothing else; a first answer, a cleared one or a move is save_answer, which
 * also counts the invitation's completion (0042-save-answer-again.sql says why they are two).
 * With `together` (the portal's API, outside a transaction), the statement of an answer given
 * again is written with the saves that arrive in the same turn (answer-saves.ts).
 */
export async function saveAnswer(
  ctx: CommandContext,
  input: { attempt: Attempt; questionId: string; value: unknown; position?: number; session?: Buffer; together?: AnswerSaves },
): Promise<void> {
  const { attempt } = input;
  const { content, shown, question } = await shownQuestion(ctx, attempt, input.questionId);
  const answer = checkAnswer(question, input.value);
  const value = isAnswered(question, answer) ? JSON.stringify(answer) : null;
  const session = input.session ?? null;
  if (value !== null && input.position === undefined) {
    const again = { attemptId: attempt.id, questionId: question.id, value, invitationId: attempt.invitationId, now: ctx.now, session };
    // Gathered with the turn's other saves only when this command has no transaction of its own
    // on the gatherer's store (answer-saves.ts); in a transaction, the statement is the transaction's.
    const outcome = input.together && input.together.db === ctx.tx ? await input.together.again(again) : await saveAgainAlone(ctx.tx, again);
    if (refuse(outcome) === 'saved') return;
  }
  const items = shown.length + (content.typingTest ? 1 : 0);
  const { rows } = await ctx.tx.query<{ outcome: SaveOutcome }>('/* answer_save */ SELECT save_answer($1, $2, $3, $4::jsonb, $5, $6, $7, $8) AS outcome', [
    attempt.id,
    input.position ?? null,
    question.id,
    value,
    items,
    attempt.invitationId,
    ctx.now,
    session,
  ]);
  refuse(rows[0]?.outcome);
}

/** The outcome of a save statement, or its refusal thrown. */
function refuse(outcome: SaveOutcome | undefined): 'saved' | 'new' {
  if (outcome === 'saved' || outcome === 'new') return outcome;
  if (outcome === 'session') throw sessionEnded();
  throw closedAttempt();
}

/** The portal session a save was made in has ended (signed out, expired, its link revoked). */
export const sessionEnded = () => forbidden('Your session has ended: open the link from your invitation e-mail again');

/** The candidate moves to another question without answering: only where they are changes, while the attempt is open. */
export async function moveTo(ctx: CommandContext, input: { attempt: Attempt; position: number }): Promise<void> {
  await ctx.tx.query('UPDATE attempts SET position = $2 WHERE id = $1 AND finished_at IS NULL AND deadline_at > $3', [input.attempt.id, input.position, ctx.now]);
}
