import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Queryable } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { listAudit } from './audit.js';

const AuditEntry = Type.Object(
  {
    id: Type.String({ examples: ['4182'], description: 'Entry id; pass it as `before` for the next page' }),
    at: DateTime({ examples: ['2026-11-23T09:02:11.406Z'] }),
    actor: Type.String({ examples: ['admin-token'], description: 'Who acted: `admin-token`' }),
    clientIp: Type.String({ examples: ['203.0.113.24'], description: 'Address the request came from' }),
    userAgent: Type.Union([Type.String(), Type.Null()], { examples: ['assessment-connect-cli/0.1.0'] }),
    action: Type.String({ examples: ['key.revoke'], description: 'What was done, e.g. `key.revoke`, `instance.create`' }),
    target: Type.Union([Type.String(), Type.Null()], {
      examples: ['key_0735119b9fc76d06'],
      description: 'What it was done to: path parameters and the id or name of what was created',
    }),
    requestId: Type.String({ examples: ['ea9c7719-2659-4a05-8023-45470a11a07c'] }),
    status: Type.Integer({ examples: [200], description: 'The status code answered' }),
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
            limit: Type.Integer({ examples: [100], minimum: 1, maximum: 1000, default: 100, description: 'At most this many entries' }),
            before: Type.Optional(
              Type.String({
                pattern: '^[1-9][0-9]{0,17}$',
                examples: ['4083'],
                'x-pattern-message': 'must be an entry id (a positive integer)',
                description: 'Only entries older than this entry id: the `id` of the last entry of the previous page',
              }),
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
