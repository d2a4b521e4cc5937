// A reviewer dismisses a proctoring signal (or every signal of a kind) with a reason: the red flag
// and the risk level are recomputed without it, and the audit log keeps both.
import type { FastifyInstance } from 'fastify';
import { commandRequest } from '../../http/command.js';
import { attemptOwner } from '../../modules/attempts/attempt-lookups.js';
import { dismissSignalsNow } from '../../modules/attempts/signals.js';
import type { ConsoleContext } from '../context.js';

export function registerSignalRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  scope.post<{ Body: Record<string, string | undefined> }>('/console/signals/dismiss', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'review');
    const attemptId = body.attemptId ?? '';
    await dismissSignalsNow(c.db, commandRequest(request, c.now()), {
      instanceIds: [instance.id],
      attemptId,
      signalId: body.signalId || undefined,
      kind: body.signalId ? undefined : body.kind,
      reason: body.reason ?? '',
      by: `user:${request.consoleUser!.user.email.toLowerCase()}`,
    });
    const owner = await attemptOwner(c.db, instance.id, attemptId);
    return reply.redirect(`/console/candidates/${owner!.candidateId}?instance=${encodeURIComponent(instance.name)}#a-${owner!.assessmentId}`, 303);
  });
}
