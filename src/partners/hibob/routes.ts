// Bob's Hiring Assessments API, the partner's side, served by us at POST /partners/hibob/events:
// Bob sends assessment.triggered and assessment.cancelled (IDs only, `data.assessmentRequestId`),
// signed in the Bob-Signature header (base64 HMAC-SHA512 of the body under the instance's webhook
// secret). The company's instance is the one whose HiBob company id the event names and whose
// secret verifies it. On a trigger the adapter reads the assessment's context from Bob
// (GET {HIBOB_API_URL}/hiring/assessments/{id}: candidate, job opening, package) and invites the
// candidate; delivery is at least once, so one invitation per request id however often it comes.
// Errors are {"error": "…"}. Shapes only: every rule is a command of a module.
import { createHmac } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { Problem } from '../../http/problem.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { startFromPartner } from '../../modules/integrations/commands.js';
import { connectedInstances, findLink } from '../../modules/integrations/repository.js';
import { keepBodyText, parsedBody, sameSignature, signedRequest, textOf } from '../signed.js';
import { cancelFromPartner, logRefusal, registerPartnerScope, type PartnerDeps } from '../shared.js';
import { HIBOB_EVENTS } from './callbacks.js';

/** The signature Bob sends for `body` under `secret`. */
export const bobSignature = (secret: string, body: string): string => createHmac('sha512', secret).update(body, 'utf8').digest('base64');

/** The instance connected to the company the event names whose webhook secret verifies its signature; undefined when none does. */
async function signer(deps: PartnerDeps, request: FastifyRequest, companyId: string | undefined) {
  const signature = request.headers['bob-signature'];
  if (typeof signature !== 'string' || companyId === undefined) return undefined;
  const body = request.body as string;
  const candidates = await connectedInstances(deps.invite.db, 'hibob', { option: 'companyId', value: companyId });
  return candidates.find((c) => c.secrets.webhookSecret && sameSignature(signature.trim(), bobSignature(c.secrets.webhookSecret, body)));
}

interface Context {
  candidate?: { id?: unknown; firstName?: unknown; lastName?: unknown; email?: unknown };
  jobOpening?: { id?: unknown; title?: unknown };
  package?: { id?: unknown; name?: unknown };
  requester?: { email?: unknown };
}

/** The assessment's context from Bob, or a problem (Bob's API did not answer well: 503, Bob delivers the event again). */
async function contextOf(deps: PartnerDeps, token: string, id: string): Promise<Context> {
  const answer = await deps.http.call('GET', `${deps.apis.hibob}/hiring/assessments/${encodeURIComponent(id)}`, { authorization: `Bearer ${token}`, accept: 'application/json' });
  if (answer.status === undefined || answer.status < 200 || answer.status >= 300)
    throw new Problem('unavailable', `Bob's API answered ${answer.status ?? answer.response} for assessment ${id}: the event can be delivered again`);
  try {
    return JSON.parse(answer.response) as Context;
  } catch {
    throw new Problem('unavailable', `Bob's API answered no JSON for assessment ${id}`);
  }
}

export const hibobRoutes: FastifyPluginAsync<PartnerDeps> = async (app, deps) => {
  registerPartnerScope(app, deps, (message) => ({ error: message }), undefined, 'signature', 'hibob');
  keepBodyText(app);

  app.post('/events', { schema: { hide: true } }, async (request, reply) => {
    const event = parsedBody(request.body);
    const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
    const connected = await signer(deps, request, textOf(event.companyId));
    if (!connected) {
      logRefusal(request, 'hibob', request.headers['bob-signature'] ? 'signature does not verify for the company' : 'no Bob-Signature');
      throw new Problem('unauthorized', 'The Bob-Signature does not verify for this company');
    }
    const id = textOf(data.assessmentRequestId);
    if (!id) throw new Problem('validation-failed', 'data.assessmentRequestId is required');
    const req = signedRequest(request, deps, `hibob:${textOf(event.companyId)}`);
    const target = { instanceId: connected.instanceId, partner: 'hibob' as const };
    if (event.type === 'assessment.cancelled') {
      try {
        await cancelFromPartner(deps, req, { ...target, requestKey: id });
      } catch (error) {
        // Nothing to withdraw (never started here, or already completed): said, and not asked again.
        if (!(error instanceof DomainError)) throw error;
        request.log.info({ partner: 'hibob', assessmentRequestId: id, reason: error.message }, 'HiBob cancellation not applied');
      }
      return reply.code(204).send();
    }
    if (event.type !== 'assessment.triggered') return reply.code(204).send();
    // At least once: a trigger already handled is answered at once, without asking Bob again.
    if (await findLink(deps.invite.db, connected.instanceId, 'hibob', id)) return reply.code(204).send();
    const context = await contextOf(deps, connected.secrets.accessToken ?? '', id);
    const email = textOf(context.candidate?.email)?.trim() ?? '';
    await startFromPartner(deps.invite, req, {
      ...target,
      requestKey: id,
      assessment: textOf(context.package?.id) ?? '',
      candidate: { email, firstName: textOf(context.candidate?.firstName)?.trim() ?? '', lastName: textOf(context.candidate?.lastName)?.trim() ?? '' },
      callbackUrl: null,
      external: {
        assessmentRequestId: id,
        companyId: textOf(event.companyId),
        candidateId: textOf(context.candidate?.id) ?? null,
        jobId: textOf(context.jobOpening?.id) ?? null,
        jobName: textOf(context.jobOpening?.title) ?? null,
        sentBy: textOf(context.requester?.email) ?? null,
      },
      events: HIBOB_EVENTS,
      repeated: 'same',
    });
    return reply.code(204).send();
  });
};

/**
 * Publishes the instance's assessments to Bob as the company's packages (PUT
 * {HIBOB_API_URL}/hiring/assessments/packages, replacing the catalogue): after connecting, and
 * whenever assessments change. A sentence saying how it went.
 */
export async function publishHibobPackages(deps: Pick<PartnerDeps, 'http' | 'apis' | 'invite'>, instanceId: string): Promise<string> {
  const [connected] = (await connectedInstances(deps.invite.db, 'hibob')).filter((c) => c.instanceId === instanceId);
  const token = connected?.secrets.accessToken;
  if (!token) return 'packages not published to HiBob: no access token is set';
  const tests = await listAssessments(deps.invite.db, [instanceId]);
  const body = JSON.stringify({ packages: tests.map((t) => ({ id: t.id, name: t.name, description: t.description, durationMinutes: t.durationMinutes })) });
  const answer = await deps.http.call('PUT', `${deps.apis.hibob}/hiring/assessments/packages`, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body);
  return answer.status !== undefined && answer.status >= 200 && answer.status < 300
    ? `${tests.length} package${tests.length === 1 ? '' : 's'} published to HiBob`
    : `packages not published to HiBob: it answered ${answer.status ?? answer.response}`;
}
