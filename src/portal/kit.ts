// What every portal route needs: the candidate's session (read once per request, with its
// instance's brand), their language and company, the invitation behind /portal/a/:slug, its
// attempt (completed first if its time ran out), the content shown in the candidate's language,
// and the attempt pages' view. routes.ts makes one per app and hands it to attempt-pages.ts and
// api.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { currentVersion, versionContent } from '../modules/assessments/repository.js';
import { openedInvitations, type OpenedInvitation } from '../modules/invitations/repository/portal.js';
import { Problem } from '../http/problem.js';
import { pagePolicyWithStyleNonce } from '../http/page-headers.js';
import type { RefusalLimit } from '../modules/limits/rate-limit.js';
import { answersOf, findAttempt, layoutOf, type Attempt } from '../modules/attempts/repository.js';
import { completeOverdue } from '../modules/attempts/commands.js';
import { runCommand, systemRequest, type CommandRequest } from '../domain/command.js';
import { clientChanges, observeClient } from '../modules/attempts/signals.js';
import { brandOf } from '../modules/tenants/branding.js';
import { findInstanceById, type Instance } from '../modules/tenants/repository.js';
import { feedbackOf } from '../modules/attempts/feedback.js';
import { practiceOf } from '../modules/assessments/content-schema.js';
import { feedbackSection } from './fairness-pages.js';
import { checkCsrf, cookieValue, type PortalSession } from './session.js';
import { findSession, sessionKey } from '../modules/invitations/repository/portal-sessions.js';
import { completedPage, messagePage, type Page } from './pages.js';
import { t, type Lang } from '../i18n/i18n.js';
import { requestLanguage, sessionLanguage } from './language.js';
import { shownContent } from './content-language.js';
import { webcamSchedule } from '../modules/snapshots/repository.js';
import { WEBCAM_PERMISSIONS } from './webcam-pages.js';
import { shownQuestions } from '../modules/equality/questions.js';
import { selfIdForm } from '../modules/equality/repository.js';
import { selfIdSection } from './self-id-pages.js';

export type InvitationRef = OpenedInvitation;

/** A refusal whose detail is already the candidate's message, in their language. */
export class PortalRefusal extends Problem {}

/** The language and the company's name of a page, worked out once a request; `wanted`: the language the candidate asked for first. */
export interface Speaking {
  lang: Lang;
  company: string;
  wanted: string;
}
export const speaking = new WeakMap<FastifyRequest, Speaking>();
/** The instance a page's session belongs to, read once per request (for the brand, then the language). */
const sessionInstances = new WeakMap<FastifyRequest, Instance | undefined>();

// PostgreSQL stores no NUL character: text with one is refused (400) instead of failing there (500).
export const NO_NUL = '^[^\\u0000]*$';

export interface PortalKitDeps {
  db: Database;
  /** The app's clock: attempts are started, timed, saved and completed by it. */
  clock: () => Date;
  refusals: RefusalLimit;
  /** How often an address may run coding examples; unset: without limit. */
  codeRuns?: RefusalLimit;
  /** The service's public origin: a state-changing request must come from it. */
  origin: string;
}

export function portalKit({ db, clock, refusals, codeRuns, origin }: PortalKitDeps) {
  const client = (request: FastifyRequest) => ({ address: request.ip, agent: String(request.headers['user-agent'] ?? '').slice(0, 500) });
  /** A page, in the brand of the request's session once it is known. */
  const html = (reply: FastifyReply, page: Page, status = 200) => {
    const instance = sessionInstances.get(reply.request);
    if (page.styleNonce) reply.header('content-security-policy', pagePolicyWithStyleNonce(page.styleNonce));
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(page.render(instance && brandOf(instance)).toString());
  };

  async function session(request: FastifyRequest): Promise<PortalSession | undefined> {
    const value = cookieValue(request);
    if (value === undefined) return undefined;
    const found = await findSession(db, value, clock());
    if (!found) await refusals.failed(request);
    else if (!request.url.startsWith('/portal/api/')) {
      const instance = await findInstanceById(db, found.instanceId);
      sessionInstances.set(request, instance);
    }
    return found;
  }

  /** The invitations the session opens, with the attempt state of each. */
  const invitations = (s: PortalSession) => openedInvitations(db, s.candidateId, s.assessmentIds, clock());

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

  /** The attempt, completed first by the clock's command if its time ran out (the sweep does the same for absent candidates). */
  async function currentAttempt(inv: InvitationRef): Promise<Attempt | undefined> {
    let attempt = await findAttempt(db, inv.invitationId);
    const at = clock();
    if (attempt && !attempt.finishedAt && attempt.deadlineAt.getTime() <= at.getTime()) {
      const attemptId = attempt.id;
      await runCommand(db, systemRequest('attempt-deadline', at), (ctx) => completeOverdue(ctx, { attemptId }), 'attempt_completion');
      attempt = await findAttempt(db, inv.invitationId);
    }
    return attempt;
  }

  /** What the request tells of the attempt's client (a second address or browser, a headless one), recorded by a command when it tells something new. */
  async function observe(request: FastifyRequest, s: PortalSession, attempt: Attempt): Promise<void> {
    const changes = clientChanges(attempt, client(request));
    if (changes.length > 0) await runCommand(db, candidateRequest(request, s), (ctx) => observeClient(ctx, { attempt, changes }), 'client_observe');
  }

  /** The command request of a candidate's request in their session, at the app's time. */
  function candidateRequest(request: FastifyRequest, s: PortalSession): CommandRequest {
    const by = client(request);
    return { actor: { kind: 'candidate', id: s.candidateId, clientIp: by.address, userAgent: by.agent }, requestId: request.id, now: clock() };
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

  /** The completed page: the optional feedback, then the optional self-identification when the instance asks for it. */
  async function finishedPage(request: FastifyRequest, s: PortalSession, inv: InvitationRef, attempt: Attempt, selfIdState?: 'saved' | 'invalid'): Promise<Page> {
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
    await observe(request, s, attempt);
    return attempt;
  }

  /**
   * The open attempts of sessions, kept per node for the busiest request, an answer saved by
   * portal.js: who the session is, its CSRF token, the attempt and its layout do not change while
   * the attempt is open; what can change (the session's end, the attempt's end and deadline) the
   * save's statement checks every time, and a refusal drops the entry, so that the request is
   * resolved afresh and refused as it would be with no entry. Keyed by the slug and the cookie;
   * the oldest entries go past OPEN_ATTEMPTS_KEPT.
   */
  const openAttempts = new Map<string, KnownAttempt>();
  // The cookie's value itself keys the entry (it is in the request anyway): no hash per save.
  const knownKey = (request: FastifyRequest<{ Params: { slug: string } }>) => {
    const value = cookieValue(request);
    return value === undefined ? undefined : `${request.params.slug}/${value}`;
  };

  /** The request's session and open attempt as this node last resolved them, when its CSRF token matches and its client tells nothing new. */
  function knownAttempt(request: FastifyRequest<{ Params: { slug: string } }>): KnownAttempt | undefined {
    const found = openAttempts.get(knownKey(request) ?? '');
    if (!found) return undefined;
    try {
      checkCsrf(request, found.s, origin);
    } catch {
      return undefined;
    }
    return clientChanges(found.attempt, client(request)).length === 0 ? found : undefined;
  }

  /** Resolves session, CSRF, invitation and open attempt afresh (refusing as every page does), and keeps them for the next request. */
  async function resolveAttempt(request: FastifyRequest<{ Params: { slug: string } }>): Promise<KnownAttempt> {
    const { s, inv } = await forChange(request);
    const attempt = await openAttempt(inv, request, s);
    const key = knownKey(request)!;
    const found = { s, attempt, session: sessionKey(cookieValue(request)!) };
    openAttempts.delete(key);
    if (openAttempts.size >= OPEN_ATTEMPTS_KEPT) openAttempts.delete(openAttempts.keys().next().value!);
    openAttempts.set(key, found);
    return found;
  }

  /** Drops what knownAttempt keeps for the request's session and attempt. */
  function forget(request: FastifyRequest<{ Params: { slug: string } }>): void {
    openAttempts.delete(knownKey(request) ?? '');
  }

  // The practice question: before the attempt exists, so before the clock starts; its answer is
  // checked and shown with feedback, and never stored.
  async function practiceOfInvitation(inv: InvitationRef, said: Speaking) {
    if (await findAttempt(db, inv.invitationId)) return undefined;
    const { content, language, notice } = await shownOf(inv, undefined, said);
    const practice = practiceOf(content);
    return practice && { content, practice, language, notice };
  }

  return {
    db,
    clock,
    refusals,
    codeRuns,
    origin,
    client,
    html,
    session,
    invitations,
    speak,
    invitation,
    currentAttempt,
    candidateRequest,
    observe,
    requireSession,
    finishedPage,
    shownOf,
    attemptView,
    forChange,
    openAttempt,
    practiceOfInvitation,
    knownAttempt,
    resolveAttempt,
    forget,
  };
}

/** A session's open attempt as a node keeps it between saves; `session`: the cookie's hash, which the save checks. */
export interface KnownAttempt {
  s: PortalSession;
  attempt: Attempt;
  session: Buffer;
}

/** Open attempts a node keeps at most (a kilobyte or two each, the layout the most). */
const OPEN_ATTEMPTS_KEPT = 20_000;

export type PortalKit = ReturnType<typeof portalKit>;
