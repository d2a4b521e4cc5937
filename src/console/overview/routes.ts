// The overview: how far the candidates of the last 30 and 90 days got, e-mail that failed, answers
// waiting for review and webhook endpoints in trouble.
import type { FastifyInstance } from 'fastify';
import { pipeline } from '../../modules/candidates/repository.js';
import { failedDeliveries } from '../../modules/invitations/insights.js';
import { funnel } from '../../modules/scores/insights.js';
import { listEndpoints } from '../../modules/webhooks/repository.js';
import type { ConsoleContext } from '../context.js';
import { waitingReviews } from '../reviews/routes.js';
import { overviewBody } from './views.js';

export function registerOverviewRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  scope.get<{ Querystring: { instance?: string } }>('/console/', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const periods = [];
    for (const days of [30, 90]) {
      const since = new Date(c.now().getTime() - days * 86_400_000);
      periods.push({ days, funnel: await funnel(c.db, instance.id, since), failedMail: await failedDeliveries(c.db, instance.id, since) });
    }
    const waiting = await waitingReviews(c.db, instance);
    const endpoints = await listEndpoints(c.db, instance.id);
    const hooks = { disabled: endpoints.filter((e) => e.disabled).length, failing: endpoints.filter((e) => !e.disabled && e.failingSince).length };
    return c.render(
      request,
      reply,
      { section: 'overview', instance },
      `Overview of ${instance.name}`,
      overviewBody(instance.name, periods, waiting, hooks, await pipeline(c.db, instance.id), {
        names: c.may(request, instance, 'names'),
        manage: c.may(request, instance, 'manage'),
      }),
    );
  });
}
