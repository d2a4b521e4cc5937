// Greenhouse's Assessment Partner API, served by us under /partners/greenhouse/: Greenhouse lists
// our tests, sends one to a candidate and reads its status, authenticating with HTTP Basic (an
// instance's API key as the username, the password empty). Errors are `{"error": "…"}` with an
// HTTP status, as Greenhouse documents. Shapes only: every rule is a command of a module.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidInput } from '../../domain/errors.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { endpointUrlProblem } from '../../modules/webhooks/ssrf.js';
import { linkedInvitation } from '../../modules/integrations/repository.js';
import { startFromPartner } from '../../modules/integrations/commands.js';
import { reportLinks } from '../../modules/reports/links.js';
import { recordsOf } from '../../modules/scores/repository.js';
import { flatFacts, resultFacts } from '../result.js';
import { NAME_PATTERN, instanceOf, partnerRequest, registerPartnerScope, type PartnerDeps } from '../shared.js';

/** The invitation's events Greenhouse is told of: a PATCH of its `url` (no body) once the result is final, and when it changes. */
export const GREENHOUSE_EVENTS = ['score.finalized', 'score.updated'];

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: NAME_PATTERN });
const Optional = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));

const SendTest = Type.Object({
  partner_test_id: Type.String({ minLength: 1, maxLength: 64 }),
  candidate: Type.Object({
    first_name: Text(100),
    last_name: Text(100),
    preferred_name: Optional(100),
    email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
    phone_number: Optional(100),
    resume_url: Optional(2000),
    greenhouse_profile_url: Optional(2000),
  }),
  sent_by: Optional(254),
  url: Type.Optional(Type.Union([Type.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$' }), Type.Null()])),
});

export const greenhouseRoutes: FastifyPluginAsyncTypebox<PartnerDeps> = async (app, deps) => {
  registerPartnerScope(app, deps, (message) => ({ error: message }));
  const hidden = { hide: true };

  app.get('/list_tests', { schema: hidden }, async (request) => {
    const tests = await listAssessments(deps.invite.db, [instanceOf(request).id]);
    return tests.map((t) => ({ partner_test_id: t.id, partner_test_name: t.name }));
  });

  app.post('/send_test', { schema: { ...hidden, body: SendTest } }, async (request) => {
    const instance = instanceOf(request);
    const body = request.body;
    const urlProblem = body.url ? endpointUrlProblem(body.url) : undefined;
    if (urlProblem) throw invalidInput([{ in: 'body', name: 'url', detail: urlProblem }]);
    const email = body.candidate.email.trim();
    const requestKey = createHash('sha256')
      .update(`${body.partner_test_id}\n${email.toLowerCase()}\n${body.url ?? ''}`)
      .digest('base64url');
    const started = await startFromPartner(deps.invite, partnerRequest(request, deps), {
      instanceId: instance.id,
      partner: 'greenhouse',
      requestKey,
      assessment: body.partner_test_id,
      candidate: { email, firstName: body.candidate.first_name.trim(), lastName: body.candidate.last_name.trim() },
      callbackUrl: body.url ?? null,
      external: {
        preferredName: body.candidate.preferred_name ?? null,
        phoneNumber: body.candidate.phone_number ?? null,
        resumeUrl: body.candidate.resume_url ?? null,
        profileUrl: body.candidate.greenhouse_profile_url ?? null,
        sentBy: body.sent_by ?? null,
      },
      events: body.url ? GREENHOUSE_EVENTS : [],
      repeated: 'same',
    });
    return { partner_interview_id: started.link.publicId };
  });

  // Greenhouse reports what it could not accept of our answers here: kept in the operator's log
  // (with the instance), as nothing else can be done about it by the service on its own.
  app.post('/response_error', { schema: { ...hidden, body: Type.Object({}, { additionalProperties: true }) } }, async (request) => {
    request.log.warn({ instance: instanceOf(request).name, report: JSON.stringify(request.body).slice(0, 4096) }, 'Greenhouse reported an error with our answer');
    return {};
  });

  app.get('/test_status', { schema: { ...hidden, querystring: Type.Object({ partner_interview_id: Type.String({ minLength: 1, maxLength: 100 }) }) } }, async (request, reply) => {
    const instance = instanceOf(request);
    const now = deps.now();
    const linked = await linkedInvitation(deps.invite.db, instance.id, 'greenhouse', request.query.partner_interview_id, now);
    if (!linked) return reply.code(404).send({ error: `No test ${request.query.partner_interview_id} was sent for this key's instance` });
    const [record] = await recordsOf(deps.invite.db, [linked.invitationId]);
    const links = await reportLinks(
      deps.invite.db,
      { instanceId: instance.id, days: linked.reportDays, candidateId: linked.candidateId, assessmentIds: [linked.assessmentSlug] },
      now,
      deps.publicUrl,
    );
    const facts = resultFacts(record!, linked.state);
    return {
      partner_status: facts.status,
      partner_profile_url: links.get(linked.assessmentSlug)!,
      partner_score: facts.final ? facts.totalScore : null,
      metadata: facts.final ? flatFacts(facts) : {},
    };
  });
};
