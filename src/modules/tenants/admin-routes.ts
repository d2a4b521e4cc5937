import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Queryable } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { Problem } from '../../http/problem.js';
import { LANGUAGES } from '../../i18n/i18n.js';
import { INSTANCE_NAME_PATTERN, createInstance, listInstances, updateInstance } from './repository.js';

export const InstanceName = Type.String({
  pattern: INSTANCE_NAME_PATTERN,
  'x-pattern-message': 'must be 1-63 characters of a-z, 0-9 and -, starting with a letter',
  description: 'Instance name: 1-63 characters of a-z, 0-9 and -, starting with a letter',
  examples: ['acme'],
});

const Instance = Type.Object(
  {
    name: Type.String({ examples: ['acme'] }),
    portalUrl: Type.Union([Type.String(), Type.Null()], { examples: ['https://assessments.acme.example'], description: 'Base URL of candidate links; null: the service PUBLIC_URL' }),
    inviteTtlDays: Type.Integer({ examples: [14], description: 'How long invite links stay valid, in days' }),
    mailFromName: Type.Union([Type.String(), Type.Null()], { examples: ['Acme Hiring'], description: 'Sender name of invitation e-mail; null: that of MAIL_FROM' }),
    mailFromAddress: Type.Union([Type.String(), Type.Null()], { examples: ['hiring@acme.example'], description: 'Sender address of invitation e-mail; null: MAIL_FROM' }),
    retentionDays: Type.Union([Type.Integer(), Type.Null()], {
      examples: [365],
      description: 'Days after the last of their assessments was completed when a candidate is erased automatically; null: off',
    }),
    reportLinkDays: Type.Integer({ description: 'Days a report link (reportUrl) stays valid', examples: [90] }),
    reminderDays: Type.Union([Type.Integer(), Type.Null()], { description: 'Days before an invitation expires when the candidate is reminded by e-mail, once; null: off', examples: [2] }),
    defaultLanguage: Type.String({ examples: ['en'], description: "The portal's and e-mails' language when neither the invitation nor the candidate's browser names one with a catalogue" }),
    createdAt: DateTime({ examples: ['2026-11-02T13:45:07.060Z'] }),
  },
  { additionalProperties: false },
);

const CODES = Object.keys(LANGUAGES);
const DefaultLanguage = Type.String({
  pattern: `^(${CODES.join('|')})$`,
  'x-pattern-message': `must be a language with a catalogue: ${CODES.join(', ')}`,
  description: `The portal's and e-mails' language when neither the invitation nor the candidate's browser names one with a catalogue: one of ${CODES.join(', ')} (default en)`,
  examples: ['de'],
});

const PortalUrl = Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 500, description: 'Base URL of the portal for this instance', examples: ['https://assessments.acme.example'] });
export const Settings = Type.Object(
  {
    portalUrl: Type.Optional(PortalUrl),
    inviteTtlDays: Type.Optional(Type.Integer({ examples: [14], minimum: 1, maximum: 365, description: 'Days an invite link stays valid (default 14)' })),
    mailFromName: Type.Optional(Type.String({ examples: ['Acme Hiring'], minLength: 1, maxLength: 100, pattern: '^[^\\r\\n]+$', description: 'Sender name of invitation e-mail' })),
    mailFromAddress: Type.Optional(Type.String({ examples: ['hiring@acme.example'], format: 'email', maxLength: 254, description: 'Sender address of invitation e-mail' })),
    retentionDays: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], {
        examples: [365],
        description:
          'Erase candidates automatically this many days (1-3650) after the last of their assessments was completed, once all are; null turns it off (the default). Checked by a periodic sweep on every node.',
      }),
    ),
    reportLinkDays: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Days a report link (the reportUrl of GET /v1/candidates/{candidateId}) stays valid, 1-3650 (default 90)' }),
    ),
    reminderDays: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 60 }), Type.Null()], {
        description:
          'Remind candidates by e-mail (a fresh link) this many days (1-60) before an invitation they have not started expires, once per invitation; null turns it off. Default 2. Invitations made with less time than this get no reminder.',
      }),
    ),
    defaultLanguage: Type.Optional(DefaultLanguage),
  },
  { additionalProperties: false },
);

export const tenantAdminRoutes: FastifyPluginAsyncTypebox<{ db: Queryable }> = async (app, { db }) => {
  app.post(
    '/instances',
    {
      schema: {
        operationId: 'createInstance',
        tags: ['admin'],
        summary: 'Create a tenant instance',
        security: adminSecurity,
        body: Type.Object({ name: InstanceName, ...Settings.properties }, { additionalProperties: false }),
        response: { 201: Instance, ...problemResponses('validation-failed', 'unauthorized', 'conflict') },
      },
    },
    async (request, reply) => {
      const created = await createInstance(db, { ...request.body, portalUrl: request.body.portalUrl?.replace(/\/+$/, '') });
      if (!created) throw new Problem('conflict', `An instance named "${request.body.name}" exists already`);
      return reply.code(201).send(created);
    },
  );

  app.patch(
    '/instances/:instance',
    {
      schema: {
        operationId: 'updateInstance',
        tags: ['admin'],
        summary: "Change an instance's settings",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Settings,
        response: { 200: Instance, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const updated = await updateInstance(db, request.params.instance, { ...request.body, portalUrl: request.body.portalUrl?.replace(/\/+$/, '') });
      if (!updated) throw new Problem('not-found', `No instance named "${request.params.instance}"`);
      return updated;
    },
  );

  app.get(
    '/instances',
    {
      schema: {
        operationId: 'listInstances',
        tags: ['admin'],
        summary: 'List tenant instances',
        security: adminSecurity,
        response: { 200: Type.Array(Instance), ...problemResponses('unauthorized') },
      },
    },
    async () => listInstances(db),
  );
};
