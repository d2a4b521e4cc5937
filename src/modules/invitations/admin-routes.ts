// The operator's view of invitation e-mail: recent deliveries with what the relay said, and
// sending one again.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { retakeInvitation, sendFreshLink } from './lifecycle.js';
import { findDelivery, listDeliveries } from './repository/deliveries.js';
import { resend } from './invitation-mail.js';
import type { InviteDeps } from './deps.js';

const Delivery = Type.Object({
  id: Type.String({ examples: ['42'] }),
  candidateId: Type.String({ examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
  recipient: Type.String({ examples: ['jane.doe@example.com'] }),
  status: Type.Union([Type.Literal('SENT'), Type.Literal('FAILED')], { examples: ['SENT'] }),
  messageId: Type.Union([Type.String(), Type.Null()], { examples: ['<3d19f53f-1ac9-31ba-3733-6585ad8d8b12@acme.example>'] }),
  response: Type.String({ examples: ['250 2.0.0 Ok: queued as 4XkQ2D1ZpLz9'], description: "The relay's answer, or why nothing was delivered" }),
  durationMs: Type.Integer({ examples: [184] }),
  attemptedAt: DateTime({ examples: ['2026-11-23T09:15:40.493Z'] }),
});

export const deliveryAdminRoutes: FastifyPluginAsyncTypebox<InviteDeps> = async (app, deps) => {
  const instanceOf = (name: string) => requireInstance(deps.db, name);

  app.get(
    '/instances/:instance/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        tags: ['admin'],
        summary: 'Recent invitation e-mails of an instance, newest first',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        querystring: Type.Object({
          limit: Type.Integer({ examples: [50], minimum: 1, maximum: 500, default: 50 }),
          status: Type.Optional(Type.Union([Type.Literal('SENT'), Type.Literal('FAILED')], { examples: ['FAILED'] })),
        }),
        response: { 200: Type.Array(Delivery), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await instanceOf(request.params.instance);
      return listDeliveries(deps.db, instance.id, { limit: request.query.limit, status: request.query.status });
    },
  );

  app.post(
    '/instances/:instance/deliveries/:id/resend',
    {
      schema: {
        operationId: 'resendDelivery',
        tags: ['admin'],
        summary: 'Send an invitation e-mail again',
        description: 'Issues a fresh link for the same candidate and assessments (links are stored only as hashes) and sends it. Answers with the new delivery.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName, id: Type.String({ pattern: '^[0-9]{1,18}$', examples: ['42'] }) }),
        response: { 200: Delivery, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await instanceOf(request.params.instance);
      const id = await resend(deps, instance, request.params.id, commandRequest(request, deps.now()));
      return (await findDelivery(deps.db, id))!;
    },
  );

  app.post(
    '/instances/:instance/candidates/:candidateId/invitations/:assessmentId/retake',
    {
      schema: {
        operationId: 'retakeAssessment',
        tags: ['admin'],
        summary: 'Let a candidate take an assessment again',
        description:
          'For a completed assessment (or one withdrawn after it was started): the finished attempt stays as history (its answers, signals and the record as it stood, shown in the report), the score record starts over as INVITED (announced as score.updated), and a fresh link is issued, e-mailed unless `email` is false. 409 in any other state.',
        security: adminSecurity,
        params: Type.Object({
          instance: InstanceName,
          candidateId: Type.String({ minLength: 1, maxLength: 100, description: 'Candidate identifier', examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
          assessmentId: Type.String({ minLength: 1, maxLength: 64, description: 'Assessment identifier', examples: ['customer-support'] }),
        }),
        body: Type.Optional(
          Type.Object(
            { email: Type.Optional(Type.Boolean({ default: true, description: 'E-mail the fresh link to the candidate (default true)' })) },
            { additionalProperties: false },
          ),
        ),
        response: {
          200: Type.Object(
            {
              link: Type.String({ description: "The candidate's fresh sign-in link (also in the e-mail)" }),
              expiresAt: DateTime({ description: 'Until when the link may be used' }),
              invitationStatus: Type.Optional(
                Type.Union([Type.Literal('SENT'), Type.Literal('FAILED')], { description: "The relay's answer to the e-mail; absent when none was sent" }),
              ),
            },
            { additionalProperties: false },
          ),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'conflict'),
        },
      },
    },
    async (request) => {
      const instance = await instanceOf(request.params.instance);
      const ref = { instanceIds: [instance.id], candidateId: request.params.candidateId, assessmentId: request.params.assessmentId };
      const fresh = await runCommand(deps.db, commandRequest(request, deps.now()), (ctx) => retakeInvitation(ctx, deps, ref), 'invitation_retake');
      const result: { link: string; expiresAt: Date; invitationStatus?: 'SENT' | 'FAILED' } = { link: fresh.issued.link, expiresAt: fresh.issued.expiresAt };
      if (request.body?.email ?? true) result.invitationStatus = await sendFreshLink(deps, fresh);
      return result;
    },
  );
};
