// SmartRecruiters' Assessment API (2021), the partner's side, served by us under
// /partners/smartrecruiters/: SmartRecruiters lists the packages a customer may order
// (GET /packages), places an order for a candidate (POST /orders) and withdraws it
// (DELETE /orders/{orderId}), with the instance's API key as a Bearer token. Status and results go
// back under the order (callbacks.ts). Errors are {"code", "message"}. Shapes only: every rule is
// a command of a module.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listAssessments } from '../../modules/assessments/repository.js';
import { startFromPartner } from '../../modules/integrations/commands.js';
import { NAME_PATTERN, cancelFromPartner, instanceOf, partnerRequest, registerPartnerScope, type PartnerDeps } from '../shared.js';
import { SMARTRECRUITERS_EVENTS } from './callbacks.js';

const Id = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:-]+$' });
const Optional = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));
const Named = Type.Optional(Type.Object({ id: Type.Optional(Type.String({ maxLength: 200 })), name: Optional(300) }, { additionalProperties: true }));

const Order = Type.Object(
  {
    id: Id,
    packageId: Type.String({ minLength: 1, maxLength: 64 }),
    candidate: Type.Object(
      {
        id: Type.Optional(Type.String({ maxLength: 200 })),
        firstName: Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN }),
        lastName: Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN }),
        email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
      },
      { additionalProperties: true },
    ),
    job: Named,
    company: Named,
    requestor: Type.Optional(Type.Object({ email: Optional(254) }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

/** SmartRecruiters' error codes by HTTP status. */
const CODES: Record<number, string> = { 400: 'INVALID_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT', 429: 'TOO_MANY_REQUESTS' };

export const smartRecruitersRoutes: FastifyPluginAsyncTypebox<PartnerDeps> = async (app, deps) => {
  registerPartnerScope(app, deps, (message, status) => ({ code: CODES[status] ?? 'SERVER_ERROR', message }), undefined, 'bearer', 'smartrecruiters');
  const hidden = { hide: true };

  app.get('/packages', { schema: hidden }, async (request) => {
    const tests = await listAssessments(deps.invite.db, [instanceOf(request).id]);
    return { totalFound: tests.length, content: tests.map((t) => ({ id: t.id, name: t.name, description: t.description, durationMinutes: t.durationMinutes })) };
  });

  app.post('/orders', { schema: { ...hidden, body: Order } }, async (request, reply) => {
    const body = request.body;
    const started = await startFromPartner(deps.invite, partnerRequest(request, deps), {
      instanceId: instanceOf(request).id,
      partner: 'smartrecruiters',
      // One assessment per order: SmartRecruiters placing the same order again gets the same answer.
      requestKey: body.id,
      assessment: body.packageId,
      candidate: { email: body.candidate.email.trim(), firstName: body.candidate.firstName.trim(), lastName: body.candidate.lastName.trim() },
      callbackUrl: null,
      external: {
        orderId: body.id,
        candidateId: body.candidate.id ?? null,
        jobId: body.job?.id ?? null,
        jobName: body.job?.name ?? null,
        companyId: body.company?.id ?? null,
        sentBy: body.requestor?.email ?? null,
      },
      events: SMARTRECRUITERS_EVENTS,
      repeated: 'same',
    });
    return reply.code(started.invite ? 201 : 200).send({ orderId: body.id, assessmentId: started.link.publicId, status: 'ACCEPTED' });
  });

  app.delete('/orders/:orderId', { schema: { ...hidden, params: Type.Object({ orderId: Id }) } }, async (request, reply) => {
    await cancelFromPartner(deps, partnerRequest(request, deps), { instanceId: instanceOf(request).id, partner: 'smartrecruiters', requestKey: request.params.orderId });
    return reply.code(204).send();
  });
};
