// user create / list / disable / enable / reset-password / reset-2fa: the console's users.
import { type Command, UsageError, ok } from './client.js';
import { list, needArg, passwordFromStdin, required, table } from './options.js';

function userCreated(data: { id: string; email: string; role: string; instances: string[]; password?: string }, verb: string): string {
  const lines = [`${verb} ${data.email} (${data.role}${data.instances.length ? ` of ${data.instances.join(', ')}` : ''}), id ${data.id}.`];
  if (typeof data.password === 'string')
    lines.push('One-time password, shown this once (sign in at /console/ and keep it safe; it must be changed at first sign-in):', '', `  ${data.password}`, '');
  return lines.join('\n');
}

const ROLES = ['owner', 'manager', 'reviewer'] as const;

function role(value: string): (typeof ROLES)[number] {
  const known = ROLES.find((r) => r === value);
  if (!known) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return known;
}

const userId = (id: string | undefined, command: string) => needArg(id, `user ${command} needs the user id, as shown by user list`);

export const userCommands: Record<string, Command> = {
  async 'user create'(ctx, _args, options) {
    const password = options['password-stdin'] ? await passwordFromStdin(ctx) : undefined;
    const body = { email: required(options, 'email'), role: role(required(options, 'role')), instances: list(options.instance), password };
    const data = await ok(ctx, ctx.client.POST('/admin/v1/users', { body }));
    return { data, text: userCreated(data, 'Created') };
  },
  async 'user list'(ctx) {
    const data = await ok(ctx, ctx.client.GET('/admin/v1/users'));
    return { data, text: table(data, ['id', 'email', 'role', 'instances', 'disabled', 'createdAt']) };
  },
  async 'user disable'(ctx, [id]) {
    const data = await ok(ctx, ctx.client.POST('/admin/v1/users/{id}/disable', { params: { path: { id: userId(id, 'disable') } } }));
    return { data, text: `Disabled ${data.email}; their console sessions have ended` };
  },
  async 'user enable'(ctx, [id]) {
    const data = await ok(ctx, ctx.client.POST('/admin/v1/users/{id}/enable', { params: { path: { id: userId(id, 'enable') } } }));
    return { data, text: `Enabled ${data.email}` };
  },
  async 'user reset-password'(ctx, [id], options) {
    const path = { id: userId(id, 'reset-password') };
    const password = options['password-stdin'] ? await passwordFromStdin(ctx) : undefined;
    const data = await ok(ctx, ctx.client.POST('/admin/v1/users/{id}/reset-password', { params: { path }, body: password === undefined ? {} : { password } }));
    return { data, text: userCreated(data, 'Reset the password of') };
  },
  async 'user reset-2fa'(ctx, [id]) {
    const data = await ok(ctx, ctx.client.POST('/admin/v1/users/{id}/reset-2fa', { params: { path: { id: userId(id, 'reset-2fa') } } }));
    return { data, text: `Turned off the second factor of ${data.email}; their console sessions have ended. They can set up a new one from their account page.` };
  },
};
