// The commands of the TOTP second factor: enrol (a pending secret, confirmed with a code, then
// ten recovery codes shown once), give the code after the password, turn it off (the password
// again), and the operator's reset. Each records its audit entry in its transaction; a refused
// code is recorded too (the command returns instead of throwing, so that its entry commits).
import { asClaimant, type CommandContext } from '../../domain/command.js';
import { conflict, forbidden, invalidInput, notFound } from '../../domain/errors.js';
import type { Queryable } from '../../db/database.js';
import { audit } from '../audit/audit.js';
import { verifyPassword } from './password.js';
import { completeSecondFactor, passwordHashOf, requireUser, type SessionTimes, type User } from './repository.js';
import {
  anInstanceRequiresTwoFactor,
  clearTwoFactor,
  confirmPendingSecret,
  endSessionsOf,
  lockTotpRow,
  replaceRecoveryCodes,
  setLastStep,
  setPendingSecret,
  useRecoveryCode,
  type TotpRow,
} from './two-factor-repository.js';
import { acceptedStep, enrolmentUri, newRecoveryCodes, newSecret, openSecret, qrSvg, recoveryHash, sealSecret } from './totp.js';

async function totpRow(tx: Queryable, userId: string): Promise<TotpRow> {
  const row = await lockTotpRow(tx, userId);
  if (!row) throw notFound('No such user');
  return row;
}

/** Whether a user must have a second factor: an instance of theirs requires it (an owner has every instance). */
export async function twoFactorRequired(db: Queryable, user: Pick<User, 'id' | 'role'>): Promise<boolean> {
  return anInstanceRequiresTwoFactor(db, user.id, user.role);
}

/** The enrolment in progress (made on first call, the same on a reload): the secret, its URI and QR code. */
export async function startEnrolment(ctx: CommandContext, input: { userId: string }): Promise<{ secret: string; uri: string; svg: string }> {
  const user = await requireUser(ctx.tx, input.userId);
  const row = await totpRow(ctx.tx, user.id);
  if (row.secret) throw conflict('Two-factor authentication is on already; turn it off first to set up another app');
  let secret: string;
  if (row.pending) secret = await openSecret(ctx.tx, user.id, row.pending);
  else {
    secret = newSecret();
    await setPendingSecret(ctx.tx, user.id, await sealSecret(ctx.tx, user.id, secret));
  }
  const uri = enrolmentUri(secret, user.email);
  return { secret, uri, svg: await qrSvg(uri) };
}

/** Confirms the enrolment with a code of the new app; returns the ten recovery codes (only their hashes are kept). */
export async function confirmEnrolment(ctx: CommandContext, input: { userId: string; code: string }): Promise<{ recoveryCodes: string[] }> {
  const user = await requireUser(ctx.tx, input.userId);
  const row = await totpRow(ctx.tx, user.id);
  if (row.secret) throw conflict('Two-factor authentication is on already');
  if (!row.pending) throw invalidInput([{ in: 'body', name: 'code', detail: 'no set-up is in progress: open the set-up page again' }]);
  const step = acceptedStep(await openSecret(ctx.tx, user.id, row.pending), input.code, ctx.now, null);
  if (step === undefined) throw invalidInput([{ in: 'body', name: 'code', detail: 'is not the code your app shows now: check the app and its clock, and try again' }]);
  await confirmPendingSecret(ctx.tx, user.id, ctx.now, step);
  const recoveryCodes = newRecoveryCodes();
  await replaceRecoveryCodes(
    ctx.tx,
    user.id,
    recoveryCodes.map((c) => recoveryHash(c)!),
  );
  await audit(ctx, 'user.2fa.enrol', user.id, 200);
  return { recoveryCodes };
}

export type SecondFactorResult = { ok: true; recoveryCodesLeft?: number } | { ok: false };

/**
 * The code after the password: a 6-digit TOTP code (each accepted once) or an unused recovery
 * code. Right: the session is fully open, `user.sign-in` is recorded (and
 * `user.2fa.recovery-code-used`). Wrong: `user.sign-in-failed` (status 401) and nothing opens.
 */
export async function giveSecondFactor(
  ctx: CommandContext,
  times: SessionTimes,
  input: { userId: string; email: string; sessionHash: Buffer; code: string },
): Promise<SecondFactorResult> {
  const row = await totpRow(ctx.tx, input.userId);
  // The session waits for this code: its user is not signed in yet, only claims to be.
  const client = ctx.actor.kind === 'user' || ctx.actor.kind === 'anonymous' ? { ip: ctx.actor.clientIp, userAgent: ctx.actor.userAgent } : {};
  const entry = (action: string, status: number) => audit(asClaimant(ctx, `user:${input.email.toLowerCase()}`, client), action, input.userId, status);
  if (!row.secret) return { ok: false };
  const code = input.code.trim();
  const step = acceptedStep(await openSecret(ctx.tx, input.userId, row.secret), code, ctx.now, row.lastStep === null ? null : Number(row.lastStep));
  if (step !== undefined) {
    await setLastStep(ctx.tx, input.userId, step);
    await completeSecondFactor(ctx.tx, input.sessionHash, ctx.now, times);
    await entry('user.sign-in', 303);
    return { ok: true };
  }
  const hash = recoveryHash(code);
  const left = hash ? await useRecoveryCode(ctx.tx, input.userId, hash, ctx.now) : undefined;
  if (left !== undefined) {
    await completeSecondFactor(ctx.tx, input.sessionHash, ctx.now, times);
    await entry('user.2fa.recovery-code-used', 303);
    await entry('user.sign-in', 303);
    return { ok: true, recoveryCodesLeft: left };
  }
  await entry('user.sign-in-failed', 401);
  return { ok: false };
}

/** The user turns their second factor off, with their password; refused while an instance of theirs requires one. */
export async function disableTwoFactor(ctx: CommandContext, input: { userId: string; password: string }): Promise<void> {
  const user = await requireUser(ctx.tx, input.userId);
  if (!user.twoFactor) throw conflict('Two-factor authentication is off already');
  if (!(await verifyPassword(await passwordHashOf(ctx.tx, user.id), input.password))) throw invalidInput([{ in: 'body', name: 'password', detail: 'is not your password' }]);
  if (await twoFactorRequired(ctx.tx, user)) throw forbidden('An instance of yours requires two-factor authentication: it cannot be turned off');
  await clearTwoFactor(ctx.tx, user.id);
  await audit(ctx, 'user.2fa.disable', user.id, 303);
}

/** The operator resets a user's second factor (a lost phone): it is off, and every session of the user ends. */
export async function resetTwoFactor(ctx: CommandContext, input: { id: string }): Promise<User> {
  const user = await requireUser(ctx.tx, input.id);
  await clearTwoFactor(ctx.tx, user.id);
  await endSessionsOf(ctx.tx, user.id);
  await audit(ctx, 'user.2fa.reset', user.id, 200);
  return requireUser(ctx.tx, user.id);
}
