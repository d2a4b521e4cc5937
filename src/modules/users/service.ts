// Adding users and resetting passwords, the same for the admin API and the console. A password
// the operator (or an owner) hands out, generated or chosen, must be changed at first sign-in.
import type { Database, Queryable } from '../../db/database.js';
import { invalidInput } from '../../domain/errors.js';
import { findInstancesByName } from '../tenants/repository.js';
import { generatePassword, hashPassword, passwordProblem } from './password.js';
import { createUser, requireUser, setPasswordHash, type Role, type User } from './repository.js';

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

/**
 * Adds a user. Without a password, one is generated and returned (shown once); `inTransaction`
 * runs in the transaction that creates the user (its audit entry).
 */
export async function addUser(
  db: Database,
  input: { email: string; role: Role; instances?: string[]; password?: string },
  inTransaction?: (tx: Queryable, user: User) => Promise<void>,
): Promise<{ user: User; password?: string }> {
  const ids = await instanceIds(db, input.role, input.instances);
  const password = input.password === undefined ? generatePassword() : checkedPassword(input.password, input.email);
  const passwordHash = await hashPassword(password);
  const user = await db.transaction(async (tx) => {
    const made = await createUser(tx, { email: input.email, role: input.role, passwordHash, instanceIds: ids, mustChangePassword: true });
    await inTransaction?.(tx, made);
    return made;
  });
  return input.password === undefined ? { user, password } : { user };
}

/** Sets a new password (generated when none is given, and returned) and ends the user's sessions. */
export async function resetPassword(
  db: Database,
  id: string,
  given: string | undefined,
  inTransaction?: (tx: Queryable, user: User) => Promise<void>,
): Promise<{ user: User; password?: string }> {
  const user = await requireUser(db, id);
  const password = given === undefined ? generatePassword() : checkedPassword(given, user.email);
  const passwordHash = await hashPassword(password);
  await db.transaction(async (tx) => {
    await setPasswordHash(tx, user.id, passwordHash, { mustChange: true });
    await inTransaction?.(tx, user);
  });
  return given === undefined ? { user, password } : { user };
}
