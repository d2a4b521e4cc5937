// Blind review: what a console user may see of an instance's candidates. Under blind review a
// reviewer knows a candidate only as the review queue shows them, an opaque label per answer; the
// candidate's name, e-mail, report, snapshots and the lists that name candidates open to them only
// once their own reviews of that candidate are in. Owners and managers see everything. Every
// console section asks these functions; none decides it by itself.
import { createHash } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import type { Instance } from '../tenants/repository.js';
import type { User } from '../users/repository.js';
import { isUuid } from '../../domain/ids.js';
import { reviewerAndCandidate, type BoardItem } from './repository.js';

/** How a user sees an instance's candidates: by name, or blind (reviewers under blind review). */
export type Sight = 'named' | 'blind';

export function sightOf(user: Pick<User, 'role'>, instance: Pick<Instance, 'blindReview'>): Sight {
  return instance.blindReview && user.role === 'reviewer' ? 'blind' : 'named';
}

/** The opaque label of an answer under blind review: the same for every reviewer, and saying nothing of whose it is. */
export function answerLabel(item: Pick<BoardItem, 'attemptId' | 'questionId'>): string {
  const digest = createHash('sha256').update(`${item.attemptId}\u0000${item.questionId}`).digest('hex');
  return `Answer ${digest.slice(0, 6).toUpperCase()}`;
}

/** The answers of a viewer's queue: without their review, still short of reviews, assigned to them (or to nobody, when they may take those). */
export function queueOf(items: BoardItem[], user: Pick<User, 'id' | 'email' | 'role'>, instance: Pick<Instance, 'reviewUnassigned'>): BoardItem[] {
  const me = reviewerOf(user);
  return items.filter(
    (item) =>
      (item.state === 'awaiting' || item.state === 'in-review') &&
      !item.reviews.some((r) => r.reviewer === me) &&
      (item.assignees.some((a) => a.userId === user.id) || (item.assignees.length === 0 && (instance.reviewUnassigned || user.role !== 'reviewer'))),
  );
}

/** How a console user is named as a reviewer in answer_reviews. */
export const reviewerOf = (user: Pick<User, 'email'>) => `user:${user.email.toLowerCase()}`;

/**
 * Whether the user may see this candidate by name: always when their sight is named; under blind
 * review only once they have reviewed one of the candidate's answers and none of the candidate's
 * answers waits in their queue.
 */
export async function maySeeCandidate(
  db: Queryable,
  instance: Pick<Instance, 'id' | 'blindReview' | 'reviewersPerAnswer' | 'reviewUnassigned'>,
  user: Pick<User, 'id' | 'email' | 'role'>,
  candidateId: string,
): Promise<boolean> {
  if (sightOf(user, instance) === 'named') return true;
  if (!isUuid(candidateId)) return false;
  const { reviewed, queued } = await reviewerAndCandidate(db, {
    instanceId: instance.id,
    candidateId,
    reviewer: reviewerOf(user),
    userId: user.id,
    reviewersPerAnswer: instance.reviewersPerAnswer,
    takesUnassigned: instance.reviewUnassigned || user.role !== 'reviewer',
  });
  return reviewed && !queued;
}

/** What a blind viewer is told where a page would name candidates. */
export const BLIND_REFUSAL = 'Under blind review, reviewers see candidates only in the review queue; a candidate’s report opens once your reviews of their answers are in';
