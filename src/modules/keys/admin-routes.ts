import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { changeKey, createKey, revokeKey, type KeyDeps } from './commands.js';
import { listKeys } from './repository.js';
import { BIDI_CONTROLS, BIDI_MESSAGE } from '../../http/validation.js';

// A key's label is a name shown in the console: no bidirectional controls.
const LABEL = `^[^${BIDI_CONTROLS}]*$`;

const KeyId = Type.String({ pattern: '^key_[0-9a-f]{16}$', description: 'Key identifier (not the secret)', examples: ['key_0735119b9fc76d06'] });

const KeySummary = Type.Object(
  {
    id: KeyId,
    prefix: Type.String({ examples: ['ack_cEpATm'], description: 'The first characters of the key, to tell keys apart' }),
    label: Type.Union([Type.String(), Type.Null()], { examples: ['Greenhouse production'] }),
    instances: Type.Array(Type.String(), { examples: [['demo']] }),
    rateLimit: Type.Union([Type.Integer(), Type.Null()], { examples: [1200], description: 'Requests per minute; null: the service default' }),
    expiresAt: Type.Union([DateTime(), Type.Null()], { examples: ['2027-11-23T00:00:00.000Z'] }),
    revokedAt: Type.Union([DateTime(), Type.Null()], { examples: [null] }),
    lastUsedAt: Type.Union([DateTime(), Type.Null()], { examples: ['2026-11-23T14:07:00.000Z'], description: 'Last use, to the minute' }),
    createdAt: DateTime({ examples: ['2026-11-23T08:30:12.286Z'] }),
  },
  { additionalProperties: false },
);

const CreatedKey = Type.Object(
  {
    ...KeySummary.properties,
    key: Type.String({ examples: ['ack_cEpATmCn_1m6KRxk9NWg5S60I0LoZ-nXttxuBAssrP4'], description: 'The API key itself. Shown this once: only its hash is stored.' }),
  },
  { additionalProperties: false },
);

export const keyAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date } & KeyDeps> = async (app, { db, verifier, rateCeiling, now }) => {
  const deps: KeyDeps = { verifier, rateCeiling };
  app.post(
    '/keys',
    {
      schema: {
        operationId: 'createKey',
        tags: ['admin'],
        summary: 'Issue an API key',
        description: 'The key is in the response and nowhere else: store it now.',
        security: adminSecurity,
        body: Type.Object(
          {
            instances: Type.Array(InstanceName, { minItems: 1, maxItems: 100, description: 'Instances the key is granted', examples: [['demo']] }),
            label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: LABEL, 'x-pattern-message': BIDI_MESSAGE, examples: ['Greenhouse production'] })),
            rateLimit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Requests per minute for this key', examples: [1200] })),
            expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'After this time the key is refused', examples: ['2027-11-23T00:00:00Z'] })),
          },
          { additionalProperties: false },
        ),
        response: { 201: CreatedKey, ...problemResponses('validation-failed', 'unauthorized') },
      },
    },
    async (request, reply) => {
      const input = { ...request.body, expiresAt: request.body.expiresAt ? new Date(request.body.expiresAt) : undefined };
      const made = await runCommand(db, commandRequest(request, now()), (ctx) => createKey(ctx, deps, input), 'key_create');
      return reply.code(201).send({ ...made.summary, key: made.key });
    },
  );

  app.get(
    '/keys',
    {
      schema: {
        operationId: 'listKeys',
        tags: ['admin'],
        summary: 'List API keys (never the keys themselves)',
        security: adminSecurity,
        querystring: Type.Object({ instance: Type.Optional(InstanceName) }),
        response: { 200: Type.Array(KeySummary), ...problemResponses('validation-failed', 'unauthorized') },
      },
    },
    async (request) => listKeys(db, request.query.instance),
  );

  app.patch(
    '/keys/:id',
    {
      schema: {
        operationId: 'updateKey',
        tags: ['admin'],
        summary: "Change an API key's rate limit or label",
        description: 'rateLimit null returns the key to the service default (RATE_LIMIT_PER_MINUTE). Seen on this node at once, on every other within KEY_CACHE_MS.',
        security: adminSecurity,
        params: Type.Object({ id: KeyId }),
        body: Type.Object(
          {
            rateLimit: Type.Optional(
              Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()], {
                description: 'Requests per minute for this key; null: the service default',
                examples: [3000],
              }),
            ),
            label: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: LABEL, 'x-pattern-message': BIDI_MESSAGE, examples: ['Greenhouse staging'] })),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: KeySummary, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      return runCommand(db, commandRequest(request, now()), (ctx) => changeKey(ctx, deps, { id: request.params.id, ...request.body }), 'key_update');
    },
  );

  app.post(
    '/keys/:id/revoke',
    {
      schema: {
        operationId: 'revokeKey',
        tags: ['admin'],
        summary: 'Revoke an API key',
        description: 'Refused at once on this node and within KEY_CACHE_MS (at most 5 s) on every other. Revoking again is harmless.',
        security: adminSecurity,
        params: Type.Object({ id: KeyId }),
        response: { 200: KeySummary, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      return runCommand(db, commandRequest(request, now()), (ctx) => revokeKey(ctx, deps, { id: request.params.id }), 'key_revoke');
    },
  );
};
