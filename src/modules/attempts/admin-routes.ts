// The operator's view of attempts: what happened (with the proctoring signals and the rules
// they tripped) and the free-text answers waiting for a score.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { notFound } from '../../domain/errors.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { attemptOwner, attemptResult, attemptsOfCandidate, pendingReviews } from './report.js';
import { reviewAnswer } from './repository.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const AttemptView = Type.Object({
  attemptId: Type.String(),
  assessmentId: Type.String(),
  version: Type.Integer({ description: 'The content version the candidate took' }),
  startedAt: DateTime(),
  deadlineAt: DateTime(),
  finishedAt: Type.Union([DateTime(), Type.Null()]),
  endReason: Nullable(Type.String({ description: 'submitted or time-limit' })),
  typingNetWpm: Type.Union([Type.Number(), Type.Null()]),
  typingAccuracy: Type.Union([Type.Number(), Type.Null()]),
  redFlag: Type.Boolean(),
  redFlagReasons: Type.Array(Type.String(), { description: 'The proctoring rules the signals tripped (see the README)' }),
  signals: Type.Array(Type.Object({ at: DateTime(), kind: Type.String(), detail: Type.String(), source: Type.String({ description: 'browser or server' }) })),
});

const PendingReview = Type.Object({
  attemptId: Type.String(),
  candidateId: Type.String(),
  assessmentId: Type.String(),
  questionId: Type.String(),
  prompt: Type.String(),
  guidance: Nullable(Type.String()),
  answer: Type.String(),
  answeredAt: DateTime(),
});

export const attemptAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  const instanceOf = (name: string) => requireInstance(db, name);

  app.get(
    '/instances/:instance/candidates/:candidateId/attempts',
    {
      schema: {
        operationId: 'listAttempts',
        tags: ['admin'],
        summary: "A candidate's attempts, with proctoring signals and red-flag reasons",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName, candidateId: Type.String({ format: 'uuid' }) }),
        response: { 200: Type.Array(AttemptView), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => attemptsOfCandidate(db, (await instanceOf(request.params.instance)).id, request.params.candidateId),
  );

  app.get(
    '/instances/:instance/reviews',
    {
      schema: {
        operationId: 'listPendingReviews',
        tags: ['admin'],
        summary: 'Free-text answers of completed attempts waiting for a score',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: { 200: Type.Array(PendingReview), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const pending = await pendingReviews(db, [(await instanceOf(request.params.instance)).id], 1000);
      return pending.map(({ attemptId, candidateId, assessmentId, questionId, prompt, guidance, answer, answeredAt }) => ({ attemptId, candidateId, assessmentId, questionId, prompt, guidance, answer, answeredAt }));
    },
  );

  app.post(
    '/instances/:instance/reviews',
    {
      schema: {
        operationId: 'scoreFreeText',
        tags: ['admin'],
        summary: 'Score a free-text answer',
        description:
          'Only answers of completed attempts can be scored (409 while the attempt is in progress: its answers may still change). The score is bound to the answer it scored and counts only while that answer is unchanged. When it was the last answer awaiting review, the attempt gets its final score and scoreStatus.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object(
          {
            attemptId: Type.String({ format: 'uuid' }),
            questionId: Type.String({ minLength: 1, maxLength: 64 }),
            score: Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the question earned' }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ scoreStatus: Type.String(), totalScore: Type.Number() }), ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'conflict') },
      },
    },
    async (request) => {
      const instance = await instanceOf(request.params.instance);
      if (!(await attemptOwner(db, instance.id, request.body.attemptId))) throw notFound('No such attempt in this instance');
      await reviewAnswer(db, request.body.attemptId, request.body.questionId, request.body.score);
      return attemptResult(db, request.body.attemptId);
    },
  );
};
