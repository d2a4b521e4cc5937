// Console users, their instances and their sessions. Only this module reads or writes the users,
// user_instances, console_sessions, user_recovery_codes and console_secrets tables.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { conflict, notFound } from '../../domain/errors.js';
import { sha256 } from '../keys/secret.js';
import { normaliseIdentifier } from './identifier.js';

export const ROLES = ['owner', 'manager', 'reviewer'] as const;
export type Role = (typeof ROLES)[number];

export interface User {
  id: string;
  email: string;
  role: Role;
  /** Names of the instances granted; owners have every instance and an empty list here. */
  instances: string[];
  disabled: boolean;
  createdAt: Date;
  /** The password was handed out by the operator: the user must change it before anything else. */
  mustChangePassword: boolean;
  /** A TOTP second factor is enrolled. */
  twoFactor: boolean;
}

const USER_COLUMNS = `u.id, u.email, u.role, u.disabled_at IS NOT NULL AS disabled, u.created_at AS "createdAt",
  u.must_change_password AS "mustChangePassword", u.totp_enabled_at IS NOT NULL AS "twoFactor",
  COALESCE((SELECT array_agg(i.name ORDER BY i.name) FROM user_instances ui JOIN instances i ON i.id = ui.instance_id WHERE ui.user_id = u.id), '{}') AS instances`;

/** Adds an account under its e-mail's normal form (normaliseIdentifier): one account per address however it is spelled. */
export async function createUser(tx: Queryable, input: { email: string; role: Role; passwordHash: string; instanceIds: string[]; mustChangePassword?: boolean }): Promise<User> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO users (email, role, password_hash, must_change_password) VALUES ($1, $2, $3, $4) ON CONFLICT (lower(email)) DO NOTHING RETURNING id`,
    [normaliseIdentifier(input.email), input.role, input.passwordHash, input.mustChangePassword ?? false],
  );
  if (rows.length === 0) throw conflict(`A user with the e-mail ${input.email} exists already`);
  const id = rows[0]!.id;
  if (input.role !== 'owner' && input.instanceIds.length > 0) {
    await tx.query('INSERT INTO user_instances (user_id, instance_id) SELECT $1, unnest($2::uuid[])', [id, input.instanceIds]);
  }
  return (await findUser(tx, id))!;
}

export async function listUsers(db: Queryable): Promise<User[]> {
  const { rows } = await db.query<User>(`SELECT ${USER_COLUMNS} FROM users u ORDER BY lower(u.email)`);
  return rows;
}

export async function findUser(db: Queryable, id: string): Promise<User | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const { rows } = await db.query<User>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
  return rows[0];
}

export async function requireUser(db: Queryable, id: string): Promise<User> {
  const user = await findUser(db, id);
  if (!user) throw notFound('No such user');
  return user;
}

export async function countOwners(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM users WHERE role = 'owner' AND disabled_at IS NULL`);
  return rows[0]!.n;
}

/**
 * What signing in needs: the hash, and whether the account may sign in at all. Found by the
 * e-mail's normal form only (the database's lower() is not applied to it: it depends on the
 * server's locale), so the account found and the sign-in lockout's key are always the same.
 */
export async function findCredentials(db: Queryable, email: string): Promise<{ id: string; passwordHash: string; disabled: boolean; twoFactor: boolean } | undefined> {
  const { rows } = await db.query<{ id: string; passwordHash: string; disabled: boolean; twoFactor: boolean }>(
    `SELECT id, password_hash AS "passwordHash", disabled_at IS NOT NULL AS disabled, totp_enabled_at IS NOT NULL AS "twoFactor" FROM users WHERE lower(email) = $1`,
    [normaliseIdentifier(email)],
  );
  return rows[0];
}

/** Disables or enables an account; disabling ends its sessions at once. */
export async function setDisabled(tx: Queryable, id: string, disabled: boolean, at: Date): Promise<void> {
  const { rows } = await tx.query(`UPDATE users SET disabled_at = CASE WHEN $2 THEN COALESCE(disabled_at, $3) END WHERE id = $1 RETURNING id`, [id, disabled, at]);
  if (rows.length === 0) throw notFound('No such user');
  if (disabled) await tx.query('DELETE FROM console_sessions WHERE user_id = $1', [id]);
}

/**
 * Sets a new password hash and ends every session of the account but `keep` (the session of a
 * user changing their own). `mustChange`: the operator handed it out, so it is to be changed at
 * the next sign-in.
 */
export async function setPasswordHash(tx: Queryable, id: string, passwordHash: string, at: Date, options: { mustChange?: boolean; keep?: Buffer } = {}): Promise<void> {
  const { rows } = await tx.query(`UPDATE users SET password_hash = $2, password_changed_at = $4, must_change_password = $3 WHERE id = $1 RETURNING id`, [
    id,
    passwordHash,
    options.mustChange ?? false,
    at,
  ]);
  if (rows.length === 0) throw notFound('No such user');
  await tx.query('DELETE FROM console_sessions WHERE user_id = $1 AND ($2::bytea IS NULL OR token_hash <> $2)', [id, options.keep ?? null]);
}

/** The password hash of an account, to check the current password before a change. */
export async function passwordHashOf(db: Queryable, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ hash: string }>('SELECT password_hash AS hash FROM users WHERE id = $1', [id]);
  return rows[0]?.hash;
}

// ---- sessions -------------------------------------------------------------------------------

export interface SessionTimes {
  /** Ends a session this long after its last request. */
  idleMs: number;
  /** Ends a session this long after sign-in, however active. */
  absoluteMs: number;
}

export interface SignedIn {
  user: User;
  csrfToken: string;
  sessionHash: Buffer;
  /** The password was right but the second factor is still to be given: nothing else is reached. */
  secondFactorPending: boolean;
  /** Opened by single sign-on: the identity provider checked the factors (no password or TOTP steps). */
  viaSso: boolean;
}

/** How long a session waits for its second factor after the password. */
export const SECOND_FACTOR_MS = 5 * 60_000;

export async function openSession(
  db: Queryable,
  userId: string,
  now: Date,
  times: SessionTimes,
  secondFactorPending = false,
  viaSso = false,
): Promise<{ value: string; csrfToken: string }> {
  const value = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  await db.query(
    `INSERT INTO console_sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, second_factor_pending, via_sso) VALUES ($1, $2, $3, $4, $4, $5, $6, $7)`,
    [
      sha256(value),
      userId,
      csrfToken,
      now,
      new Date(now.getTime() + (secondFactorPending ? Math.min(SECOND_FACTOR_MS, times.absoluteMs) : times.absoluteMs)),
      secondFactorPending,
      viaSso,
    ],
  );
  // Expired sessions of anyone are cleared now and then, by the sign-ins that make new ones.
  await db.query('DELETE FROM console_sessions WHERE expires_at < $1 OR last_seen_at < $2', [now, new Date(now.getTime() - times.idleMs)]);
  return { value, csrfToken };
}

/** The signed-in user of a cookie value, when the session is alive at `now`; marks it seen. */
/**
 * SQL: the user (a users row named `u`) may not sign in with a password: a manager or reviewer
 * with an instance whose password sign-in is off. Owners always may (they keep a way in). Decides
 * both a new password sign-in and whether a session opened by password still holds.
 */
export const PASSWORD_SIGN_IN_OFF = (u: string) =>
  `(${u}.role <> 'owner' AND EXISTS (SELECT 1 FROM user_instances ui JOIN instance_sso x ON x.instance_id = ui.instance_id WHERE ui.user_id = ${u}.id AND x.password_sign_in_off))`;

/** The session of a cookie, if it still holds (and a session opened by password only while its user may sign in so). */
export async function findSession(db: Queryable, value: string, now: Date, times: SessionTimes): Promise<SignedIn | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(value)) return undefined;
  const hash = sha256(value);
  const { rows } = await db.query<{ userId: string; csrfToken: string; pending: boolean; viaSso: boolean }>(
    `UPDATE console_sessions s SET last_seen_at = $2
       FROM users u
      WHERE s.token_hash = $1 AND u.id = s.user_id AND u.disabled_at IS NULL AND s.expires_at > $2 AND s.last_seen_at > $3
        AND (s.via_sso OR NOT ${PASSWORD_SIGN_IN_OFF('u')})
      RETURNING s.user_id AS "userId", s.csrf_token AS "csrfToken", s.second_factor_pending AS pending, s.via_sso AS "viaSso"`,
    [hash, now, new Date(now.getTime() - times.idleMs)],
  );
  const row = rows[0];
  if (!row) return undefined;
  const user = await findUser(db, row.userId);
  return user ? { user, csrfToken: row.csrfToken, sessionHash: hash, secondFactorPending: row.pending, viaSso: row.viaSso } : undefined;
}

export async function closeSession(db: Queryable, sessionHash: Buffer): Promise<void> {
  await db.query('DELETE FROM console_sessions WHERE token_hash = $1', [sessionHash]);
}

/** A session that gave its second factor: open for the whole absolute time from now. */
export async function completeSecondFactor(db: Queryable, sessionHash: Buffer, now: Date, times: SessionTimes): Promise<void> {
  await db.query('UPDATE console_sessions SET second_factor_pending = false, expires_at = $2 WHERE token_hash = $1', [sessionHash, new Date(now.getTime() + times.absoluteMs)]);
}
