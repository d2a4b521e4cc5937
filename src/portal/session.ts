// The candidate's session cookie (HttpOnly, SameSite=Strict) and the checks that a state-changing
// request comes from the portal's own pages with the session's CSRF token. The sessions themselves
// are the invitations module's (portal-sessions.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieOf } from '../http/cookies.js';
import { csrfRefusal } from '../http/csrf.js';
import { Problem } from '../http/problem.js';
import { fromSameOrigin } from '../http/same-origin.js';
import type { PortalSession } from '../modules/invitations/repository/portal-sessions.js';

export type { PortalSession } from '../modules/invitations/repository/portal-sessions.js';

export const COOKIE = 'ac_session';

export function cookieValue(request: FastifyRequest): string | undefined {
  return cookieOf(request, COOKIE);
}

/** The cookie lasts as long as the session, counted from `now` (the app's clock). */
export function setSessionCookie(reply: FastifyReply, value: string, expiresAt: Date, secure: boolean, now: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));
  reply.header('set-cookie', `${COOKIE}=${value}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`);
}

/** Refuses a request that a browser says came from another site (the rule of src/http/same-origin.ts). */
export function checkSameOrigin(request: FastifyRequest, publicOrigin: string): void {
  if (!fromSameOrigin(request, publicOrigin)) throw new Problem('forbidden', 'This request came from another site');
}

/** Refuses a state-changing request without the session's CSRF token, or from another origin. */
export function checkCsrf(request: FastifyRequest, session: PortalSession, publicOrigin: string): void {
  const refusal = csrfRefusal(request, session.csrfToken, publicOrigin);
  if (refusal === 'cross-site') throw new Problem('forbidden', 'This request came from another site');
  if (refusal === 'token') throw new Problem('forbidden', 'The form is out of date: reload the page and try again');
}
