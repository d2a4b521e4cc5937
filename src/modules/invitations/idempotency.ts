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
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { Problem } from '../../http/problem.js';

export const HEADER = 'idempotency-key';
export const TTL_HOURS = 24;
const STALE_SECONDS = 60;
const EXPIRED = `now() - interval '${TTL_HOURS} hours'`;

export interface Scope {
  keyId: string;
  instanceId: string;
  key: string;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; status: number; response: unknown };

/** JSON with object keys sorted at every level, so that equal documents hash equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
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
export async function claim(db: Queryable, scope: Scope, print: string): Promise<Claim> {
  const params = [scope.keyId, scope.instanceId, scope.key];
  // Expiry is lazy here (and swept in bulk by sweepExpired): an expired key is a fresh key.
  await db.query(`DELETE FROM idempotency_keys WHERE ${WHERE} AND created_at < ${EXPIRED}`, params);
  // The released row of a failed first request can vanish between the insert and the read: try again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.query(
      `INSERT INTO idempotency_keys (key_id, instance_id, idempotency_key, fingerprint) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING key_id`,
      [...params, print],
    );
    if (inserted.rows.length > 0) return { kind: 'claimed' };
    const { rows } = await db.query<{ fingerprint: string; status: number | null; response: unknown; stale: boolean }>(
      `SELECT fingerprint, status, response, created_at < now() - make_interval(secs => ${STALE_SECONDS}) AS stale FROM idempotency_keys WHERE ${WHERE}`,
      params,
    );
    const row = rows[0];
    if (!row) continue;
    if (row.fingerprint !== print) {
      throw new Problem('idempotency-key-reused', 'This Idempotency-Key was used with a different request (body or sendInvite); use a new key for a new request', [
        { in: 'header', name: HEADER, detail: 'was used with a different request' },
      ]);
    }
    if (row.status !== null) return { kind: 'replay', status: row.status, response: row.response };
    if (row.stale) {
      const taken = await db.query(
        `UPDATE idempotency_keys SET created_at = now() WHERE ${WHERE} AND status IS NULL AND created_at < now() - make_interval(secs => ${STALE_SECONDS}) RETURNING key_id`,
        params,
      );
      if (taken.rows.length > 0) return { kind: 'claimed' };
    }
    throw new Problem('conflict', 'A request with this Idempotency-Key is still in progress; retry when it has been answered', undefined, { 'retry-after': '1' });
  }
  throw new Problem('conflict', 'A request with this Idempotency-Key is being retried concurrently; retry shortly', undefined, { 'retry-after': '1' });
}

/** Stores the answer of the claimed request, for replays. */
export async function complete(db: Queryable, scope: Scope, status: number, response: unknown): Promise<void> {
  await db.query(`UPDATE idempotency_keys SET status = $4, response = $5 WHERE ${WHERE}`, [scope.keyId, scope.instanceId, scope.key, status, JSON.stringify(response)]);
}

/** Forgets the claim of a request that failed, so that a retry runs for real. */
export async function release(db: Queryable, scope: Scope): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE ${WHERE} AND status IS NULL`, [scope.keyId, scope.instanceId, scope.key]);
}

/** Deletes every expired row; run now and then so that keys never used again do not pile up. */
export async function sweepExpired(db: Queryable): Promise<number> {
  const { rows } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < ${EXPIRED} RETURNING 1`);
  return rows.length;
}

export function startIdempotencySweep(db: Queryable, everyMs: number, log: FastifyBaseLogger): () => void {
  const timer = setInterval(() => {
    sweepExpired(db).catch((error) => log.warn({ err: error }, 'could not delete expired idempotency keys'));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
