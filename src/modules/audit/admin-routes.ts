// The admin API of the audit log: reading it (GET /audit), and recording the refused requests.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Queryable } from '../../db/database.js';
import { runCommand, type Transactional } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { problemFor, sendProblem } from '../../http/errors.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { audit, listAudit } from './audit.js';

const STATE_CHANGING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

// Route (without the /admin/v1 prefix) to action name, for refusals; a route missing here is
// recorded as "<METHOD> <route>", so that nothing goes unrecorded for want of a name.
const ACTIONS: Record<string, string> = {
  'POST /instances': 'instance.create',
  'PATCH /instances/:instance': 'instance.update',
  'PUT /instances/:instance/logo': 'instance.logo.set',
  'DELETE /instances/:instance/logo': 'instance.logo.remove',
  'POST /instances/:instance/assessments': 'assessment.import',
  'POST /instances/:instance/reviews': 'review.score',
  'POST /instances/:instance/deliveries/:id/resend': 'delivery.resend',
  'POST /keys': 'key.create',
  'PATCH /keys/:id': 'key.update',
  'POST /keys/:id/revoke': 'key.revoke',
  'POST /instances/:instance/candidates/erase': 'candidate.erase',
  'POST /instances/:instance/candidates/export': 'candidate.export',
  'POST /users': 'user.create',
  'POST /users/:id/disable': 'user.disable',
  'POST /users/:id/enable': 'user.enable',
  'POST /users/:id/reset-password': 'user.reset-password',
  'POST /users/:id/reset-2fa': 'user.2fa.reset',
  'PUT /instances/:instance/sso': 'sso.configure',
  'DELETE /instances/:instance/sso': 'sso.remove',
  'POST /instances/:instance/bulk-invites': 'bulk-invite.import',
  'POST /instances/:instance/bulk-invites/:id/start': 'bulk-invite.start',
  'POST /instances/:instance/bulk-invites/:id/cancel': 'bulk-invite.cancel',
  'POST /report-links/revoke': 'report-link.revoke',
  'POST /instances/:instance/report-links/rotate-key': 'report-link.rotate-key',
};

/**
 * Records the admin API's refused state-changing requests (those that passed the token check), then
 * answers with the problem as every surface does. The entry is written by `audit`, in a
 * transaction of its own (the refused command's rolled back, leaving nothing); if it cannot be
 * written, the request fails with it rather than going unrecorded.
 */
export function registerRefusalAudit(app: FastifyInstance, db: Transactional, options: { prefix: string; now: () => Date }): void {
  app.setErrorHandler(async (error, request, reply) => {
    const problem = problemFor(error, request);
    const route = request.routeOptions.url;
    if (request.adminAuthenticated && STATE_CHANGING.has(request.method) && route !== undefined) {
      const path = route.startsWith(options.prefix) ? route.slice(options.prefix.length) : route;
      const action = ACTIONS[`${request.method} ${path}`] ?? `${request.method} ${path}`;
      await runCommand(db, commandRequest(request, options.now()), (ctx) => audit(ctx, action, paramsTarget(request), problem.status), 'audit_refusal');
    }
    return sendProblem(request, reply, problem);
  });
}

/** A refused request's target: its path parameters (never its body). */
function paramsTarget(request: FastifyRequest): string | null {
  const parts = Object.values((request.params ?? {}) as Record<string, unknown>).map(String);
  return parts.length > 0 ? parts.join('/').slice(0, 500) : null;
}

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
