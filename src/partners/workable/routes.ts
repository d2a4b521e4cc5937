// Workable's "Assessment Providers" contract, served by us under /partners/workable/: Workable lists
// our tests (GET /tests) and creates an assessment for a candidate (POST /assessments), with the
// instance's API key as a Bearer token. The result goes back to the callback_url Workable gives
// (callbacks.ts). Errors are {"error": "…"}. Shapes only: every rule is a command of a module.
import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalidInput } from '../../domain/errors.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { startFromPartner } from '../../modules/integrations/commands.js';
import { endpointUrlProblem } from '../../modules/webhooks/ssrf.js';
import { NAME_PATTERN, instanceOf, partnerRequest, registerPartnerScope, type PartnerDeps } from '../shared.js';
import { WORKABLE_EVENTS } from './callbacks.js';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: NAME_PATTERN });
const Optional = (max: number) => Type.Optional(Type.Union([Type.String({ maxLength: max }), Type.Null()]));

const Create = Type.Object(
  {
    // Workable's examples give test ids as numbers; ours are slugs: both are read as text.
    test_id: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Integer()]),
    candidate: Type.Object(
      {
        first_name: Text(100),
        last_name: Text(100),
        email: Type.String({ minLength: 3, maxLength: 254, format: 'email' }),
        phone: Optional(100),
      },
      { additionalProperties: true },
    ),
    callback_url: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://[^\\s]+$' }),
    job_shortcode: Optional(100),
    job_title: Optional(300),
  },
  { additionalProperties: true },
);

export const workableRoutes: FastifyPluginAsyncTypebox<PartnerDeps> = async (app, deps) => {
  registerPartnerScope(app, deps, (message) => ({ error: message }), undefined, 'bearer', 'workable');
  const hidden = { hide: true };

  app.get('/tests', { schema: hidden }, async (request) => {
    const tests = await listAssessments(deps.invite.db, [instanceOf(request).id]);
    return { tests: tests.map((t) => ({ id: t.id, name: t.name })) };
  });

  app.post('/assessments', { schema: { ...hidden, body: Create } }, async (request, reply) => {
    const body = request.body;
    const urlProblem = endpointUrlProblem(body.callback_url);
    if (urlProblem) throw invalidInput([{ in: 'body', name: 'callback_url', detail: urlProblem }]);
    const email = body.candidate.email.trim();
    const test = String(body.test_id);
    // Workable gives one callback_url per assessment it creates: the same request again (a retry) is the same assessment.
    const requestKey = createHash('sha256').update(`${test}\n${email.toLowerCase()}\n${body.callback_url}`).digest('base64url');
    const started = await startFromPartner(deps.invite, partnerRequest(request, deps), {
      instanceId: instanceOf(request).id,
      partner: 'workable',
      requestKey,
      assessment: test,
      candidate: { email, firstName: body.candidate.first_name.trim(), lastName: body.candidate.last_name.trim() },
      callbackUrl: body.callback_url,
      external: { jobShortcode: body.job_shortcode ?? null, jobName: body.job_title ?? null, phone: body.candidate.phone ?? null },
      events: WORKABLE_EVENTS,
      repeated: 'same',
    });
    return reply.code(started.invite ? 201 : 200).send({ id: started.link.publicId, status: 'pending' });
  });
};
