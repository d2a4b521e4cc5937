// TOTP second factor (RFC 6238: HMAC-SHA1, 6 digits, 30-second steps, one step of clock drift
// either way) through the otpauth library, its secrets sealed at rest, and recovery codes.
//
// A TOTP secret must be kept to check codes, so it cannot be hashed: it is encrypted with
// AES-256-GCM under a key derived (HKDF-SHA256) from a random secret every node shares
// (console_secrets 'totp', made once by whichever node needs it first, as the score cursors'
// key is), with the user's id as associated data, so that a sealed secret copied to another
// account does not open. Layout: version (1) | nonce (12) | ciphertext | tag (16).
// Recovery codes are random (60 bits) and stored as SHA-256 hashes only.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Queryable } from '../../db/database.js';
import { sha256 } from '../keys/secret.js';

const VERSION = 1;
const NONCE = 12;
const TAG = 16;
const STEP_SECONDS = 30;
const ISSUER = 'Assessment Connect';
export const RECOVERY_CODES = 10;

async function sealingKey(db: Queryable): Promise<Buffer> {
  await db.query(`INSERT INTO console_secrets (name, secret) VALUES ('totp', $1) ON CONFLICT (name) DO NOTHING`, [randomBytes(32)]);
  const { rows } = await db.query<{ secret: Buffer | Uint8Array }>(`SELECT secret FROM console_secrets WHERE name = 'totp'`);
  return Buffer.from(hkdfSync('sha256', Buffer.from(rows[0]!.secret), Buffer.alloc(0), 'assessment-connect totp secret v1', 32));
}

export async function sealSecret(db: Queryable, userId: string, base32: string): Promise<Buffer> {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', await sealingKey(db), nonce);
  cipher.setAAD(Buffer.from(userId, 'utf8'));
  const sealed = Buffer.concat([cipher.update(base32, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, sealed, cipher.getAuthTag()]);
}

export async function openSecret(db: Queryable, userId: string, sealed: Buffer | Uint8Array): Promise<string> {
  const bytes = Buffer.from(sealed);
  if (bytes[0] !== VERSION || bytes.length <= 1 + NONCE + TAG) throw new Error('not a sealed TOTP secret');
  const decipher = createDecipheriv('aes-256-gcm', await sealingKey(db), bytes.subarray(1, 1 + NONCE));
  decipher.setAAD(Buffer.from(userId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG));
  return Buffer.concat([decipher.update(bytes.subarray(1 + NONCE, bytes.length - TAG)), decipher.final()]).toString('utf8');
}

/** A new secret: 160 random bits (RFC 4226's recommended length), in base32. */
export function newSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(base32: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, algorithm: 'SHA1', digits: 6, period: STEP_SECONDS, secret: Secret.fromBase32(base32) });
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function enrolmentUri(base32: string, email: string): string {
  return totpOf(base32, email).toString();
}

/** The QR code of a URI as SVG markup, made here (no image from elsewhere). */
export async function qrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * The time step a 6-digit code is good for at `now` (one step of drift either way), or undefined.
 * A step at or before `lastStep` was used already: a code is accepted once.
 */
export function acceptedStep(base32: string, code: string, now: Date, lastStep: number | null): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(base32, 'x').validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return undefined;
  const step = Math.floor(now.getTime() / 1000 / STEP_SECONDS) + delta;
  return lastStep !== null && step <= lastStep ? undefined : step;
}

/** The code of a step, for tests and nothing else. */
export function codeAt(base32: string, at: Date): string {
  return totpOf(base32, 'x').generate({ timestamp: at.getTime() });
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes of 12 characters from a 31-letter alphabet without look-alikes (~59 bits), as xxxx-xxxx-xxxx. */
export function newRecoveryCodes(): string[] {
  const codes: string[] = [];
  while (codes.length < RECOVERY_CODES) {
    let code = '';
    for (const byte of randomBytes(24)) {
      if (byte < 256 - (256 % RECOVERY_ALPHABET.length)) code += RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length];
      if (code.length === 12) break;
    }
    if (code.length === 12) codes.push(`${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`);
  }
  return codes;
}

/** The stored form of a recovery code: its SHA-256, whatever its case, spaces or dashes. */
export function recoveryHash(code: string): Buffer | undefined {
  const plain = code.toLowerCase().replace(/[\s-]+/g, '');
  return /^[a-z0-9]{12}$/.test(plain) ? sha256(plain) : undefined;
}
