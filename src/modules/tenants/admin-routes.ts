import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Queryable } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { Problem } from '../../http/problem.js';
import { INSTANCE_NAME_PATTERN, createInstance, listInstances } from './repository.js';

export const InstanceName = Type.String({
  pattern: INSTANCE_NAME_PATTERN,
  'x-pattern-message': 'must be 1-63 characters of a-z, 0-9 and -, starting with a letter',
  description: 'Instance name: 1-63 characters of a-z, 0-9 and -, starting with a letter',
});

const Instance = Type.Object(
  {
    name: Type.String(),
    portalUrl: Type.Union([Type.String(), Type.Null()], { description: 'Base URL of candidate links; null: the service PUBLIC_URL' }),
    inviteTtlDays: Type.Integer({ description: 'How long invite links stay valid, in days' }),
    createdAt: DateTime(),
  },
  { additionalProperties: false },
);

export const tenantAdminRoutes: FastifyPluginAsyncTypebox<{ db: Queryable }> = async (app, { db }) => {
  app.post(
    '/instances',
    {
      schema: {
        operationId: 'createInstance',
        tags: ['admin'],
        summary: 'Create a tenant instance',
        security: adminSecurity,
        body: Type.Object(
          {
            name: InstanceName,
            portalUrl: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 500, description: 'Base URL of the portal for this instance' })),
            inviteTtlDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 14 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Instance, ...problemResponses('validation-failed', 'unauthorized', 'conflict') },
      },
    },
    async (request, reply) => {
      const created = await createInstance(db, { ...request.body, portalUrl: request.body.portalUrl?.replace(/\/+$/, '') });
      if (!created) throw new Problem('conflict', `An instance named "${request.body.name}" exists already`);
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/instances',
    {
      schema: {
        operationId: 'listInstances',
        tags: ['admin'],
        summary: 'List tenant instances',
        security: adminSecurity,
        response: { 200: Type.Array(Instance), ...problemResponses('unauthorized') },
      },
    },
    async () => listInstances(db),
  );
};
