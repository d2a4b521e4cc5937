// The commands of console accounts that the operator (the admin API, the CLI) and owners (the
// console) run on others: add a user, disable or enable one, reset a password. Each checks who
// asks and what is given, writes and records its audit entry in one transaction. A password the
// operator or an owner hands out, generated or chosen, must be changed at first sign-in.
import type { Actor, CommandContext } from '../../domain/command.js';
import type { Queryable } from '../../db/database.js';
import { EMAIL_MESSAGE, isEmailAddress } from '../../domain/email.js';
import { forbidden, invalidInput } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { findInstancesByName } from '../tenants/repository.js';
import { generatePassword, hashPassword, passwordProblem } from './password.js';
import { createUser, requireUser, setDisabled, setPasswordHash, type Role, type User } from './repository.js';

/** The granted instances' ids; an owner has none (every instance), the others at least one. */
async function instanceIds(db: Queryable, role: Role, names: string[] | undefined): Promise<string[]> {
  if (role === 'owner') {
    if (names && names.length > 0) throw invalidInput([{ name: 'instances', detail: 'an owner has every instance; give instances only to managers and reviewers' }]);
    return [];
  }
  if (!names || names.length === 0) throw invalidInput([{ name: 'instances', detail: `a ${role} needs at least one instance` }]);
  const found = await findInstancesByName(db, names);
  const missing = names.filter((n) => !found.some((i) => i.name === n));
  if (missing.length > 0) throw invalidInput([{ name: 'instances', detail: `no instance named ${missing.join(', ')}` }]);
  return found.map((i) => i.id);
}

function checkedPassword(password: string, email: string): string {
  const problem = passwordProblem(password, email);
  if (problem) throw invalidInput([{ name: 'password', detail: problem }]);
  return password;
}

/** Accounts are managed by the operator and by owners. */
function checkManagesAccounts(actor: Actor): void {
  if (actor.kind === 'admin-token' || actor.kind === 'system') return;
  if (actor.kind === 'user' && actor.role === 'owner') return;
  throw forbidden('Only owners manage console accounts');
}

/** An owner may not lock themself out from the console: another owner, or the operator, does it. */
function checkNotSelf(actor: Actor, id: string, what: string): void {
  if (actor.kind === 'user' && actor.id === id) throw invalidInput([{ name: 'id', detail: `you cannot ${what} your own account here; ask another owner` }]);
}

/** Adds a user. Without a password, one is generated and returned (shown once). */
export async function addUser(ctx: CommandContext, input: { email: string; role: Role; instances?: string[]; password?: string }): Promise<{ user: User; password?: string }> {
  checkManagesAccounts(ctx.actor);
  if (!isEmailAddress(input.email)) throw invalidInput([{ name: 'email', detail: EMAIL_MESSAGE }]);
  const ids = await instanceIds(ctx.tx, input.role, input.instances);
  const password = input.password === undefined ? generatePassword() : checkedPassword(input.password, input.email);
  const passwordHash = await hashPassword(password);
  const user = await createUser(ctx.tx, { email: input.email, role: input.role, passwordHash, instanceIds: ids, mustChangePassword: true });
  await audit(ctx, 'user.create', user.id, 201);
  return input.password === undefined ? { user, password } : { user };
}

/** Disables an account (its sessions end) or enables it again. */
export async function setUserDisabled(ctx: CommandContext, input: { id: string; disabled: boolean }): Promise<User> {
  checkManagesAccounts(ctx.actor);
  if (input.disabled) checkNotSelf(ctx.actor, input.id, 'disable');
  await setDisabled(ctx.tx, input.id, input.disabled, ctx.now);
  await audit(ctx, input.disabled ? 'user.disable' : 'user.enable', input.id);
  return requireUser(ctx.tx, input.id);
}

/** Sets a new password (generated when none is given, and returned), to be changed at the next sign-in, and ends the user's sessions. */
export async function resetPassword(ctx: CommandContext, input: { id: string; password?: string }): Promise<{ user: User; password?: string }> {
  checkManagesAccounts(ctx.actor);
  checkNotSelf(ctx.actor, input.id, 'reset the password of');
  const user = await requireUser(ctx.tx, input.id);
  const password = input.password === undefined ? generatePassword() : checkedPassword(input.password, user.email);
  await setPasswordHash(ctx.tx, user.id, await hashPassword(password), ctx.now, { mustChange: true });
  await audit(ctx, 'user.reset-password', user.id);
  return input.password === undefined ? { user, password } : { user };
}
