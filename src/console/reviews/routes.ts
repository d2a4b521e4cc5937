// Reviewing: the queue of free-text answers waiting for a score, a score given (from the queue or
// the report), and proctoring signals dismissed with a reason.
import type { FastifyInstance } from 'fastify';
import { invalidInput, notFound } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import { attemptOwner, pendingReviews } from '../../modules/attempts/report.js';
import { reviewAnswer } from '../../modules/attempts/repository.js';
import { dismissSignalsNow } from '../../modules/attempts/signals.js';
import { recordAudit } from '../../modules/audit/audit.js';
import type { ConsoleContext } from '../context.js';
import { reviewsBody } from '../pages.js';

export function registerReviewRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const { db } = c;

  scope.get<{ Querystring: { instance?: string; saved?: string } }>('/console/reviews', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'review');
    const pending = await pendingReviews(db, [instance.id]);
    const saved = request.query.saved === '1' ? 'Score saved.' : undefined;
    return c.render(
      request,
      reply,
      { section: 'reviews', instance },
      `Review queue of ${instance.name}`,
      reviewsBody(instance.name, pending, request.consoleUser!.csrfToken, saved),
    );
  });

  // A reviewer dismisses a proctoring signal (or every signal of a kind) with a reason.
  scope.post<{ Body: Record<string, string | undefined> }>('/console/signals/dismiss', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'review');
    const attemptId = body.attemptId ?? '';
    await dismissSignalsNow(db, commandRequest(request, c.now()), {
      instanceIds: [instance.id],
      attemptId,
      signalId: body.signalId || undefined,
      kind: body.signalId ? undefined : body.kind,
      reason: body.reason ?? '',
      by: `user:${request.consoleUser!.user.email.toLowerCase()}`,
    });
    const owner = await attemptOwner(db, instance.id, attemptId);
    return reply.redirect(`/console/candidates/${owner!.candidateId}?instance=${encodeURIComponent(instance.name)}#a-${owner!.assessmentId}`, 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/reviews', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'review');
    const attemptId = body.attemptId ?? '';
    const questionId = body.questionId ?? '';
    const score = body.score !== undefined && /^\d{1,3}(\.\d{1,2})?$/.test(body.score.trim()) ? Number(body.score) : NaN;
    if (!(score >= 0 && score <= 100)) throw invalidInput([{ name: 'score', detail: 'must be a number from 0 to 100' }]);
    const comment = (body.comment ?? '').trim();
    if (comment.length > 2000) throw invalidInput([{ name: 'comment', detail: 'is longer than 2000 characters' }]);
    if (!/^[0-9a-f-]{36}$/i.test(attemptId) || !/^[a-z][a-z0-9-]{0,63}$/.test(questionId)) throw notFound('No such answer in this instance');
    const reports = await attemptOwner(db, instance.id, attemptId);
    if (!reports) throw notFound('No such answer in this instance');
    const reviewer = `user:${request.consoleUser!.user.email.toLowerCase()}`;
    await reviewAnswer(db, attemptId, questionId, score, {
      reviewer,
      comment,
      inTransaction: (tx) =>
        recordAudit(tx, {
          actor: reviewer,
          clientIp: request.ip,
          userAgent: String(request.headers['user-agent'] ?? ''),
          action: 'review.score',
          target: `${instance.name}/${attemptId}/${questionId}`,
          requestId: request.id,
          status: 303,
        }),
    });
    if (body.next === 'queue') return reply.redirect(`/console/reviews?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);
    return reply.redirect(`/console/candidates/${reports.candidateId}?instance=${encodeURIComponent(instance.name)}#a-${reports.assessmentId}`, 303);
  });
}
