// Webhook endpoints of an instance, managed with the admin token (the CLI's `webhook …`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { EVENT_TYPES, listAttempts, listEndpoints } from './repository.js';
import { changeEndpoint, registerEndpoint, removeEndpoint, replayToEndpoint, rotateEndpointSecret } from './commands.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';

const Events = Type.Array(Type.String({ enum: [...EVENT_TYPES] } as never), {
  uniqueItems: true,
  maxItems: EVENT_TYPES.length,
  description: `The event types to deliver; empty or absent: every type (${EVENT_TYPES.join(', ')})`,
  examples: [['score.finalized', 'assessment.completed']],
});

const EndpointView = Type.Object(
  {
    id: Type.String({ examples: ['ep_3f2a9c0d5b7e1a46'] }),
    url: Type.String({ examples: ['https://ats.example.com/hooks/assessment-connect'] }),
    events: Type.Array(Type.String(), { examples: [['score.finalized', 'assessment.completed']] }),
    description: Type.Union([Type.String(), Type.Null()], { examples: ['Greenhouse: final scores'] }),
    disabled: Type.Boolean({ examples: [false] }),
    disabledReason: Type.Union([Type.String(), Type.Null()], { examples: [null], description: 'Why it was disabled: 410 Gone, 5 days of failures, or the operator' }),
    failingSince: Type.Union([DateTime(), Type.Null()], { examples: [null], description: 'Since when every delivery has failed; null while deliveries succeed' }),
    createdAt: DateTime({ examples: ['2026-11-23T14:07:40.903Z'] }),
  },
  { additionalProperties: false },
);
const WithSecret = Type.Object({
  ...EndpointView.properties,
  secret: Type.String({
    description: 'The signing secret (whsec_…), shown only here: when the endpoint is made or its secret rotated',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  }),
});
const Params = Type.Object({ instance: InstanceName, id: Type.String({ pattern: '^ep_[0-9a-f]{16}$', examples: ['ep_3f2a9c0d5b7e1a46'] }) });
const Url = Type.String({
  minLength: 1,
  maxLength: 2000,
  examples: ['https://ats.example.com/hooks/assessment-connect'],
  description: 'Where events are POSTed: http(s); it may not resolve to a loopback, private or link-local address unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true',
});

export const webhookAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  const tags = ['admin'];
  app.post(
    '/instances/:instance/webhooks',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Register a webhook endpoint',
        description: 'Events are signed by the Standard Webhooks scheme with the returned secret, which is shown only here.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object(
          { url: Url, events: Type.Optional(Events), description: Type.Optional(Type.String({ maxLength: 200, examples: ['Greenhouse: final scores'] })) },
          { additionalProperties: false },
        ),
        response: { 201: WithSecret, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      const made = await runCommand(db, commandRequest(request, now()), (ctx) =>
        registerEndpoint(ctx, { instance, url: request.body.url, events: request.body.events, description: request.body.description }),
      );
      return reply.code(201).send(made);
    },
  );

  app.get(
    '/instances/:instance/webhooks',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: 'List the webhook endpoints of an instance (never their secrets)',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: { 200: Type.Array(EndpointView), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => listEndpoints(db, (await requireInstance(db, request.params.instance)).id),
  );

  app.patch(
    '/instances/:instance/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Change a webhook endpoint, or enable or disable it',
        security: adminSecurity,
        params: Params,
        body: Type.Object(
          {
            url: Type.Optional(Url),
            events: Type.Optional(Events),
            description: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { examples: ['Greenhouse: final scores'] })),
            enabled: Type.Optional(Type.Boolean({ examples: [true] })),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: EndpointView, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return runCommand(db, commandRequest(request, now()), (ctx) => changeEndpoint(ctx, { instance, id: request.params.id, change: request.body }));
    },
  );

  app.delete(
    '/instances/:instance/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint and its delivery history',
        security: adminSecurity,
        params: Params,
        response: { 204: { type: 'null', description: 'Deleted' }, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      await runCommand(db, commandRequest(request, now()), (ctx) => removeEndpoint(ctx, { instance, id: request.params.id }));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/instances/:instance/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: "Rotate a webhook endpoint's secret",
        description: 'For 24 hours every message carries two signatures, one by each secret, so the receiver can switch without missing a message.',
        security: adminSecurity,
        params: Params,
        response: { 200: WithSecret, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return runCommand(db, commandRequest(request, now()), (ctx) => rotateEndpointSecret(ctx, { instance, id: request.params.id }));
    },
  );

  app.post(
    '/instances/:instance/webhooks/:id/replay',
    {
      schema: {
        operationId: 'replayWebhooks',
        tags,
        summary: 'Send one message, or every message since a time, to an endpoint again',
        description: 'Each message keeps its webhook-id, so a receiver that deduplicates by it sees a repeat as a repeat.',
        security: adminSecurity,
        params: Params,
        body: Type.Object(
          {
            messageId: Type.Optional(Type.String({ pattern: '^msg_[0-9A-Za-z]{22,32}$', examples: ['msg_2ZQbXk7LmN4pRt9sVw1yCa3E'] })),
            since: Type.Optional(Type.String({ format: 'date-time', examples: ['2026-11-23T08:00:00Z'] })),
          },
          { additionalProperties: false, minProperties: 1, maxProperties: 1, examples: [{ since: '2026-11-23T08:00:00Z' }] },
        ),
        response: {
          200: Type.Object({ scheduled: Type.Integer({ description: 'Messages scheduled for delivery now', examples: [12] }) }),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found'),
        },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const since = request.body.since ? new Date(request.body.since) : undefined;
      const scheduled = await runCommand(db, commandRequest(request, now()), (ctx) =>
        replayToEndpoint(ctx, { instance, id: request.params.id, messageId: request.body.messageId, since }),
      );
      return { scheduled };
    },
  );

  app.get(
    '/instances/:instance/webhooks/:id/attempts',
    {
      schema: {
        operationId: 'listWebhookAttempts',
        tags,
        summary: 'Attempts to deliver to an endpoint, newest first',
        security: adminSecurity,
        params: Params,
        querystring: Type.Object({ limit: Type.Integer({ examples: [50], minimum: 1, maximum: 500, default: 50 }) }),
        response: {
          200: Type.Array(
            Type.Object({
              messageId: Type.String({ examples: ['msg_2ZQbXk7LmN4pRt9sVw1yCa3E'] }),
              type: Type.String({ examples: ['score.finalized'] }),
              deliveryStatus: Type.String({ examples: ['pending'], description: 'pending (a retry is scheduled), succeeded or failed' }),
              at: DateTime({ examples: ['2026-11-23T10:39:49.310Z'] }),
              statusCode: Type.Union([Type.Integer(), Type.Null()], { examples: [503], description: 'The HTTP status; null when there was no answer' }),
              durationMs: Type.Integer({ examples: [412] }),
              response: Type.String({ examples: ['<html><body><h1>503 Service Unavailable</h1></body></html>'], description: 'The first 1 KB of the answer, or what went wrong' }),
            }),
          ),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found'),
        },
      },
    },
    async (request) => listAttempts(db, (await requireInstance(db, request.params.instance)).id, request.params.id, request.query.limit),
  );
};
