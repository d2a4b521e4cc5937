// Idempotency-Key on POST /v1/invite. A client that did not hear the answer to an invite (a
// timeout, a dropped connection) retries with the same key and gets the first answer again,
// without a second invitation or e-mail.
//
// Scope: (API key, instance, Idempotency-Key); another API key using the same value is a
// different request. The row is written as "in flight" and committed before the invite work
// starts, so that a concurrent retry sees it (409) instead of inviting in parallel. Answered, it
// holds the status and body for 24 hours. A failed first request (4xx, 5xx) leaves nothing
// behind, so that a retry runs for real; an in-flight row older than STALE_SECONDS (its node
// died mid-request) may be taken over by a retry.
//
// The stored answer holds the candidate's sign-in link, a usable secret, so it never rests in
// plain text: it is sealed with AES-256-GCM under a key derived (HKDF-SHA256) from what only the
// client holds, its API key and the Idempotency-Key, salted with the request's fingerprint. The
// database keeps neither: the API key only as a hash (api_keys), the Idempotency-Key only as its
// SHA-256. A replay (same API key, same Idempotency-Key, same request) derives the same key and
// opens the answer; anyone reading the database or a backup holds ciphertext.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { Job } from '../../jobs/runner.js';
import type { Queryable } from '../../db/database.js';
import { Problem } from '../../http/problem.js';

export const HEADER = 'idempotency-key';
export const TTL_HOURS = 24;
const STALE_SECONDS = 60;
/** SQL: older than the keys' lifetime at the time given as parameter `$n` (the app's clock). */
const expiredBefore = (n: number) => `$${n}::timestamptz - interval '${TTL_HOURS} hours'`;

export interface Scope {
  keyId: string;
  instanceId: string;
  /** The Idempotency-Key as the client sent it; stored only as its SHA-256. */
  key: string;
  /** The API key the client presented: part of the sealing key, never stored. */
  secret: string;
}

const SEAL_INFO = 'assessment-connect idempotent response v1';

/** The key that seals the answer of this scope and request: nothing stored suffices to derive it. */
function sealingKey(scope: Scope, print: string): Buffer {
  const ikm = Buffer.concat([Buffer.from(scope.secret, 'utf8'), Buffer.from([0]), Buffer.from(scope.key, 'utf8')]);
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.from(print, 'hex'), `${SEAL_INFO}\0${scope.keyId}\0${scope.instanceId}`, 32));
}

interface Sealed {
  v: 1;
  alg: 'A256GCM';
  iv: string;
  tag: string;
  data: string;
}

/** Encrypts a response for storage (AES-256-GCM); the status is bound to it as associated data. */
export function seal(scope: Scope, print: string, status: number, response: unknown): Sealed {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(scope, print), iv);
  cipher.setAAD(Buffer.from(String(status)));
  const data = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
  return { v: 1, alg: 'A256GCM', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** Decrypts a stored response; undefined when it cannot be opened with this scope and request. */
export function unseal(scope: Scope, print: string, status: number, sealed: unknown): unknown {
  const box = sealed as Partial<Sealed> | null;
  if (!box || box.v !== 1 || typeof box.iv !== 'string' || typeof box.tag !== 'string' || typeof box.data !== 'string') return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(scope, print), Buffer.from(box.iv, 'base64'));
    decipher.setAAD(Buffer.from(String(status)));
    decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
    const plain = Buffer.concat([decipher.update(Buffer.from(box.data, 'base64')), decipher.final()]);
    return JSON.parse(plain.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** What the idempotency_key column holds: the SHA-256 (hex) of the client's Idempotency-Key. */
export const keyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const whereParams = (scope: Scope) => [scope.keyId, scope.instanceId, keyHash(scope.key)];

export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; response: unknown };

/**
 * JSON with object keys sorted at every level, so that equal documents hash equally. Iterative,
 * with an explicit stack: bodies are bounded in depth by the JSON parser, but a walk of its own
 * never overflows the call stack whatever it is given.
 */
export function canonicalJson(value: unknown): string {
  let out = '';
  // Each entry is a value to write, or a piece of punctuation to emit once its children are out.
  const stack: ({ value: unknown } | { text: string })[] = [{ value }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ('text' in next) {
      out += next.text;
      continue;
    }
    const current = next.value;
    if (Array.isArray(current)) {
      out += '[';
      stack.push({ text: ']' });
      for (let i = current.length - 1; i >= 0; i--) {
        // Like JSON.stringify: undefined in an array is null.
        stack.push({ value: current[i] === undefined ? null : current[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      out += '{';
      stack.push({ text: '}' });
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i]!;
        stack.push({ value: v });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(k)}:` });
      }
    } else {
      out += JSON.stringify(current) ?? 'null';
    }
  }
  return out;
}

/** What makes two invite requests "the same": the body and sendInvite. */
export function fingerprint(body: unknown, sendInvite: boolean): string {
  return createHash('sha256').update(canonicalJson({ body, sendInvite })).digest('hex');
}

const WHERE = 'key_id = $1 AND instance_id = $2 AND idempotency_key = $3';

/**
 * Claims the scope for this request, or says what to answer instead: the stored answer (replay),
 * 422 when the key was used for a different request, 409 while the first is still in flight.
 */
export async function claim(db: Queryable, scope: Scope, print: string, at: Date): Promise<Claim> {
  const params = whereParams(scope);
  // Expiry is lazy here (and swept in bulk by sweepExpired): an expired key is a fresh key.
  await db.query(`DELETE FROM idempotency_keys WHERE ${WHERE} AND created_at < ${expiredBefore(4)}`, [...params, at]);
  // The released row of a failed first request can vanish between the insert and the read: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.query(
      `INSERT INTO idempotency_keys (key_id, instance_id, idempotency_key, fingerprint, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING key_id`,
      [...params, print, at],
    );
    if (inserted.rows.length > 0) return { kind: 'claimed' };
    const { rows } = await db.query<{ fingerprint: string; status: number | null; response: unknown; stale: boolean }>(
      `SELECT fingerprint, status, response, created_at < $4::timestamptz - make_interval(secs => ${STALE_SECONDS}) AS stale FROM idempotency_keys WHERE ${WHERE}`,
      [...params, at],
    );
    const row = rows[0];
    if (!row) continue;
    if (row.fingerprint !== print) {
      throw new Problem('idempotency-key-reused', 'This Idempotency-Key was used with a different request (body or sendInvite); use a new key for a new request', [
        { in: 'header', name: HEADER, detail: 'was used with a different request' },
      ]);
    }
    if (row.status !== null) {
      const response = unseal(scope, print, row.status, row.response);
      // Only a row written by another version, or altered, cannot be opened: never replayed blind.
      if (response === undefined) throw new Problem('conflict', 'The stored answer of this Idempotency-Key cannot be replayed; use a new key');
      return { kind: 'replay', status: row.status, response };
    }
    if (row.stale) {
      const taken = await db.query(
        `UPDATE idempotency_keys SET created_at = $4 WHERE ${WHERE} AND status IS NULL AND created_at < $4::timestamptz - make_interval(secs => ${STALE_SECONDS}) RETURNING key_id`,
        [...params, at],
      );
      if (taken.rows.length > 0) return { kind: 'claimed' };
    }
    throw new Problem('conflict', 'A request with this Idempotency-Key is still in progress; retry when it has been answered', undefined, { 'retry-after': '1' });
  }
  throw new Problem('conflict', 'A request with this Idempotency-Key is being retried concurrently; retry shortly', undefined, { 'retry-after': '1' });
}

/** Stores the answer of the claimed request, sealed, for replays of the same request. */
export async function complete(db: Queryable, scope: Scope, print: string, status: number, response: unknown): Promise<void> {
  await db.query(`UPDATE idempotency_keys SET status = $4, response = $5 WHERE ${WHERE}`, [...whereParams(scope), status, JSON.stringify(seal(scope, print, status, response))]);
}

/** Forgets the claim of a request that failed, so that a retry runs for real. */
export async function release(db: Queryable, scope: Scope): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE ${WHERE} AND status IS NULL`, whereParams(scope));
}

/** Deletes every expired row; run now and then so that keys never used again do not pile up. */
export async function sweepExpired(db: Queryable, at: Date): Promise<number> {
  const { rows } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < ${expiredBefore(1)} RETURNING 1`, [at]);
  return rows.length;
}

/** Deletes expired keys now and then (they are also deleted when looked up). */
export function idempotencySweepJob(db: Queryable, everyMs: number): Job {
  return { name: 'idempotency-sweep', everyMs, run: (now) => sweepExpired(db, now) };
}
