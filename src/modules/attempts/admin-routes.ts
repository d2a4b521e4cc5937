// The operator's view of attempts: what happened (with the proctoring signals and the rules
// they tripped) and the free-text answers waiting for a score.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { Problem } from '../../http/problem.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { redFlagReasons } from './proctoring.js';
import { REVIEW_CURRENT, reviewAnswer, signalsOf, versionContent } from './repository.js';

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
    async (request) => {
      const instance = await instanceOf(request.params.instance);
      const { rows } = await db.query<{
        attemptId: string;
        assessmentId: string;
        version: number;
        startedAt: Date;
        deadlineAt: Date;
        finishedAt: Date | null;
        endReason: string | null;
        typingNetWpm: number | null;
        typingAccuracy: number | null;
        redFlag: boolean;
      }>(
        `SELECT t.id AS "attemptId", s.slug AS "assessmentId", t.version, t.started_at AS "startedAt", t.deadline_at AS "deadlineAt",
                t.finished_at AS "finishedAt", t.end_reason AS "endReason", t.typing_wpm::float8 AS "typingNetWpm",
                t.typing_accuracy::float8 AS "typingAccuracy", i.red_flag AS "redFlag"
           FROM attempts t JOIN invitations i ON i.id = t.invitation_id JOIN assessments s ON s.id = i.assessment_id
          WHERE i.instance_id = $1 AND i.candidate_id = $2 ORDER BY t.started_at`,
        [instance.id, request.params.candidateId],
      );
      return Promise.all(
        rows.map(async (row) => {
          const signals = await signalsOf(db, row.attemptId);
          return { ...row, redFlagReasons: redFlagReasons(signals), signals };
        }),
      );
    },
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
      const instance = await instanceOf(request.params.instance);
      const { rows } = await db.query<{ attemptId: string; candidateId: string; assessmentId: string; assessmentUuid: string; version: number; questionId: string; value: unknown; answeredAt: Date }>(
        `SELECT t.id AS "attemptId", i.candidate_id AS "candidateId", s.slug AS "assessmentId", t.assessment_id AS "assessmentUuid", t.version,
                a.question_id AS "questionId", a.value, a.answered_at AS "answeredAt"
           FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id JOIN assessments s ON s.id = i.assessment_id
          WHERE i.instance_id = $1 AND t.finished_at IS NOT NULL AND NOT ${REVIEW_CURRENT} AND jsonb_typeof(a.value) = 'string'
          ORDER BY t.finished_at, a.question_id`,
        [instance.id],
      );
      const pending = [];
      for (const row of rows) {
        const content = await versionContent(db, row.assessmentUuid, row.version);
        const question = content.questions.find((q) => q.id === row.questionId);
        if (question?.type !== 'free-text') continue;
        pending.push({
          attemptId: row.attemptId,
          candidateId: row.candidateId,
          assessmentId: row.assessmentId,
          questionId: row.questionId,
          prompt: question.prompt,
          guidance: question.guidance ?? null,
          answer: String(row.value),
          answeredAt: row.answeredAt,
        });
      }
      return pending;
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
      const owned = await db.query('SELECT 1 FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE t.id = $1 AND i.instance_id = $2', [
        request.body.attemptId,
        instance.id,
      ]);
      if (owned.rows.length === 0) throw new Problem('not-found', 'No such attempt in this instance');
      await reviewAnswer(db, request.body.attemptId, request.body.questionId, request.body.score);
      const { rows } = await db.query<{ scoreStatus: string; totalScore: number }>(
        'SELECT i.score_status AS "scoreStatus", i.total_score::float8 AS "totalScore" FROM invitations i JOIN attempts t ON t.invitation_id = i.id WHERE t.id = $1',
        [request.body.attemptId],
      );
      return rows[0]!;
    },
  );
};
