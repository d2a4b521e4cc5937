// The candidate portal: opening the invite link, the list of assessments, taking
// one question at a time with answers saved as given, the typing test, proctoring signals, and
// submission. Pages work as plain forms; portal.js saves as you type and keeps the countdown.
import { PAGE_HEADERS } from '../http/page-headers.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formBody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { runCommand } from '../domain/command.js';
import type { SafeHtml } from '../html/html.js';
import { currentVersion } from '../modules/assessments/repository.js';
import { openedInvitations, type OpenedInvitation } from '../modules/invitations/portal.js';
import { problemFor, sendProblem } from '../http/errors.js';
import { Problem } from '../http/problem.js';
import type { RefusalLimit } from '../modules/limits/rate-limit.js';
import { BROWSER_SIGNALS, type SignalKind } from '../modules/attempts/proctoring.js';
import { answersOf, checkAnswer, findAttempt, movePosition, saveAnswer, startAttempt, layoutOf, versionContent, type Attempt } from '../modules/attempts/repository.js';
import { completeAttempt } from '../modules/attempts/completion.js';
import { observeClient, observePace } from '../modules/attempts/signals.js';
import { MAX_REPORTED_CHARS, recordBrowserSignal } from '../modules/attempts/provenance.js';
import { startTyping, submitTyping, typingResult } from '../modules/attempts/typing-test.js';
import { brandOf } from '../modules/tenants/branding.js';
import { findInstanceById, type Instance } from '../modules/tenants/repository.js';
import { setPortalBrand, withBrandSlot } from './brand.js';
import { FEEDBACK_COMMENT_MAX, checkFeedback, feedbackOf, saveFeedback } from '../modules/attempts/feedback.js';
import { isAnswered, type AnswerValue, type CodingAnswer } from '../modules/attempts/scoring.js';
import { gradeCodingAnswers, runAgainst } from '../modules/attempts/coding-grades.js';
import { practiceOf, type QuestionContent } from '../modules/assessments/content-schema.js';
import { feedbackSection, practiceFeedback, practiceInvite, practicePage } from './fairness-pages.js';
import { checkCsrf, checkSameOrigin, cookieValue, findSession, openSession, setSessionCookie, type PortalSession } from './session.js';
import {
  completedPage,
  confirmSubmitPage,
  dashboardPage,
  introPage,
  invalidLinkPage,
  landingPage,
  messagePage,
  questionPage,
  reviewPage,
  typingPage,
  unansweredSteps,
  type DashboardItem,
} from './pages.js';
import { isLang, t, type Lang } from '../i18n/i18n.js';
import { requestLanguage, sessionLanguage, setLanguageCookie } from './language.js';
import { shownContent } from './content-language.js';
import { chooseWebcam, reportCameraUnavailable, takeSnapshot } from '../modules/snapshots/commands.js';
import { webcamSchedule } from '../modules/snapshots/repository.js';
import { WEBCAM_PERMISSIONS } from './webcam-pages.js';
import { DomainError } from '../domain/errors.js';
import { recordSelfId } from '../modules/equality/commands.js';
import { shownQuestions } from '../modules/equality/questions.js';
import { selfIdForm } from '../modules/equality/repository.js';
import { selfIdSection } from './self-id-pages.js';

// PostgreSQL stores no NUL character: text with one is refused (400) instead of failing there (500).
const NO_NUL = '^[^\\u0000]*$';
const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

type InvitationRef = OpenedInvitation;

declare module 'fastify' {
  interface FastifyRequest {
    portalSession: PortalSession | null;
  }
}

/** A question page's form: its answer (`language` with it for a coding question) and where to go. */
type QuestionForm = { value?: string | string[]; go?: string; move?: string; language?: string };

/** A form's `value` field(s) as the answer shape of the question's type (checkAnswer judges it). */
function formValue(question: QuestionContent, raw: string | string[] | undefined, language?: string): unknown {
  if (question.type === 'coding') return { language: language ?? question.languages[0], source: String(raw ?? '') };
  if (question.type === 'multiple-choice' || question.type === 'ranking') return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).map(Number);
  if (question.type === 'single-choice' || question.type === 'likert') return raw === undefined || raw === '' ? '' : Number(raw);
  return String(raw ?? '');
}

/** A ranking's order with one option moved a place up or down (unchanged at either end). */
function moved(order: number[], option: number, direction: 'up' | 'down'): number[] {
  const out = [...order];
  const from = out.indexOf(option);
  const to = from + (direction === 'up' ? -1 : 1);
  if (from >= 0 && to >= 0 && to < out.length) [out[from], out[to]] = [out[to]!, out[from]!];
  return out;
}

/** A refusal whose detail is already the candidate's message, in their language. */
class PortalRefusal extends Problem {}

/** The language and the company's name of a page, worked out once a request; `wanted`: the language the candidate asked for first. */
interface Speaking {
  lang: Lang;
  company: string;
  wanted: string;
}
const speaking = new WeakMap<FastifyRequest, Speaking>();
/** The instance a page's session belongs to, read once per request (for the brand, then the language). */
const sessionInstances = new WeakMap<FastifyRequest, Instance | undefined>();

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
  await app.register(formBody, { bodyLimit: 64 * 1024 });
  app.decorateRequest('portalSession', null);

  app.addHook('onSend', async (_request, reply) => {
    // A page that takes webcam snapshots allows the camera (WEBCAM_PERMISSIONS); every other keeps it off.
    for (const [name, value] of Object.entries(PAGE_HEADERS)) if ((name !== 'cache-control' && name !== 'permissions-policy') || !reply.hasHeader(name)) reply.header(name, value);
  });

  // Each page is drawn in its instance's brand once the session says whose candidate this is.
  app.addHook('preHandler', (_request, _reply, done) => withBrandSlot(done));

  const client = (request: FastifyRequest) => ({ address: request.ip, agent: String(request.headers['user-agent'] ?? '').slice(0, 500) });
  const html = (reply: FastifyReply, body: SafeHtml, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body.toString());

  // Guessing at link tokens or session cookies: an address refused too often is turned away
  // before what it presents is looked at (429 with Retry-After, on pages too).
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    const presents = (cookieValue(request) !== undefined && !path.startsWith('/portal/assets/')) || (request.method === 'POST' && path === '/portal/api/session');
    if (presents) await refusals.check(request);
  });

  async function session(request: FastifyRequest): Promise<PortalSession | undefined> {
    const value = cookieValue(request);
    if (value === undefined) return undefined;
    const found = await findSession(db, value);
    if (!found) await refusals.failed(request);
    else if (!request.url.startsWith('/portal/api/')) {
      const instance = await findInstanceById(db, found.instanceId);
      sessionInstances.set(request, instance);
      if (instance) setPortalBrand(brandOf(instance));
    }
    return found;
  }

  /** The invitations the session opens, with the attempt state of each. */
  const invitations = (s: PortalSession) => openedInvitations(db, s.candidateId, s.assessmentIds);

  /** The candidate's language (and the company's name) for a request in a session; remembered for its error page. */
  async function speak(request: FastifyRequest, s: PortalSession): Promise<Speaking> {
    const known = speaking.get(request);
    if (known) return known;
    const { lang, instance, wanted } = await sessionLanguage(db, request, s, sessionInstances.has(request) ? { instance: sessionInstances.get(request) } : undefined);
    const found = { lang, company: instance ? brandOf(instance).company : '', wanted };
    speaking.set(request, found);
    return found;
  }

  /** The invitation behind /portal/a/:slug, only if this session opens it. */
  async function invitation(request: FastifyRequest, s: PortalSession, slug: string): Promise<InvitationRef> {
    const found = (await invitations(s)).find((i) => i.slug === slug);
    if (!found) throw new PortalRefusal('not-found', t((await speak(request, s)).lang, 'error.notInvited'));
    if (found.closed) {
      const { lang, company } = await speak(request, s);
      throw new PortalRefusal('conflict', t(lang, found.closed === 'withdrawn' ? 'error.withdrawn' : 'error.expired', { company }));
    }
    return found;
  }

  /** The attempt, completed first if its time ran out (the sweep does the same for absent candidates). */
  async function currentAttempt(inv: InvitationRef): Promise<Attempt | undefined> {
    let attempt = await findAttempt(db, inv.invitationId);
    const at = clock();
    if (attempt && !attempt.finishedAt && attempt.deadlineAt.getTime() <= at.getTime()) {
      await completeAttempt(db, attempt.id, 'time-limit', at);
      attempt = await findAttempt(db, inv.invitationId);
    }
    return attempt;
  }

  async function requireSession(request: FastifyRequest, reply: FastifyReply): Promise<PortalSession | undefined> {
    const s = await session(request);
    if (!s) {
      const lang = requestLanguage(request);
      html(reply, messagePage(lang, t(lang, 'error.sessionEnded.title'), t(lang, 'error.sessionEnded.message')), 401);
      return undefined;
    }
    return s;
  }

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
    const opened = await openSession(db, token);
    const lang = requestLanguage(request);
    if (opened.kind === 'used') throw new Problem('conflict', t(lang, 'linkUsed.message'));
    if (opened.kind === 'invalid') {
      await refusals.failed(request);
      throw new Problem('unauthorized', t(lang, 'linkInvalid.why'));
    }
    setSessionCookie(reply, opened.value, opened.session.expiresAt, secure);
    return { ok: true };
  });

  app.get<{ Params: { slug: string }; Querystring: { q?: string; 'self-id'?: string } }>('/portal/a/:slug', async (request, reply) => {
    const s = await requireSession(request, reply);
    if (!s) return reply;
    const inv = await invitation(request, s, request.params.slug);
    const said = await speak(request, s);
    const { lang } = said;
    const attempt = await currentAttempt(inv);
    if (!attempt) {
      const { content, notice } = await shownOf(inv, undefined, said);
      return html(reply, introPage(lang, content, s.csrfToken, inv.slug, inv.durationMinutes, content.practice && practiceInvite(lang, inv.slug), notice));
    }
    if (attempt.finishedAt) return html(reply, await finishedPage(request, s, inv, attempt, request.query['self-id'] === 'saved' ? 'saved' : undefined));
    await observeClient(db, attempt, client(request));
    // Positions (?q=n) are places in this attempt's own order of the questions it was given.
    const { view, content, answers, layout } = await attemptView(said, s, inv, attempt, reply);
    const total = view.total;
    const q = request.query.q;
    if (q === 'review') return html(reply, reviewPage(view));
    const position = q === undefined ? attempt.position : Number(q);
    if (!Number.isInteger(position) || position < 1 || position > total) return reply.redirect(`/portal/a/${inv.slug}`, 303);
    if (position !== attempt.position) await movePosition(db, attempt, position);
    view.position = position;
    if (position > layout.questions.length) {
      const done = attempt.typingWpm !== null ? await typingResult(db, attempt.id) : undefined;
      return html(reply, typingPage(view, content.typingTest!.passage, done, attempt.typingStartedAt !== null));
    }
    const question = content.questions.find((q) => q.id === layout.questions[position - 1])!;
    return html(reply, questionPage(view, question, answers[question.id], layout.options[question.id]));
  });

  /** The completed page: the optional feedback, then the optional self-identification when the instance asks for it. */
  async function finishedPage(request: FastifyRequest, s: PortalSession, inv: InvitationRef, attempt: Attempt, selfIdState?: 'saved' | 'invalid'): Promise<SafeHtml> {
    const said = await speak(request, s);
    const { lang, company } = said;
    const { name } = (await shownOf(inv, attempt, said)).content;
    const feedback = feedbackSection(lang, inv.slug, s.csrfToken, (await feedbackOf(db, attempt.id)) !== undefined);
    const form = await selfIdForm(db, s.instanceId, inv.invitationId);
    const selfId =
      form && selfIdSection(lang, { slug: inv.slug, csrf: s.csrfToken, company, questions: shownQuestions(form.own, lang), current: form.current, state: selfIdState });
    return completedPage(lang, name, feedback, selfId || undefined);
  }

  /**
   * The content an invitation shows the candidate, in their language when it has it: the attempt's
   * version in the attempt's language once started, else the current version.
   */
  async function shownOf(inv: InvitationRef, attempt: Attempt | undefined, said: Speaking) {
    const content = attempt
      ? await versionContent(db, attempt.assessmentId, attempt.version)
      : await versionContent(db, inv.assessmentId, await currentVersion(db, inv.assessmentId));
    return shownContent(content, said.lang, said.wanted, attempt?.language);
  }

  /** What the attempt's pages show: its questions (in the attempt's language), what is answered, the clock; a page with webcam snapshots may use the camera. */
  async function attemptView(said: Speaking, s: PortalSession, inv: InvitationRef, attempt: Attempt, reply: FastifyReply) {
    const { lang } = said;
    const { content, language, notice } = await shownOf(inv, attempt, said);
    const layout = layoutOf(attempt, content);
    const answers = await answersOf(db, attempt.id);
    const answered = new Set(Object.keys(answers));
    if (attempt.typingWpm !== null) answered.add('typing');
    const view = {
      lang,
      slug: inv.slug,
      name: content.name,
      csrf: s.csrfToken,
      position: attempt.position,
      total: layout.questions.length + (content.typingTest ? 1 : 0),
      deadline: attempt.deadlineAt,
      now: clock(),
      answered,
      questionIds: layout.questions,
      hasTyping: content.typingTest !== undefined,
      webcam: await webcamSchedule(db, attempt.id, clock()),
      contentLang: language,
      languageNotice: notice,
    };
    if (view.webcam?.choice === 'agreed') reply.header('permissions-policy', WEBCAM_PERMISSIONS);
    return { view, content, answers, layout };
  }

  /** Resolves session, CSRF, invitation and open attempt for a state-changing request. */
  async function forChange(request: FastifyRequest<{ Params: { slug: string } }>) {
    const s = await session(request);
    if (!s) throw new Problem('unauthorized', 'Your session has ended: open the link from your invitation e-mail again');
    checkCsrf(request, s, origin);
    const inv = await invitation(request, s, request.params.slug);
    return { s, inv };
  }

  async function openAttempt(inv: InvitationRef, request: FastifyRequest, s: PortalSession): Promise<Attempt> {
    const attempt = await currentAttempt(inv);
    if (!attempt || attempt.finishedAt) {
      const { lang } = await speak(request, s);
      throw new PortalRefusal('conflict', t(lang, attempt ? 'error.finished.message' : 'error.notStarted'));
    }
    await observeClient(db, attempt, client(request));
    return attempt;
  }

  // The practice question: before the attempt exists, so before the clock starts; its answer is
  // checked and shown with feedback, and never stored.
  async function practiceOfInvitation(inv: InvitationRef, said: Speaking) {
    if (await findAttempt(db, inv.invitationId)) return undefined;
    const { content, language, notice } = await shownOf(inv, undefined, said);
    const practice = practiceOf(content);
    return practice && { content, practice, language, notice };
  }

  app.get<{ Params: { slug: string } }>('/portal/a/:slug/practice', async (request, reply) => {
    const s = await requireSession(request, reply);
    if (!s) return reply;
    const inv = await invitation(request, s, request.params.slug);
    const said = await speak(request, s);
    const found = await practiceOfInvitation(inv, said);
    if (!found) return reply.redirect(`/portal/a/${inv.slug}`, 303);
    const { lang } = said;
    return html(reply, practicePage(lang, found.content, found.practice, { csrf: s.csrfToken, slug: inv.slug, contentLang: found.language, languageNotice: found.notice }));
  });

  app.post<{ Params: { slug: string }; Body: { value?: string | string[]; move?: string } }>('/portal/a/:slug/practice', async (request, reply) => {
    const { s, inv } = await forChange(request);
    const said = await speak(request, s);
    const found = await practiceOfInvitation(inv, said);
    if (!found) return reply.redirect(`/portal/a/${inv.slug}`, 303);
    const { content, practice } = found;
    const { lang } = said;
    const value = formValue(practice, request.body?.value);
    const page = (extra: { answer?: AnswerValue; feedback?: { correct: boolean | null; message: string }; notice?: string }) =>
      html(reply, practicePage(lang, content, practice, { csrf: s.csrfToken, slug: inv.slug, contentLang: found.language, languageNotice: found.notice, ...extra }));
    const noAnswer = t(lang, 'practice.noAnswer', { check: t(lang, 'practice.check') });
    const move = /^(\d+):(up|down)$/.exec(request.body?.move ?? '');
    if (practice.type === 'ranking' && move && Array.isArray(value)) return page({ answer: moved(value, Number(move[1]), move[2] as 'up' | 'down') });
    let answer: AnswerValue;
    try {
      answer = checkAnswer(practice, value);
    } catch {
      return page({ notice: noAnswer });
    }
    if (!isAnswered(practice, answer)) return page({ notice: noAnswer });
    return page({ answer, feedback: practiceFeedback(lang, practice, answer) });
  });

  // Feedback after submitting: once per attempt; a second one changes nothing and says so.
  app.post<{ Params: { slug: string }; Body: { rating?: unknown; comment?: unknown } }>('/portal/a/:slug/feedback', async (request, reply) => {
    const { s, inv } = await forChange(request);
    const { lang } = await speak(request, s);
    const attempt = await currentAttempt(inv);
    if (!attempt?.finishedAt) throw new PortalRefusal('conflict', t(lang, 'feedback.notFinished'));
    let feedback: ReturnType<typeof checkFeedback>;
    try {
      feedback = checkFeedback(request.body?.rating, request.body?.comment);
    } catch {
      throw new PortalRefusal('malformed-request', t(lang, 'feedback.invalid', { max: FEEDBACK_COMMENT_MAX }));
    }
    if (!(await saveFeedback(db, attempt.id, feedback))) throw new PortalRefusal('conflict', t(lang, 'feedback.already'));
    return reply.redirect(`/portal/a/${inv.slug}`, 303);
  });

  // Start: with an assessment that takes webcam snapshots, the button pressed carries the
  // candidate's choice (webcam=agreed|declined), recorded in the same transaction as the start.
  app.post<{ Params: { slug: string }; Body: { webcam?: unknown } }>('/portal/a/:slug/start', async (request, reply) => {
    const { s, inv } = await forChange(request);
    const by = client(request);
    const actor = { kind: 'candidate' as const, id: s.candidateId, clientIp: by.address, userAgent: by.agent };
    // The content is shown in the candidate's portal language when it has it, for the whole attempt.
    const { lang } = await speak(request, s);
    await runCommand(
      db,
      { actor, requestId: request.id, now: clock() },
      async (ctx) => {
        const attempt = await startAttempt(ctx, { invitationId: inv.invitationId, client: by, language: lang });
        await chooseWebcam(ctx, { attempt, choice: request.body?.webcam, client: by });
      },
      'attempt_start',
    );
    return reply.redirect(`/portal/a/${inv.slug}`, 303);
  });

  // A plain form post: saves the answer and moves on.
  // A ranking's Move up / Move down buttons post here too (move = "<option>:up|down"): the order is
  // saved with that option moved, and the same question shown again.
  app.post<{ Params: { slug: string; n: string }; Body: QuestionForm }>('/portal/a/:slug/q/:n', async (request, reply) => {
    const { s, inv } = await forChange(request);
    const attempt = await openAttempt(inv, request, s);
    const content = await versionContent(db, attempt.assessmentId, attempt.version);
    const layout = layoutOf(attempt, content);
    const n = Number(request.params.n);
    const id = Number.isInteger(n) && n >= 1 ? layout.questions[n - 1] : undefined;
    const question = content.questions.find((q) => q.id === id);
    if (!question) throw new PortalRefusal('not-found', t((await speak(request, s)).lang, 'error.noQuestion'));
    const value = formValue(question, request.body?.value, request.body?.language);
    const move = /^(\d+):(up|down)$/.exec(request.body?.move ?? '');
    if (question.type === 'ranking' && move && Array.isArray(value)) {
      await saveAnswer(db, attempt, question.id, moved(value, Number(move[1]), move[2] as 'up' | 'down'), n, clock());
      return reply.redirect(`/portal/a/${inv.slug}?q=${n}`, 303);
    }
    const total = layout.questions.length + (content.typingTest ? 1 : 0);
    const go = request.body?.go;
    const next = go === 'previous' ? Math.max(1, n - 1) : Math.min(total, n + 1);
    if ((question.type === 'single-choice' || question.type === 'likert') && value === '') await movePosition(db, attempt, next);
    else await saveAnswer(db, attempt, question.id, value, next, clock());
    return reply.redirect(go === 'review' ? `/portal/a/${inv.slug}?q=review` : `/portal/a/${inv.slug}?q=${next}`, 303);
  });

  // Saving as you go (portal.js): JSON in, 204 out.
  app.put<{ Params: { slug: string; questionId: string }; Body: { value?: unknown } }>(
    '/portal/api/a/:slug/answers/:questionId',
    {
      schema: {
        hide: true,
        body: {
          type: 'object',
          required: ['value'],
          properties: {
            // A coding answer is an object {language, source} (checkAnswer judges its fields).
            value: { type: ['integer', 'string', 'array', 'object'], items: { type: 'integer' }, maxItems: 20, maxLength: 20000, maxProperties: 2 },
          },
        },
      },
    },
    async (request, reply) => {
      const { s, inv } = await forChange(request);
      const attempt = await openAttempt(inv, request, s);
      await saveAnswer(db, attempt, request.params.questionId, request.body.value, attempt.position, clock());
      return reply.code(204).send();
    },
  );

  // "Run examples" on a coding question: the candidate's program against the question's visible
  // examples, in the sandbox's pool, while the attempt is open. Nothing is saved or scored; the
  // runs an address may start are limited (codeRuns), and each waits its turn in the pool.
  app.post<{ Params: { slug: string; questionId: string }; Body: { value?: unknown } }>(
    '/portal/api/a/:slug/run/:questionId',
    { schema: { hide: true, body: { type: 'object', required: ['value'], properties: { value: { type: 'object', maxProperties: 2 } } } } },
    async (request) => {
      const { s, inv } = await forChange(request);
      const attempt = await openAttempt(inv, request, s);
      const content = await versionContent(db, attempt.assessmentId, attempt.version);
      const shown = layoutOf(attempt, content).questions.includes(request.params.questionId);
      const question = shown ? content.questions.find((q) => q.id === request.params.questionId) : undefined;
      if (question?.type !== 'coding' || !question.examples?.length) throw new Problem('not-found', 'This question has no examples to run');
      const answer = checkAnswer(question, request.body.value) as CodingAnswer;
      await codeRuns?.reserve(request);
      const result = await runAgainst(question, answer, question.examples);
      return {
        status: result.status,
        examples: result.tests.map(({ passed, status, stdout, stderr, truncated, actual, expected, error, durationMs }) => ({
          passed,
          status,
          stdout,
          stderr,
          truncated,
          actual,
          expected,
          error,
          durationMs,
        })),
      };
    },
  );

  app.post<{ Params: { slug: string }; Body: { kind: string; detail?: string; chars?: number; keystrokes?: number; question?: string } }>(
    '/portal/api/a/:slug/signals',
    {
      schema: {
        hide: true,
        body: {
          type: 'object',
          required: ['kind'],
          additionalProperties: false,
          properties: {
            kind: { type: 'string', enum: BROWSER_SIGNALS },
            detail: { type: 'string', maxLength: 500, pattern: NO_NUL },
            chars: { type: 'integer', minimum: 0, maximum: MAX_REPORTED_CHARS },
            keystrokes: { type: 'integer', minimum: 0, maximum: MAX_REPORTED_CHARS },
            question: { type: 'string', maxLength: 100, pattern: NO_NUL },
          },
        },
      },
    },
    async (request, reply) => {
      const { inv } = await forChange(request);
      const attempt = await currentAttempt(inv);
      if (attempt && !attempt.finishedAt) await recordBrowserSignal(db, attempt, { ...request.body, kind: request.body.kind as SignalKind });
      return reply.code(204).send();
    },
  );

  // Webcam snapshots (portal.js, after the candidate agreed): the JPEG as the body. The parser
  // keeps the bytes whatever image type is declared, so that what they are is judged from them.
  const keepBytes = (_request: unknown, body: string | Buffer, done: (error: null, body: Buffer) => void) => done(null, Buffer.from(body));
  app.addContentTypeParser(/^image\//, { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, keepBytes);
  const candidateRequest = (request: FastifyRequest, s: PortalSession) => {
    const by = client(request);
    return { actor: { kind: 'candidate' as const, id: s.candidateId, clientIp: by.address, userAgent: by.agent }, requestId: request.id, now: clock() };
  };

  // Voluntary self-identification after submitting: fields q.<question> = <option>; the command
  // checks them, and a refused one shows the page again (400) with nothing changed.
  app.post<{ Params: { slug: string }; Body: Record<string, unknown> }>('/portal/a/:slug/self-id', async (request, reply) => {
    const { s, inv } = await forChange(request);
    const { lang, company } = await speak(request, s);
    const attempt = await currentAttempt(inv);
    if (!attempt?.finishedAt) throw new PortalRefusal('conflict', t(lang, 'selfId.notFinished'));
    if (!(await selfIdForm(db, s.instanceId, inv.invitationId))) throw new PortalRefusal('conflict', t(lang, 'selfId.off', { company }));
    const answers = Object.fromEntries(
      Object.entries(request.body ?? {})
        .filter(([name]) => name.startsWith('q.'))
        .map(([name, value]) => [name.slice(2), value]),
    );
    try {
      await runCommand(db, candidateRequest(request, s), (ctx) => recordSelfId(ctx, { invitationId: inv.invitationId, answers }), 'self_id_record');
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
      return html(reply, await finishedPage(request, s, inv, attempt, 'invalid'), 400);
    }
    return reply.redirect(`/portal/a/${inv.slug}?self-id=saved#self-id`, 303);
  });

  app.post<{ Params: { slug: string } }>('/portal/api/a/:slug/webcam/snapshots', { schema: { hide: true } }, async (request, reply) => {
    const { s, inv } = await forChange(request);
    const attempt = await openAttempt(inv, request, s);
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const taken = await runCommand(db, candidateRequest(request, s), (ctx) => takeSnapshot(ctx, { attempt, bytes }), 'webcam_snapshot');
    return reply.code(201).send({ takenAt: taken.takenAt.toISOString(), nextAt: taken.nextAt.toISOString() });
  });

  app.post<{ Params: { slug: string }; Body: { detail: string } }>(
    '/portal/api/a/:slug/webcam/unavailable',
    {
      schema: {
        hide: true,
        body: { type: 'object', required: ['detail'], additionalProperties: false, properties: { detail: { type: 'string', maxLength: 200, pattern: NO_NUL } } },
      },
    },
    async (request, reply) => {
      const { s, inv } = await forChange(request);
      const attempt = await openAttempt(inv, request, s);
      await runCommand(db, candidateRequest(request, s), (ctx) => reportCameraUnavailable(ctx, { attempt, detail: request.body.detail }), 'webcam_unavailable');
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { slug: string } }>('/portal/api/a/:slug/typing/start', { schema: { hide: true } }, async (request, reply) => {
    const { s, inv } = await forChange(request);
    const attempt = await openAttempt(inv, request, s);
    await startTyping(db, attempt, clock());
    return reply.code(204).send();
  });

  app.post<{ Params: { slug: string }; Body: { typed: string; intervals: number[] } }>(
    '/portal/api/a/:slug/typing',
    {
      schema: {
        hide: true,
        body: {
          type: 'object',
          required: ['typed', 'intervals'],
          properties: {
            typed: { type: 'string', maxLength: 10000, pattern: NO_NUL },
            intervals: { type: 'array', maxItems: 20000, items: { type: 'number', minimum: 0, maximum: 3600000 } },
          },
        },
      },
    },
    async (request) => {
      const { s, inv } = await forChange(request);
      const attempt = await openAttempt(inv, request, s);
      const result = await submitTyping(db, attempt, request.body.typed, request.body.intervals, clock());
      return { netWpm: Math.round(result.netWpm * 100) / 100, accuracy: Math.round(result.accuracy * 100) / 100 };
    },
  );

  // Gradings started by submits, which a closing app lets finish before its store goes.
  const gradings = new Set<Promise<unknown>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...gradings]);
  });

  app.post<{ Params: { slug: string }; Body: { from?: unknown } }>('/portal/a/:slug/submit', async (request, reply) => {
    const { s, inv } = await forChange(request);
    const attempt = await currentAttempt(inv);
    if (!attempt) throw new PortalRefusal('conflict', t((await speak(request, s)).lang, 'error.notStarted'));
    // The review page's button (from=review) with questions unanswered asks first, naming how
    // many, on a page of its own whose button submits for good. Leaving questions open is the
    // candidate's right, so a post without from=review (that page's, a script's) submits.
    // Submitting twice (a double click, a retry) is harmless: the first one counts.
    if (!attempt.finishedAt && request.body?.from === 'review') {
      const { view } = await attemptView(await speak(request, s), s, inv, attempt, reply);
      if (unansweredSteps(view).length > 0) return html(reply, confirmSubmitPage(view));
    }
    await observePace(db, attempt);
    await completeAttempt(db, attempt.id, 'submitted', clock());
    // Coding answers are graded in the sandbox after the response (seconds for Python); the
    // score stays PENDING meanwhile, and the coding-grades job takes up what this does not finish.
    if ((await versionContent(db, attempt.assessmentId, attempt.version)).questions.some((q) => q.type === 'coding')) {
      const grading = gradeCodingAnswers(db, { attemptId: attempt.id })
        .catch((error: unknown) => request.log.error({ err: error, attemptId: attempt.id }, 'could not grade coding answers'))
        .finally(() => gradings.delete(grading));
      gradings.add(grading);
    }
    return reply.redirect(`/portal/a/${inv.slug}`, 303);
  });

  const asset = (file: string, type: string) => {
    const body = readFileSync(path.join(ASSETS, file));
    app.get(`/portal/assets/${file}`, async (_request, reply) => reply.type(type).header('cache-control', 'public, max-age=300').send(body));
  };
  asset('portal.js', 'text/javascript; charset=utf-8');
  asset('portal.css', 'text/css; charset=utf-8');
  asset('editor.js', 'text/javascript; charset=utf-8');
}
