// Signing in with a password (and the limits on trying), and signing out. The second factor, a
// forced password change and single sign-on follow in routes.ts and sso.ts; the rules are the
// users module's commands.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { forbidden } from '../../domain/errors.js';
import type { SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import { csrfRefusal } from '../../http/csrf.js';
import type { Counter } from '../../modules/limits/counter.js';
import { INSTANCE_NAME_PATTERN } from '../../modules/tenants/repository.js';
import { recordLockedOut, signInWithPassword, signOut } from '../../modules/users/accounts.js';
import { normaliseIdentifier } from '../../modules/users/identifier.js';
import type { SessionTimes } from '../../modules/users/repository.js';
import { ssoButton } from '../../modules/users/sso.js';
import { SESSION_COOKIE, SIGN_IN_COOKIE, cookie, readCookie, safeNext } from './cookies.js';
import { signInPage } from './views.js';

// Sign-in attempts are counted before the password is checked, per client address and per account,
// in windows of 15 minutes; past either limit every attempt gets the same answer, right or wrong.
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_PER_ADDRESS = 100;
const SIGN_IN_PER_ACCOUNT = 10;
const INSTANCE_NAME = new RegExp(INSTANCE_NAME_PATTERN);

/**
 * Counts an attempt to sign in (a password, or the code after it) per client address and per
 * account; past either limit, the seconds to wait.
 */
export function signInLimiter(counter: Counter) {
  return async (request: FastifyRequest, email: string): Promise<number | undefined> => {
    const byAddress = await counter.hit(`console-sign-in:address:${request.ip}`, SIGN_IN_WINDOW_MS);
    // Keyed by the same normal form as the account (NFKC, case-folded): no spelling of one address has attempts of its own.
    const byAccount = await counter.hit(`console-sign-in:account:${normaliseIdentifier(email)}`, SIGN_IN_WINDOW_MS);
    if (byAddress.count <= SIGN_IN_PER_ADDRESS && byAccount.count <= SIGN_IN_PER_ACCOUNT) return undefined;
    return Math.ceil(Math.max(byAddress.count > SIGN_IN_PER_ADDRESS ? byAddress.resetMs : 0, byAccount.count > SIGN_IN_PER_ACCOUNT ? byAccount.resetMs : 0) / 1000);
  };
}

export interface SignInDeps {
  db: Database;
  now: () => Date;
  times: SessionTimes;
  secure: boolean;
  publicOrigin: string;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  signInLimit(request: FastifyRequest, email: string): Promise<number | undefined>;
}

export function registerSignInRoutes(scope: FastifyInstance, deps: SignInDeps): void {
  const { db, now, times, page } = deps;
  const set = (name: string, value: string, maxAgeSeconds: number) => cookie(name, value, maxAgeSeconds, deps.secure);

  scope.get('/console', async (_request, reply) => reply.redirect('/console/', 301));

  // ?instance=<name> shows that instance's "Sign in with …" button when it has single sign-on.
  scope.get<{ Querystring: { next?: string; signedOut?: string; instance?: string } }>('/console/sign-in', async (request, reply) => {
    const token = randomBytes(24).toString('base64url');
    reply.header('set-cookie', set(SIGN_IN_COOKIE, token, 3600));
    const next = safeNext(request.query.next);
    const name = request.query.instance;
    const sso = name && INSTANCE_NAME.test(name) ? { instance: name, displayName: (await ssoButton(db, name))?.displayName } : undefined;
    return page(reply, signInPage({ csrf: token, next, sso, status: request.query.signedOut === '1' ? 'You are signed out.' : undefined }));
  });

  scope.post<{ Body: { email?: unknown; password?: unknown; _csrf?: unknown; next?: unknown } }>('/console/sign-in', async (request, reply) => {
    if (csrfRefusal(request, readCookie(request, SIGN_IN_COOKIE), deps.publicOrigin) !== undefined)
      throw forbidden('The sign-in form is out of date or came from another site: reload the page and try again');
    const email = typeof request.body?.email === 'string' ? request.body.email.trim().slice(0, 254) : '';
    const password = typeof request.body?.password === 'string' ? request.body.password.slice(0, 1024) : '';
    const next = safeNext(typeof request.body?.next === 'string' ? request.body.next : undefined);
    const again = (error: string, status: number) => {
      const token = randomBytes(24).toString('base64url');
      reply.header('set-cookie', set(SIGN_IN_COOKIE, token, 3600));
      return page(reply, signInPage({ csrf: token, email, error, next }), status);
    };
    const client = { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
    const wait = await deps.signInLimit(request, email);
    if (wait !== undefined) {
      reply.header('retry-after', String(Math.max(1, wait)));
      request.log.warn({ ip: request.ip }, 'too many console sign-in attempts');
      await runCommand(db, commandRequest(request, now()), (ctx) => recordLockedOut(ctx, { email, client }), 'user_sign_in');
      return again(`Too many sign-in attempts. Wait ${Math.max(1, Math.ceil(wait / 60))} minute${wait > 60 ? 's' : ''} and try again.`, 429);
    }
    const signedIn = await runCommand(db, commandRequest(request, now()), (ctx) => signInWithPassword(ctx, times, { email, password, client }), 'user_sign_in');
    if (!signedIn.ok) {
      // One answer for an unknown e-mail, a wrong password and a disabled account.
      return again('The e-mail or password is not right, or the account is disabled.', 401);
    }
    reply.header('set-cookie', [set(SESSION_COOKIE, signedIn.session.value, Math.floor(times.absoluteMs / 1000)), set(SIGN_IN_COOKIE, '', 0)]);
    // With a second factor, the code comes next (then the page asked for).
    if (signedIn.secondFactor) return reply.redirect(next ? `/console/two-factor?next=${encodeURIComponent(next)}` : '/console/two-factor', 303);
    return reply.redirect(next ?? '/console/', 303);
  });

  scope.post('/console/sign-out', async (request, reply) => {
    const user = request.consoleUser!;
    await runCommand(db, commandRequest(request, now()), (ctx) => signOut(ctx, { userId: user.user.id, sessionHash: user.sessionHash }), 'user_sign_out');
    reply.header('set-cookie', set(SESSION_COOKIE, '', 0));
    return reply.redirect('/console/sign-in?signedOut=1', 303);
  });
}
