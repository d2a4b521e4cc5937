// The console at /console/: where owners, managers and reviewers read results, score free-text
// answers, manage API keys and read the audit log. Server-rendered pages over the same module
// functions as the API; every page and action checks the signed-in user's role on the server.
//
// This file sets up what every console request goes through (the form parsers, the page headers,
// the error pages, the refusal of control characters, signing in and the form's token) and then
// registers the sections, each a folder of routes and views: account, overview, candidates,
// reviews, assessments, invitations, keys, webhooks, integrations, settings, users and audit.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { consoleClient } from '../db/replica.js';
import { fileURLToPath } from 'node:url';
import formBody from '@fastify/formbody';
import { registerCookies } from '../http/cookies.js';
import { csrfRefusal } from '../http/csrf.js';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, forbidden, invalidInput } from '../domain/errors.js';
import type { SafeHtml } from '../html/html.js';
import { problemFor } from '../http/errors.js';
import { PAGE_HEADERS } from '../http/page-headers.js';
import { BLIND_REFUSAL, sightOf } from '../modules/reviews/blind.js';
import { brandOf } from '../modules/tenants/branding.js';
import { INSTANCE_NAME_PATTERN, listInstances, type Instance } from '../modules/tenants/repository.js';
import { findSession, type SessionTimes } from '../modules/users/repository.js';
import { SESSION_COOKIE, cookie, readCookie, safeNext } from './account/cookies.js';
import { accountRoutes, enforceStep } from './account/routes.js';
import { SIGN_IN_PER_ADDRESS, SIGN_IN_WINDOW_MS, registerSignInRoutes, signInLimiter } from './account/sign-in.js';
import { ssoRoutes } from './account/sso.js';
import { registerAssessmentRoutes } from './assessments/routes.js';
import { registerAuditRoutes } from './audit/routes.js';
import { registerCandidateRoutes } from './candidates/routes.js';
import { registerImpactRoutes } from './impact/routes.js';
import { consoleContext, instancesFor, type ConsoleDeps, type Permission } from './context.js';
import { integrationsRoutes } from './integrations/routes.js';
import { registerInvitationRoutes } from './invitations/routes.js';
import { keyDepsOf, registerKeyRoutes } from './keys/routes.js';
import { registerOverviewRoutes } from './overview/routes.js';
import { bareMessagePage, consolePage, messageBody, type Frame } from './layout.js';
import { registerReportDownload } from './reports/download.js';
import { registerReviewRoutes } from './reviews/routes.js';
import { registerSignalRoutes } from './reviews/signals.js';
import { registerSettingsRoutes } from './settings/routes.js';
import { registerUserRoutes } from './users/routes.js';
import { registerWebhookRoutes } from './webhooks/routes.js';

export type { ConsoleDeps } from './context.js';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
/** The CSS foundation under console.css: Open Props' design tokens (custom properties only), served from its package. */
const OPEN_PROPS = createRequire(import.meta.url).resolve('open-props/style');

// Control characters refused in query parameters (all of C0 and DEL) and in form fields (the same
// but tab, line feed and carriage return, which a textarea sends).
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const INSTANCE_NAME = new RegExp(INSTANCE_NAME_PATTERN);

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
    await registerCookies(scope);
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
      // A page may set its own policy (the content editor's, with the response's style nonce).
      for (const [name, value] of Object.entries(PAGE_HEADERS))
        if ((name !== 'cache-control' && name !== 'content-security-policy') || !reply.hasHeader(name)) reply.header(name, value);
    });

    // A form that changed something (marked before the answer is sent): the user's lists read the primary for a moment.
    const reads = deps.reads;
    if (reads)
      scope.addHook('onSend', async (request, reply) => {
        if (request.consoleUser && request.method === 'POST' && reply.statusCode < 400) reads.wrote(consoleClient(request.consoleUser.user.id));
      });

    const page = (reply: FastifyReply, body: SafeHtml, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body.toString());

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
        blind: instance !== undefined && sightOf(user.user, instance) === 'blind',
      };
    };

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
              ? permission === 'names'
                ? BLIND_REFUSAL
                : `Your role may not do this in ${name}`
              : INSTANCE_NAME.test(name)
                ? `You have no access to an instance named ${name}`
                : 'You have no access to an instance by that name',
          );
        return found;
      }
      const first = allowed[0];
      if (!first && permission === 'names' && user.visible.length > 0) throw forbidden(BLIND_REFUSAL);
      if (!first) throw forbidden(permission === 'manage' ? 'Your role may not manage any instance' : 'No instance is granted to your account yet: ask an owner');
      return first;
    }

    const signInLimit = signInLimiter(deps.counter);
    registerSignInRoutes(scope, { db, now, times, secure, publicOrigin, page, signInLimit });

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
        if (csrfRefusal(request, signedIn.csrfToken, publicOrigin) !== undefined) {
          throw forbidden('The form is out of date or came from another site: reload the page and try again');
        }
      }
      // A code to give, a password to change or a second factor to set up comes before anything else (account/routes.ts).
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
      cookie: (name, value, maxAgeSeconds) => cookie(name, value, maxAgeSeconds, secure),
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

    const c = consoleContext(deps, { page, frameOf, instanceOf });
    registerOverviewRoutes(scope, c);
    registerCandidateRoutes(scope, c);
    registerReportDownload(scope, c);
    registerReviewRoutes(scope, { db, now, page, consolePage, frameOf, instanceOf });
    registerSignalRoutes(scope, c);
    registerAssessmentRoutes(scope, c);
    registerInvitationRoutes(scope, c);
    registerKeyRoutes(scope, c);
    registerWebhookRoutes(scope, c);
    integrationsRoutes(scope, {
      db,
      invite: deps.invite,
      publicUrl: deps.publicUrl,
      now,
      keyDeps: keyDepsOf(c),
      page,
      consolePage,
      frameOf,
      instanceOf,
      partnerConnected: deps.partnerConnected,
    });
    registerSettingsRoutes(scope, c);
    registerImpactRoutes(scope, c);
    registerUserRoutes(scope, c);
    registerAuditRoutes(scope, c);

    const asset = (file: string, type: string, from = path.join(ASSETS, file)) => {
      const body = readFileSync(from);
      scope.get(`/console/assets/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=300').send(body));
    };
    asset('open-props.min.css', 'text/css; charset=utf-8', OPEN_PROPS);
    asset('console.css', 'text/css; charset=utf-8');
    asset('console.js', 'text/javascript; charset=utf-8');
  });
}
