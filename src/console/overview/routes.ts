// The overview: how far the candidates of the last 30 and 90 days got, e-mail that failed, answers
// waiting for review and webhook endpoints in trouble.
import type { FastifyInstance } from 'fastify';
import { pipeline } from '../../modules/candidates/repository.js';
import { failedDeliveries } from '../../modules/invitations/repository/insights.js';
import { completionsByDay, funnel, scoreDistributions } from '../../modules/scores/insights.js';
import { listEndpoints } from '../../modules/webhooks/repository.js';
import type { ConsoleContext } from '../context.js';
import { failedCallbacks } from '../../modules/integrations/repository.js';
import { queueOf } from '../../modules/reviews/blind.js';
import { overdueAssignments, reviewBoard } from '../../modules/reviews/repository.js';
import { overviewBody } from './views.js';
import { brandOf } from '../../modules/tenants/branding.js';

export function registerOverviewRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  scope.get<{ Querystring: { instance?: string } }>('/console/', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const periods = [];
    for (const days of [30, 90]) {
      const since = new Date(c.now().getTime() - days * 86_400_000);
      periods.push({ days, funnel: await funnel(c.db, instance.id, since), failedMail: await failedDeliveries(c.db, instance.id, since) });
    }
    const open = await reviewBoard(c.db, instance, { open: true, limit: 1000 });
    const manage = c.may(request, instance, 'manage');
    const since = new Date(c.now().getTime() - 30 * 86_400_000);
    const needs = {
      mine: queueOf(open, request.consoleUser!.user, instance).length,
      overdue: manage ? await overdueAssignments(c.db, instance.id, c.now()) : 0,
      failedCallbacks: manage ? await failedCallbacks(c.db, instance.id, since) : 0,
    };
    const endpoints = await listEndpoints(c.db, instance.id);
    const hooks = { disabled: endpoints.filter((e) => e.disabled).length, failing: endpoints.filter((e) => !e.disabled && e.failingSince).length };
    return c.render(
      request,
      reply,
      { section: 'overview', instance },
      `Overview of ${brandOf(instance).company}`,
      overviewBody(
        instance.name,
        brandOf(instance).company,
        periods,
        open.length,
        hooks,
        await pipeline(c.db, instance.id),
        {
          names: c.may(request, instance, 'names'),
          manage,
          needs,
        },
        { distributions: await scoreDistributions(c.db, instance.id), completions: await completionsByDay(c.db, instance.id, c.now(), 30) },
      ),
    );
  });
}
