// An instance's integrations with applicant-tracking systems, managed with the admin token (the
// CLI's `ats …`): the instance's API key at the ATS (sealed, never shown again), whether the
// service e-mails the candidates an ATS sends, and the callbacks owed to the ATS with a retry.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { configurePartner, retryPartnerCallback, summaryOf } from './commands.js';
import { PARTNERS, listCallbacks, partnerSettings, type Partner } from './repository.js';

const Partner = Type.Union(
  [Type.Literal('greenhouse'), Type.Literal('ashby'), Type.Literal('workable'), Type.Literal('hibob'), Type.Literal('lever'), Type.Literal('smartrecruiters')],
  { description: 'The applicant-tracking system', examples: ['ashby'] },
);
const Named = (description: string) => Type.Optional(Type.Record(Type.String({ pattern: '^[a-z][A-Za-z]{0,39}$' }), Type.String(), { description }));
const NamedChange = (description: string) =>
  Type.Optional(
    Type.Record(Type.String({ pattern: '^[a-z][A-Za-z]{0,39}$' }), Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()]), { description, maxProperties: 10 }),
  );

const SettingsView = Type.Object(
  {
    partner: Partner,
    keyHint: Type.Union([Type.String(), Type.Null()], { description: "The last four characters of the instance's API key at the ATS; null when none is set", examples: ['9f3c'] }),
    sendEmail: Type.Boolean({ description: 'Whether the service e-mails the link to candidates this ATS sends (false: the ATS reaches them)', examples: [true] }),
    secretHints: Named("The last four characters of each of the instance's secrets at the ATS, by name (absent when none is set)"),
    options: Named("The instance's settings at the ATS that are no secret, by name (absent when none is set)"),
    note: Type.Optional(Type.String({ description: 'What the adapter did on connecting, when it does something (HiBob: the packages published to Bob)' })),
  },
  { additionalProperties: false },
);

const CallbackView = Type.Object(
  {
    id: Type.String({ examples: ['42'] }),
    partner: Partner,
    publicId: Type.String({ description: "The ATS's id of the assessment (Greenhouse's partner_interview_id, Ashby's assessment_id)" }),
    event: Type.String({ examples: ['score.finalized'] }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Integer(),
    createdAt: DateTime(),
    nextAttemptAt: Type.Union([DateTime(), Type.Null()]),
    lastAttemptAt: Type.Union([DateTime(), Type.Null()]),
    lastStatus: Type.Union([Type.Integer(), Type.Null()]),
    lastResponse: Type.Union([Type.String(), Type.Null()], { description: "The first 1 KB of the ATS's answer, or what went wrong without one" }),
  },
  { additionalProperties: false },
);

export const integrationAdminRoutes: FastifyPluginAsyncTypebox<{
  db: Database;
  now: () => Date;
  /** What the ATS's adapter does once settings are saved (HiBob publishes the packages): a sentence saying how it went. */
  connected?: (partner: Partner, instanceId: string) => Promise<string | undefined>;
}> = async (app, { db, now, connected }) => {
  const tags = ['admin'];
  app.put(
    '/instances/:instance/integrations/:partner',
    {
      schema: {
        operationId: 'configureIntegration',
        tags,
        summary: "Set the instance's key at an applicant-tracking system, or whether candidates it sends are e-mailed",
        description:
          "`apiKey` is the instance's API key at the ATS (Ashby: for assessment.update callbacks), stored encrypted and never shown again (only its last four characters); `null` removes it. `secrets` are the other credentials by name, stored the same way (Workable: `token`; HiBob: `accessToken`, `webhookSecret`; Lever: `apiKey`, `signatureToken`; SmartRecruiters: `clientSecret`), `options` the settings that are no secret (HiBob: `companyId`; Lever: `stage`, `assessment`; SmartRecruiters: `clientId`); in both a value sets, `null` removes, a name not given is kept. `sendEmail: false` leaves reaching the candidate to the ATS.",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName, partner: Partner }),
        body: Type.Object(
          {
            apiKey: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Null()])),
            sendEmail: Type.Optional(Type.Boolean()),
            secrets: NamedChange('Secrets at the ATS by name: a value sets one, null removes it'),
            options: NamedChange('Settings at the ATS that are no secret, by name: a value sets one, null removes it'),
          },
          { additionalProperties: false },
        ),
        response: { 200: SettingsView, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const saved = await runCommand(db, commandRequest(request, now()), (ctx) =>
        configurePartner(ctx, { instanceId: instance.id, partner: request.params.partner, ...request.body }),
      );
      const note = await connected?.(request.params.partner, instance.id);
      return { partner: request.params.partner, ...saved, ...(note ? { note } : {}) };
    },
  );

  app.get(
    '/instances/:instance/integrations',
    {
      schema: {
        operationId: 'listIntegrations',
        tags,
        summary: "The instance's settings per applicant-tracking system and its newest callbacks to them",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: {
          200: Type.Object({ settings: Type.Array(SettingsView), callbacks: Type.Array(CallbackView) }, { additionalProperties: false }),
          ...problemResponses('unauthorized', 'not-found'),
        },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const settings = await Promise.all(
        PARTNERS.map(async (partner) => {
          return { partner, ...summaryOf(await partnerSettings(db, instance.id, partner)) };
        }),
      );
      return { settings, callbacks: await listCallbacks(db, instance.id, 50) };
    },
  );

  app.post(
    '/instances/:instance/integrations/callbacks/:id/retry',
    {
      schema: {
        operationId: 'retryIntegrationCallback',
        tags,
        summary: 'Send a callback to an applicant-tracking system again',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName, id: Type.String({ pattern: '^[0-9]{1,18}$' }) }),
        response: { 204: Type.Null(), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      await runCommand(db, commandRequest(request, now()), (ctx) => retryPartnerCallback(ctx, { instanceId: instance.id, callbackId: request.params.id }));
      return reply.code(204).send(null);
    },
  );
};
