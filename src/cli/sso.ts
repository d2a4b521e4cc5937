// sso show / sso set / sso remove: an instance's single sign-on (OpenID Connect). The client
// secret is read from standard input (--client-secret-stdin), so that it never appears in the
// process list or shell history; it is stored encrypted and never shown again.
import { type Command, type Options, UsageError, done, ok } from './client.js';
import { list, passwordFromStdin, required, text } from './options.js';

function onOff(options: Options, name: string): boolean | undefined {
  const value = text(options, name);
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new UsageError(`--${name} must be on or off`);
  return value === 'on';
}

interface View {
  displayName: string;
  issuer: string;
  clientId: string;
  secretHint: string;
  allowedDomains: string[];
  jit: boolean;
  defaultRole: string;
  passwordSignInOff: boolean;
  firstSuccessAt: string | null;
  redirectUri: string;
}

const describe = (instance: string, v: View) =>
  [
    `Single sign-on of ${instance}: "Sign in with ${v.displayName}"`,
    `  issuer           ${v.issuer}`,
    `  client id        ${v.clientId} (secret …${v.secretHint})`,
    `  redirect URI     ${v.redirectUri} (register it at the provider)`,
    `  allowed domains  ${v.allowedDomains.join(', ')}`,
    `  new accounts     ${v.jit ? `made at first sign-in, as ${v.defaultRole}` : 'not made: only existing accounts sign in'}`,
    `  password sign-in ${v.passwordSignInOff ? 'off for managers and reviewers (owners keep theirs)' : 'on'}`,
    `  first success    ${v.firstSuccessAt ?? 'not yet'}`,
  ].join('\n');

export const ssoCommands: Record<string, Command> = {
  async 'sso show'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/sso', { params: { path: { instance } } }));
    return { data, text: describe(instance, data) };
  },
  async 'sso set'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const given = text(options, 'default-role');
    if (given !== undefined && given !== 'manager' && given !== 'reviewer') throw new UsageError('--default-role must be manager or reviewer');
    const role: 'manager' | 'reviewer' | undefined = given;
    const passwordSignIn = onOff(options, 'password-sign-in');
    const body = {
      ...(text(options, 'display-name') !== undefined ? { displayName: text(options, 'display-name') } : {}),
      ...(text(options, 'issuer') !== undefined ? { issuer: text(options, 'issuer') } : {}),
      ...(text(options, 'client-id') !== undefined ? { clientId: text(options, 'client-id') } : {}),
      ...(options['client-secret-stdin'] ? { clientSecret: await passwordFromStdin(ctx) } : {}),
      ...(list(options.domains) !== undefined ? { allowedDomains: list(options.domains) } : {}),
      ...(onOff(options, 'jit') !== undefined ? { jit: onOff(options, 'jit') } : {}),
      ...(role !== undefined ? { defaultRole: role } : {}),
      ...(passwordSignIn !== undefined ? { passwordSignInOff: !passwordSignIn } : {}),
    };
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one of the options of sso set');
    const data = await ok(ctx, ctx.client.PUT('/admin/v1/instances/{instance}/sso', { params: { path: { instance } }, body }));
    return { data, text: describe(instance, data) };
  },
  async 'sso remove'(ctx, _args, options) {
    const instance = required(options, 'instance');
    await done(ctx, ctx.client.DELETE('/admin/v1/instances/{instance}/sso', { params: { path: { instance } } }));
    return { data: { removed: instance }, text: `Single sign-on of ${instance} removed: its users sign in with passwords.` };
  },
};
