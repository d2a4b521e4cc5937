// The operator's view of attempts: what happened, with the proctoring signals and the rules they
// tripped (the free-text answers waiting for a score are the reviews module's: reviews/admin-routes.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { attemptsOfCandidate } from './proctoring-report.js';

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
};
