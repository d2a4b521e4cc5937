// Server secrets: random bytes made once for the whole cluster (by whichever node needs one
// first) and kept in the database, so that every node derives the same keys. Keys are derived
// per purpose (HKDF-SHA-256), never used raw; `sealer` encrypts small values with one of them.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Queryable } from './database.js';

/** A 32-byte key for `purpose`, derived from the stored secret `name` (made on first use). */
export async function serverKey(db: Queryable, name: string, purpose: string): Promise<Buffer> {
  await db.query('INSERT INTO server_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)]);
  const { rows } = await db.query<{ secret: Buffer | Uint8Array }>('SELECT secret FROM server_secrets WHERE name = $1', [name]);
  return Buffer.from(hkdfSync('sha256', Buffer.from(rows[0]!.secret), Buffer.alloc(0), purpose, 32));
}

const NONCE = 12;
const TAG = 16;
const VERSION = 1;

/**
 * Seals and opens small secrets (a partner's API key) with AES-256-GCM under a server key; `context`
 * (e.g. the instance and the purpose) is bound in, so a sealed value copied to another row does
 * not open there.
 */
export function sealer(key: Buffer) {
  return {
    seal(plain: string, context: string): Buffer {
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), nonce, body, cipher.getAuthTag()]);
    },
    /** The plain text, or undefined when the value was altered or sealed for another context. */
    open(sealed: Buffer | Uint8Array, context: string): string | undefined {
      const bytes = Buffer.from(sealed);
      if (bytes.length < 1 + NONCE + TAG || bytes[0] !== VERSION) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + NONCE));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG));
        return Buffer.concat([decipher.update(bytes.subarray(1 + NONCE, bytes.length - TAG)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}
