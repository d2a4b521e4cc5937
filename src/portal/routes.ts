// The candidate portal: what every portal request goes through (the form parser, the page headers,
// the brand, the refusal of guessed links and cookies, error pages in the candidate's language),
// opening the invite link, the list of assessments and the language choice. Taking an assessment
// is attempt-pages.ts, the JSON API portal.js calls is api.ts. Pages work as plain forms; portal.js
// saves as you type and keeps the countdown.
import { PAGE_HEADERS } from '../http/page-headers.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formBody from '@fastify/formbody';
import { registerCookies } from '../http/cookies.js';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.js';
import { problemFor, sendProblem } from '../http/errors.js';
import { Problem } from '../http/problem.js';
import type { RefusalLimit } from '../modules/limits/rate-limit.js';
import type { Maybe } from '../domain/maybe.js';
import { findAttempt } from '../modules/attempts/repository.js';
import { checkSameOrigin, cookieValue, setSessionCookie, type PortalSession } from './session.js';
import { openSession } from '../modules/invitations/repository/portal-sessions.js';
import { dashboardPage, invalidLinkPage, landingPage, messagePage, type DashboardItem } from './pages.js';
import { isLang, t } from '../i18n/i18n.js';
import { requestLanguage, setLanguageCookie } from './language.js';
import { registerPortalApi } from './api.js';
import { registerAttemptPages } from './attempt-pages.js';
import { PortalRefusal, portalKit, speaking } from './kit.js';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

declare module 'fastify' {
  interface FastifyRequest {
    portalSession: PortalSession | null;
  }
}

/**
 * `refusals` counts refused link tokens and session cookies per client address; past its limit
 * an address gets 429 before any token or cookie it presents is looked at, so guessing cannot
 * tell a hit from a miss.
 */
export async function portalRoutes(
  app: FastifyInstance,
  {
    db,
    publicUrl,
    refusals,
    codeRuns,
    now,
  }: {
    db: Database;
    publicUrl: string;
    refusals: RefusalLimit;
    /** How often an address may run coding examples; unset: without limit. */
    codeRuns?: RefusalLimit;
    /** The app's clock: attempts are started, timed, saved and completed by it. */
    now: () => Date;
  },
) {
  const clock = now;
  const secure = publicUrl.startsWith('https://');
  const origin = new URL(publicUrl).origin;
  const kit = portalKit({ db, clock, refusals, codeRuns, origin });
  const { html, session, invitations, speak, currentAttempt, shownOf } = kit;
  await app.register(formBody, { bodyLimit: 64 * 1024 });
  await registerCookies(app);
  const OWN_HEADERS = new Set(['cache-control', 'permissions-policy', 'content-security-policy']);
  app.decorateRequest('portalSession', null);

  // Both hooks are callbacks, not async functions: they run on every portal request, an answer
  // saved included, and neither needs a promise unless the refusals are counted in Redis.
  app.addHook('onSend', (_request, reply, payload, done) => {
    // A page that takes webcam snapshots allows the camera (WEBCAM_PERMISSIONS); every other keeps it off.
    // A page may set its own policy (the code editor's, with the response's style nonce).
    for (const [name, value] of Object.entries(PAGE_HEADERS)) if (!OWN_HEADERS.has(name) || !reply.hasHeader(name)) reply.header(name, value);
    done(null, payload);
  });

  // Guessing at link tokens or session cookies: an address refused too often is turned away
  // before what it presents is looked at (429 with Retry-After, on pages too).
  app.addHook('onRequest', (request, _reply, done) => {
    const path = request.url.split('?')[0]!;
    const presents = (cookieValue(request) !== undefined && !path.startsWith('/portal/assets/')) || (request.method === 'POST' && path === '/portal/api/session');
    if (!presents) return done();
    let checked: Maybe<void>;
    try {
      checked = refusals.check(request);
    } catch (error) {
      return done(error as Error);
    }
    if (checked instanceof Promise) checked.then(() => done(), done);
    else done();
  });

  // Errors on pages are pages, in the candidate's language; errors on the JSON API are problem
  // documents. Both come from the one mapper the API uses, so an outage is a 503 with Retry-After
  // here too. The portal's own refusals say what happened; anything else is told by its status.
  app.setErrorHandler((error, request, reply) => {
    const problem = problemFor(error, request);
    if (request.url.startsWith('/portal/api/')) return sendProblem(request, reply, problem);
    if (problem.headers) reply.headers(problem.headers);
    const lang = speaking.get(request)?.lang ?? requestLanguage(request);
    const status = problem.status;
    const retry = Number(problem.headers?.['retry-after'] ?? reply.getHeader('retry-after')) || 60;
    const [title, message] =
      status === 503
        ? [t(lang, 'error.unavailable.title'), t(lang, 'error.unavailable.message')]
        : status >= 500
          ? [t(lang, 'error.server.title'), t(lang, 'error.server.message', { reference: String(request.id) })]
          : status === 429
            ? [t(lang, 'error.tooMany.title'), t(lang, 'error.tooMany.message', { seconds: retry })]
            : status === 401
              ? [t(lang, 'error.sessionEnded.title'), t(lang, 'error.sessionEnded.message')]
              : [
                  t(lang, status === 409 ? 'error.finished.title' : 'error.title'),
                  error instanceof PortalRefusal
                    ? problem.detail
                    : t(lang, status === 409 ? 'error.finished.message' : status === 403 ? 'error.forbidden' : status === 404 ? 'error.notFound.message' : 'error.invalid'),
                ];
    return html(reply, messagePage(lang, title, message, 'error'), status);
  });

  // Portal pages that are not there: a page in the candidate's language, not the API's JSON 404
  // (the more specific routes win; the JSON API's unknown paths stay problems).
  app.get('/portal/*', async (request, reply) => {
    if (request.url.startsWith('/portal/api/')) throw new Problem('not-found', `No route GET ${request.url.split('?')[0]}`);
    const lang = requestLanguage(request);
    return html(reply, messagePage(lang, t(lang, 'error.notFound.title'), t(lang, 'error.notFound.message'), 'error', '/portal/'), 404);
  });

  app.get('/portal', async (_request, reply) => reply.redirect('/portal/', 301));

  // The addresses forms post to, opened again (a reload after the browser kept the address, a
  // bookmark, the back button): the assessment's page, which shows where the candidate is (the
  // confirmation once submitted), instead of a 404.
  for (const action of ['start', 'submit', 'feedback', 'self-id']) {
    app.get<{ Params: { slug: string } }>(`/portal/a/:slug/${action}`, async (request, reply) => reply.redirect(`/portal/a/${encodeURIComponent(request.params.slug)}`, 303));
  }
  app.get<{ Params: { slug: string; n: string } }>('/portal/a/:slug/q/:n', async (request, reply) =>
    reply.redirect(`/portal/a/${encodeURIComponent(request.params.slug)}${/^\d{1,4}$/.test(request.params.n) ? `?q=${request.params.n}` : ''}`, 303),
  );

  app.get('/portal/', async (request, reply) => {
    const s = await session(request);
    if (!s) return html(reply, landingPage(requestLanguage(request)));
    const said = await speak(request, s);
    const { lang } = said;
    const items: DashboardItem[] = [];
    for (const inv of await invitations(s)) {
      const attempt = inv.status === 'IN_PROGRESS' ? await currentAttempt(inv) : inv.status === 'COMPLETED' ? await findAttempt(db, inv.invitationId) : undefined;
      const status = inv.closed === 'withdrawn' ? 'WITHDRAWN' : inv.closed === 'expired' ? 'EXPIRED' : attempt?.finishedAt ? 'COMPLETED' : inv.status;
      items.push({
        slug: inv.slug,
        name: (await shownOf(inv, attempt, said)).content.name,
        durationMinutes: inv.durationMinutes,
        status,
        minutesLeft: attempt && !attempt.finishedAt ? Math.ceil((attempt.deadlineAt.getTime() - clock().getTime()) / 60000) : undefined,
      });
    }
    return html(reply, dashboardPage(lang, s.firstName, items));
  });

  app.get('/portal/link-invalid', async (request, reply) => html(reply, invalidLinkPage(requestLanguage(request), '/portal/link-invalid'), 404));
  app.get('/portal/link-used', async (request, reply) => {
    const lang = requestLanguage(request);
    return html(reply, messagePage(lang, t(lang, 'linkUsed.title'), t(lang, 'linkUsed.message'), 'info', '/portal/link-used'));
  });

  // The footer's language switcher: the choice is kept in a cookie for the portal, and the
  // candidate comes back to the page they were on (only a portal page, never another site).
  app.post<{ Body: { lang?: unknown; back?: unknown } }>('/portal/language', async (request, reply) => {
    checkSameOrigin(request, origin);
    const lang = request.body?.lang;
    if (!isLang(lang)) throw new Problem('validation-failed', 'lang must be a language with a catalogue');
    const back = typeof request.body?.back === 'string' && /^\/portal\/(?![/\\])[^\s\\]*$/.test(request.body.back) ? request.body.back : '/portal/';
    setLanguageCookie(reply, lang, secure);
    return reply.redirect(back, 303);
  });

  app.post<{ Body: { token?: unknown } }>('/portal/api/session', { schema: { hide: true } }, async (request, reply) => {
    // Login CSRF: another site must not sign a visitor into a session of its choosing.
    checkSameOrigin(request, origin);
    const token = typeof request.body?.token === 'string' ? request.body.token : '';
    const at = clock();
    const opened = await openSession(db, token, at);
    const lang = requestLanguage(request);
    if (opened.kind === 'used') throw new Problem('conflict', t(lang, 'linkUsed.message'));
    if (opened.kind === 'invalid') {
      await refusals.failed(request);
      throw new Problem('unauthorized', t(lang, 'linkInvalid.why'));
    }
    setSessionCookie(reply, opened.value, opened.session.expiresAt, secure, at);
    return { ok: true };
  });

  registerAttemptPages(app, kit);
  registerPortalApi(app, kit);

  const asset = (file: string, type: string) => {
    const body = readFileSync(path.join(ASSETS, file));
    app.get(`/portal/assets/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=300').send(body));
  };
  asset('portal.js', 'text/javascript; charset=utf-8');
  asset('portal.css', 'text/css; charset=utf-8');
  asset('editor.js', 'text/javascript; charset=utf-8');
}
