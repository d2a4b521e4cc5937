// Console users, managed with the admin token (the CLI's `user …` commands): create (with a
// one-time password, or one the operator chose), list, disable/enable, reset the password.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { listUsers } from './repository.js';
import { addUser, resetPassword, setUserDisabled } from './service.js';
import { resetTwoFactor } from './two-factor.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('reviewer')], {
  examples: ['manager'],
  description: 'owner: everything; manager: invitations, content, results, reviews and keys of its instances; reviewer: read results and score free-text answers of its instances',
});

const UserView = Type.Object(
  {
    id: Type.String({ format: 'uuid', examples: ['49201450-cf57-4604-b5fc-11df958d49c5'] }),
    email: Type.String({ examples: ['maria.lopez@example.com'] }),
    role: RoleSchema,
    instances: Type.Array(Type.String(), { description: 'The instances of a manager or reviewer; empty for an owner, who has every instance', examples: [['demo']] }),
    disabled: Type.Boolean({ examples: [false] }),
    mustChangePassword: Type.Boolean({ examples: [true], description: 'The password was given by the operator: the user changes it at their next sign-in' }),
    twoFactor: Type.Boolean({ examples: [false], description: 'A TOTP second factor is set up' }),
    createdAt: DateTime({ examples: ['2026-11-20T16:02:41.830Z'] }),
  },
  { additionalProperties: false },
);

const Password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'At least 12 characters, not a common or breached password',
  examples: ['correct-horse-battery-staple-42'],
});
const WithPassword = Type.Object({
  ...UserView.properties,
  password: Type.Optional(Type.String({ description: 'The generated one-time password, present only when none was given; shown this once', examples: ['V3hcSk2y3EAEqCBxrRVr'] })),
});
const UserId = Type.Object({ id: Type.String({ format: 'uuid', examples: ['49201450-cf57-4604-b5fc-11df958d49c5'] }) });

export const userAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  app.post(
    '/users',
    {
      schema: {
        operationId: 'createUser',
        tags: ['admin'],
        summary: 'Create a console user',
        description: 'Without `password`, a one-time password is generated and returned once. Managers and reviewers need `instances`.',
        security: adminSecurity,
        body: Type.Object(
          {
            email: Type.String({ format: 'email', maxLength: 254, examples: ['maria.lopez@example.com'] }),
            role: RoleSchema,
            instances: Type.Optional(Type.Array(InstanceName, { maxItems: 100, uniqueItems: true, examples: [['demo']] })),
            password: Type.Optional(Password),
          },
          { additionalProperties: false },
        ),
        response: { 201: WithPassword, ...problemResponses('validation-failed', 'unauthorized', 'conflict') },
      },
    },
    async (request, reply) => {
      const { user, password } = await runCommand(db, commandRequest(request, now()), (ctx) => addUser(ctx, request.body), 'user_create');
      return reply.code(201).send(password === undefined ? user : { ...user, password });
    },
  );

  app.get(
    '/users',
    {
      schema: {
        operationId: 'listUsers',
        tags: ['admin'],
        summary: 'List console users',
        security: adminSecurity,
        response: { 200: Type.Array(UserView), ...problemResponses('unauthorized') },
      },
    },
    async () => listUsers(db),
  );

  for (const [action, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    app.post(
      `/users/:id/${action}`,
      {
        schema: {
          operationId: `${action}User`,
          tags: ['admin'],
          summary: disabled ? 'Disable a console user (ends their sessions)' : 'Enable a disabled console user',
          security: adminSecurity,
          params: UserId,
          response: { 200: UserView, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
        },
      },
      async (request) => runCommand(db, commandRequest(request, now()), (ctx) => setUserDisabled(ctx, { id: request.params.id, disabled }), `user_${action}`),
    );
  }

  app.post(
    '/users/:id/reset-password',
    {
      schema: {
        operationId: 'resetUserPassword',
        tags: ['admin'],
        summary: "Reset a console user's password (ends their sessions)",
        description: 'Without `password`, a one-time password is generated and returned once.',
        security: adminSecurity,
        params: UserId,
        body: Type.Optional(Type.Object({ password: Type.Optional(Password) }, { additionalProperties: false })),
        response: { 200: WithPassword, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const { user, password } = await runCommand(
        db,
        commandRequest(request, now()),
        (ctx) => resetPassword(ctx, { id: request.params.id, password: request.body?.password }),
        'user_reset_password',
      );
      return password === undefined ? user : { ...user, password };
    },
  );

  app.post(
    '/users/:id/reset-2fa',
    {
      schema: {
        operationId: 'resetUserTwoFactor',
        tags: ['admin'],
        summary: "Turn off a console user's second factor (ends their sessions)",
        description:
          'For a user who lost their authenticator app and recovery codes: they sign in with the password alone and can set up a new app (or must, where an instance requires it).',
        security: adminSecurity,
        params: UserId,
        response: { 200: UserView, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => runCommand(db, commandRequest(request, now()), (ctx) => resetTwoFactor(ctx, { id: request.params.id }), 'user_reset_2fa'),
  );
};
