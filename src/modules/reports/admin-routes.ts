// Admin API of report links: withdraw one link, or every link of an instance (a new key).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { revokeReportLink, rotateReportKey } from './links.js';

export const reportAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  app.post(
    '/report-links/revoke',
    {
      schema: {
        operationId: 'revokeReportLink',
        tags: ['admin'],
        summary: 'Withdraw one report link',
        description: 'The link (a reportUrl, whole or its path and query) opens nothing from now on (410). Revoking it again changes nothing; an expired link is accepted too.',
        security: adminSecurity,
        body: Type.Object(
          {
            url: Type.String({
              minLength: 1,
              maxLength: 2000,
              description: 'The report link',
              examples: ['https://assessments.example.org/reports/9d7e6c95-b46b-46da-979a-dca23f37f114/customer-support?expires=1795564800&signature=3q2-7wAAAAC0Zk8cL1xYpA'],
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object(
            {
              candidateId: Type.String({ format: 'uuid' }),
              assessmentId: Type.String(),
              expiresAt: DateTime({ description: 'When the link would have expired' }),
              revoked: Type.Literal(true),
            },
            { additionalProperties: false },
          ),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found'),
        },
      },
    },
    async (request) => ({
      ...(await runCommand(db, commandRequest(request, now()), (ctx) => revokeReportLink(ctx, { instanceIds: 'all', url: request.body.url }), 'report_link_revoke')),
      revoked: true as const,
    }),
  );

  app.post(
    '/instances/:instance/report-links/rotate-key',
    {
      schema: {
        operationId: 'rotateReportKey',
        tags: ['admin'],
        summary: 'Withdraw every report link of an instance',
        description:
          'Signs later links with a new key: every link made before opens nothing (410 is not possible for them: they answer 404, like any link with a wrong signature). GET /v1/candidates/{candidateId} gives new links at once.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: {
          200: Type.Object({ instance: Type.String(), rotatedAt: DateTime() }, { additionalProperties: false }),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found'),
        },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const command = commandRequest(request, now());
      await runCommand(db, command, (ctx) => rotateReportKey(ctx, instance), 'report_key_rotate');
      return { instance: instance.name, rotatedAt: command.now };
    },
  );
};
