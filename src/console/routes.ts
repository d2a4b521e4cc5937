// The console at /console/: where owners, managers and reviewers read results, score free-text
// answers, manage API keys and read the audit log. Server-rendered pages over the same module
// functions as the API; every page and action checks the signed-in user's role on the server.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formBody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database, Queryable } from '../db/database.js';
import { DomainError, forbidden, invalidInput, notFound } from '../domain/errors.js';
import { fieldErrors, problemFor } from '../http/errors.js';
import type { Static } from 'typebox';
import { BIDI_CONTROL, validatorCompiler } from '../http/validation.js';
import { feedbackSummaries } from '../modules/attempts/feedback.js';
import { layoutNotes } from '../modules/attempts/layout.js';
import { practiceOf } from '../modules/assessments/content-schema.js';
import { publishAssessment } from '../modules/assessments/commands.js';
import { assessmentUuid, currentContent } from '../modules/assessments/repository.js';
import { listDeliveries } from '../modules/invitations/deliveries.js';
import { InviteBody, normaliseAssessments } from '../modules/invitations/routes.js';
import { retakeInvitation, sendFreshLink } from '../modules/invitations/lifecycle.js';
import { runCommand } from '../domain/command.js';
import { commandRequest } from '../http/command.js';
import { invite, resend, type InviteDeps } from '../modules/invitations/service.js';
import { scoreDistribution } from '../modules/scores/insights.js';
import { ROLES, listUsers, type Role } from '../modules/users/repository.js';
import { EVENT_TYPES, listAttempts, listEndpoints } from '../modules/webhooks/repository.js';
import { changeEndpoint, registerEndpoint, replayToEndpoint, rotateEndpointSecret } from '../modules/webhooks/commands.js';
import { addUser, resetPassword, setUserDisabled } from '../modules/users/service.js';
import { questionField } from '../portal/pages.js';
import { PORTAL_HEADERS } from '../portal/routes.js';
import type { SafeHtml } from '../html/html.js';
import { integrationsRoutes } from './integrations.js';
import { bulkInviteRoutes } from './bulk-invite.js';
import { assessmentReports, attemptOwner } from '../modules/attempts/report.js';
import { userLeads } from '../modules/reviews/repository.js';
import { registerReviewRoutes, reviewSettingsPanel, waitingReviews } from './reviews.js';
import { dismissSignalsNow } from '../modules/attempts/signals.js';
import { recordAudit, searchAudit } from '../modules/audit/audit.js';
import { listAssessments } from '../modules/assessments/repository.js';
import { findCandidate, searchCandidates, type CandidateListItem } from '../modules/candidates/repository.js';
import { marksOf, marksOfMany, tagsInUse } from '../modules/decisions/repository.js';
import { registerCompareRoutes } from './compare.js';
import { registerSearchRoutes, savedSearchesPanel } from './searches.js';
import { savedSearches } from '../modules/users/saved-searches.js';
import { candidatesCsv, marksPanel, registerDecisionRoutes } from './decisions.js';
import { failedDeliveries } from '../modules/invitations/insights.js';
import { changeKey, createKey, managedKey, revokeKey } from '../modules/keys/commands.js';
import { listKeys } from '../modules/keys/repository.js';
import { secretsEqual } from '../modules/keys/secret.js';
import type { KeyVerifier } from '../modules/keys/verifier.js';
import type { Counter } from '../modules/limits/counter.js';
import { funnel } from '../modules/scores/insights.js';
import { Settings } from '../modules/tenants/admin-routes.js';
import { brandOf } from '../modules/tenants/branding.js';
import { changeTenantSettings, removeTenantLogo, setTenantLogo } from '../modules/tenants/commands.js';
import { INSTANCE_NAME_PATTERN, listInstances, type Instance, type InstanceSettings } from '../modules/tenants/repository.js';
import { normaliseIdentifier } from '../modules/users/identifier.js';
import { findSession, type SessionTimes, type SignedIn } from '../modules/users/repository.js';
import { recordLockedOut, signInWithPassword, signOut } from '../modules/users/accounts.js';
import { accountRoutes, enforceStep } from './account-routes.js';
import { ssoRoutes } from './sso.js';
import { ssoButton, type SsoOptions } from '../modules/users/sso.js';
import {
  assessmentsBody,
  invitationsBody,
  previewBody,
  usersBody,
  webhooksBody,
  type AssessmentView,
  type ImportState,
  type InvitationsState,
  auditBody,
  bareMessagePage,
  candidatesBody,
  consolePage,
  keysBody,
  messageBody,
  overviewBody,
  reportBody,
  settingsBody,
  signInPage,
  type Frame,
} from './pages.js';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
const SESSION_COOKIE = 'ac_console';
const SIGN_IN_COOKIE = 'ac_console_signin';
const PAGE_SIZE = 50;
/** The CSV export of the candidates list reads in pages of this many, up to CSV_MAX_CANDIDATES. */
const CSV_PAGE = 500;
const CSV_MAX_CANDIDATES = 10_000;
// Sign-in attempts are counted before the password is checked, per client address and per account,
// in windows of 15 minutes; past either limit every attempt gets the same answer, right or wrong.
const SIGN_IN_WINDOW_MS = 15 * 60_000;
const SIGN_IN_PER_ADDRESS = 100;
const SIGN_IN_PER_ACCOUNT = 10;

// Control characters refused in query parameters (all of C0 and DEL) and in form fields (the same
// but tab, line feed and carriage return, which a textarea sends).
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const INSTANCE_NAME = new RegExp(INSTANCE_NAME_PATTERN);
// A refused import's document is put back in the form up to this size (a larger one would make the
// error page as large as the upload).
const ECHO_SOURCE_CHARACTERS = 64 * 1024;

// The same strict page headers as the portal's (no inline script or style, no framing, no caching).
export const CONSOLE_HEADERS = PORTAL_HEADERS;

export interface ConsoleDeps {
  db: Database;
  /** What inviting and resending e-mail need, as for POST /v1/invite. */
  invite: InviteDeps;
  publicUrl: string;
  counter: Counter;
  verifier: KeyVerifier;
  /** The app's clock: session timeouts, the overview's periods, every command's time; tests move it. */
  now: () => Date;
  sessions?: Partial<SessionTimes>;
  /**
   * The most requests per minute a manager may give a key (RATE_LIMIT_PER_MINUTE, the operator's
   * default budget): more is for the operator (admin API, CLI) or an owner to grant. Default 600.
   */
  rateCeiling?: number;
  /** How single sign-on reaches identity providers (the callback's base, plain http or not). */
  sso?: SsoOptions;
}

type Permission = 'read' | 'review' | 'manage';

interface Principal extends SignedIn {
  visible: Instance[];
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleUser: Principal | null;
  }
}

/** The instances a user may act on with a permission: owners all; managers theirs; reviewers theirs, but never to manage. */
export function instancesFor(user: SignedIn['user'], all: Instance[], permission: Permission): Instance[] {
  if (user.role === 'owner') return all;
  if (permission === 'manage' && user.role !== 'manager') return [];
  return all.filter((i) => user.instances.includes(i.name));
}

export async function consoleRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  const { db } = deps;
  const now = deps.now;
  const times: SessionTimes = { idleMs: deps.sessions?.idleMs ?? 30 * 60_000, absoluteMs: deps.sessions?.absoluteMs ?? 12 * 3600_000 };
  const secure = deps.publicUrl.startsWith('https://');
  const publicOrigin = new URL(deps.publicUrl).origin;
  app.decorateRequest('consoleUser', null);

  await app.register(async (scope) => {
    // Assessment documents are posted as form fields: the same 1 MB as the admin API's import.
    await scope.register(formBody, { bodyLimit: 1024 * 1024 });
    // The logo upload (a file input): its bytes and declared type, checked like the admin API's.
    // 1 MB is read, so that a logo over its 200 KB limit is told its size rather than cut off.
    await scope.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { fileSize: 1024 * 1024, files: 1, fields: 10 },
      async onFile(part) {
        (part as unknown as { value: unknown }).value = { type: part.mimetype, filename: part.filename, bytes: await part.toBuffer() };
      },
    });
    scope.addHook('onSend', async (_request, reply) => {
      for (const [name, value] of Object.entries(CONSOLE_HEADERS)) if (name !== 'cache-control' || !reply.hasHeader(name)) reply.header(name, value);
    });

    const page = (reply: FastifyReply, body: SafeHtml, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body.toString());
    const cookie = (name: string, value: string, maxAgeSeconds: number) =>
      `${name}=${value}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;

    scope.setErrorHandler((error, request, reply) => {
      const problem = problemFor(error, request);
      if (problem.headers) reply.headers(problem.headers);
      const ours = error instanceof DomainError || problem.status === 429 || problem.status === 403;
      const [title, message] =
        problem.status === 503
          ? ['Briefly unavailable', 'The database cannot be reached right now. Try again in a few seconds.']
          : problem.status >= 500
            ? ['Something went wrong', `Reload the page. If it happens again, quote this reference: ${request.id}`]
            : [
                problem.status === 404 ? 'Not found' : problem.status === 403 ? 'Not allowed' : 'That did not work',
                ours ? problem.detail : 'The request was not valid. Go back and try again.',
              ];
      const user = request.consoleUser;
      if (!user) return page(reply, bareMessagePage(title, message), problem.status);
      return page(reply, consolePage(frameOf(request, 'overview', undefined), title, messageBody(title, message)), problem.status);
    });

    // Every query parameter is given once, as text; no text field carries a control character
    // (NUL, which PostgreSQL refuses in text, and the rest of C0 but tab and line breaks). Else a
    // 400 page, before any route looks at them (a repeated ?q= or ?q=%00 was a 500).
    scope.addHook('preValidation', async (request) => {
      const errors: { name: string; in: 'query' | 'body'; detail: string }[] = [];
      for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
        // The candidates chosen to compare come from checkboxes: ids=…&ids=…
        const repeatable = name === 'ids' && request.routeOptions.url === '/console/compare' && Array.isArray(value) && value.length <= 50;
        const texts = repeatable ? (value as unknown[]) : [value];
        if (texts.some((text) => typeof text !== 'string')) errors.push({ name: name.slice(0, 64), in: 'query', detail: 'must be given once' });
        else if (texts.some((text) => CONTROL.test(text as string))) errors.push({ name: name.slice(0, 64), in: 'query', detail: 'must not contain control characters' });
      }
      const body = request.body;
      if (body && typeof body === 'object' && !Buffer.isBuffer(body)) {
        for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
          const texts = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
          if (texts.some((t) => CONTROL_IN_TEXT.test(t))) errors.push({ name: name.slice(0, 64), in: 'body', detail: 'must not contain control characters' });
        }
      }
      if (errors.length > 0) throw invalidInput(errors);
    });

    function readCookie(request: FastifyRequest, name: string): string | undefined {
      for (const part of (request.headers.cookie ?? '').split(';')) {
        const [key, ...rest] = part.trim().split('=');
        if (key === name) return rest.join('=');
      }
      return undefined;
    }

    /** A state-changing request must come from this site's own pages. */
    function sameOrigin(request: FastifyRequest): boolean {
      const site = request.headers['sec-fetch-site'];
      if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return false;
      const origin = request.headers.origin;
      const host = request.headers.host;
      return !origin || origin === publicOrigin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
    }

    const frameOf = (request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame => {
      const user = request.consoleUser!;
      return {
        user: user.user,
        csrf: user.csrfToken,
        instances: user.visible.map((i) => i.name),
        // The company each instance is shown to candidates as (brandOf), beside its name.
        companies: Object.fromEntries(user.visible.map((i) => [i.name, brandOf(i).company])),
        instance: instance?.name,
        section,
        canManage: instancesFor(user.user, user.visible, 'manage').length > 0,
      };
    };

    // ---- signing in and out ------------------------------------------------------------------

    /**
     * Counts an attempt to sign in (a password, or the code after it) per client address and per
     * account; past either limit, the seconds to wait.
     */
    const signInLimit = async (request: FastifyRequest, email: string): Promise<number | undefined> => {
      const byAddress = await deps.counter.hit(`console-sign-in:address:${request.ip}`, SIGN_IN_WINDOW_MS);
      // Keyed by the same normal form as the account (NFKC, case-folded): no spelling of one address has attempts of its own.
      const byAccount = await deps.counter.hit(`console-sign-in:account:${normaliseIdentifier(email)}`, SIGN_IN_WINDOW_MS);
      if (byAddress.count <= SIGN_IN_PER_ADDRESS && byAccount.count <= SIGN_IN_PER_ACCOUNT) return undefined;
      return Math.ceil(Math.max(byAddress.count > SIGN_IN_PER_ADDRESS ? byAddress.resetMs : 0, byAccount.count > SIGN_IN_PER_ACCOUNT ? byAccount.resetMs : 0) / 1000);
    };

    scope.get('/console', async (_request, reply) => reply.redirect('/console/', 301));

    // ?instance=<name> shows that instance's "Sign in with …" button when it has single sign-on.
    scope.get<{ Querystring: { next?: string; signedOut?: string; instance?: string } }>('/console/sign-in', async (request, reply) => {
      const token = randomBytes(24).toString('base64url');
      reply.header('set-cookie', cookie(SIGN_IN_COOKIE, token, 3600));
      const next = safeNext(request.query.next);
      const name = request.query.instance;
      const sso = name && INSTANCE_NAME.test(name) ? { instance: name, displayName: (await ssoButton(db, name))?.displayName } : undefined;
      return page(reply, signInPage({ csrf: token, next, sso, status: request.query.signedOut === '1' ? 'You are signed out.' : undefined }));
    });

    scope.post<{ Body: { email?: unknown; password?: unknown; _csrf?: unknown; next?: unknown } }>('/console/sign-in', async (request, reply) => {
      const given = typeof request.body?._csrf === 'string' ? request.body._csrf : '';
      const expected = readCookie(request, SIGN_IN_COOKIE) ?? '';
      if (!sameOrigin(request) || !expected || !secretsEqual(given, expected))
        throw forbidden('The sign-in form is out of date or came from another site: reload the page and try again');
      const email = typeof request.body?.email === 'string' ? request.body.email.trim().slice(0, 254) : '';
      const password = typeof request.body?.password === 'string' ? request.body.password.slice(0, 1024) : '';
      const next = safeNext(typeof request.body?.next === 'string' ? request.body.next : undefined);
      const again = (error: string, status: number) => {
        const token = randomBytes(24).toString('base64url');
        reply.header('set-cookie', cookie(SIGN_IN_COOKIE, token, 3600));
        return page(reply, signInPage({ csrf: token, email, error, next }), status);
      };
      const wait = await signInLimit(request, email);
      if (wait !== undefined) {
        reply.header('retry-after', String(Math.max(1, wait)));
        request.log.warn({ ip: request.ip }, 'too many console sign-in attempts');
        const client = { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
        await runCommand(db, commandRequest(request, now()), (ctx) => recordLockedOut(ctx, { email, client }), 'user_sign_in');
        return again(`Too many sign-in attempts. Wait ${Math.max(1, Math.ceil(wait / 60))} minute${wait > 60 ? 's' : ''} and try again.`, 429);
      }
      const client = { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
      const signedIn = await runCommand(db, commandRequest(request, now()), (ctx) => signInWithPassword(ctx, times, { email, password, client }), 'user_sign_in');
      if (!signedIn.ok) {
        // One answer for an unknown e-mail, a wrong password and a disabled account.
        return again('The e-mail or password is not right, or the account is disabled.', 401);
      }
      reply.header('set-cookie', [cookie(SESSION_COOKIE, signedIn.session.value, Math.floor(times.absoluteMs / 1000)), cookie(SIGN_IN_COOKIE, '', 0)]);
      // With a second factor, the code comes next (then the page asked for).
      if (signedIn.secondFactor) return reply.redirect(next ? `/console/two-factor?next=${encodeURIComponent(next)}` : '/console/two-factor', 303);
      return reply.redirect(next ?? '/console/', 303);
    });

    // Every other console route needs a signed-in user.
    scope.addHook('preHandler', async (request, reply) => {
      const route = request.routeOptions.url ?? '';
      if (route === '/console' || route.startsWith('/console/sign-in') || route.startsWith('/console/sso') || route.startsWith('/console/assets/')) return;
      const value = readCookie(request, SESSION_COOKIE);
      const signedIn = value ? await findSession(db, value, now(), times) : undefined;
      if (!signedIn) {
        if (request.method === 'GET') return reply.redirect(`/console/sign-in?next=${encodeURIComponent(request.url)}`, 303);
        return page(reply, bareMessagePage('Signed out', 'Your session has ended. Sign in again.'), 401);
      }
      request.consoleUser = { ...signedIn, visible: instancesFor(signedIn.user, await listInstances(db), 'read') };
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        const given = (request.body as { _csrf?: unknown } | undefined)?._csrf;
        if (!sameOrigin(request) || typeof given !== 'string' || !secretsEqual(given, signedIn.csrfToken)) {
          throw forbidden('The form is out of date or came from another site: reload the page and try again');
        }
      }
      // A code to give, a password to change or a second factor to set up comes before anything else (account-routes.ts).
      return enforceStep(request, reply);
    });

    ssoRoutes(scope, {
      db,
      now,
      times,
      sso: deps.sso ?? { publicUrl: deps.publicUrl, allowInsecureHttp: false },
      secure,
      sessionCookie: SESSION_COOKIE,
      startLimit: async (request) => {
        const byAddress = await deps.counter.hit(`console-sso:address:${request.ip}`, SIGN_IN_WINDOW_MS);
        return byAddress.count <= SIGN_IN_PER_ADDRESS ? undefined : Math.ceil(byAddress.resetMs / 1000);
      },
      page,
      cookie,
      readCookie,
      safeNext,
      consolePage,
      frameOf,
      instanceOf: (request, name, permission) => instanceOf(request, name, permission),
    });

    accountRoutes(scope, {
      db,
      now,
      times,
      page,
      signInLimit,
      safeNext,
      consolePage: (request, title, body) => consolePage(frameOf(request, 'account', undefined), title, body),
    });

    scope.post('/console/sign-out', async (request, reply) => {
      const user = request.consoleUser!;
      await runCommand(db, commandRequest(request, now()), (ctx) => signOut(ctx, { userId: user.user.id, sessionHash: user.sessionHash }), 'user_sign_out');
      reply.header('set-cookie', cookie(SESSION_COOKIE, '', 0));
      return reply.redirect('/console/sign-in?signedOut=1', 303);
    });

    /** The instance of a request (?instance= or the first the user may see), checked for the permission. */
    function instanceOf(request: FastifyRequest, name: unknown, permission: Permission): Instance {
      const user = request.consoleUser!;
      const allowed = instancesFor(user.user, user.visible, permission);
      if (typeof name === 'string' && name !== '') {
        const found = allowed.find((i) => i.name === name);
        // Only a well-formed name is repeated back (it is then plain [a-z0-9-]); anything else is not.
        if (!found)
          throw forbidden(
            user.visible.some((i) => i.name === name)
              ? `Your role may not do this in ${name}`
              : INSTANCE_NAME.test(name)
                ? `You have no access to an instance named ${name}`
                : 'You have no access to an instance by that name',
          );
        return found;
      }
      const first = allowed[0];
      if (!first) throw forbidden(permission === 'manage' ? 'Your role may not manage any instance' : 'No instance is granted to your account yet: ask an owner');
      return first;
    }

    const audit = (request: FastifyRequest, tx: Queryable, action: string, target: string | null, status = 303) =>
      recordAudit(tx, {
        actor: `user:${request.consoleUser!.user.email.toLowerCase()}`,
        clientIp: request.ip,
        userAgent: String(request.headers['user-agent'] ?? ''),
        action,
        target,
        requestId: request.id,
        status,
      });

    // ---- overview ----------------------------------------------------------------------------

    scope.get<{ Querystring: { instance?: string } }>('/console/', async (request, reply) => {
      const instance = instanceOf(request, request.query.instance, 'read');
      const periods = [];
      for (const days of [30, 90]) {
        const since = new Date(now().getTime() - days * 86_400_000);
        periods.push({ days, funnel: await funnel(db, instance.id, since), failedMail: await failedDeliveries(db, instance.id, since) });
      }
      const waiting = await waitingReviews(db, instance);
      const endpoints = await listEndpoints(db, instance.id);
      const hooks = { disabled: endpoints.filter((e) => e.disabled).length, failing: endpoints.filter((e) => !e.disabled && e.failingSince).length };
      return page(reply, consolePage(frameOf(request, 'overview', instance), `Overview of ${instance.name}`, overviewBody(instance.name, periods, waiting, hooks)));
    });

    // ---- candidates --------------------------------------------------------------------------

    /** The list's filters from its query, checked: a search of the candidates module. */
    async function candidateSearch(q: Record<string, string | undefined>, instance: Instance, limit: number) {
      const assessments = await listAssessments(db, [instance.id]);
      const assessment = q.assessment ? assessments.find((a) => a.id === q.assessment) : undefined;
      if (q.assessment && !assessment) throw invalidInput([{ name: 'assessment', in: 'query', detail: 'is not an assessment of this instance' }]);
      const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
        if (value === undefined || value === '') return undefined;
        if (!allowed.includes(value as T)) throw invalidInput([{ name, in: 'query', detail: `must be one of ${allowed.join(', ')}` }]);
        return value as T;
      };
      const flag = oneOf('flag', q.flag, ['yes', 'no'] as const);
      const days = oneOf('days', q.days, ['7', '30', '90'] as const);
      if (q.after !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(q.after))
        throw invalidInput([{ name: 'after', in: 'query', detail: 'is not a candidate id' }]);
      if (q.q !== undefined && q.q.length > 100) throw invalidInput([{ name: 'q', in: 'query', detail: 'is longer than 100 characters' }]);
      if (q.tag !== undefined && q.tag.length > 32) throw invalidInput([{ name: 'tag', in: 'query', detail: 'is longer than 32 characters' }]);
      const search = {
        instanceId: instance.id,
        query: q.q,
        assessmentId: assessment?.id,
        assessmentStatus: oneOf('status', q.status, ['INVITED', 'IN_PROGRESS', 'COMPLETED'] as const),
        scoreStatus: oneOf('score', q.score, ['PENDING', 'LOW_PASS', 'PASS', 'FAIL'] as const),
        redFlag: flag === undefined ? undefined : flag === 'yes',
        invitedSince: days ? new Date(now().getTime() - Number(days) * 86_400_000) : undefined,
        decision: oneOf('decision', q.decision, ['advance', 'hold', 'reject', 'none'] as const),
        tag: q.tag?.trim().toLowerCase() || undefined,
        after: q.after,
        limit,
      };
      return { assessments, search };
    }

    scope.get<{ Querystring: Record<string, string | undefined> }>('/console/candidates', async (request, reply) => {
      const q = request.query;
      const instance = instanceOf(request, q.instance, 'read');
      const { assessments, search } = await candidateSearch(q, instance, PAGE_SIZE + 1);
      const items = await searchCandidates(db, search);
      const more = items.length > PAGE_SIZE;
      const shown = items.slice(0, PAGE_SIZE);
      let nextHref: string | undefined;
      const params = new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '' && e[0] !== 'after'));
      params.set('instance', instance.name);
      const csvHref = `/console/candidates.csv?${params}`;
      if (more) {
        params.set('after', shown.at(-1)!.id);
        nextHref = `/console/candidates?${params}`;
      }
      const filters = { q: q.q, assessment: q.assessment, status: q.status, score: q.score, flag: q.flag, days: q.days, decision: q.decision, tag: q.tag };
      const marks = await marksOfMany(
        db,
        shown.map((c) => c.id),
      );
      const tags = (await tagsInUse(db, instance.id)).map((t) => t.tag);
      const saved = savedSearchesPanel({
        instance: instance.name,
        csrf: request.consoleUser!.csrfToken,
        saved: await savedSearches(db, request.consoleUser!.user.id, instance.id),
        filters,
      });
      return page(
        reply,
        consolePage(
          frameOf(request, 'candidates', instance),
          `Candidates of ${instance.name}`,
          candidatesBody(
            instance.name,
            filters,
            assessments.map((a) => ({ id: a.id, name: a.name })),
            shown,
            nextHref,
            { marks, tags, csvHref, saved },
          ),
        ),
      );
    });

    // The list as CSV, with its filters: every match (up to CSV_MAX_CANDIDATES), one row per candidate and assessment.
    scope.get<{ Querystring: Record<string, string | undefined> }>('/console/candidates.csv', async (request, reply) => {
      const q = request.query;
      const instance = instanceOf(request, q.instance, 'read');
      const { search } = await candidateSearch({ ...q, after: undefined }, instance, CSV_PAGE);
      const items: CandidateListItem[] = [];
      for (let after: string | undefined; items.length < CSV_MAX_CANDIDATES;) {
        const batch = await searchCandidates(db, { ...search, after });
        items.push(...batch);
        if (batch.length < CSV_PAGE) break;
        after = batch.at(-1)!.id;
      }
      const marks = await marksOfMany(
        db,
        items.map((c) => c.id),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="candidates-${instance.name}.csv"`)
        .send(candidatesCsv(items.slice(0, CSV_MAX_CANDIDATES), marks));
    });

    scope.get<{ Params: { id: string }; Querystring: { instance?: string; retake?: string; marked?: string } }>('/console/candidates/:id', async (request, reply) => {
      const instance = instanceOf(request, request.query.instance, 'read');
      const candidate = await findCandidate(db, [instance.id], request.params.id);
      if (!candidate) throw notFound('No such candidate in this instance');
      const reports = await assessmentReports(db, [instance.id], candidate.id);
      const may = (what: 'review' | 'manage') => instancesFor(request.consoleUser!.user, request.consoleUser!.visible, what).some((i) => i.id === instance.id);
      const retake = request.query.retake;
      const notice =
        retake === 'SENT' || retake === 'FAILED' || retake === 'none'
          ? `The candidate may take it again; the earlier attempt stays in the history. ${retake === 'SENT' ? 'The e-mail with a fresh link was sent.' : retake === 'FAILED' ? "The e-mail could not be sent: see Invitations for the relay's answer, and resend it there." : ''}`
          : undefined;
      const marks = marksPanel({
        instance: instance.name,
        candidateId: candidate.id,
        marks: await marksOf(db, candidate.id),
        csrf: request.consoleUser!.csrfToken,
        canDecide: may('manage') && candidate.email !== null,
        saved: request.query.marked === '1',
      });
      const body = reportBody(candidate, reports, {
        csrf: request.consoleUser!.csrfToken,
        instance: instance.name,
        company: brandOf(instance).company,
        canReview: may('review'),
        canRetake: may('manage'),
        notice,
        marks,
        viewer: {
          reviewer: `user:${request.consoleUser!.user.email.toLowerCase()}`,
          blind: instance.blindReview,
          mayLead: await userLeads(db, instance.id, request.consoleUser!.user),
        },
      });
      return page(reply, consolePage(frameOf(request, 'candidates', instance), `${candidate.firstName} ${candidate.lastName}`, body));
    });

    registerSearchRoutes(scope, { db, now, instanceOf });

    registerCompareRoutes(scope, {
      db,
      instanceOf,
      render: (request, reply, instance, title, body) => page(reply, consolePage(frameOf(request, 'candidates', instance), title, body)),
    });

    registerDecisionRoutes(scope, {
      db,
      now,
      instanceOf,
      again: async (request, reply, instance, candidateId, errors) => {
        const candidate = await findCandidate(db, [instance.id], candidateId);
        if (!candidate) throw notFound('No such candidate in this instance');
        const marks = marksPanel({ instance: instance.name, candidateId, marks: await marksOf(db, candidateId), csrf: request.consoleUser!.csrfToken, canDecide: true, errors });
        const body = reportBody(candidate, await assessmentReports(db, [instance.id], candidateId), {
          csrf: request.consoleUser!.csrfToken,
          instance: instance.name,
          company: brandOf(instance).company,
          canReview: true,
          canRetake: true,
          marks,
        });
        return page(reply, consolePage(frameOf(request, 'candidates', instance), `${candidate.firstName} ${candidate.lastName}`, body), 400);
      },
    });

    scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/candidates/:id/retake', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'manage');
      const assessmentId = body.assessmentId ?? '';
      const ref = { instanceIds: [instance.id], candidateId: request.params.id, assessmentId };
      const fresh = await runCommand(db, commandRequest(request, now()), (ctx) => retakeInvitation(ctx, deps.invite, ref), 'invitation_retake');
      const status = await sendFreshLink(deps.invite, fresh);
      return reply.redirect(`/console/candidates/${request.params.id}?instance=${encodeURIComponent(instance.name)}&retake=${status}#a-${assessmentId}`, 303);
    });

    // ---- reviews -----------------------------------------------------------------------------

    registerReviewRoutes(scope, { db, now, page, consolePage, frameOf, instanceOf });

    // A reviewer dismisses a proctoring signal (or every signal of a kind) with a reason.
    scope.post<{ Body: Record<string, string | undefined> }>('/console/signals/dismiss', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'review');
      const attemptId = body.attemptId ?? '';
      await dismissSignalsNow(db, commandRequest(request, now()), {
        instanceIds: [instance.id],
        attemptId,
        signalId: body.signalId || undefined,
        kind: body.signalId ? undefined : body.kind,
        reason: body.reason ?? '',
        by: `user:${request.consoleUser!.user.email.toLowerCase()}`,
      });
      const owner = await attemptOwner(db, instance.id, attemptId);
      return reply.redirect(`/console/candidates/${owner!.candidateId}?instance=${encodeURIComponent(instance.name)}#a-${owner!.assessmentId}`, 303);
    });

    // ---- keys --------------------------------------------------------------------------------

    const isOwner = (request: FastifyRequest) => request.consoleUser!.user.role === 'owner';
    const keyDeps = { verifier: deps.verifier, rateCeiling: deps.rateCeiling ?? 600 };
    const managedNames = (request: FastifyRequest) => instancesFor(request.consoleUser!.user, request.consoleUser!.visible, 'manage').map((i) => i.name);
    /** A form's rate budget: empty is none (the default), else a number the command judges. */
    const rateOf = (text: string | undefined) => {
      const rate = (text ?? '').trim();
      if (rate !== '' && !/^[0-9]{1,9}$/.test(rate)) throw invalidInput([{ name: 'rateLimit', detail: 'must be a whole number of requests per minute, 1 to 1000000' }]);
      return rate === '' ? undefined : Number(rate);
    };

    /**
     * The keys of an instance as this user may see them: a key granted to instances the user cannot
     * see names only those it can, and says how many others there are, never their names.
     */
    async function keysOf(request: FastifyRequest, instance: Instance) {
      const visible = new Set(request.consoleUser!.visible.map((i) => i.name));
      return (await listKeys(db, instance.name)).map((k) => {
        const shown = k.instances.filter((name) => visible.has(name));
        const hidden = k.instances.length - shown.length;
        return { ...k, instances: hidden === 0 ? shown : [...shown, `${hidden} other instance${hidden === 1 ? '' : 's'}`] };
      });
    }

    scope.get<{ Querystring: { instance?: string } }>('/console/keys', async (request, reply) => {
      const instance = instanceOf(request, request.query.instance, 'manage');
      const keys = await keysOf(request, instance);
      return page(reply, consolePage(frameOf(request, 'keys', instance), `API keys of ${instance.name}`, keysBody(instance.name, keys, request.consoleUser!.csrfToken)));
    });

    scope.post<{ Body: Record<string, string | undefined> }>('/console/keys', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'manage');
      const input = { instances: [instance.name], label: body.label, rateLimit: rateOf(body.rateLimit) };
      const made = await runCommand(db, commandRequest(request, now()), (ctx) => createKey(ctx, keyDeps, input), 'key_create');
      const generated = { id: made.summary.id, key: made.key };
      const keys = await keysOf(request, instance);
      return page(
        reply,
        consolePage(
          frameOf(request, 'keys', instance),
          `API keys of ${instance.name}`,
          keysBody(instance.name, keys, request.consoleUser!.csrfToken, { id: generated.id, key: generated.key }),
        ),
      );
    });

    scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/keys/:id/revoke', async (request, reply) => {
      const instance = instanceOf(request, request.body?.instance, 'manage');
      const ref = { id: request.params.id, instance: instance.name, managed: managedNames(request) };
      await runCommand(db, commandRequest(request, now()), async (ctx) => revokeKey(ctx, keyDeps, { id: (await managedKey(ctx, ref)).id }), 'key_revoke');
      return reply.redirect(`/console/keys?instance=${encodeURIComponent(instance.name)}`, 303);
    });

    // ---- assessments -------------------------------------------------------------------------

    async function assessmentsPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, importState?: ImportState, status = 200) {
      const items: AssessmentView[] = [];
      const feedback = await feedbackSummaries(db, instance.id);
      for (const a of await listAssessments(db, [instance.id])) {
        const uuid = await assessmentUuid(db, instance.id, a.id);
        const { roles, readingLevel } = await currentContent(db, uuid!);
        items.push({ ...a, roles, readingLevel, distribution: await scoreDistribution(db, uuid!), feedback: feedback.get(a.id) });
      }
      const canManage = instancesFor(request.consoleUser!.user, request.consoleUser!.visible, 'manage').some((i) => i.id === instance.id);
      return page(
        reply,
        consolePage(
          frameOf(request, 'assessments', instance),
          `Assessments of ${instance.name}`,
          assessmentsBody(instance.name, items, { csrf: request.consoleUser!.csrfToken, canManage, importState }),
        ),
        status,
      );
    }

    scope.get<{ Querystring: { instance?: string } }>('/console/assessments', async (request, reply) =>
      assessmentsPage(request, reply, instanceOf(request, request.query.instance, 'read')),
    );

    scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments', async (request, reply) => {
      const instance = instanceOf(request, request.body?.instance, 'manage');
      const source = request.body?.source ?? '';
      let result;
      try {
        result = await runCommand(db, commandRequest(request, now()), (ctx) => publishAssessment(ctx, { instance, source }), 'assessment_import');
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        const errors = (error.fields ?? []).map((e) => ({ line: e.line, column: e.column, name: e.name, detail: e.detail }));
        // The document comes back in the form to be fixed, unless it is too large to repeat.
        if (source.length > ECHO_SOURCE_CHARACTERS) {
          errors.unshift({
            line: undefined,
            column: undefined,
            name: '(document)',
            detail: `is not shown again (over ${ECHO_SOURCE_CHARACTERS / 1024} K characters): fix it where you edit it and import it again`,
          });
          return assessmentsPage(request, reply, instance, { source: '', errors }, 400);
        }
        return assessmentsPage(request, reply, instance, { source, errors }, 400);
      }
      const verb = { created: 'Published', updated: 'Published a new version of', unchanged: 'Nothing changed in' }[result.outcome];
      return assessmentsPage(request, reply, instance, { source: '', published: `${verb} ${result.id} (version ${result.version}).` });
    });

    scope.get<{ Params: { id: string }; Querystring: { instance?: string } }>('/console/assessments/:id/preview', async (request, reply) => {
      const instance = instanceOf(request, request.query.instance, 'read');
      const uuid = /^[a-z][a-z0-9-]{0,63}$/.test(request.params.id) ? await assessmentUuid(db, instance.id, request.params.id) : undefined;
      if (!uuid) throw notFound('No such assessment in this instance');
      const content = await currentContent(db, uuid);
      const questions = content.questions.map((q, i) => questionField(q, undefined, `p${i + 1}-`, true));
      // How each attempt is put together (pools, shuffling), and the practice question before Start.
      const practice = practiceOf(content);
      const fairness = { notes: layoutNotes(content), practice: practice && questionField(practice, undefined, 'practice-', true) };
      return page(
        reply,
        consolePage(frameOf(request, 'assessments', instance), `Preview of ${content.name}`, previewBody(instance.name, content, questions, content.typingTest?.passage, fairness)),
      );
    });

    // ---- invitations -------------------------------------------------------------------------

    async function invitationsPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, state?: InvitationsState, status = 200) {
      const assessments = (await listAssessments(db, [instance.id])).map((a) => ({ id: a.id, name: a.name }));
      const deliveries = await listDeliveries(db, instance.id, { limit: 50 });
      const canManage = instancesFor(request.consoleUser!.user, request.consoleUser!.visible, 'manage').some((i) => i.id === instance.id);
      return page(
        reply,
        consolePage(
          frameOf(request, 'invitations', instance),
          `Invitations of ${instance.name}`,
          invitationsBody(instance.name, assessments, deliveries, { csrf: request.consoleUser!.csrfToken, canManage, state }),
        ),
        status,
      );
    }

    scope.get<{ Querystring: { instance?: string } }>('/console/invitations', async (request, reply) =>
      invitationsPage(request, reply, instanceOf(request, request.query.instance, 'read')),
    );

    const checkInvite = validatorCompiler()({ schema: InviteBody, httpPart: 'body', method: 'POST', url: '/console/invitations' }) as ((data: unknown) => boolean) & {
      errors?: unknown[];
    };

    scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/invitations', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'manage');
      const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
      const chosen = body.assessments === undefined ? [] : ([] as string[]).concat(body.assessments);
      const values = { email: text('email').trim(), firstName: text('firstName'), lastName: text('lastName'), assessments: chosen };
      // The same rules as POST /v1/invite: the same schema, then the same checks of the service.
      const candidate = { email: values.email, firstName: values.firstName, lastName: values.lastName, assessments: chosen.length === 0 ? [] : chosen };
      if (!checkInvite(candidate)) {
        const errors = fieldErrors('body', (checkInvite.errors ?? []) as never).map((e) => ({ name: e.name, detail: e.detail }));
        return invitationsPage(request, reply, instance, { values, errors }, 400);
      }
      try {
        const input = {
          email: candidate.email,
          firstName: candidate.firstName.trim(),
          lastName: candidate.lastName.trim(),
          assessments: normaliseAssessments(candidate.assessments),
        };
        const result = await invite(deps.invite, instance.id, input, text('sendInvite') === 'true', commandRequest(request, now()), 'console');
        return invitationsPage(request, reply, instance, { result: { ...result, email: input.email } });
      } catch (error) {
        const problem = problemFor(error, request);
        if (problem.status !== 400) throw error;
        return invitationsPage(request, reply, instance, { values, errors: (problem.errors ?? []).map((e) => ({ name: e.name, detail: e.detail })) }, 400);
      }
    });

    scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/invitations/:id/resend', async (request, reply) => {
      const instance = instanceOf(request, request.body?.instance, 'manage');
      if (!/^[1-9]\d{0,17}$/.test(request.params.id)) throw notFound('No such e-mail in this instance');
      const id = await resend(deps.invite, instance.id, request.params.id);
      await audit(request, db, 'delivery.resend', `${instance.name}/${request.params.id}`, 200);
      const sent = (await listDeliveries(db, instance.id, { limit: 50 })).find((d) => d.id === String(id));
      return invitationsPage(request, reply, instance, {
        resent: sent ? `Sent again to ${sent.recipient}: ${sent.status === 'SENT' ? 'sent' : 'failed'} (${sent.response}).` : 'Sent again.',
      });
    });

    // ---- users (owners) ----------------------------------------------------------------------

    function requireOwner(request: FastifyRequest): void {
      if (request.consoleUser!.user.role !== 'owner') throw forbidden('Only owners manage users');
    }

    async function usersPage(
      request: FastifyRequest,
      reply: FastifyReply,
      created?: { email: string; password: string },
      errors?: { name: string; detail: string }[],
      status = 200,
    ) {
      const all = await listInstances(db);
      return page(
        reply,
        consolePage(
          frameOf(request, 'users', undefined),
          'Users',
          usersBody(
            await listUsers(db),
            all.map((i) => i.name),
            request.consoleUser!.csrfToken,
            created,
            errors,
          ),
        ),
        status,
      );
    }

    scope.get('/console/users', async (request, reply) => {
      requireOwner(request);
      return usersPage(request, reply);
    });

    scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/users', async (request, reply) => {
      requireOwner(request);
      const body = request.body ?? {};
      const email = typeof body.email === 'string' ? body.email.trim() : '';
      const role = typeof body.role === 'string' ? body.role : '';
      const instances = body.instances === undefined ? [] : ([] as string[]).concat(body.instances);
      if (!/^[^@\s]{1,64}@[^@\s]{1,189}$/.test(email) || BIDI_CONTROL.test(email))
        return usersPage(request, reply, undefined, [{ name: 'email', detail: 'is not an e-mail address' }], 400);
      if (!(ROLES as readonly string[]).includes(role)) return usersPage(request, reply, undefined, [{ name: 'role', detail: `must be one of ${ROLES.join(', ')}` }], 400);
      try {
        const made = await runCommand(
          db,
          commandRequest(request, now()),
          (ctx) => addUser(ctx, { email, role: role as Role, instances: role === 'owner' ? undefined : instances }),
          'user_create',
        );
        return usersPage(request, reply, { email: made.user.email, password: made.password! });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code === 'not-found') throw error;
        return usersPage(
          request,
          reply,
          undefined,
          error.fields?.map((f) => ({ name: f.name, detail: f.detail })) ?? [{ name: 'email', detail: error.message }],
          error.code === 'conflict' ? 409 : 400,
        );
      }
    });

    scope.post<{ Params: { id: string; action: string } }>('/console/users/:id/:action', async (request, reply) => {
      requireOwner(request);
      const { id, action } = request.params;
      if (!/^[0-9a-f-]{36}$/i.test(id)) throw notFound('No such user');
      if (action === 'disable' || action === 'enable') {
        await runCommand(db, commandRequest(request, now()), (ctx) => setUserDisabled(ctx, { id, disabled: action === 'disable' }), `user_${action}`);
        return reply.redirect('/console/users', 303);
      }
      if (action === 'reset-password') {
        const reset = await runCommand(db, commandRequest(request, now()), (ctx) => resetPassword(ctx, { id }), 'user_reset_password');
        return usersPage(request, reply, { email: reset.user.email, password: reset.password! });
      }
      throw notFound('No such action');
    });

    scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/keys/:id/rate-limit', async (request, reply) => {
      const instance = instanceOf(request, request.body?.instance, 'manage');
      const ref = { id: request.params.id, instance: instance.name, managed: managedNames(request) };
      const rateLimit = rateOf(request.body?.rateLimit) ?? null;
      await runCommand(db, commandRequest(request, now()), async (ctx) => changeKey(ctx, keyDeps, { id: (await managedKey(ctx, ref)).id, rateLimit }), 'key_update');
      return reply.redirect(`/console/keys?instance=${encodeURIComponent(instance.name)}`, 303);
    });

    // ---- webhooks ----------------------------------------------------------------------------

    async function webhooksPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, state?: Parameters<typeof webhooksBody>[5], status = 200) {
      const endpoints = await listEndpoints(db, instance.id);
      const attempts: Record<string, Awaited<ReturnType<typeof listAttempts>>> = {};
      for (const e of endpoints) attempts[e.id] = await listAttempts(db, instance.id, e.id, 10);
      return page(
        reply,
        consolePage(
          frameOf(request, 'webhooks', instance),
          `Webhooks of ${instance.name}`,
          webhooksBody(instance.name, endpoints, attempts, EVENT_TYPES, request.consoleUser!.csrfToken, state),
        ),
        status,
      );
    }

    scope.get<{ Querystring: { instance?: string } }>('/console/webhooks', async (request, reply) =>
      webhooksPage(request, reply, instanceOf(request, request.query.instance, 'manage')),
    );

    scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/webhooks', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'manage');
      const url = typeof body.url === 'string' ? body.url.trim() : '';
      const events = body.events === undefined ? [] : ([] as string[]).concat(body.events);
      try {
        const made = await runCommand(db, commandRequest(request, now()), (ctx) => registerEndpoint(ctx, { instance, url, events }), 'webhook_create');
        return webhooksPage(request, reply, instance, { created: { id: made.id, secret: made.secret } });
      } catch (error) {
        // The form comes back with what was wrong, in the command's words.
        if (error instanceof DomainError && error.code === 'invalid') return webhooksPage(request, reply, instance, { errors: error.fields ?? [] }, 400);
        throw error;
      }
    });

    scope.post<{ Params: { id: string; action: string }; Body: Record<string, string | undefined> }>('/console/webhooks/:id/:action', async (request, reply) => {
      const instance = instanceOf(request, request.body?.instance, 'manage');
      const { id, action } = request.params;
      if (!/^ep_[0-9a-f]{16}$/.test(id)) throw notFound('No such webhook endpoint in this instance');
      const run = <T>(command: Parameters<typeof runCommand<T>>[2]) => runCommand(db, commandRequest(request, now()), command, `webhook_${action}`);
      if (action === 'enable' || action === 'disable') {
        await run((ctx) => changeEndpoint(ctx, { instance, id, change: { enabled: action === 'enable' } }));
        return reply.redirect(`/console/webhooks?instance=${encodeURIComponent(instance.name)}`, 303);
      }
      if (action === 'rotate-secret') {
        const rotated = await run((ctx) => rotateEndpointSecret(ctx, { instance, id }));
        return webhooksPage(request, reply, instance, { created: { id: rotated.id, secret: rotated.secret }, notice: 'New secret made; the old one keeps signing for 24 hours.' });
      }
      if (action === 'replay') {
        const scheduled = await run((ctx) => replayToEndpoint(ctx, { instance, id, since: new Date(now().getTime() - 24 * 3600_000) }));
        return webhooksPage(request, reply, instance, { notice: `${scheduled} message${scheduled === 1 ? '' : 's'} of the last 24 hours scheduled again.` });
      }
      throw notFound('No such action');
    });

    // ---- integrations with applicant-tracking systems (integrations.ts) ------------------------

    integrationsRoutes(scope, { db, invite: deps.invite, publicUrl: deps.publicUrl, now, keyDeps, page, consolePage, frameOf, instanceOf });
    bulkInviteRoutes(scope, { db, now, page, consolePage, frameOf, instanceOf });

    // ---- instance settings -------------------------------------------------------------------

    scope.get<{ Querystring: { instance?: string; saved?: string } }>('/console/settings', async (request, reply) => {
      const instance = instanceOf(request, request.query.instance, 'manage');
      return page(
        reply,
        consolePage(
          frameOf(request, 'settings', instance),
          `Settings of ${instance.name}`,
          settingsBody(instance, request.consoleUser!.csrfToken, {
            saved: request.query.saved === '1',
            addressesLocked: !isOwner(request),
            reviews: reviewSettingsPanel(instance, request.consoleUser!.csrfToken),
          }),
        ),
      );
    });

    // The admin API's schema checks the form's values (the same words for the same mistakes); the
    // rules beyond it (who may change what, branding) are the command's.
    const checkSettings = validatorCompiler()({ schema: Settings, httpPart: 'body', method: 'POST', url: '/console/settings' }) as ((
      data: unknown,
    ) => data is Static<typeof Settings>) & {
      errors?: unknown[];
    };
    const settingsRefused = (
      request: FastifyRequest,
      reply: FastifyReply,
      instance: Instance,
      errors: { name: string; detail: string }[],
      status: number,
      values?: Record<string, string>,
    ) =>
      page(
        reply,
        consolePage(
          frameOf(request, 'settings', instance),
          `Settings of ${instance.name}`,
          settingsBody(instance, request.consoleUser!.csrfToken, {
            errors,
            values,
            addressesLocked: !isOwner(request),
            reviews: reviewSettingsPanel(instance, request.consoleUser!.csrfToken),
          }),
        ),
        status,
      );
    /** A field error of a command, shown on the settings page; anything else goes to the error page. */
    const fieldsOf = (error: unknown) => (error instanceof DomainError && error.fields ? error.fields.map((f) => ({ name: f.name, detail: f.detail })) : undefined);

    scope.post<{ Body: Record<string, string | undefined> }>('/console/settings', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'manage');
      const field = (name: string) => (body[name] ?? '').trim();
      const names = [
        'portalUrl',
        'inviteTtlDays',
        'mailFromName',
        'mailFromAddress',
        'reminderDays',
        'reportLinkDays',
        'timeZone',
        'displayName',
        'accentColor',
        'supportEmail',
        'privacyUrl',
      ];
      const values = Object.fromEntries(names.map((name) => [name, field(name)]));
      // A field the form did not send (an older page; a manager's read-only addresses) stays as it is;
      // an empty one clears its setting. A number that is not a whole number fails the schema's range.
      const whole = (value: string) => (/^\d{1,4}$/.test(value) ? Number(value) : -1);
      const given: Record<string, unknown> = {};
      // The addresses and the sender name may be cleared here (back to the service's own), which the
      // admin API's schema has no null for: set aside from its check.
      const cleared: InstanceSettings = {};
      for (const name of names) {
        if (body[name] === undefined) continue;
        const value = values[name]!;
        if (name === 'inviteTtlDays' || name === 'reportLinkDays') given[name] = whole(value);
        else if (name === 'reminderDays') given[name] = value === '' ? null : whole(value);
        else if (name === 'timeZone') given[name] = value === '' ? 'UTC' : value;
        else if (value !== '') given[name] = value;
        else if (name === 'portalUrl' || name === 'mailFromName' || name === 'mailFromAddress') cleared[name] = null;
        else given[name] = null;
      }
      if (!checkSettings(given)) {
        return settingsRefused(request, reply, instance, fieldErrors('body', (checkSettings.errors ?? []) as never), 400, values);
      }
      const changes = { ...given, ...cleared };
      try {
        await runCommand(db, commandRequest(request, now()), (ctx) => changeTenantSettings(ctx, { instance: instance.name, changes }), 'instance_update');
      } catch (error) {
        const fields = fieldsOf(error);
        if (!fields) throw error;
        return settingsRefused(request, reply, instance, fields, 400, values);
      }
      return reply.redirect(`/console/settings?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);
    });

    scope.post<{ Body: { instance?: string; logo?: { type: string; bytes: Buffer } | string } }>('/console/settings/logo', async (request, reply) => {
      const body = request.body ?? {};
      const instance = instanceOf(request, body.instance, 'manage');
      const file = typeof body.logo === 'object' && body.logo !== null && body.logo.bytes.length > 0 ? body.logo : undefined;
      if (!file) return settingsRefused(request, reply, instance, [{ name: 'logo', detail: 'Choose a logo file to upload' }], 400);
      try {
        await runCommand(
          db,
          commandRequest(request, now()),
          (ctx) => setTenantLogo(ctx, { instance: instance.name, declaredType: file.type, bytes: file.bytes }),
          'instance_logo_set',
        );
      } catch (error) {
        const fields = fieldsOf(error);
        if (!fields) throw error;
        return settingsRefused(request, reply, instance, fields, problemFor(error, request).status);
      }
      return reply.redirect(`/console/settings?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);
    });

    scope.post<{ Body: { instance?: string } }>('/console/settings/logo/remove', async (request, reply) => {
      const instance = instanceOf(request, request.body?.instance, 'manage');
      await runCommand(db, commandRequest(request, now()), (ctx) => removeTenantLogo(ctx, { instance: instance.name }), 'instance_logo_remove');
      return reply.redirect(`/console/settings?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);
    });

    // ---- audit -------------------------------------------------------------------------------

    scope.get<{ Querystring: { before?: string; actor?: string; action?: string } }>('/console/audit', async (request, reply) => {
      if (request.consoleUser!.user.role !== 'owner') throw forbidden('Only owners read the audit log');
      const { before, actor, action } = request.query;
      if (before !== undefined && !/^[1-9]\d{0,17}$/.test(before)) throw invalidInput([{ name: 'before', in: 'query', detail: 'must be an entry number' }]);
      const entries = await searchAudit(db, { limit: PAGE_SIZE + 1, before, actor: actor?.trim() || undefined, action: action?.trim() || undefined });
      let nextHref: string | undefined;
      if (entries.length > PAGE_SIZE) {
        const params = new URLSearchParams({ before: entries[PAGE_SIZE - 1]!.id });
        if (actor) params.set('actor', actor);
        if (action) params.set('action', action);
        nextHref = `/console/audit?${params}`;
      }
      return page(reply, consolePage(frameOf(request, 'audit', undefined), 'Audit log', auditBody(entries.slice(0, PAGE_SIZE), { actor, action }, nextHref)));
    });

    const asset = (file: string, type: string) => {
      const body = readFileSync(path.join(ASSETS, file));
      scope.get(`/console/assets/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=300').send(body));
    };
    asset('console.css', 'text/css; charset=utf-8');
    asset('console.js', 'text/javascript; charset=utf-8');
  });
}

/** Only a path inside the console may be a place to go back to after signing in. */
function safeNext(next: string | undefined): string | undefined {
  return next && /^\/console\/[^\s\\]*$/.test(next) && !next.startsWith('//') ? next : undefined;
}
