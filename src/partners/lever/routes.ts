// Lever's webhooks, served by us at POST /partners/lever/webhook: Lever has no assessment endpoint
// of its own; its documented assessment pattern is the candidate stage change webhook
// ({triggeredAt, event, signature, token, data: {opportunityId, toStageId, …}}, the signature the
// hex HMAC-SHA256 of token + triggeredAt under the webhook's signature token). Entering the
// instance's chosen stage invites the opportunity's contact (read from GET
// {LEVER_API_URL}/opportunities/{id}, the API key as the Basic username) to the chosen assessment,
// once per opportunity; the candidate archive state change webhook (archived) withdraws it.
// Errors are {"error": "…"}. Shapes only: every rule is a command of a module.
import { createHmac } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { Problem } from '../../http/problem.js';
import { startFromPartner } from '../../modules/integrations/commands.js';
import { connectedInstances, findLink } from '../../modules/integrations/repository.js';
import { keepBodyText, parsedBody, sameSignature, signedRequest, textOf } from '../signed.js';
import { cancelFromPartner, logRefusal, registerPartnerScope, type PartnerDeps } from '../shared.js';
import { LEVER_EVENTS } from './callbacks.js';

/** The instance whose signature token signed the webhook; undefined when none did. */
async function signer(deps: PartnerDeps, event: Record<string, unknown>) {
  const token = textOf(event.token);
  const triggeredAt = textOf(event.triggeredAt);
  const signature = textOf(event.signature);
  if (!token || !triggeredAt || !signature) return undefined;
  const connected = await connectedInstances(deps.invite.db, 'lever');
  // Lever gives each webhook its own signature token: several may be set, separated by commas.
  const verifies = (secret: string) =>
    sameSignature(
      signature.toLowerCase(),
      createHmac('sha256', secret)
        .update(token + triggeredAt)
        .digest('hex'),
    );
  return connected.find((c) => (c.secrets.signatureToken ?? '').split(',').some((secret) => secret !== '' && verifies(secret)));
}

/** The opportunity's contact as Lever gives it: its name (split at the first space) and first e-mail. */
async function contactOf(deps: PartnerDeps, apiKey: string, opportunityId: string) {
  const answer = await deps.http.call('GET', `${deps.apis.lever}/opportunities/${encodeURIComponent(opportunityId)}`, {
    authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`,
    accept: 'application/json',
  });
  if (answer.status === undefined || answer.status < 200 || answer.status >= 300)
    throw new Problem('unavailable', `Lever's API answered ${answer.status ?? answer.response} for opportunity ${opportunityId}: the webhook can be sent again`);
  let data: { name?: unknown; emails?: unknown; contact?: unknown };
  try {
    data = ((JSON.parse(answer.response) as { data?: typeof data }).data ?? {}) as typeof data;
  } catch {
    throw new Problem('unavailable', `Lever's API answered no JSON for opportunity ${opportunityId}`);
  }
  const name = (textOf(data.name) ?? '').trim().replace(/\s+/g, ' ');
  const space = name.indexOf(' ');
  const email = Array.isArray(data.emails) ? (textOf(data.emails[0]) ?? '') : '';
  return {
    email: email.trim(),
    firstName: space > 0 ? name.slice(0, space) : name,
    // Lever keeps one name: a single word is the first and the last name.
    lastName: space > 0 ? name.slice(space + 1) : name,
    contactId: textOf(data.contact) ?? null,
  };
}

export const leverRoutes: FastifyPluginAsync<PartnerDeps> = async (app, deps) => {
  registerPartnerScope(app, deps, (message) => ({ error: message }), undefined, 'signature', 'lever');
  keepBodyText(app);

  app.post('/webhook', { schema: { hide: true } }, async (request: FastifyRequest, reply) => {
    const event = parsedBody(request.body);
    const connected = await signer(deps, event);
    if (!connected) {
      logRefusal(request, 'lever', event.signature ? 'signature does not verify' : 'no signature');
      throw new Problem('unauthorized', 'The signature does not verify with any connected signature token');
    }
    const data = (typeof event.data === 'object' && event.data !== null ? event.data : {}) as Record<string, unknown>;
    const opportunityId = textOf(data.opportunityId);
    if (!opportunityId) throw new Problem('validation-failed', 'data.opportunityId is required');
    const req = signedRequest(request, deps, 'lever:webhook');
    const assessment = connected.options.assessment ?? '';
    const requestKey = `${opportunityId}\n${assessment}`;
    const target = { instanceId: connected.instanceId, partner: 'lever' as const };
    if (event.event === 'candidateArchiveChange') {
      const archived = typeof data.toArchived === 'object' && data.toArchived !== null;
      if (archived && (await findLink(deps.invite.db, connected.instanceId, 'lever', requestKey))) {
        try {
          await cancelFromPartner(deps, req, { ...target, requestKey });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          request.log.info({ partner: 'lever', opportunityId, reason: error.message }, 'Lever archive: nothing withdrawn');
        }
      }
      return { ok: true };
    }
    if (event.event !== 'candidateStageChange' || textOf(data.toStageId) !== connected.options.stage) return { ok: true, ignored: true };
    // Once per opportunity: the same stage entered again (or the webhook sent again) invites nobody new.
    if (await findLink(deps.invite.db, connected.instanceId, 'lever', requestKey)) return { ok: true };
    const contact = await contactOf(deps, connected.secrets.apiKey ?? '', opportunityId);
    await startFromPartner(deps.invite, req, {
      ...target,
      requestKey,
      assessment,
      candidate: { email: contact.email, firstName: contact.firstName, lastName: contact.lastName },
      callbackUrl: null,
      external: { opportunityId, contactId: contact.contactId ?? textOf(data.contactId) ?? null, candidateId: textOf(data.candidateId) ?? null, stageId: textOf(data.toStageId) },
      events: LEVER_EVENTS,
      repeated: 'same',
    });
    return reply.code(200).send({ ok: true });
  });
};
