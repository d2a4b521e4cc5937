// The public API of a candidate and the life of their invitations (additive within /v1, scoped
// like the rest by the API key's instances and the optional `instance` header).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { invalidInput, notFound } from '../../domain/errors.js';
import { DateTime, instanceHeader, problemResponses, publicSecurity } from '../../http/openapi.js';
import { instanceScope } from '../keys/authenticate.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { marksOf } from '../decisions/repository.js';
import { normsOfCandidate } from './norms.js';
import { cancelInvitation, candidateView, extendInvitation, remindInvitation, sendFreshLink } from './lifecycle.js';
import type { InviteDeps } from './deps.js';

const STATES = 'INVITED (may be started until expiresAt), IN_PROGRESS, COMPLETED, CANCELLED (withdrawn: its link no longer opens it) or EXPIRED (not started before expiresAt)';

const Invitation = Type.Object({
  assessmentId: Type.String({ examples: ['customer-support'] }),
  assessmentName: Type.String({ examples: ['Customer Support Essentials'] }),
  status: Type.Union([Type.Literal('INVITED'), Type.Literal('IN_PROGRESS'), Type.Literal('COMPLETED'), Type.Literal('CANCELLED'), Type.Literal('EXPIRED')], {
    examples: ['INVITED'],
    description: STATES,
  }),
  invitedAt: DateTime({ description: 'When the candidate was first invited to this assessment', examples: ['2026-11-23T09:15:40.324Z'] }),
  expiresAt: DateTime({ description: 'Until when it may be started; inviting again, extend and remind move it', examples: ['2026-12-07T09:15:40.324Z'] }),
  cancelledAt: Type.Union([DateTime(), Type.Null()], { description: 'When it was withdrawn; null unless it was', examples: [null] }),
  reportUrl: Type.String({
    format: 'uri',
    description:
      "A read-only link to the candidate's report for this assessment that opens without an account (for a recruiter, from the ATS): signed, valid for the instance's report-link lifetime (default 90 days, to the next midnight UTC), and revocable by the operator. The same link with `.pdf` after the assessment id gives the report as a PDF. Treat it like a password: anyone who has it can read the report.",
    examples: ['https://assessments.example.org/reports/9d7e6c95-b46b-46da-979a-dca23f37f114/customer-support?expires=1795564800&signature=3q2-7wAAAAC0Zk8cL1xYpA'],
  }),
  source: Type.Union(
    [
      Type.Literal('api'),
      Type.Literal('console'),
      Type.Literal('greenhouse'),
      Type.Literal('ashby'),
      Type.Literal('workable'),
      Type.Literal('hibob'),
      Type.Literal('lever'),
      Type.Literal('smartrecruiters'),
    ],
    {
      description:
        'Where the invitation was first made: this API, the console, or an applicant-tracking system through its native adapter (Greenhouse, Ashby, Workable, HiBob, Lever, SmartRecruiters)',
      examples: ['api'],
    },
  ),
  externalReference: Type.Optional(
    Type.String({ description: 'Your own reference for the invitation, as given on `POST /v1/invite` (absent when none was given)', examples: ['application-48213'] }),
  ),
  norm: Type.Optional(
    Type.Object(
      {
        kind: Type.Union([Type.Literal('published'), Type.Literal('instance'), Type.Literal('none')], {
          description:
            '`published`: the published norms the assessment cites; `instance`: your own candidates who completed the same version of the assessment (once there are at least 20); `none`: not enough of them yet',
          examples: ['instance'],
        }),
        group: Type.String({ description: 'The norm group in words, to show next to the percentiles', examples: ["this instance's 240 candidates who completed version 2"] }),
        source: Type.Union([Type.String(), Type.Null()], { description: 'Where published norms come from (a citation); null for your own', examples: [null] }),
        size: Type.Integer({ description: 'How many completed and scored attempts of this version your instance has', examples: [240] }),
        totalPercentile: Type.Union([Type.Number(), Type.Null()], { description: "The total score's percentile (0-100) against the group; null without one", examples: [63.5] }),
        categoryPercentiles: Type.Record(Type.String(), Type.Number(), {
          description: "Each category's percentile against the group, by category name (as in the score record's categoryScores)",
          examples: [{ Communication: 70.2, 'Problem solving': 55 }],
        }),
        needed: Type.Integer({ description: 'How many more completed attempts your own norm needs; 0 once it has enough', examples: [0] }),
      },
      {
        description:
          'Present once the assessment is completed and scored: the norm group its percentiles are read against. Not part of the score record, which stays exactly as published.',
      },
    ),
  ),
  contentLanguage: Type.Optional(
    Type.String({
      pattern: '^[a-z]{2}$',
      description:
        "The language the candidate took the assessment in: the language its questions were shown in (`en`, `de` or `es`), chosen when the attempt started (the candidate's portal language when the assessment has that translation, else `en`) and kept for the whole attempt. Absent until the assessment is started. Scoring is the same in every language; the score record (`GET /v1/score`) does not carry it.",
      examples: ['de'],
    }),
  ),
});

const Candidate = Type.Object({
  candidateId: Type.String({ format: 'uuid', examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'] }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'Null once the candidate was erased (their scores stay, anonymous)', examples: ['jane.doe@example.com'] }),
  firstName: Type.Union([Type.String(), Type.Null()], { description: 'Null once erased', examples: ['Jane'] }),
  lastName: Type.Union([Type.String(), Type.Null()], { description: 'Null once erased', examples: ['Doe'] }),
  invitations: Type.Array(Invitation),
  decision: Type.Union(
    [
      Type.Object({
        value: Type.Union([Type.Literal('advance'), Type.Literal('hold'), Type.Literal('reject')], { examples: ['advance'] }),
        note: Type.Union([Type.String(), Type.Null()], { description: "The recruiter's note with it, if any", examples: ['Strong on the case study; invite to the panel.'] }),
        decidedAt: DateTime({ examples: ['2026-11-24T16:02:11.000Z'] }),
      }),
      Type.Null(),
    ],
    {
      description:
        "Your recruiters' decision on the candidate in the console (advance, hold or reject), with its note; null while there is none. Never shown to the candidate, and not part of the score record.",
    },
  ),
  tags: Type.Array(Type.String({ examples: ['shortlist'] }), {
    description:
      'Tags your recruiters gave the candidate in the console, as they typed them ("Round 1"), in alphabetical order of their lower-case form; tags that differ only in case are one tag',
  }),
});

const Params = Type.Object({
  candidateId: Type.String({ minLength: 1, maxLength: 100, examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'], description: 'Candidate identifier (from the invite)' }),
  assessmentId: Type.String({ minLength: 1, maxLength: 64, examples: ['customer-support'], description: 'Assessment identifier' }),
});

export const candidateRoutes: FastifyPluginAsyncTypebox<{ db: Database; invite: InviteDeps; publicUrl: string; now: () => Date }> = async (app, { db, invite, publicUrl, now }) => {
  const scope = (request: Parameters<typeof instanceScope>[0]) => instanceScope(request, { required: false }).map((i) => i.id);
  const common = { tags: ['candidates'], security: publicSecurity, headers: instanceHeader(false) };

  app.get(
    '/candidates/:candidateId',
    {
      schema: {
        ...common,
        operationId: 'getCandidate',
        summary: 'A candidate and the state of each of their invitations',
        params: Type.Object({ candidateId: Params.properties.candidateId }),
        response: { 200: Candidate, ...problemResponses('validation-failed', 'unauthorized', 'forbidden', 'not-found', 'rate-limited', 'unavailable') },
      },
    },
    async (request) => {
      const found = await candidateView(db, scope(request), request.params.candidateId, now(), publicUrl);
      if (!found) throw notFound('No such candidate in your instances');
      const { decision, tags } = await marksOf(db, found.candidateId);
      const norms = await normsOfCandidate(db, found.candidateId);
      found.invitations = found.invitations.map((invitation) => {
        const norm = norms.get(invitation.assessmentId);
        return norm
          ? {
              ...invitation,
              norm: {
                kind: norm.kind,
                group: norm.group,
                source: norm.source,
                size: norm.size,
                totalPercentile: norm.total,
                categoryPercentiles: norm.categories,
                needed: norm.needed,
              },
            }
          : invitation;
      });
      return { ...found, decision: decision && { value: decision.decision, note: decision.note, decidedAt: decision.decidedAt }, tags };
    },
  );

  const action = (name: 'cancel' | 'extend' | 'remind', summary: string, description: string) => ({
    schema: {
      ...common,
      operationId: `${name}Invitation`,
      summary,
      description,
      params: Params,
      response: { 200: Invitation, ...problemResponses('validation-failed', 'unauthorized', 'forbidden', 'not-found', 'conflict', 'rate-limited', 'unavailable') },
    },
  });
  const invitationOf = async (instances: string[], candidateId: string, assessmentId: string) =>
    (await candidateView(db, instances, candidateId, now(), publicUrl))!.invitations.find((i) => i.assessmentId === assessmentId)!;

  app.post(
    '/candidates/:candidateId/invitations/:assessmentId/cancel',
    action(
      'cancel',
      'Withdraw an invitation',
      'Its link no longer opens this assessment (the candidate is told it was withdrawn); an attempt in progress is closed unscored. Cancelling again changes nothing (200). A completed assessment cannot be withdrawn (409). Emits invitation.cancelled.',
    ),
    async (request) => {
      const instances = scope(request);
      const ref = { instanceIds: instances, candidateId: request.params.candidateId, assessmentId: request.params.assessmentId };
      await runCommand(db, commandRequest(request, now()), (ctx) => cancelInvitation(ctx, invite, ref), 'invitation_cancel');
      return invitationOf(instances, request.params.candidateId, request.params.assessmentId);
    },
  );

  app.post(
    '/candidates/:candidateId/invitations/:assessmentId/extend',
    {
      schema: {
        ...action(
          'extend',
          'Give a candidate longer to start',
          "Sets until when an invitation not yet started may be started (an expired one is open again), and keeps the candidate's links to it valid that long. Give `expiresAt` or `days` (from now). 409 once it was started, completed or withdrawn.",
        ).schema,
        body: Type.Object(
          {
            expiresAt: Type.Optional(Type.String({ format: 'date-time', examples: ['2026-12-14T17:00:00Z'] })),
            days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, examples: [7] })),
          },
          { additionalProperties: false, minProperties: 1, maxProperties: 1 },
        ),
      },
    },
    async (request) => {
      const instances = scope(request);
      const body = request.body as { expiresAt?: string; days?: number };
      const req = commandRequest(request, now());
      const until = body.expiresAt ? new Date(body.expiresAt) : new Date(req.now.getTime() + (body.days ?? 0) * 86_400_000);
      if (Number.isNaN(until.getTime())) throw invalidInput([{ in: 'body', name: 'expiresAt', detail: 'is not a date-time' }]);
      const ref = { instanceIds: instances, candidateId: request.params.candidateId, assessmentId: request.params.assessmentId, until };
      await runCommand(db, req, (ctx) => extendInvitation(ctx, ref), 'invitation_extend');
      return invitationOf(instances, request.params.candidateId, request.params.assessmentId);
    },
  );

  app.post(
    '/candidates/:candidateId/invitations/:assessmentId/remind',
    {
      schema: {
        ...action(
          'remind',
          'Send the invitation again',
          'E-mails the candidate a fresh link to this assessment (older links keep working until they expire). Answers the invitation with `invitationStatus`: SENT when the relay accepted the e-mail, FAILED when it did not. 409 when completed, withdrawn or expired (extend it first).',
        ).schema,
        response: {
          200: Type.Object({ ...Invitation.properties, invitationStatus: Type.Union([Type.Literal('SENT'), Type.Literal('FAILED')], { examples: ['SENT'] }) }),
          ...problemResponses('validation-failed', 'unauthorized', 'forbidden', 'not-found', 'conflict', 'rate-limited', 'unavailable'),
        },
      },
    },
    async (request) => {
      const instances = scope(request);
      const ref = { instanceIds: instances, candidateId: request.params.candidateId, assessmentId: request.params.assessmentId };
      const fresh = await runCommand(db, commandRequest(request, now()), (ctx) => remindInvitation(ctx, invite, ref), 'invitation_remind');
      const invitationStatus = await sendFreshLink(invite, fresh);
      return { ...(await invitationOf(instances, request.params.candidateId, request.params.assessmentId)), invitationStatus };
    },
  );
};
