// What every ATS adapter shares: HTTP Basic with an instance's API key as the username (the same
// check, limits and budget as X-API-Key), the instance that key is granted, and errors answered in
// the ATS's own shape instead of our problem documents.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { problemFor } from '../http/errors.js';
import { Problem } from '../http/problem.js';
import type { keyAuthenticator } from '../modules/keys/authenticate.js';
import type { KeyGrant } from '../modules/keys/repository.js';
import type { InviteDeps } from '../modules/invitations/deps.js';
import { runCommand, type CommandRequest } from '../domain/command.js';
import { cancelPartnerAssessment } from '../modules/integrations/commands.js';
import type { Partner } from '../modules/integrations/repository.js';
import { commandRequest } from '../http/command.js';
import { BIDI_CONTROLS } from '../http/validation.js';
import type { PartnerHttp } from '../modules/integrations/worker.js';

export interface PartnerDeps {
  invite: InviteDeps;
  authenticate: ReturnType<typeof keyAuthenticator>;
  now: () => Date;
  publicUrl: string;
  /** Requests to an ATS's API (HiBob's context, Lever's opportunity), through the address guard. */
  http: PartnerHttp;
  /** Where each ATS's API is (HIBOB_API_URL, LEVER_API_URL, SMARTRECRUITERS_API_URL, ASHBY_API_URL). */
  apis: PartnerApis;
}

/** The base address of each ATS's API the service calls. */
export interface PartnerApis {
  ashby: string;
  hibob: string;
  lever: string;
  smartrecruiters: string;
}

/** The credential of an ATS's call: an instance's API key as HTTP Basic's username, as a Bearer token, or none (a signed webhook, checked by its route). */
export type PartnerAuth = 'basic' | 'bearer' | 'signature';

declare module 'fastify' {
  interface FastifyRequest {
    /** The instance of the API key an ATS presented (adapters under /partners only). */
    partnerInstance: KeyGrant | null;
  }
}

/** The username of an HTTP Basic Authorization header (the password is ignored); undefined without one. */
export function basicUsername(header: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]{1,1000})\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = colon >= 0 ? decoded.slice(0, colon) : decoded;
  return user === '' ? undefined : user;
}

/** The token of a Bearer Authorization header; undefined without one. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+([\x21-\x7e]{1,1000})\s*$/i.exec(header ?? '')?.[1];
}

/** Says in the operator's log that an ATS's credential was refused: which adapter and why, never the credential. */
export function logRefusal(request: FastifyRequest, partner: string, reason: string): void {
  request.log.warn({ partner, reason, clientIp: request.ip }, 'ATS credential refused');
}

/**
 * Authenticates every request of an adapter's scope (`auth`), and answers its errors as `shape` builds
 * them, with `statusOf` choosing the status of a problem (an ATS may want 422 for invalid input).
 */
export function registerPartnerScope(
  app: FastifyInstance,
  deps: PartnerDeps,
  shape: (message: string, status: number) => Record<string, unknown>,
  statusOf: (problem: Problem) => number = (problem) => problem.status,
  auth: PartnerAuth = 'basic',
  partner = 'ats',
): void {
  const send = (request: FastifyRequest, reply: FastifyReply, problem: Problem) => {
    const status = statusOf(problem);
    if (problem.headers) reply.headers(problem.headers);
    if (status === 401 && auth !== 'signature')
      reply.header('www-authenticate', auth === 'basic' ? 'Basic realm="Assessment Connect", charset="UTF-8"' : 'Bearer realm="Assessment Connect"');
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .send(shape(status >= 500 ? `${problem.detail} (request ${request.id})` : problem.detail, status));
  };
  app.decorateRequest('partnerInstance', null);
  app.decorateRequest('apiKey', null);
  app.setErrorHandler((error, request, reply) => send(request, reply, problemFor(error, request)));
  app.setNotFoundHandler((request, reply) => send(request, reply, new Problem('not-found', `No route ${request.method} ${request.url.split('?')[0]}`)));
  if (auth === 'signature') return;
  app.addHook('onRequest', async (request, reply) => {
    const presented = auth === 'basic' ? basicUsername(request.headers.authorization) : bearerToken(request.headers.authorization);
    const key = await deps.authenticate(request, reply, presented ?? '');
    if (!key) {
      logRefusal(request, partner, presented === undefined ? 'no credential' : 'unknown, revoked or expired API key');
      throw new Problem(
        'unauthorized',
        auth === 'basic'
          ? 'A valid API key is required as the username of HTTP Basic authentication'
          : 'A valid API key is required as a Bearer token (Authorization: Bearer <key>)',
      );
    }
    if (key.instances.length !== 1) {
      throw new Problem('forbidden', `This API key is granted ${key.instances.length} instances; an ATS needs a key of exactly one instance (create one on the Integrations page)`);
    }
    request.apiKey = key;
    request.partnerInstance = key.instances[0]!;
  });
}

/** The command context's request of an ATS's call: the API key is the actor. */
export const partnerRequest = (request: FastifyRequest, deps: PartnerDeps): CommandRequest => commandRequest(request, deps.now());

/** Withdraws the invitation behind an ATS's link (the cancel command, in its own transaction), found by our id of it or by the ATS's request. */
export async function cancelFromPartner(
  deps: PartnerDeps,
  req: CommandRequest,
  input: { instanceId: string; partner: Partner } & ({ publicId: string } | { requestKey: string }),
): Promise<void> {
  await runCommand(deps.invite.db, req, (ctx) => cancelPartnerAssessment(ctx, deps.invite, input), `partner-${input.partner}-cancel`);
}

/** The instance of an authenticated ATS request. */
export const instanceOf = (request: FastifyRequest): KeyGrant => request.partnerInstance!;

/** A name or label as an ATS sends it: a visible character, no control characters (bidirectional ones included). */
export const NAME_PATTERN = `^[^\\u0000-\\u001f\\u007f${BIDI_CONTROLS}]*[^\\s\\u0000-\\u001f\\u007f${BIDI_CONTROLS}][^\\u0000-\\u001f\\u007f${BIDI_CONTROLS}]*$`;
