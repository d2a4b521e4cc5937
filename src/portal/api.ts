// The portal's JSON API of an open attempt (portal.js calls it): saving an answer as it is given,
// running a coding question's examples, proctoring signals, webcam snapshots, the typing test,
// and the optional self-identification form after submitting.
import type { FastifyInstance } from 'fastify';
import { runCommand, runOneStatementCommand } from '../domain/command.js';
import { Problem } from '../http/problem.js';
import { BROWSER_SIGNALS, type SignalKind } from '../modules/attempts/proctoring.js';
import { checkAnswer, layoutOf } from '../modules/attempts/repository.js';
import { versionContent } from '../modules/assessments/repository.js';
import { saveAnswer } from '../modules/attempts/commands.js';
import { AnswerSaves } from '../modules/attempts/answer-saves.js';
import { MAX_REPORTED_CHARS, recordBrowserSignal } from '../modules/attempts/provenance.js';
import { startTyping, submitTyping } from '../modules/attempts/typing-test.js';
import { type CodingAnswer } from '../modules/attempts/scoring.js';
import { runAgainst } from '../modules/attempts/coding-grades.js';
import { OwnerRunsWaiting } from '../modules/coding/sandbox.js';
import { t } from '../i18n/i18n.js';
import { reportCameraUnavailable, takeSnapshot } from '../modules/snapshots/commands.js';
import { DomainError } from '../domain/errors.js';
import { recordSelfId } from '../modules/equality/commands.js';
import { selfIdForm } from '../modules/equality/repository.js';

import { NO_NUL, PortalRefusal, type KnownAttempt, type PortalKit } from './kit.js';

export function registerPortalApi(app: FastifyInstance, kit: PortalKit): void {
  const { db, codeRuns, html, speak, currentAttempt, candidateRequest, finishedPage, forChange, openAttempt, knownAttempt, resolveAttempt, forget } = kit;
  // Saving as you go (portal.js): JSON in, 204 out. The saves that arrive together are written together.
  const together = new AnswerSaves(db);
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
      const save = ({ s, attempt, session }: KnownAttempt) =>
        runOneStatementCommand(db, candidateRequest(request, s), (ctx) =>
          saveAnswer(ctx, { attempt, questionId: request.params.questionId, value: request.body.value, session, together }),
        );
      // What this node knows of the session's open attempt saves the reads; a refusal of the
      // save's statement (the attempt or the session ended) resolves it all afresh, and refuses so.
      const known = knownAttempt(request);
      if (known) {
        try {
          await save(known);
          return reply.code(204).send();
        } catch (error) {
          if (!(error instanceof DomainError && (error.code === 'conflict' || error.code === 'forbidden'))) throw error;
          forget(request);
        }
      }
      await save(await resolveAttempt(request));
      return reply.code(204).send();
    },
  );

  // "Run examples" on a coding question: the candidate's program against the question's visible
  // examples, in the sandbox's pool, while the attempt is open. Nothing is saved or scored; the
  // runs an address may start are limited (codeRuns), and each waits its turn in the pool, behind
  // the attempt's own previous run and behind grading.
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
      // In the examples' lane, one at a time per attempt: a candidate's runs never hold more than one place in the pool.
      const result = await runAgainst(question, answer, question.examples, undefined, { lane: 'examples', owner: attempt.id }).catch((error: unknown) => {
        if (error instanceof OwnerRunsWaiting) throw new Problem('rate-limited', 'Your earlier runs are still going: wait for their results, then run again');
        throw error;
      });
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
      const { s, inv } = await forChange(request);
      const attempt = await currentAttempt(inv);
      const report = { ...request.body, kind: request.body.kind as SignalKind };
      if (attempt && !attempt.finishedAt) await runCommand(db, candidateRequest(request, s), (ctx) => recordBrowserSignal(ctx, { attempt, report }), 'signal_record');
      return reply.code(204).send();
    },
  );

  // Webcam snapshots (portal.js, after the candidate agreed): the JPEG as the body. The parser
  // keeps the bytes whatever image type is declared, so that what they are is judged from them.
  const keepBytes = (_request: unknown, body: string | Buffer, done: (error: null, body: Buffer) => void) => done(null, Buffer.from(body));
  app.addContentTypeParser(/^image\//, { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, keepBytes);

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
    await runCommand(db, candidateRequest(request, s), (ctx) => startTyping(ctx, { attempt }), 'typing_start');
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
      const { typed, intervals } = request.body;
      const result = await runCommand(db, candidateRequest(request, s), (ctx) => submitTyping(ctx, { attempt, typed, intervalsMs: intervals }), 'typing_submit');
      return { netWpm: Math.round(result.netWpm * 100) / 100, accuracy: Math.round(result.accuracy * 100) / 100 };
    },
  );
}
