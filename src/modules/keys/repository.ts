import type { Queryable } from '../../db/database.js';

export interface KeyGrant {
  id: string;
  name: string;
}

/** What the service needs to know about a key to authorise a request. */
export interface KeyRecord {
  id: string;
  rateLimit: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  instances: KeyGrant[];
}

export interface KeySummary {
  id: string;
  prefix: string;
  label: string | null;
  instances: string[];
  rateLimit: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export async function insertKey(
  db: Queryable,
  key: { id: string; hash: Buffer; prefix: string; label?: string; rateLimit?: number; expiresAt?: Date; instanceIds: string[] },
): Promise<void> {
  await db.query(`INSERT INTO api_keys (id, hash, prefix, label, rate_limit, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    key.id,
    key.hash,
    key.prefix,
    key.label ?? null,
    key.rateLimit ?? null,
    key.expiresAt ?? null,
  ]);
  await db.query(`INSERT INTO api_key_instances (key_id, instance_id) SELECT $1, unnest($2::uuid[])`, [key.id, key.instanceIds]);
}

export async function findKeyByHash(db: Queryable, hash: Buffer): Promise<KeyRecord | undefined> {
  const { rows } = await db.query<KeyRecord>(
    `SELECT k.id, k.rate_limit AS "rateLimit", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt",
            coalesce(json_agg(json_build_object('id', i.id, 'name', i.name) ORDER BY i.name)
                     FILTER (WHERE i.id IS NOT NULL), '[]') AS instances
       FROM api_keys k
       LEFT JOIN api_key_instances ki ON ki.key_id = k.id
       LEFT JOIN instances i ON i.id = ki.instance_id
      WHERE k.hash = $1
      GROUP BY k.id`,
    [hash],
  );
  return rows[0];
}

const SUMMARY = `SELECT k.id, k.prefix, k.label, k.rate_limit AS "rateLimit", k.expires_at AS "expiresAt",
       k.revoked_at AS "revokedAt", k.last_used_at AS "lastUsedAt", k.created_at AS "createdAt",
       coalesce(array_agg(i.name ORDER BY i.name) FILTER (WHERE i.id IS NOT NULL), '{}') AS instances
  FROM api_keys k
  LEFT JOIN api_key_instances ki ON ki.key_id = k.id
  LEFT JOIN instances i ON i.id = ki.instance_id`;

export async function listKeys(db: Queryable, instanceName?: string): Promise<KeySummary[]> {
  const filter = instanceName ? `WHERE k.id IN (SELECT ki2.key_id FROM api_key_instances ki2 JOIN instances i2 ON i2.id = ki2.instance_id WHERE i2.name = $1)` : '';
  const { rows } = await db.query<KeySummary>(`${SUMMARY} ${filter} GROUP BY k.id ORDER BY k.created_at, k.id`, instanceName ? [instanceName] : []);
  return rows;
}

export async function getKeySummary(db: Queryable, id: string): Promise<KeySummary | undefined> {
  const { rows } = await db.query<KeySummary>(`${SUMMARY} WHERE k.id = $1 GROUP BY k.id`, [id]);
  return rows[0];
}

/** Revokes a key; revoking twice keeps the first time. Returns false when there is no such key. */
export async function revokeKey(db: Queryable, id: string, at: Date): Promise<boolean> {
  const { rows } = await db.query(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING id`, [id, at]);
  return rows.length > 0;
}

/** Changes a key's rate limit (null: the service default). Returns false when there is no such key. */
export async function updateKey(db: Queryable, id: string, changes: { rateLimit?: number | null; label?: string }): Promise<boolean> {
  const { rows } = await db.query(`UPDATE api_keys SET rate_limit = CASE WHEN $2 THEN $3::integer ELSE rate_limit END, label = coalesce($4, label) WHERE id = $1 RETURNING id`, [
    id,
    changes.rateLimit !== undefined,
    changes.rateLimit ?? null,
    changes.label ?? null,
  ]);
  return rows.length > 0;
}

export async function touchKey(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(`UPDATE api_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`, [id, at]);
}
