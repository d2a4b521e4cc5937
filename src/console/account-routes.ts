// The console's routes of a user's own account: the account page, changing the password (forced
// at first sign-in after the operator handed one out), and the gate that keeps a session on the
// step it must take first. They translate forms to the users module's commands and back.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { runCommand } from '../domain/command.js';
import { DomainError, forbidden } from '../domain/errors.js';
import type { SafeHtml } from '../html/html.js';
import { commandRequest } from '../http/command.js';
import { changeOwnPassword } from '../modules/users/accounts.js';
import type { SignedIn } from '../modules/users/repository.js';
import { accountBody, passwordForm, stepPage, type FieldError } from './account-pages.js';

export interface AccountHelpers {
  db: Database;
  now: () => Date;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  consolePage(request: FastifyRequest, title: string, body: SafeHtml): SafeHtml;
}

/** Where a session must go before anything else, given the route it asks for; undefined: anywhere. */
export function stepOf(signedIn: SignedIn, route: string): string | undefined {
  const allowed = (...paths: string[]) => paths.includes(route) || route === '/console/sign-out';
  if (signedIn.secondFactorPending) return allowed('/console/two-factor') ? undefined : '/console/two-factor';
  if (signedIn.user.mustChangePassword) return allowed('/console/account/password') ? undefined : '/console/account/password';
  return undefined;
}

/** Sends a session that has a step to take to it: GET by redirect, a change with a 403. */
export function enforceStep(request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn): FastifyReply | undefined {
  const route = request.routeOptions.url ?? '';
  const step = stepOf(signedIn, route);
  if (!step) return undefined;
  if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect(step, 303);
  throw forbidden(step === '/console/two-factor' ? 'Enter your code first' : 'Choose your own password first');
}

const text = (value: unknown, max = 1024) => (typeof value === 'string' ? value.slice(0, max) : '');

export function accountRoutes(scope: FastifyInstance, helpers: AccountHelpers): void {
  const { db, now, page } = helpers;

  scope.get<{ Querystring: { changed?: string } }>('/console/account', async (request, reply) => {
    const user = request.consoleUser!;
    const notice = request.query.changed === 'password' ? 'Your password is changed. Your other sessions have ended.' : undefined;
    return page(reply, helpers.consolePage(request, 'Your account', accountBody(user.user, user.csrfToken, { notice, twoFactorRequired: false })));
  });

  const passwordPage = (request: FastifyRequest, reply: FastifyReply, errors?: FieldError[], status = 200) => {
    const user = request.consoleUser!;
    const forced = user.user.mustChangePassword;
    const body = passwordForm(user.csrfToken, { forced, errors });
    return page(reply, forced ? stepPage('Choose your password', user.csrfToken, body) : helpers.consolePage(request, 'Change your password', body), status);
  };

  scope.get('/console/account/password', async (request, reply) => passwordPage(request, reply));

  scope.post<{ Body: Record<string, unknown> }>('/console/account/password', async (request, reply) => {
    const user = request.consoleUser!;
    const body = request.body ?? {};
    const forced = user.user.mustChangePassword;
    try {
      await runCommand(
        db,
        commandRequest(request, now()),
        (ctx) => changeOwnPassword(ctx, { userId: user.user.id, keep: user.sessionHash, current: text(body.current), password: text(body.password), confirm: text(body.confirm) }),
        'user_password_change',
      );
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
      return passwordPage(request, reply, error.fields?.map((f) => ({ name: f.name, detail: f.detail })) ?? [], 400);
    }
    return reply.redirect(forced ? '/console/' : '/console/account?changed=password', 303);
  });
}
