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

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T, options: { examples?: (string | null)[] } = {}) => Type.Union([schema, Type.Null()], options);

const AttemptView = Type.Object({
  attemptId: Type.String({ examples: ['3c8e5f1a-7b2d-4e9f-a6c1-0d4b8e2f7a93'] }),
  assessmentId: Type.String({ examples: ['customer-support'] }),
  version: Type.Integer({ examples: [2], description: 'The content version the candidate took' }),
  startedAt: DateTime({ examples: ['2026-11-23T10:21:02.531Z'] }),
  deadlineAt: DateTime({ examples: ['2026-11-23T10:46:02.531Z'] }),
  finishedAt: Type.Union([DateTime(), Type.Null()], { examples: ['2026-11-23T10:39:48.077Z'] }),
  endReason: Nullable(Type.String({ description: 'submitted or time-limit' }), { examples: ['submitted'] }),
  typingNetWpm: Type.Union([Type.Number(), Type.Null()], { examples: [48.6] }),
  typingAccuracy: Type.Union([Type.Number(), Type.Null()], { examples: [0.97] }),
  redFlag: Type.Boolean({ examples: [true] }),
  redFlagReasons: Type.Array(Type.String(), {
    description: 'The proctoring rules the signals tripped (see docs/content.md, "Proctoring and the red flag")',
    examples: [['pasted 1 time', 'left the page 3 times']],
  }),
  signals: Type.Array(
    Type.Object({
      at: DateTime({ examples: ['2026-11-23T10:27:14.902Z'] }),
      kind: Type.String({ examples: ['typing-too-fast'] }),
      detail: Type.String({ examples: ['231.4 net wpm'] }),
      source: Type.String({ description: 'browser or server', examples: ['server'] }),
    }),
  ),
});

const PendingReview = Type.Object({
  attemptId: Type.String({ examples: ['3c8e5f1a-7b2d-4e9f-a6c1-0d4b8e2f7a93'] }),
  candidateId: Type.String({ examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
  assessmentId: Type.String({ examples: ['customer-support'] }),
  questionId: Type.String({ examples: ['cs-15'] }),
  prompt: Type.String({ examples: ['A customer writes that their order arrived damaged for the second time and demands a refund. Write your reply.'] }),
  guidance: Nullable(Type.String(), { examples: ['Acknowledges the frustration, apologises once, offers a concrete remedy and a next step.'] }),
  answer: Type.String({ examples: ["I'm sorry your order arrived damaged again. I have issued a full refund, which reaches your card within 3-5 days."] }),
  answeredAt: DateTime({ examples: ['2026-11-23T10:37:05.118Z'] }),
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
        params: Type.Object({ instance: InstanceName, candidateId: Type.String({ format: 'uuid', examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }) }),
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
      return pending.map(({ attemptId, candidateId, assessmentId, questionId, prompt, guidance, answer, answeredAt }) => ({
        attemptId,
        candidateId,
        assessmentId,
        questionId,
        prompt,
        guidance,
        answer,
        answeredAt,
      }));
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
            attemptId: Type.String({ format: 'uuid', examples: ['3c8e5f1a-7b2d-4e9f-a6c1-0d4b8e2f7a93'] }),
            questionId: Type.String({ minLength: 1, maxLength: 64, examples: ['cs-15'] }),
            score: Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the question earned', examples: [80] }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ scoreStatus: Type.String({ examples: ['PASS'] }), totalScore: Type.Number({ examples: [86.25] }) }),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'conflict'),
        },
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
