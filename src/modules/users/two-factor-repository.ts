// The SQL of the TOTP second factor (two-factor.ts holds its rules): the secret and its pending
// enrolment on the user's row, and the recovery codes.
import type { Queryable } from '../../db/database.js';

export interface TotpRow {
  secret: Buffer | null;
  pending: Buffer | null;
  lastStep: string | null;
}

/** The user's TOTP state, locked: two codes given at once are judged one after the other, so one code works once. */
export async function lockTotpRow(tx: Queryable, userId: string): Promise<TotpRow | undefined> {
  const { rows } = await tx.query<TotpRow>(`SELECT totp_secret AS secret, totp_pending AS pending, totp_last_step::text AS "lastStep" FROM users WHERE id = $1 FOR UPDATE`, [
    userId,
  ]);
  return rows[0];
}

/** Whether an instance of the user requires a second factor (an owner has every instance). */
export async function anInstanceRequiresTwoFactor(db: Queryable, userId: string, role: string): Promise<boolean> {
  const { rows } = await db.query<{ required: boolean }>(
    `SELECT CASE WHEN $2 = 'owner' THEN EXISTS (SELECT 1 FROM instances WHERE require_two_factor)
            ELSE EXISTS (SELECT 1 FROM user_instances ui JOIN instances i ON i.id = ui.instance_id WHERE ui.user_id = $1 AND i.require_two_factor) END AS required`,
    [userId, role],
  );
  return rows[0]!.required;
}

export async function setPendingSecret(tx: Queryable, userId: string, sealed: Buffer): Promise<void> {
  await tx.query('UPDATE users SET totp_pending = $2 WHERE id = $1', [userId, sealed]);
}

/** The pending secret becomes the user's, with the step of the code that confirmed it. */
export async function confirmPendingSecret(tx: Queryable, userId: string, at: Date, step: number): Promise<void> {
  await tx.query('UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_enabled_at = $2, totp_last_step = $3 WHERE id = $1', [userId, at, step]);
}

/** The user's recovery codes are these (by their hashes) and no others. */
export async function replaceRecoveryCodes(tx: Queryable, userId: string, hashes: Buffer[]): Promise<void> {
  await tx.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
  await tx.query('INSERT INTO user_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::bytea[])', [userId, hashes]);
}

export async function setLastStep(tx: Queryable, userId: string, step: number): Promise<void> {
  await tx.query('UPDATE users SET totp_last_step = $2 WHERE id = $1', [userId, step]);
}

/** Uses an unused recovery code of the user; how many are left unused, or undefined when the code was not one. */
export async function useRecoveryCode(tx: Queryable, userId: string, hash: Buffer, at: Date): Promise<number | undefined> {
  const used = await tx.query('UPDATE user_recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id', [userId, hash, at]);
  if (used.rows.length !== 1) return undefined;
  const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [userId]);
  return rows[0]!.n;
}

/** The second factor is off: no secret, no enrolment, no recovery codes. */
export async function clearTwoFactor(tx: Queryable, userId: string): Promise<void> {
  await tx.query('UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = $1', [userId]);
  await tx.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
}

/** Ends every console session of the user. */
export async function endSessionsOf(tx: Queryable, userId: string): Promise<void> {
  await tx.query('DELETE FROM console_sessions WHERE user_id = $1', [userId]);
}
