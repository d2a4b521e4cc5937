// The commands of reviewing together. A free-text answer of a completed attempt is scored by one
// or more reviewers (the instance's reviewersPerAnswer), criterion by criterion when its question
// has a rubric; their reviews make the final score (their mean, or, under agree-within, their mean
// when they agree and a lead's score when they do not), which rescores the attempt exactly as a
// single review always did. Owners and managers assign answers to reviewers; the reminder job
// reminds an assignee once when a review is overdue. Each command checks who asks, the attempt's
// state and the values, writes and records its audit entry in one transaction, by ctx.now.
import type { Actor, CommandContext } from '../../domain/command.js';
import { conflict, forbidden, invalidInput, notFound } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { lockReviewableAnswer, writeReviewScore } from '../attempts/completion.js';
import type { Instance } from '../tenants/repository.js';
import {
  addAssignment,
  answeredFreeText,
  assigneesOf,
  attemptInInstance,
  isMarkedLead,
  markReminded,
  removeAssignment,
  reviewersOfInstance,
  reviewsOfAnswer,
  saveReview,
  saveSettlement,
  setLead,
  settlementOf,
  type Review,
  type ReviewState,
} from './repository.js';
import { checkComment, checkScore, scoreRubric, type RubricChoice } from './rubric.js';

type ReviewInstance = Pick<Instance, 'id' | 'name' | 'reviewersPerAnswer' | 'reviewAgreement' | 'reviewAgreementPoints' | 'blindReview' | 'reviewUnassigned'>;

interface AnswerRef {
  instance: ReviewInstance;
  attemptId: string;
  questionId: string;
}

export interface ReviewOutcome {
  state: ReviewState;
  /** The answer's final score, when it has one. */
  final: number | null;
  reviews: number;
}

/** How a reviewer is named on their review: `user:<e-mail>` or the operator's token. */
export function reviewerOf(actor: Actor): string {
  if (actor.kind === 'user') return `user:${actor.email.toLowerCase()}`;
  if (actor.kind === 'admin-token') return 'admin-token';
  throw forbidden('Only console users and the operator review answers');
}

/** Owners and managers, a user marked lead of the instance, and the operator settle disagreements. */
export async function mayLead(ctx: Pick<CommandContext, 'tx' | 'actor'>, instanceId: string): Promise<boolean> {
  const { actor } = ctx;
  if (actor.kind === 'admin-token') return true;
  if (actor.kind !== 'user') return false;
  return actor.role !== 'reviewer' || (await isMarkedLead(ctx.tx, instanceId, actor.id));
}

function checkMayAssign(actor: Actor): string {
  if (actor.kind === 'admin-token') return 'admin-token';
  if (actor.kind === 'user' && actor.role !== 'reviewer') return `user:${actor.email.toLowerCase()}`;
  throw forbidden('Only owners and managers assign reviews');
}

async function lockAnswer(ctx: CommandContext, ref: AnswerRef) {
  if (!(await attemptInInstance(ctx.tx, ref.instance.id, ref.attemptId))) throw notFound('No such attempt in this instance');
  return lockReviewableAnswer(ctx.tx, ref.attemptId, ref.questionId);
}

const mean = (reviews: Review[]) => Math.round((100 * reviews.reduce((sum, r) => sum + Number(r.score), 0)) / reviews.length) / 100;

/**
 * Decides the answer's final score from its reviews and writes it (rescoring the attempt) when it
 * changed: with fewer reviews than the instance asks for, none yet; with enough, their mean, unless
 * under agree-within they are further apart than its distance (a disagreement: no final until a lead settles).
 */
async function decideFinal(ctx: CommandContext, ref: AnswerRef, attempt: Awaited<ReturnType<typeof lockReviewableAnswer>>['attempt']): Promise<ReviewOutcome> {
  const reviews = await reviewsOfAnswer(ctx.tx, ref.attemptId, ref.questionId);
  const required = ref.instance.reviewersPerAnswer;
  if (reviews.length < required) return { state: reviews.length > 0 ? 'in-review' : 'awaiting', final: null, reviews: reviews.length };
  const scores = reviews.map((r) => Number(r.score));
  const agree = ref.instance.reviewAgreement === 'mean' || Math.max(...scores) - Math.min(...scores) <= ref.instance.reviewAgreementPoints;
  if (!agree) {
    await writeReviewScore(ctx, { attempt, questionId: ref.questionId, score: null, by: '', comment: null });
    return { state: 'disagreement', final: null, reviews: reviews.length };
  }
  const single = reviews.length === 1 ? reviews[0]! : undefined;
  const final = mean(reviews);
  await writeReviewScore(ctx, {
    attempt,
    questionId: ref.questionId,
    score: final,
    by: single ? single.reviewer : `mean of ${reviews.length} reviews`,
    comment: single ? single.comment : null,
  });
  return { state: 'settled', final, reviews: reviews.length };
}

/**
 * A reviewer's review of a free-text answer: a score of 0-100, or, when the question has a rubric,
 * one level per criterion (the score is then the points chosen over the most possible). Only for
 * an answer of a completed attempt (409 otherwise), of this instance; an answer assigned to others
 * is theirs (403), and one nobody was assigned is a reviewer's only when the instance lets
 * reviewers take those. A reviewer's new review replaces their earlier one, except under blind
 * review (their review stands once submitted: they have seen the others' since) and once a lead
 * settled the answer.
 */
export async function submitReview(
  ctx: CommandContext,
  input: AnswerRef & { score?: number | null; rubric?: RubricChoice | null; comment?: string | null },
): Promise<ReviewOutcome> {
  const reviewer = reviewerOf(ctx.actor);
  const comment = checkComment(input.comment);
  const { attempt, question } = await lockAnswer(ctx, input);
  let score: number;
  let criteria: RubricChoice | null = null;
  if (question.rubric) {
    if (!input.rubric || Object.keys(input.rubric).length === 0)
      throw invalidInput([
        { in: 'body', name: 'rubric', detail: `this question has a rubric: choose a level for each criterion (${question.rubric.criteria.map((c) => c.id).join(', ')})` },
      ]);
    score = scoreRubric(question.rubric, input.rubric);
    if (input.score !== undefined && input.score !== null && checkScore(input.score) !== score)
      throw invalidInput([{ in: 'body', name: 'score', detail: `is ${input.score}, but the levels chosen make ${score}: leave it out` }]);
    criteria = Object.fromEntries(question.rubric.criteria.map((c) => [c.id, input.rubric![c.id]!]));
  } else {
    if (input.rubric && Object.keys(input.rubric).length > 0) throw invalidInput([{ in: 'body', name: 'rubric', detail: 'this question has no rubric: give a score of 0 to 100' }]);
    if (input.score === undefined || input.score === null) throw invalidInput([{ in: 'body', name: 'score', detail: 'must be a number from 0 to 100 (at most two decimals)' }]);
    score = checkScore(input.score);
  }
  if (await settlementOf(ctx.tx, input.attemptId, input.questionId)) throw conflict('A lead has settled this answer: its reviews are closed');
  const assignees = await assigneesOf(ctx.tx, input.attemptId, input.questionId);
  if (ctx.actor.kind === 'user') {
    const me = ctx.actor.id;
    if (assignees.length > 0 && !assignees.some((a) => a.userId === me)) throw forbidden('This answer is assigned to other reviewers');
    if (assignees.length === 0 && ctx.actor.role === 'reviewer' && !input.instance.reviewUnassigned)
      throw forbidden('In this instance reviewers score the answers assigned to them: ask an owner or a manager to assign this one');
  }
  const earlier = await reviewsOfAnswer(ctx.tx, input.attemptId, input.questionId);
  if (input.instance.blindReview && earlier.some((r) => r.reviewer === reviewer))
    throw conflict('Blind review: your review of this answer stands once submitted (you have seen the other reviews since)');
  if (!earlier.some((r) => r.reviewer === reviewer) && earlier.length >= input.instance.reviewersPerAnswer)
    throw conflict(`This answer has its ${earlier.length} review${earlier.length === 1 ? '' : 's'} already`);
  await saveReview(ctx.tx, { attemptId: input.attemptId, questionId: input.questionId, reviewer, score, criteria, comment, reviewedAt: ctx.now });
  const outcome = await decideFinal(ctx, input, attempt);
  await audit(ctx, 'review.score', `${input.instance.name}/${input.attemptId}/${input.questionId}`);
  return outcome;
}

/** A lead's final score (0-100) of an answer whose reviews disagree (or that a lead settled before: a new settlement replaces it). */
export async function settleReview(ctx: CommandContext, input: AnswerRef & { score: number; comment?: string | null }): Promise<ReviewOutcome> {
  const by = reviewerOf(ctx.actor);
  if (!(await mayLead(ctx, input.instance.id))) throw forbidden('Only a lead settles a disagreement: an owner, a manager or a reviewer marked lead');
  const score = checkScore(input.score);
  const comment = checkComment(input.comment);
  const { attempt } = await lockAnswer(ctx, input);
  const reviews = await reviewsOfAnswer(ctx.tx, input.attemptId, input.questionId);
  const settled = await settlementOf(ctx.tx, input.attemptId, input.questionId);
  if (!settled) {
    const scores = reviews.map((r) => Number(r.score));
    const disagree =
      reviews.length >= input.instance.reviewersPerAnswer &&
      input.instance.reviewAgreement === 'agree-within' &&
      Math.max(...scores) - Math.min(...scores) > input.instance.reviewAgreementPoints;
    if (!disagree) throw conflict('The reviews of this answer do not disagree: there is nothing to settle');
  }
  await saveSettlement(ctx.tx, { attemptId: input.attemptId, questionId: input.questionId, score, comment, settledBy: by, settledAt: ctx.now });
  await writeReviewScore(ctx, { attempt, questionId: input.questionId, score, by, comment });
  await audit(ctx, 'review.settle', `${input.instance.name}/${input.attemptId}/${input.questionId}`);
  return { state: 'settled', final: score, reviews: reviews.length };
}

/** The user who is to review, checked: a console user of the instance, not disabled. */
async function assignee(ctx: CommandContext, instanceId: string, userId: string) {
  const user = (await reviewersOfInstance(ctx.tx, instanceId)).find((u) => u.id === userId);
  if (!user) throw invalidInput([{ in: 'body', name: 'userId', detail: 'is not a console user of this instance (or is disabled)' }]);
  return user;
}

/**
 * Assigns a free-text answer (or, without a question, every free-text answer of the attempt) to a
 * reviewer. An answer has at most as many assignees as the instance's reviewersPerAnswer;
 * assigning someone already assigned changes nothing. Owners, managers and the operator assign.
 */
export async function assignReview(
  ctx: CommandContext,
  input: { instance: ReviewInstance; attemptId: string; questionId?: string; userId: string },
): Promise<{ assigned: string[] }> {
  const by = checkMayAssign(ctx.actor);
  if (!(await attemptInInstance(ctx.tx, input.instance.id, input.attemptId))) throw notFound('No such attempt in this instance');
  const user = await assignee(ctx, input.instance.id, input.userId);
  const questions = input.questionId === undefined ? await answeredFreeText(ctx.tx, input.attemptId) : [input.questionId];
  if (questions.length === 0) throw notFound('The candidate answered no free-text question in this attempt');
  const assigned: string[] = [];
  for (const questionId of questions) {
    await lockReviewableAnswer(ctx.tx, input.attemptId, questionId);
    const current = await assigneesOf(ctx.tx, input.attemptId, questionId);
    if (current.some((a) => a.userId === user.id)) continue;
    if (current.length >= input.instance.reviewersPerAnswer)
      throw conflict(`${questionId} has ${current.length} assignee${current.length === 1 ? '' : 's'} already, as many as this instance's reviewers per answer: unassign one first`);
    if (await settlementOf(ctx.tx, input.attemptId, questionId)) throw conflict(`${questionId} was settled by a lead: there is nothing left to review`);
    if (await addAssignment(ctx.tx, { attemptId: input.attemptId, questionId, userId: user.id, by, at: ctx.now })) assigned.push(questionId);
  }
  await audit(ctx, 'review.assign', `${input.instance.name}/${input.attemptId}${input.questionId === undefined ? '' : `/${input.questionId}`} to ${user.email.toLowerCase()}`);
  return { assigned };
}

/** Takes an answer's assignment away from a reviewer (their review, if they gave one, stays). */
export async function unassignReview(ctx: CommandContext, input: AnswerRef & { userId: string }): Promise<void> {
  checkMayAssign(ctx.actor);
  if (!(await attemptInInstance(ctx.tx, input.instance.id, input.attemptId))) throw notFound('No such attempt in this instance');
  if (!/^[0-9a-f-]{36}$/i.test(input.userId) || !(await removeAssignment(ctx.tx, input))) throw notFound('That reviewer is not assigned this answer');
  await audit(ctx, 'review.unassign', `${input.instance.name}/${input.attemptId}/${input.questionId}`);
}

/** Marks a reviewer lead of the instance's reviews, or unmarks them (owners and managers lead anyway). */
export async function setReviewLead(ctx: CommandContext, input: { instance: ReviewInstance; userId: string; lead: boolean }): Promise<void> {
  const by = checkMayAssign(ctx.actor);
  const user = await assignee(ctx, input.instance.id, input.userId);
  if (user.role !== 'reviewer')
    throw invalidInput([{ in: 'body', name: 'userId', detail: `is ${user.role === 'owner' ? 'an owner' : 'a manager'}, who settles disagreements anyway` }]);
  await setLead(ctx.tx, { instanceId: input.instance.id, userId: user.id, lead: input.lead, by, at: ctx.now });
  await audit(ctx, input.lead ? 'review.lead.mark' : 'review.lead.unmark', `${input.instance.name} ${user.email.toLowerCase()}`);
}

/**
 * The reminder job's command: records that an overdue assignment's reviewer is reminded (once:
 * false when they were already, and then no e-mail goes). Only the service itself reminds.
 */
export async function remindOverdueReview(ctx: CommandContext, input: { attemptId: string; questionId: string; userId: string }): Promise<boolean> {
  if (ctx.actor.kind !== 'system') throw forbidden('Only the service reminds reviewers');
  const marked = await markReminded(ctx.tx, { ...input, at: ctx.now });
  if (marked) await audit(ctx, 'review.remind', `${input.attemptId}/${input.questionId}`);
  return marked;
}
