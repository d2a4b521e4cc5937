// The pages of taking an assessment: the intro (or the finished page), the practice question, the
// feedback, starting (with the webcam choice), a question's form, and submitting.
import type { FastifyInstance } from 'fastify';
import { runCommand, runOneStatementCommand } from '../domain/command.js';
import { checkAnswer, startAttempt, layoutOf } from '../modules/attempts/repository.js';
import { versionContent } from '../modules/assessments/repository.js';
import { moveTo, saveAnswer, submitAttempt } from '../modules/attempts/commands.js';
import { typingResult } from '../modules/attempts/typing-test.js';
import { FEEDBACK_COMMENT_MAX, checkFeedback, saveFeedback } from '../modules/attempts/feedback.js';
import { isAnswered, type AnswerValue } from '../modules/attempts/scoring.js';
import { gradeCodingAnswers } from '../modules/attempts/coding-grades.js';
import { type QuestionContent } from '../modules/assessments/content-schema.js';
import { practiceFeedback, practiceInvite, practicePage } from './fairness-pages.js';
import { confirmSubmitPage, introPage, questionPage, reviewPage, typingPage, unansweredSteps } from './pages.js';
import { t } from '../i18n/i18n.js';
import { chooseWebcam } from '../modules/snapshots/commands.js';

import { PortalRefusal, type PortalKit } from './kit.js';

/** A question page's form: its answer (`language` with it for a coding question) and where to go. */
type QuestionForm = { value?: string | string[]; go?: string; move?: string; language?: string };

/**
 * A textarea's text as the person typed it: a form post sends its line breaks as CRLF (as HTML
 * has browsers do), the page's own save as the textarea holds them (LF); both are kept as LF.
 */
const typed = (raw: string | string[] | undefined) => String(raw ?? '').replace(/\r\n?/g, '\n');

/** A form's `value` field(s) as the answer shape of the question's type (checkAnswer judges it). */
function formValue(question: QuestionContent, raw: string | string[] | undefined, language?: string): unknown {
  if (question.type === 'coding') return { language: language ?? question.languages[0], source: typed(raw) };
  if (question.type === 'multiple-choice' || question.type === 'ranking') return (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).map(Number);
  if (question.type === 'single-choice' || question.type === 'likert') return raw === undefined || raw === '' ? '' : Number(raw);
  return typed(raw);
}

/** A ranking's order with one option moved a place up or down (unchanged at either end). */
function moved(order: number[], option: number, direction: 'up' | 'down'): number[] {
  const out = [...order];
  const from = out.indexOf(option);
  const to = from + (direction === 'up' ? -1 : 1);
  if (from >= 0 && to >= 0 && to < out.length) [out[from], out[to]] = [out[to]!, out[from]!];
  return out;
}

export function registerAttemptPages(app: FastifyInstance, kit: PortalKit): void {
  const {
    db,
    clock,
    client,
    html,
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
  } = kit;
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
    await observe(request, s, attempt);
    // Positions (?q=n) are places in this attempt's own order of the questions it was given.
    const { view, content, answers, layout } = await attemptView(said, s, inv, attempt, reply);
    const total = view.total;
    const q = request.query.q;
    if (q === 'review') return html(reply, reviewPage(view));
    const position = q === undefined ? attempt.position : Number(q);
    if (!Number.isInteger(position) || position < 1 || position > total) return reply.redirect(`/portal/a/${inv.slug}`, 303);
    if (position !== attempt.position) await runOneStatementCommand(db, candidateRequest(request, s), (ctx) => moveTo(ctx, { attempt, position }));
    view.position = position;
    if (position > layout.questions.length) {
      const done = attempt.typingWpm !== null ? await typingResult(db, attempt.id) : undefined;
      return html(reply, typingPage(view, content.typingTest!.passage, done, attempt.typingStartedAt !== null));
    }
    const question = content.questions.find((q) => q.id === layout.questions[position - 1])!;
    return html(reply, questionPage(view, question, answers[question.id], layout.options[question.id]));
  });

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
    const attemptId = attempt.id;
    if (!(await runOneStatementCommand(db, candidateRequest(request, s), (ctx) => saveFeedback(ctx, { attemptId, feedback }))))
      throw new PortalRefusal('conflict', t(lang, 'feedback.already'));
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
      const order = moved(value, Number(move[1]), move[2] as 'up' | 'down');
      await runOneStatementCommand(db, candidateRequest(request, s), (ctx) => saveAnswer(ctx, { attempt, questionId: question.id, value: order, position: n }));
      return reply.redirect(`/portal/a/${inv.slug}?q=${n}`, 303);
    }
    const total = layout.questions.length + (content.typingTest ? 1 : 0);
    const go = request.body?.go;
    const next = go === 'previous' ? Math.max(1, n - 1) : Math.min(total, n + 1);
    await runOneStatementCommand(db, candidateRequest(request, s), (ctx) =>
      (question.type === 'single-choice' || question.type === 'likert') && value === ''
        ? moveTo(ctx, { attempt, position: next })
        : saveAnswer(ctx, { attempt, questionId: question.id, value, position: next }),
    );
    return reply.redirect(go === 'review' ? `/portal/a/${inv.slug}?q=review` : `/portal/a/${inv.slug}?q=${next}`, 303);
  });

  // Gradings started by submits, which a closing app lets finish before its store goes.
  const gradings = new Set<Promise<unknown>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...gradings]);
  });

  app.post<{ Params: { slug: string }; Body: { from?: unknown } }>('/portal/a/:slug/submit', async (request, reply) => {
    const { s, inv } = await forChange(request);
    // The review page's button (from=review) with questions unanswered asks first, naming how
    // many, on a page of its own whose button submits for good. Leaving questions open is the
    // candidate's right, so a post without from=review (that page's, a script's) submits.
    // Submitting twice (a double click, a retry) is harmless: the first one counts.
    if (request.body?.from === 'review') {
      const attempt = await currentAttempt(inv);
      if (attempt && !attempt.finishedAt) {
        const { view } = await attemptView(await speak(request, s), s, inv, attempt, reply);
        if (unansweredSteps(view).length > 0) return html(reply, confirmSubmitPage(view));
      }
    }
    // By the invitation: the command locks it and its attempt, with no read of the attempt before
    // (one past its time ends at its deadline there, as the clock's completion ends it).
    const submitted = await runCommand(db, candidateRequest(request, s), (ctx) => submitAttempt(ctx, { invitationId: inv.invitationId }), 'attempt_completion');
    const attempt = submitted.attempt;
    if (!attempt) throw new PortalRefusal('conflict', t((await speak(request, s)).lang, 'error.notStarted'));
    // Coding answers are graded in the sandbox after the response (seconds for Python); the
    // score stays PENDING meanwhile, and the coding-grades job takes up what this does not finish.
    if (submitted.codingToGrade) {
      const grading = gradeCodingAnswers(db, { attemptId: attempt.id, now: clock() })
        .catch((error: unknown) => request.log.error({ err: error, attemptId: attempt.id }, 'could not grade coding answers'))
        .finally(() => gradings.delete(grading));
      gradings.add(grading);
    }
    return reply.redirect(`/portal/a/${inv.slug}`, 303);
  });
}
