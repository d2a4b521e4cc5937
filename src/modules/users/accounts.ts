// The commands of a console user's own account: signing in with the password, changing the
// password, signing out. Each checks its rules, writes and records its audit entry in the
// command's transaction (a refused sign-in is recorded too: the command returns instead of
// throwing, so that its entry commits). The lockout of repeated attempts is the console's
// counter, applied by the surface before these run.
import { asClaimant, type CommandContext } from '../../domain/command.js';
import { invalidInput } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { normaliseIdentifier } from './identifier.js';
import { hashPassword, passwordProblem, verifyPassword } from './password.js';
import { passwordSignInOff } from './sso.js';
import { closeSession, findCredentials, openSession, passwordHashOf, requireUser, setPasswordHash, type SessionTimes } from './repository.js';

/** Who is at the sign-in form, for the audit entry: there is no signed-in user yet. */
export interface Client {
  ip: string;
  userAgent: string;
}

// What was typed as the e-mail is recorded only when it has the shape of an address: a password
// typed into the wrong field stays out of the audit log.
const ADDRESS = /^[^@\s]{1,64}@[^@\s]{1,253}$/;

async function signInAudit(ctx: CommandContext, client: Client, email: string, action: string, target: string | null, status: number): Promise<void> {
  const identifier = normaliseIdentifier(email);
  await audit(asClaimant(ctx, ADDRESS.test(identifier) ? `user:${identifier}` : 'user:(not an e-mail address)', client), action, target, status);
}

export type SignInResult = { ok: true; userId: string; session: { value: string; csrfToken: string }; secondFactor: boolean } | { ok: false };

/**
 * Checks an e-mail and password. Right: opens a session (waiting for the second factor when the
 * account has one) and records `user.sign-in` (or `user.sign-in.password` when the code is still
 * to come). Wrong, unknown, disabled, or of an instance whose password sign-in is off: records
 * `user.sign-in-failed` and opens nothing; the four are one answer.
 */
export async function signInWithPassword(ctx: CommandContext, times: SessionTimes, input: { email: string; password: string; client: Client }): Promise<SignInResult> {
  const credentials = input.email ? await findCredentials(ctx.tx, input.email) : undefined;
  const valid = await verifyPassword(credentials?.passwordHash, input.password);
  if (!credentials || !valid || credentials.disabled) {
    await signInAudit(ctx, input.client, input.email, 'user.sign-in-failed', credentials?.id ?? null, 401);
    return { ok: false };
  }
  // An instance of the account signs in with single sign-on only (owners are never held to it).
  // The same answer as a wrong password, so that the form does not tell that the password was right;
  // the audit entry (status 403) says why.
  if (await passwordSignInOff(ctx.tx, credentials.id)) {
    await signInAudit(ctx, input.client, input.email, 'user.sign-in-failed', credentials.id, 403);
    return { ok: false };
  }
  const session = await openSession(ctx.tx, credentials.id, ctx.now, times, credentials.twoFactor);
  await signInAudit(ctx, input.client, input.email, credentials.twoFactor ? 'user.sign-in.password' : 'user.sign-in', credentials.id, 303);
  return { ok: true, userId: credentials.id, session, secondFactor: credentials.twoFactor };
}

/** Records a sign-in refused by the lockout (too many attempts), before any password is checked. */
export async function recordLockedOut(ctx: CommandContext, input: { email: string; client: Client }): Promise<void> {
  await signInAudit(ctx, input.client, input.email, 'user.sign-in-failed', null, 429);
}

/**
 * A user changes their own password: the current one is required, the new one passes the same
 * rules as every password (length, not the e-mail, not breached) and differs from the current.
 * Every other session of the user ends; `keep` (the one asking) stays open.
 */
export async function changeOwnPassword(ctx: CommandContext, input: { userId: string; keep: Buffer; current: string; password: string; confirm: string }): Promise<void> {
  const user = await requireUser(ctx.tx, input.userId);
  const stored = await passwordHashOf(ctx.tx, user.id);
  if (!(await verifyPassword(stored, input.current))) throw invalidInput([{ in: 'body', name: 'current', detail: 'is not your current password' }]);
  const problem = passwordProblem(input.password, user.email);
  if (problem) throw invalidInput([{ in: 'body', name: 'password', detail: problem }]);
  if (input.password !== input.confirm) throw invalidInput([{ in: 'body', name: 'confirm', detail: 'does not match the new password' }]);
  if (input.password === input.current) throw invalidInput([{ in: 'body', name: 'password', detail: 'must differ from the current password' }]);
  await setPasswordHash(ctx.tx, user.id, await hashPassword(input.password), ctx.now, { keep: input.keep });
  await audit(ctx, 'user.password.change', user.id, 303);
}

/** Ends a session (signing out), recorded as `user.sign-out`. */
export async function signOut(ctx: CommandContext, input: { userId: string; sessionHash: Buffer }): Promise<void> {
  await closeSession(ctx.tx, input.sessionHash);
  await audit(ctx, 'user.sign-out', input.userId, 303);
}
