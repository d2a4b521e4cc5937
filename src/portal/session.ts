// The candidate's session cookie (HttpOnly, SameSite=Strict) and the checks that a state-changing
// request comes from the portal's own pages with the session's CSRF token. The sessions themselves
// are the invitations module's (portal-sessions.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../http/problem.js';
import { secretsEqual } from '../modules/keys/secret.js';
import type { PortalSession } from '../modules/invitations/portal-sessions.js';

export type { PortalSession } from '../modules/invitations/portal-sessions.js';

export const COOKIE = 'ac_session';

export function cookieValue(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=');
  }
  return undefined;
}

/** The cookie lasts as long as the session, counted from `now` (the app's clock). */
export function setSessionCookie(reply: FastifyReply, value: string, expiresAt: Date, secure: boolean, now: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  reply.header('set-cookie', `${COOKIE}=${value}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`);
}

/**
 * Refuses a request that a browser says came from another site: an Origin other than the portal's
 * (or the Host it was reached by), `Origin: null`, or a Sec-Fetch-Site other than same-origin.
 * A request with neither header is not from a current browser's page (every current browser sends
 * Origin on a POST) and passes: a script or curl cannot be tricked into a cross-site request.
 */
export function checkSameOrigin(request: FastifyRequest, publicOrigin: string): void {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin !== undefined && origin !== publicOrigin && !(host && (origin === `http://${host}` || origin === `https://${host}`))) {
    throw new Problem('forbidden', 'This request came from another site');
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw new Problem('forbidden', 'This request came from another site');
}

/** Refuses a state-changing request without the session's CSRF token, or from another origin. */
export function checkCsrf(request: FastifyRequest, session: PortalSession, publicOrigin: string): void {
  checkSameOrigin(request, publicOrigin);
  const header = request.headers['x-csrf-token'];
  const field = (request.body as { _csrf?: unknown } | undefined)?._csrf;
  const given = typeof header === 'string' ? header : typeof field === 'string' ? field : '';
  if (!given || !secretsEqual(given, session.csrfToken)) throw new Problem('forbidden', 'The form is out of date: reload the page and try again');
}
