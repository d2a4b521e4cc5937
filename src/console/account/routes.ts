// The console's routes of a user's own account: the account page, changing the password (forced
// at first sign-in after the operator handed one out), the second factor (the code after the
// password, setting it up, turning it off), and the gate that keeps a session on the step it
// must take first. They translate forms to the users module's commands and back.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, forbidden } from '../../domain/errors.js';
import type { SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import { changeOwnPassword } from '../../modules/users/accounts.js';
import type { SessionTimes, SignedIn } from '../../modules/users/repository.js';
import { confirmEnrolment, disableTwoFactor, giveSecondFactor, startEnrolment } from '../../modules/users/two-factor.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { trustedHtml } from '../../html/html.js';
import { accountBody, codeForm, enrolBody, passwordForm, recoveryCodesBody, stepPage, type FieldError } from './views.js';

export interface AccountHelpers {
  db: Database;
  now: () => Date;
  times: SessionTimes;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  consolePage(request: FastifyRequest, title: string, body: SafeHtml): SafeHtml;
  /** Counts a sign-in attempt (the code after the password is one); past the limit, the seconds to wait. */
  signInLimit(request: FastifyRequest, email: string): Promise<number | undefined>;
  /** A console path to go back to after signing in, or undefined. */
  safeNext(next: string | undefined): string | undefined;
}

/** The signed-in user and the instances they see (an owner every instance). */
type Principal = SignedIn & { visible: Pick<Instance, 'requireTwoFactor'>[] };

/** Whether an instance the user sees requires a second factor. */
const requiresTwoFactor = (user: Principal) => user.visible.some((i) => i.requireTwoFactor);

const TWO_FACTOR_STEP = '/console/two-factor';
const PASSWORD_STEP = '/console/account/password';
const ENROL_STEP = '/console/account/two-factor';

/** Where a session must go before anything else, given the route it asks for; undefined: anywhere. */
export function stepOf(user: Principal, route: string): string | undefined {
  if (route === '/console/sign-out') return undefined;
  // A session opened by single sign-on skips the password and second-factor steps: the identity
  // provider checked the user's factors, and the service's password was not used.
  const step = user.viaSso
    ? undefined
    : user.secondFactorPending
      ? TWO_FACTOR_STEP
      : user.user.mustChangePassword
        ? PASSWORD_STEP
        : !user.user.twoFactor && requiresTwoFactor(user)
          ? ENROL_STEP
          : undefined;
  return step === route ? undefined : step;
}

const STEP_MESSAGES: Record<string, string> = {
  [TWO_FACTOR_STEP]: 'Enter your code first',
  [PASSWORD_STEP]: 'Choose your own password first',
  [ENROL_STEP]: 'Set up two-factor authentication first: your instance requires it',
};

/** Sends a session that has a step to take to it: GET by redirect, a change with a 403. */
export function enforceStep(request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const step = stepOf(request.consoleUser!, request.routeOptions.url ?? '');
  if (!step) return undefined;
  if (request.method === 'GET' || request.method === 'HEAD') return reply.redirect(step, 303);
  throw forbidden(STEP_MESSAGES[step]!);
}

const fieldsOf = (error: unknown): FieldError[] | undefined =>
  error instanceof DomainError && error.code === 'invalid' ? (error.fields?.map((f) => ({ name: f.name, detail: f.detail })) ?? []) : undefined;

const text = (value: unknown, max = 1024) => (typeof value === 'string' ? value.slice(0, max) : '');

export function accountRoutes(scope: FastifyInstance, helpers: AccountHelpers): void {
  const { db, now, page } = helpers;

  scope.get<{ Querystring: { changed?: string } }>('/console/account', async (request, reply) => {
    const user = request.consoleUser!;
    const notice = NOTICES[request.query.changed ?? ''];
    return page(reply, helpers.consolePage(request, 'Your account', accountBody(user.user, user.csrfToken, { notice, twoFactorRequired: requiresTwoFactor(user) })));
  });

  const passwordPage = (request: FastifyRequest, reply: FastifyReply, errors?: FieldError[], status = 200) => {
    const user = request.consoleUser!;
    const forced = user.user.mustChangePassword;
    const body = passwordForm(user.csrfToken, { forced, errors });
    return page(reply, forced ? stepPage('Choose your password', user.csrfToken, body) : helpers.consolePage(request, 'Change your password', body), status);
  };

  scope.get('/console/account/password', async (request, reply) => passwordPage(request, reply));

  /**
   * A form that checks the current password (changing it, turning the second factor off) counts
   * against the sign-in limit of the account and the address: each check is a password guess and
   * costs a scrypt. Past the limit: the form again with a 429 and Retry-After, and true (the reply
   * is sent: a FastifyReply is thenable, so it is not what this resolves to); nothing is checked.
   */
  async function passwordGuessRefused(request: FastifyRequest, reply: FastifyReply, again: (errors: FieldError[], status: number) => FastifyReply): Promise<boolean> {
    const wait = await helpers.signInLimit(request, request.consoleUser!.user.email);
    if (wait === undefined) return false;
    reply.header('retry-after', String(Math.max(1, wait)));
    request.log.warn({ ip: request.ip }, 'too many current-password checks');
    const minutes = Math.max(1, Math.ceil(wait / 60));
    again([{ name: 'password', detail: `too many attempts: wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again` }], 429);
    return true;
  }

  scope.post<{ Body: Record<string, unknown> }>('/console/account/password', async (request, reply) => {
    const user = request.consoleUser!;
    const body = request.body ?? {};
    const forced = user.user.mustChangePassword;
    if (await passwordGuessRefused(request, reply, (errors, status) => passwordPage(request, reply, errors, status))) return reply;
    try {
      await runCommand(
        db,
        commandRequest(request, now()),
        (ctx) => changeOwnPassword(ctx, { userId: user.user.id, keep: user.sessionHash, current: text(body.current), password: text(body.password), confirm: text(body.confirm) }),
        'user_password_change',
      );
    } catch (error) {
      const errors = fieldsOf(error);
      if (!errors) throw error;
      return passwordPage(request, reply, errors, 400);
    }
    return reply.redirect(forced ? '/console/' : '/console/account?changed=password', 303);
  });

  // ---- the code after the password -------------------------------------------------------------

  scope.get<{ Querystring: { next?: string } }>(TWO_FACTOR_STEP, async (request, reply) => {
    const user = request.consoleUser!;
    if (!user.secondFactorPending) return reply.redirect('/console/', 303);
    return page(reply, stepPage('Enter your code', user.csrfToken, codeForm(user.csrfToken, { next: helpers.safeNext(request.query.next) })));
  });

  scope.post<{ Body: Record<string, unknown> }>(TWO_FACTOR_STEP, async (request, reply) => {
    const user = request.consoleUser!;
    if (!user.secondFactorPending) return reply.redirect('/console/', 303);
    const next = helpers.safeNext(text(request.body?.next, 2000) || undefined);
    const again = (error: string, status: number) => page(reply, stepPage('Enter your code', user.csrfToken, codeForm(user.csrfToken, { error, next })), status);
    // The code counts against the same limit as the password: guessing codes is guessing passwords.
    const wait = await helpers.signInLimit(request, user.user.email);
    if (wait !== undefined) {
      reply.header('retry-after', String(Math.max(1, wait)));
      return again(`Too many sign-in attempts. Wait ${Math.max(1, Math.ceil(wait / 60))} minute${wait > 60 ? 's' : ''} and try again.`, 429);
    }
    const result = await runCommand(
      db,
      commandRequest(request, now()),
      (ctx) => giveSecondFactor(ctx, helpers.times, { userId: user.user.id, email: user.user.email, sessionHash: user.sessionHash, code: text(request.body?.code, 64) }),
      'user_second_factor',
    );
    if (!result.ok) return again('That code is not right. Enter the code your app shows now, or a recovery code.', 401);
    if (result.recoveryCodesLeft !== undefined) return reply.redirect(`/console/account?changed=recovery-${Math.min(result.recoveryCodesLeft, 10)}`, 303);
    return reply.redirect(next ?? '/console/', 303);
  });

  // ---- setting up and turning off --------------------------------------------------------------

  const enrolPage = async (request: FastifyRequest, reply: FastifyReply, errors?: FieldError[], status = 200) => {
    const user = request.consoleUser!;
    const enrolment = await runCommand(db, commandRequest(request, now()), (ctx) => startEnrolment(ctx, { userId: user.user.id }), 'user_2fa_start');
    const required = requiresTwoFactor(user);
    // The QR code is SVG made by the qrcode library from the otpauth URI: shapes only, no text of ours.
    const body = enrolBody(user.csrfToken, { secret: enrolment.secret, qrSvg: trustedHtml(enrolment.svg), required, errors });
    return page(
      reply,
      required ? stepPage('Set up two-factor authentication', user.csrfToken, body) : helpers.consolePage(request, 'Set up two-factor authentication', body),
      status,
    );
  };

  scope.get(ENROL_STEP, async (request, reply) => {
    if (request.consoleUser!.user.twoFactor) return reply.redirect('/console/account', 303);
    return enrolPage(request, reply);
  });

  scope.post<{ Body: Record<string, unknown> }>(ENROL_STEP, async (request, reply) => {
    const user = request.consoleUser!;
    let codes: string[];
    try {
      codes = (await runCommand(db, commandRequest(request, now()), (ctx) => confirmEnrolment(ctx, { userId: user.user.id, code: text(request.body?.code, 64) }), 'user_2fa_enrol'))
        .recoveryCodes;
    } catch (error) {
      const errors = fieldsOf(error);
      if (!errors) throw error;
      return enrolPage(request, reply, errors, 400);
    }
    const body = recoveryCodesBody(codes);
    return page(
      reply,
      requiresTwoFactor(user) ? stepPage('Two-factor authentication is on', user.csrfToken, body) : helpers.consolePage(request, 'Two-factor authentication is on', body),
    );
  });

  scope.post<{ Body: Record<string, unknown> }>(`${ENROL_STEP}/disable`, async (request, reply) => {
    const user = request.consoleUser!;
    const accountPage = (errors: FieldError[], status: number) =>
      page(reply, helpers.consolePage(request, 'Your account', accountBody(user.user, user.csrfToken, { twoFactorRequired: requiresTwoFactor(user), errors })), status);
    if (await passwordGuessRefused(request, reply, accountPage)) return reply;
    try {
      await runCommand(db, commandRequest(request, now()), (ctx) => disableTwoFactor(ctx, { userId: user.user.id, password: text(request.body?.password) }), 'user_2fa_disable');
    } catch (error) {
      const errors = fieldsOf(error);
      if (!errors) throw error;
      return accountPage(errors, 400);
    }
    return reply.redirect('/console/account?changed=two-factor-off', 303);
  });
}

const NOTICES: Record<string, string> = {
  password: 'Your password is changed. Your other sessions have ended.',
  'two-factor-off': 'Two-factor authentication is off.',
  ...Object.fromEntries(
    Array.from({ length: 11 }, (_, n) => [
      `recovery-${n}`,
      `You signed in with a recovery code; ${n} unused code${n === 1 ? '' : 's'} left. Set up your authenticator app again if you lost it.`,
    ]),
  ),
};
