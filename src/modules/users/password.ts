// Passwords of console users: scrypt (memory-hard; N = 2^15, r = 8, p = 1, 32 MiB per hash), a
// random salt per password, compared in constant time. Each hash names its own parameters, and a
// password is checked with the parameters of its hash. The policy: 12 to 256 characters, not the
// e-mail address, and not one of the ~49,000 common or breached passwords that ship with
// @zxcvbn-ts/language-common (also with digits or symbols added at the end: "dragon123456").
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { dictionary } from '@zxcvbn-ts/language-common';

/**
 * log2 of scrypt's N for new hashes: 15, except under the test runner (NODE_ENV=test, which
 * `npm test` sets), where it is 10 (1 MiB, about 1/32 of the work). At 2^15 one hash took 215 ms
 * of CPU on the developer machine, and the suite makes about 730 of them (sign-ins, the sign-in
 * limits, new accounts): some 160 s of its CPU. The code is the same at either cost.
 */
export const scryptCost = (env: NodeJS.ProcessEnv): number => (env.NODE_ENV === 'test' ? 10 : 15);
const LOG2_N = scryptCost(process.env);
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

const scrypt = (password: string, salt: Buffer, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) => (error ? reject(error) : resolve(key))),
  );

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { N: 2 ** LOG2_N, r: R, p: P });
  return `scrypt$${LOG2_N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

// Compared against when there is no such user, so that an unknown e-mail costs as long as a
// wrong password and timing does not tell which accounts exist.
const DECOY = `scrypt$${LOG2_N}$${R}$${P}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  const parts = (stored ?? DECOY).split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, logN, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  const key = await scrypt(password, Buffer.from(salt, 'base64'), { N: 2 ** Number(logN), r: Number(r), p: Number(p) });
  return stored !== undefined && key.length === expected.length && timingSafeEqual(key, expected);
}

const COMMON = new Set<string>(dictionary['passwords-common'] as string[]);

/** Why this password may not be used, or undefined when it may. */
export function passwordProblem(password: string, email?: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  if (length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters long`;
  const lower = password.toLowerCase();
  if (email && (lower === email.toLowerCase() || lower === email.split('@')[0]!.toLowerCase())) return 'must not be your e-mail address';
  const stem = lower.replace(/[\d\W_]+$/u, '');
  if (COMMON.has(lower) || (stem.length > 0 && COMMON.has(stem)) || /^(.{1,4})\1+$/u.test(lower)) {
    return 'is too common: it appears in lists of breached passwords';
  }
  return undefined;
}

/** A password for a new account or a reset, shown once: 20 characters from a 57-letter alphabet without look-alikes (~116 bits). */
export function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(40);
  let out = '';
  for (const byte of bytes) {
    if (byte < 256 - (256 % alphabet.length)) out += alphabet[byte % alphabet.length];
    if (out.length === 20) break;
  }
  return out.length === 20 ? out : generatePassword();
}
