// Ashby's assessment partner API, served by us under /partners/ashby/: Ashby calls method-named
// POST endpoints (assessment.list, assessment.start, assessment.cancel) with HTTP Basic (an
// instance's API key as the username). Errors are `{"message": "…"}`: 401 for a wrong key, 409 for
// an assessment already started for the same application, 422 for invalid input. Shapes only:
// every rule is a command of a module.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { listAssessments } from '../../modules/assessments/repository.js';
import { startFromPartner } from '../../modules/integrations/commands.js';
import { NAME_PATTERN, cancelFromPartner, instanceOf, partnerRequest, registerPartnerScope, type PartnerDeps } from '../shared.js';
import { ASHBY_EVENTS } from './callbacks.js';

const Id = Type.String({ minLength: 1, maxLength: 200 });
const Optional = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));

const Start = Type.Object({
  assessment_type_id: Type.String({ minLength: 1, maxLength: 64 }),
  candidate: Type.Object({
    ashby_id: Id,
    first_name: Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN }),
    last_name: Type.String({ minLength: 1, maxLength: 100, pattern: NAME_PATTERN }),
    email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
    ashby_profile_url: Optional(2000),
  }),
  application: Type.Object({ ashby_id: Id, status: Optional(100) }),
  job: Type.Optional(Type.Object({ ashby_id: Type.Optional(Id), name: Optional(300), req_id: Optional(200), ashby_job_url: Optional(2000) })),
});

export const ashbyRoutes: FastifyPluginAsyncTypebox<PartnerDeps> = async (app, deps) => {
  // Invalid input is 422 for Ashby (our 400); every other status as our problem has it.
  registerPartnerScope(
    app,
    deps,
    (message) => ({ message }),
    (problem) => (problem.status === 400 ? 422 : problem.status),
  );
  const hidden = { hide: true };

  app.post('/assessment.list', { schema: hidden }, async (request) => {
    const tests = await listAssessments(deps.invite.db, [instanceOf(request).id]);
    return { success: true, results: tests.map((t) => ({ assessment_type_id: t.id, name: t.name, description: t.description })) };
  });

  app.post('/assessment.start', { schema: { ...hidden, body: Start } }, async (request) => {
    const body = request.body;
    const started = await startFromPartner(deps.invite, partnerRequest(request, deps), {
      instanceId: instanceOf(request).id,
      partner: 'ashby',
      // One assessment per application and assessment type: the same again is refused (409).
      requestKey: `${body.application.ashby_id}\n${body.assessment_type_id}`,
      assessment: body.assessment_type_id,
      candidate: { email: body.candidate.email.trim(), firstName: body.candidate.first_name.trim(), lastName: body.candidate.last_name.trim() },
      callbackUrl: null,
      external: {
        candidateId: body.candidate.ashby_id,
        applicationId: body.application.ashby_id,
        applicationStatus: body.application.status ?? null,
        jobId: body.job?.ashby_id ?? null,
        jobName: body.job?.name ?? null,
        profileUrl: body.candidate.ashby_profile_url ?? null,
      },
      events: ASHBY_EVENTS,
      repeated: 'conflict',
    });
    return { success: true, results: { assessment_id: started.link.publicId } };
  });

  app.post('/assessment.cancel', { schema: { ...hidden, body: Type.Object({ assessment_id: Id }) } }, async (request) => {
    await cancelFromPartner(deps, partnerRequest(request, deps), { instanceId: instanceOf(request).id, partner: 'ashby', publicId: request.body.assessment_id });
    return { success: true };
  });
};
