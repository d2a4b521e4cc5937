// The console's two cookies (the session, and the sign-in form's token before there is one), and
// the checks that a state-changing request comes from the console's own pages.
import type { FastifyRequest } from 'fastify';

export const SESSION_COOKIE = 'ac_console';
export const SIGN_IN_COOKIE = 'ac_console_signin';

/** A Set-Cookie value: only for /console, never to scripts, never sent by another site. */
export function cookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** A state-changing request must come from this site's own pages. */
export function sameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.origin;
  const host = request.headers.host;
  return !origin || origin === publicOrigin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
}

/** Only a path inside the console may be a place to go back to after signing in. */
export function safeNext(next: string | undefined): string | undefined {
  return next && /^\/console\/[^\s\\]*$/.test(next) && !next.startsWith('//') ? next : undefined;
}
