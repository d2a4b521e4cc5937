import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Queryable } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { listAudit } from './audit.js';

const AuditEntry = Type.Object(
  {
    id: Type.String({ description: 'Entry id; pass it as `before` for the next page' }),
    at: DateTime(),
    actor: Type.String({ description: 'Who acted: `admin-token`' }),
    clientIp: Type.String({ description: 'Address the request came from' }),
    userAgent: Type.Union([Type.String(), Type.Null()]),
    action: Type.String({ description: 'What was done, e.g. `key.revoke`, `instance.create`' }),
    target: Type.Union([Type.String(), Type.Null()], { description: 'What it was done to: path parameters and the id or name of what was created' }),
    requestId: Type.String(),
    status: Type.Integer({ description: 'The status code answered' }),
  },
  { additionalProperties: false },
);

export const auditAdminRoutes: FastifyPluginAsyncTypebox<{ db: Queryable }> = async (app, { db }) => {
  app.get(
    '/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['admin'],
        summary: 'Operator actions, newest first',
        description: 'Every state-changing admin request that passed the token check, with its outcome. Never bodies, keys or tokens.',
        security: adminSecurity,
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'At most this many entries' }),
            before: Type.Optional(
              Type.String({ pattern: '^[1-9][0-9]{0,17}$', 'x-pattern-message': 'must be an entry id (a positive integer)', description: 'Only entries older than this entry id: the `id` of the last entry of the previous page' }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(AuditEntry), ...problemResponses('validation-failed', 'unauthorized') },
      },
    },
    async (request) => listAudit(db, request.query),
  );
};
