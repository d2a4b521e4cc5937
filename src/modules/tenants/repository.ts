import type { Queryable } from '../../db/database.js';

export interface Instance {
  id: string;
  name: string;
  portalUrl: string | null;
  inviteTtlDays: number;
  createdAt: Date;
}

const COLUMNS = `id, name, portal_url AS "portalUrl", invite_ttl_days AS "inviteTtlDays", created_at AS "createdAt"`;

export const INSTANCE_NAME_PATTERN = '^[a-z][a-z0-9-]{0,62}$';

export async function createInstance(
  db: Queryable,
  input: { name: string; portalUrl?: string; inviteTtlDays?: number },
): Promise<Instance | undefined> {
  const { rows } = await db.query<Instance>(
    `INSERT INTO instances (name, portal_url, invite_ttl_days) VALUES ($1, $2, coalesce($3, 14))
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [input.name, input.portalUrl ?? null, input.inviteTtlDays ?? null],
  );
  return rows[0];
}

export async function listInstances(db: Queryable): Promise<Instance[]> {
  const { rows } = await db.query<Instance>(`SELECT ${COLUMNS} FROM instances ORDER BY name`);
  return rows;
}

export async function findInstanceByName(db: Queryable, name: string): Promise<Instance | undefined> {
  const { rows } = await db.query<Instance>(`SELECT ${COLUMNS} FROM instances WHERE name = $1`, [name]);
  return rows[0];
}

export async function findInstancesByName(db: Queryable, names: string[]): Promise<Instance[]> {
  const { rows } = await db.query<Instance>(`SELECT ${COLUMNS} FROM instances WHERE name = ANY($1::text[])`, [names]);
  return rows;
}

export async function countInstances(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM instances');
  return rows[0]!.n;
}
