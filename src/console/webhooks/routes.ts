// Webhook endpoints of an instance: registered (the secret shown once), enabled and disabled, a
// new secret (the old one keeps signing for a day), the last day's messages sent again, and each
// endpoint's latest delivery attempts with the receiver's answers.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CommandContext } from '../../domain/command.js';
import { DomainError, notFound } from '../../domain/errors.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { changeEndpoint, registerEndpoint, replayToEndpoint, rotateEndpointSecret } from '../../modules/webhooks/commands.js';
import { EVENT_TYPES, listAttempts, listEndpoints } from '../../modules/webhooks/repository.js';
import type { ConsoleContext } from '../context.js';
import { webhooksBody } from './views.js';

export function registerWebhookRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const { db } = c;

  async function webhooksPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, state?: Parameters<typeof webhooksBody>[5], status = 200) {
    const endpoints = await listEndpoints(db, instance.id);
    const attempts: Record<string, Awaited<ReturnType<typeof listAttempts>>> = {};
    for (const e of endpoints) attempts[e.id] = await listAttempts(db, instance.id, e.id, 10);
    const body = webhooksBody(instance.name, endpoints, attempts, EVENT_TYPES, request.consoleUser!.csrfToken, state);
    return c.render(request, reply, { section: 'webhooks', instance }, `Webhooks of ${instance.name}`, body, status);
  }

  scope.get<{ Querystring: { instance?: string } }>('/console/webhooks', async (request, reply) =>
    webhooksPage(request, reply, c.instanceOf(request, request.query.instance, 'manage')),
  );

  scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/webhooks', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const url = typeof body.url === 'string' ? body.url.trim() : '';
    const events = body.events === undefined ? [] : ([] as string[]).concat(body.events);
    try {
      const made = await c.command(request, 'webhook_create', (ctx) => registerEndpoint(ctx, { instance, url, events }));
      return webhooksPage(request, reply, instance, { created: { id: made.id, secret: made.secret } });
    } catch (error) {
      // The form comes back with what was wrong, in the command's words.
      if (error instanceof DomainError && error.code === 'invalid') return webhooksPage(request, reply, instance, { errors: error.fields ?? [], values: { url, events } }, 400);
      throw error;
    }
  });

  scope.post<{ Params: { id: string; action: string }; Body: Record<string, string | undefined> }>('/console/webhooks/:id/:action', async (request, reply) => {
    const instance = c.instanceOf(request, request.body?.instance, 'manage');
    const { id, action } = request.params;
    if (!/^ep_[0-9a-f]{16}$/.test(id)) throw notFound('No such webhook endpoint in this instance');
    const run = <T>(command: (ctx: CommandContext) => Promise<T>) => c.command(request, `webhook_${action}`, command);
    if (action === 'enable' || action === 'disable') {
      await run((ctx) => changeEndpoint(ctx, { instance, id, change: { enabled: action === 'enable' } }));
      return reply.redirect(`/console/webhooks?instance=${encodeURIComponent(instance.name)}`, 303);
    }
    if (action === 'rotate-secret') {
      const rotated = await run((ctx) => rotateEndpointSecret(ctx, { instance, id }));
      return webhooksPage(request, reply, instance, { created: { id: rotated.id, secret: rotated.secret }, notice: 'New secret made; the old one keeps signing for 24 hours.' });
    }
    if (action === 'replay') {
      const scheduled = await run((ctx) => replayToEndpoint(ctx, { instance, id, since: new Date(c.now().getTime() - 24 * 3600_000) }));
      return webhooksPage(request, reply, instance, { notice: `${scheduled} message${scheduled === 1 ? '' : 's'} of the last 24 hours scheduled again.` });
    }
    throw notFound('No such action');
  });
}
