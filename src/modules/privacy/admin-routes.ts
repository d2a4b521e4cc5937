// Admin API of candidates' data rights. The person is chosen by e-mail or id in the request body,
// never in the URL, so that the address stays out of access logs; the audit log records the
// instance and the candidate's id only.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { invalid } from '../../http/problem.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import type { Selector } from './repository.js';
import { eraseCandidate, exportCandidate } from './service.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';

const SelectorBody = Type.Object(
  {
    email: Type.Optional(Type.String({ examples: ['jane.doe@example.com'], format: 'email', maxLength: 254, description: "The candidate's e-mail address (case-insensitive)" })),
    candidateId: Type.Optional(
      Type.String({ examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'], format: 'uuid', description: 'The candidate id, as in invite answers and score records' }),
    ),
  },
  { additionalProperties: false, description: 'Exactly one of `email` and `candidateId`', examples: [{ email: 'jane.doe@example.com' }] },
);

function selector(body: { email?: string; candidateId?: string }): Selector {
  if ((body.email === undefined) === (body.candidateId === undefined)) {
    throw invalid([{ in: 'body', name: 'email', pointer: '/email', detail: 'give exactly one of email and candidateId' }]);
  }
  return body.email !== undefined ? { email: body.email } : { candidateId: body.candidateId! };
}

const Erasure = Type.Object(
  {
    id: Type.String({ examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'], description: "The candidate's id; their score records keep it, with the numbers and nothing personal" }),
    instance: Type.String({ examples: ['demo'] }),
    erased: Type.Boolean({ examples: [true], description: 'false: the candidate had been erased already and nothing changed' }),
    erasedAt: DateTime({ examples: ['2026-11-24T08:00:03.210Z'] }),
    mailFilesDeleted: Type.Integer({ examples: [2], description: 'E-mails to the person deleted from the local mailbox' }),
  },
  { additionalProperties: false },
);

const Rows = (description: string, examples: Record<string, unknown>[][] = [[]]) => Type.Array(Type.Object({}, { additionalProperties: true }), { description, examples });

const Export = Type.Object(
  {
    id: Type.String({ description: "The candidate's id", examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
    instance: Type.String({ examples: ['demo'] }),
    exportedAt: DateTime({ examples: ['2026-11-24T08:00:01.854Z'] }),
    candidate: Type.Object(
      {
        id: Type.String({ examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
        email: Type.Union([Type.String(), Type.Null()], { description: 'null once erased', examples: ['jane.doe@example.com'] }),
        firstName: Type.Union([Type.String(), Type.Null()], { examples: ['Jane'] }),
        lastName: Type.Union([Type.String(), Type.Null()], { examples: ['Doe'] }),
        createdAt: DateTime({ examples: ['2026-11-23T09:15:40.324Z'] }),
        updatedAt: DateTime({ examples: ['2026-11-23T09:15:40.324Z'] }),
        erasedAt: Type.Union([DateTime(), Type.Null()], { examples: [null] }),
      },
      { additionalProperties: false },
    ),
    invitations: Rows('One per assessment: status, scores, times', [
      [
        {
          id: '1',
          assessmentId: 'customer-support',
          assessmentName: 'Customer Support Essentials',
          assessmentStatus: 'COMPLETED',
          scoreStatus: 'PASS',
          completion: 100,
          totalScore: 86.25,
          typingWpm: 0,
          categoryScores: [{ name: 'Written communication', score: 90 }],
          redFlag: false,
          startedAt: '2026-11-23T10:21:02.531Z',
          finishedAt: '2026-11-23T10:39:48.077Z',
          createdAt: '2026-11-23T09:15:40.324Z',
        },
      ],
    ]),
    inviteLinks: Rows('The sign-on links sent (never the token)', [
      [{ id: '1', assessments: ['customer-support'], expiresAt: '2026-12-07T09:15:40.324Z', revokedAt: null, createdAt: '2026-11-23T09:15:40.324Z' }],
    ]),
    portalSessions: Rows('Portal sessions opened from the links: when, until when'),
    attempts: Rows('Attempts with the first client address and user agent, typed text and typing figures, `answers` and `proctoringSignals`'),
    deliveries: Rows('Invitation e-mails: recipient, outcome, what the relay answered', [
      [
        {
          id: '42',
          recipient: 'jane.doe@example.com',
          status: 'SENT',
          messageId: '<3d19f53f-1ac9-31ba-3733-6585ad8d8b12@acme.example>',
          response: '250 2.0.0 Ok: queued as 4XkQ2D1ZpLz9',
          durationMs: 184,
          attemptedAt: '2026-11-23T09:15:40.493Z',
        },
      ],
    ]),
    audit: Rows('Operator actions whose target names the candidate or one of their attempts'),
    marks: Type.Object(
      {
        decision: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
          description: "The recruiters' decision on the candidate, with its note, who and when; null: none",
        }),
        tags: Type.Array(Type.String(), { description: 'The tags recruiters gave the candidate' }),
      },
      { description: "The recruiters' marks on the candidate (decision, note, tags)" },
    ),
    webcam: Rows(
      'Per attempt of an assessment that takes webcam snapshots: the choice (agreed or declined), when and from where, whether the camera was unavailable, and each snapshot with its time and the JPEG image as base64',
    ),
    reviews: Rows("Reviews of the candidate's free-text answers: each reviewer's review (score, rubric levels, comment), a lead's settlement, and who was assigned to review"),
    selfIdentification: Rows(
      'Voluntary self-identification the candidate gave after an assessment, per assessment: the answers (question id to option id; prefer-not-to-say for that choice) and when',
      [[{ assessmentId: 'customer-support', answers: { sex: 'female', 'age-band': 'prefer-not-to-say' }, recordedAt: '2026-11-23T10:40:12.511Z' }]],
    ),
  },
  { additionalProperties: false },
);

export const privacyAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; mailDir?: string; now: () => Date }> = async (app, { db, mailDir, now }) => {
  app.post(
    '/instances/:instance/candidates/export',
    {
      schema: {
        operationId: 'exportCandidate',
        tags: ['admin'],
        summary: 'Everything stored about one candidate (right of access)',
        description:
          'One JSON document: the candidate, their invitations and scores, links, portal sessions, attempts with answers, typed text, proctoring signals (with client addresses and user agents), webcam snapshots (the images as base64) and the choice behind them, voluntary self-identification, e-mail deliveries, and the operator actions that concern them. A POST so that the e-mail address stays out of URLs and logs; it is recorded in the audit log (target: instance and candidate id).',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: SelectorBody,
        response: { 200: Export, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return runCommand(db, commandRequest(request, now()), (ctx) => exportCandidate(ctx, { instance, selector: selector(request.body) }), 'candidate_export');
    },
  );

  app.post(
    '/instances/:instance/candidates/erase',
    {
      schema: {
        operationId: 'eraseCandidate',
        tags: ['admin'],
        summary: 'Erase a candidate (right to erasure)',
        description:
          "In one transaction: the candidate's e-mail and names, answers, typed text, client addresses and user agents, proctoring signals, webcam snapshots, voluntary self-identification, links, portal sessions and e-mail deliveries are removed from every table, and the local mailbox's e-mails to them are deleted (invite answers kept for Idempotency-Key retries are sealed with the client's keys and hold no name or address; the link in them stops working). The candidate id stays, with the score records' numbers: `GET /v1/score` still reports them, anonymously. Erasing again by id answers 200 with `erased: false`; an unknown candidate, or an e-mail address that is no longer stored because it was erased, is 404. The audit log records the instance and the candidate id, never the address or name.",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: SelectorBody,
        response: { 200: Erasure, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return runCommand(db, commandRequest(request, now()), (ctx) => eraseCandidate(ctx, { instance, selector: selector(request.body), mailDir }), 'candidate_erase');
    },
  );
};
