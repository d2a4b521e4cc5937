import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DateTime, instanceHeader, problemResponses, publicSecurity } from '../../http/openapi.js';
import { instanceScope } from '../keys/authenticate.js';
import { listAssessments } from './repository.js';

export const Assessment = Type.Object(
  {
    id: Type.String({
      examples: ['customer-support'],
      description: 'Assessment identifier, used in invites (`assessments`) and score filters (`assessmentIds`); unique within its instance',
    }),
    name: Type.String({ examples: ['Customer Support Essentials'] }),
    description: Type.String({
      examples: [
        'Measures the core skills of a customer support role: clear written communication, sound judgement when applying policies, and calm, empathetic handling of frustrated customers.',
      ],
    }),
    instance: Type.String({ examples: ['demo'], description: 'The tenant instance the assessment belongs to' }),
    durationMinutes: Type.Integer({ examples: [25], description: 'Time limit in minutes, enforced by the server' }),
    categories: Type.Array(Type.String(), {
      description: 'Category names, in the order of `categoryScores`',
      examples: [['Written communication', 'Policy & product reasoning', 'De-escalation & empathy']],
    }),
    typingTest: Type.Boolean({ examples: [false], description: 'Whether the assessment includes a typing test (and so reports `typingSpeed`)' }),
    questionCount: Type.Integer({ examples: [15], description: 'Number of questions each candidate is given (a question pool counts its draw), the typing test counting as one' }),
    passScore: Type.Number({ examples: [70], description: 'Total score (percent) at or above which the result is PASS' }),
    lowPassScore: Type.Number({ examples: [55], description: 'Total score (percent) at or above which the result is LOW_PASS' }),
    version: Type.Integer({ examples: [3], description: 'Current published version; candidates keep the version they started' }),
    updatedAt: DateTime({ description: 'When the current version was published' }),
  },
  { $id: 'Assessment', additionalProperties: false },
);

export const assessmentRoutes: FastifyPluginAsyncTypebox<{ db: import('../../db/database.js').Queryable }> = async (app, { db }) => {
  app.get(
    '/assessment',
    {
      schema: {
        operationId: 'listAssessments',
        tags: ['assessments'],
        summary: 'List assessments',
        description:
          'Every published assessment of the instance named by the `instance` header, or, without the header, of every instance the API key is granted, ordered by instance and id.',
        security: publicSecurity,
        headers: instanceHeader(false),
        response: { 200: Type.Array(Assessment), ...problemResponses('validation-failed', 'unauthorized', 'forbidden', 'rate-limited', 'unavailable') },
      },
    },
    async (request) =>
      listAssessments(
        db,
        instanceScope(request, { required: false }).map((i) => i.id),
      ),
  );
};
