// The check of a state-changing request of a page (the portal's and the console's): it comes from
// this site (same-origin.ts) and carries the token its page was given, in the `_csrf` field of the
// form or the X-CSRF-Token header of a script's request. The token is the session's (or, before a
// session, the sign-in form's cookie); each surface words its own refusal.
import type { FastifyRequest } from 'fastify';
import { secretsEqual } from '../domain/secrets.js';
import { fromSameOrigin } from './same-origin.js';

export type CsrfRefusal = 'cross-site' | 'token';

/** Why the request may not change anything, or undefined when it may. */
export function csrfRefusal(request: FastifyRequest, expected: string | undefined, publicOrigin: string): CsrfRefusal | undefined {
  if (!fromSameOrigin(request, publicOrigin)) return 'cross-site';
  const header = request.headers['x-csrf-token'];
  const field = (request.body as { _csrf?: unknown } | undefined)?._csrf;
  const given = typeof header === 'string' ? header : typeof field === 'string' ? field : '';
  return given && expected && secretsEqual(given, expected) ? undefined : 'token';
}
