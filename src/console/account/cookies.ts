// The console's two cookies (the session, and the sign-in form's token before there is one), and
// where to go back to after signing in. Whether a state-changing request comes from the console's
// own pages is src/http/csrf.ts, the portal's rule too.

export const SESSION_COOKIE = 'ac_console';
export const SIGN_IN_COOKIE = 'ac_console_signin';

/** A Set-Cookie value: only for /console, never to scripts, never sent by another site. */
export function cookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

/** A cookie of the request (read by @fastify/cookie: src/http/cookies.ts). */
export { cookieOf as readCookie } from '../../http/cookies.js';

/** Only a path inside the console may be a place to go back to after signing in. */
export function safeNext(next: string | undefined): string | undefined {
  return next && /^\/console\/[^\s\\]*$/.test(next) && !next.startsWith('//') ? next : undefined;
}
