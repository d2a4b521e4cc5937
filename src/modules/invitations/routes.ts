import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { InviteBody, normaliseInvite } from './invite-input.js';
import { instanceHeader, problemResponses, publicSecurity } from '../../http/openapi.js';
import { Problem, invalid } from '../../http/problem.js';
import { instanceScope } from '../keys/authenticate.js';
import { claim, complete, fingerprint, release, HEADER as IDEMPOTENCY_HEADER, TTL_HOURS, type Scope } from './idempotency.js';
import type { InviteDeps } from './deps.js';
import { invite } from './service.js';
import { commandRequest } from '../../http/command.js';

export const InviteResult = Type.Object(
  {
    link: Type.String({
      examples: ['https://assessments.example.org/portal/#?sessionToken=T0gzwse1Cbu9EiGnmAfEFoIPvnfbZctp_gHgYQoK0Yc'],
      minLength: 1,
      description:
        "The candidate's single-sign-on link, `<portal_url>/portal/#?sessionToken=<token>`: always present. The token is fresh on every call, valid for the instance's invite lifetime (default 14 days) and opens every assessment of this invite.",
    }),
    candidateId: Type.String({
      examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114'],
      minLength: 1,
      description: 'Candidate identifier: the same for the same e-mail (case-insensitive) within the instance',
    }),
    invitationStatus: Type.Optional(
      Type.Union([Type.Literal('SENT'), Type.Literal('FAILED')], {
        examples: ['SENT'],
        description:
          'Present only with sendInvite=true and when something was e-mailed: SENT when the mail relay accepted the e-mail, FAILED when it refused it or did not answer in time. The invitation is stored either way. Absent when every assessment of the invite is in `skipped` (no e-mail is sent for those).',
      }),
    ),
    skipped: Type.Optional(
      Type.Array(
        Type.Object(
          {
            assessmentId: Type.String({ examples: ['customer-support'] }),
            status: Type.Union([Type.Literal('COMPLETED'), Type.Literal('CANCELLED')], { examples: ['COMPLETED'] }),
            detail: Type.String({ examples: ['completed: its result stands (an operator may allow a retake)'] }),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'Assessments of this invite that inviting again cannot reopen, left as they were: completed ones (their result stands; an operator may allow a retake) and ones withdrawn after they were started. They are not e-mailed, not announced by any event, and the link does not open them (unless nothing of the invite is open). Absent when there are none.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

type InviteResultType = Static<typeof InviteResult>;

const pointerOf = (field: string) => `#/${field.split('.').join('/')}`;

const isJson = (contentType: string | undefined) => /^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType ?? '');

export const invitationRoutes: FastifyPluginAsyncTypebox<InviteDeps> = async (app, deps) => {
  app.post(
    '/invite',
    {
      schema: {
        operationId: 'invite',
        tags: ['invitations'],
        summary: 'Invite a candidate to assessments',
        description: [
          'Invites a new or existing candidate (identified by e-mail within the instance) to one or more assessments, in one transaction.',
          'Inviting again to an assessment already invited keeps its progress and score; a fresh link is issued on every call.',
          'Answers `200` with one Invite result. An unknown assessment id is `400` naming it, and nothing is written.',
          'The body must be `application/json` (`415` otherwise).',
        ].join(' '),
        security: publicSecurity,
        headers: Type.Object({
          ...instanceHeader(true).properties,
          [IDEMPOTENCY_HEADER]: Type.Optional(
            Type.String({
              pattern: '^[\\x20-\\x7E]{1,255}$',
              'x-pattern-message': 'must be 1-255 printable ASCII characters',
              examples: ['invite-greenhouse-application-48213'],
              description: `Makes a retry safe: the same key with the same request within ${TTL_HOURS} h answers the first response again (with \`Idempotent-Replayed: true\`) without inviting or e-mailing again. The same key with a different request: 422. While the first request is in progress: 409. Scoped to the API key and instance. 1-255 printable ASCII characters.`,
            }),
          ),
        }),
        querystring: Type.Object({
          sendInvite: Type.Optional(
            Type.Boolean({
              examples: [true],
              default: false,
              description: 'true: the service e-mails the link to the candidate and reports invitationStatus. Only `true` and `false` are accepted.',
            }),
          ),
        }),
        body: InviteBody,
        response: {
          200: Type.Array(InviteResult),
          ...problemResponses(
            'validation-failed',
            'unauthorized',
            'forbidden',
            'conflict',
            'payload-too-large',
            'unsupported-media-type',
            'idempotency-key-reused',
            'rate-limited',
            'unavailable',
          ),
        },
      },
      preValidation: async (request) => {
        if (!isJson(request.headers['content-type'])) {
          throw new Problem('unsupported-media-type', 'The invite body must be JSON, sent with Content-Type: application/json');
        }
      },
    },
    async (request, reply) => {
      const [instance] = instanceScope(request, { required: true });
      const body = request.body;
      const sendInvite = request.query.sendInvite ?? false;
      // Fastify checked the body by InviteBody already: the parser's normalising half.
      const parsed = normaliseInvite(body);
      if (!parsed.ok) throw invalid(parsed.errors.map((e) => ({ in: 'body', name: e.field, pointer: pointerOf(e.field), detail: e.message })));
      const input = parsed.value;
      const idempotencyKey = request.headers[IDEMPOTENCY_HEADER];
      const req = commandRequest(request, deps.now());
      if (idempotencyKey === undefined) return [await invite(deps, instance!.id, input, sendInvite, req)];

      const scope: Scope = { keyId: request.apiKey!.id, instanceId: instance!.id, key: idempotencyKey, secret: String(request.headers['x-api-key']) };
      const print = fingerprint(body, sendInvite);
      const claimed = await claim(deps.db, scope, print, req.now);
      if (claimed.kind === 'replay') {
        reply.header('idempotent-replayed', 'true').code(claimed.status as 200);
        return claimed.response as [InviteResultType];
      }
      let result;
      try {
        result = [await invite(deps, instance!.id, input, sendInvite, req)];
      } catch (error) {
        await release(deps.db, scope).catch((err: unknown) => request.log.error({ err }, 'could not release an idempotency key'));
        throw error;
      }
      // The invitation stands whatever happens now; a failure to store it only costs the replay.
      await complete(deps.db, scope, print, 200, result).catch((err: unknown) => request.log.error({ err }, 'could not store the answer of an idempotent request'));
      return result;
    },
  );
};
