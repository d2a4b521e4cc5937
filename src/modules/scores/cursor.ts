// Paging cursors of GET /v1/score?limit=…: opaque and tamper-evident. A cursor carries the last
// invitation id of a page, which is a global sequence: shown in clear, its gaps would tell a
// client how many invitations other tenants made meanwhile. So it is encrypted with AES-256-GCM
// under a key derived from a server secret stored in the database (server_secrets, made once by
// whichever node needs it first), so that every node can read every node's cursors. The API key
// it was issued to is bound in as associated data: a cursor is refused with another key, and any
// change to it fails authentication (the route answers 400 naming `cursor`).
//
// Layout, base64url without padding (50 characters): version (1 byte, 1) | nonce (12) |
// ciphertext of the id (8, big-endian) | tag (16).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { serverKey } from '../../db/secrets.js';
import type { Queryable } from '../../db/database.js';

const VERSION = 1;
const NONCE = 12;
const TAG = 16;
const ID = 8;
export const CURSOR_LENGTH = Math.ceil(((1 + NONCE + ID + TAG) * 4) / 3);
const SECRET_NAME = 'score-cursor';

/** The derived key of the stored secret (made once for the whole cluster). */
const loadKey = (db: Queryable): Promise<Buffer> => serverKey(db, SECRET_NAME, 'assessment-connect score cursor v1');

export class CursorCodec {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly db: Queryable) {}

  private getKey(): Promise<Buffer> {
    // Loaded once; a failure (database away) is retried by the next request.
    this.key ??= loadKey(this.db).catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  async encode(invitationId: string, apiKeyId: string): Promise<string> {
    const key = await this.getKey();
    const nonce = randomBytes(NONCE);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from(apiKeyId, 'utf8'));
    const plain = Buffer.alloc(ID);
    plain.writeBigUInt64BE(BigInt(invitationId));
    const encrypted = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), nonce, encrypted, cipher.getAuthTag()]).toString('base64url');
  }

  /** The invitation id in a cursor this service gave to this API key; undefined for any other. */
  async decode(cursor: string, apiKeyId: string): Promise<string | undefined> {
    const bytes = Buffer.from(cursor, 'base64url');
    if (bytes.length !== 1 + NONCE + ID + TAG || bytes[0] !== VERSION || bytes.toString('base64url') !== cursor) return undefined;
    const key = await this.getKey();
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(1, 1 + NONCE));
    decipher.setAAD(Buffer.from(apiKeyId, 'utf8'));
    decipher.setAuthTag(bytes.subarray(1 + NONCE + ID));
    try {
      const plain = Buffer.concat([decipher.update(bytes.subarray(1 + NONCE, 1 + NONCE + ID)), decipher.final()]);
      return plain.readBigUInt64BE().toString();
    } catch {
      return undefined;
    }
  }
}
