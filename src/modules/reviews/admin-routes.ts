// The operator's reviews: the free-text answers waiting for a score, and scoring one (the same
// command as the console's reviewers, with the operator as the reviewer).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { attemptResult } from '../attempts/attempt-lookups.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { submitReview } from './commands.js';
import { reviewBoard } from './repository.js';

const PendingReview = Type.Object({
  attemptId: Type.String({ examples: ['3c8e5f1a-7b2d-4e9f-a6c1-0d4b8e2f7a93'] }),
  candidateId: Type.String({ examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
  assessmentId: Type.String({ examples: ['customer-support'] }),
  questionId: Type.String({ examples: ['cs-15'] }),
  prompt: Type.String({ examples: ['A customer writes that their order arrived damaged for the second time and demands a refund. Write your reply.'] }),
  guidance: Type.Union([Type.String(), Type.Null()], { examples: ['Acknowledges the frustration, apologises once, offers a concrete remedy and a next step.'] }),
  answer: Type.String({ examples: ["I'm sorry your order arrived damaged again. I have issued a full refund, which reaches your card within 3-5 days."] }),
  answeredAt: DateTime({ examples: ['2026-11-23T10:37:05.118Z'] }),
  state: Type.String({
    examples: ['in-review'],
    description: 'awaiting (no review yet), in-review (fewer reviews than the instance asks for) or disagreement (the reviews disagree: a lead settles it in the console)',
  }),
  reviews: Type.Integer({ examples: [1], description: 'How many reviews the answer has' }),
  rubric: Type.Union(
    [Type.Array(Type.Object({ id: Type.String(), name: Type.String(), levels: Type.Array(Type.Object({ label: Type.String(), points: Type.Number() })) })), Type.Null()],
    {
      description: "The criteria of the question's rubric with their levels (score it with rubric), or null (score it with score)",
      examples: [null],
    },
  ),
});

export const reviewAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  app.get(
    '/instances/:instance/reviews',
    {
      schema: {
        operationId: 'listPendingReviews',
        tags: ['admin'],
        summary: 'Free-text answers of completed attempts waiting for a score',
        description: 'Answers without a final score yet, oldest completion first (at most 1000): awaiting reviews, or whose reviews disagree and wait for a lead.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: { 200: Type.Array(PendingReview), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const pending = await reviewBoard(db, instance, { open: true, limit: 1000 });
      return pending.map(({ attemptId, candidateId, assessmentId, questionId, prompt, guidance, answer, answeredAt, state, reviews, rubric }) => ({
        attemptId,
        candidateId,
        assessmentId,
        questionId,
        prompt,
        guidance,
        answer,
        answeredAt,
        state,
        reviews: reviews.length,
        rubric: rubric && rubric.criteria.map((c) => ({ id: c.id, name: c.name, levels: c.levels.map((l) => ({ label: l.label, points: l.points })) })),
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
          "Only answers of completed attempts can be scored (409 while the attempt is in progress: its answers may still change; also 409 for a withdrawn or replaced attempt). A question without a rubric takes a score of 0-100; one with a rubric takes rubric, a level label for each criterion id (the score is then the points chosen over the most possible; score may be left out). The operator's review counts as one reviewer's (a new one replaces the operator's earlier one). When the instance asks for several reviewers per answer, the answer gets its final score (the mean of the reviews, or under agree-within a lead's when they disagree) once it has them all; the score is bound to the answer it scored. When it was the last answer awaiting review, the attempt gets its final score and scoreStatus.",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object(
          {
            attemptId: Type.String({ format: 'uuid', examples: ['3c8e5f1a-7b2d-4e9f-a6c1-0d4b8e2f7a93'] }),
            questionId: Type.String({ minLength: 1, maxLength: 64, examples: ['cs-15'] }),
            score: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: 'Percent of the question earned (questions without a rubric)', examples: [80] })),
            rubric: Type.Optional(
              Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]{0,63}$' }), Type.String({ minLength: 1, maxLength: 60 }), {
                description: 'Questions with a rubric: the level chosen (its label) for each criterion (its id)',
                examples: [{ empathy: 'Strong', remedy: 'Partial' }],
                maxProperties: 12,
              }),
            ),
            comment: Type.Optional(Type.String({ maxLength: 2000, description: "The reviewer's comment, shown with the review in the console and the report" })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            scoreStatus: Type.String({ examples: ['PASS'] }),
            totalScore: Type.Number({ examples: [86.25] }),
            reviewState: Type.String({ examples: ['settled'], description: "The answer's state after this review: in-review, disagreement or settled" }),
            finalScore: Type.Union([Type.Number(), Type.Null()], { examples: [75], description: "The answer's final score (0-100), null until it has one" }),
          }),
          ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'conflict'),
        },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const { attemptId, questionId, score, rubric, comment } = request.body;
      const outcome = await runCommand(
        db,
        commandRequest(request, now()),
        (ctx) => submitReview(ctx, { instance, attemptId, questionId, score, rubric, comment }),
        'review_submit',
      );
      return { ...(await attemptResult(db, attemptId)), reviewState: outcome.state, finalScore: outcome.final };
    },
  );
};
