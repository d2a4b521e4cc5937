// An instance's single sign-on (OpenID Connect), managed with the admin token (the CLI's `sso …`):
// show, set or change, remove. The client secret is stored sealed and never shown again (only its
// last four characters). Owners change the same settings in the console.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { notFound } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { configureSso, removeSso, ssoSettings, type SsoOptions } from './sso.js';

const Role = Type.Union([Type.Literal('manager'), Type.Literal('reviewer')], {
  description: 'The role of an account created at its first single sign-on',
  examples: ['reviewer'],
});

const SsoView = Type.Object(
  {
    displayName: Type.String({ description: 'The sign-in page says "Sign in with <displayName>"', examples: ['Okta'] }),
    issuer: Type.String({ description: "The identity provider's issuer URL", examples: ['https://acme.okta.com'] }),
    clientId: Type.String({ examples: ['0oa1b2c3d4e5f6g7h8i9'] }),
    secretHint: Type.String({ description: 'The last four characters of the client secret', examples: ['x9Qz'] }),
    allowedDomains: Type.Array(Type.String(), { examples: [['acme.com']] }),
    jit: Type.Boolean({ description: 'A verified address of an allowed domain without an account gets one at its first sign-in', examples: [true] }),
    defaultRole: Role,
    passwordSignInOff: Type.Boolean({ description: "The instance's managers and reviewers may not sign in with a password (owners may)", examples: [false] }),
    firstSuccessAt: Type.Union([DateTime(), Type.Null()], { description: 'When a single sign-on of this instance first succeeded; null: never yet' }),
    updatedAt: DateTime(),
    redirectUri: Type.String({ description: 'The redirect URI to register at the identity provider', examples: ['https://assess.example.com/console/sso-callback'] }),
  },
  { additionalProperties: false },
);

const Change = Type.Object(
  {
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 60, examples: ['Okta'] })),
    issuer: Type.Optional(Type.String({ minLength: 1, maxLength: 500, examples: ['https://acme.okta.com'] })),
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 500, examples: ['0oa1b2c3d4e5f6g7h8i9'] })),
    clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Stored encrypted, never shown again' })),
    allowedDomains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 50, examples: [['acme.com']] })),
    jit: Type.Optional(Type.Boolean()),
    defaultRole: Type.Optional(Role),
    passwordSignInOff: Type.Optional(Type.Boolean({ description: 'May be turned on only after a single sign-on of this instance has succeeded' })),
  },
  { additionalProperties: false },
);

export const ssoAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date; sso: SsoOptions }> = async (app, { db, now, sso }) => {
  const tags = ['admin'];
  const params = Type.Object({ instance: InstanceName });

  app.get(
    '/instances/:instance/sso',
    {
      schema: {
        operationId: 'getInstanceSso',
        tags,
        summary: "The instance's single sign-on (OpenID Connect) settings",
        security: adminSecurity,
        params,
        response: { 200: SsoView, ...problemResponses('unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const settings = await ssoSettings(db, instance.id, sso);
      if (!settings) throw notFound(`Instance ${instance.name} has no single sign-on`);
      return settings;
    },
  );

  app.put(
    '/instances/:instance/sso',
    {
      schema: {
        operationId: 'configureInstanceSso',
        tags,
        summary: "Set or change the instance's single sign-on (OpenID Connect)",
        description:
          "The first time, `issuer`, `clientId`, `clientSecret` and `allowedDomains` are required; later, fields left out stay as they are. A new issuer, client id or secret is checked by loading the issuer's discovery document first. `passwordSignInOff` may be turned on only after a single sign-on of the instance has succeeded.",
        security: adminSecurity,
        params,
        body: Change,
        response: { 200: SsoView, ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'conflict') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return configureSso(db, commandRequest(request, now()), sso, { instanceId: instance.id, change: request.body });
    },
  );

  app.delete(
    '/instances/:instance/sso',
    {
      schema: {
        operationId: 'removeInstanceSso',
        tags,
        summary: "Remove the instance's single sign-on (its users sign in with passwords again)",
        security: adminSecurity,
        params,
        response: { 204: Type.Null(), ...problemResponses('unauthorized', 'not-found') },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      await runCommand(db, commandRequest(request, now()), (ctx) => removeSso(ctx, { instanceId: instance.id }), 'sso_remove');
      return reply.code(204).send(null);
    },
  );
};
