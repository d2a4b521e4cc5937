// Invitation e-mails as recorded: what was sent to whom, and what the relay answered.
import type { Queryable } from '../../../db/database.js';

export interface DeliveryRecord {
  id: string;
  candidateId: string;
  recipient: string;
  status: 'SENT' | 'FAILED';
  messageId: string | null;
  response: string;
  durationMs: number;
  attemptedAt: Date;
}

// The id leaves as text; queries sort by the table's bigint (d.id), never by this text column.
const COLUMNS = `d.id::text AS id, d.candidate_id AS "candidateId", d.recipient, d.status, d.message_id AS "messageId", d.response, d.duration_ms AS "durationMs", d.attempted_at AS "attemptedAt"`;

/** The newest deliveries of an instance first (ordered by the numeric id, not its text). */
export async function listDeliveries(db: Queryable, instanceId: string, options: { limit: number; offset?: number; status?: 'SENT' | 'FAILED' }): Promise<DeliveryRecord[]> {
  const { rows } = await db.query<DeliveryRecord>(
    `SELECT ${COLUMNS} FROM deliveries d WHERE d.instance_id = $1 AND ($3::text IS NULL OR d.status = $3) ORDER BY d.id DESC LIMIT $2 OFFSET $4`,
    [instanceId, options.limit, options.status ?? null, options.offset ?? 0],
  );
  return rows;
}

/** How many deliveries of an instance (of one status) there are. */
export async function countDeliveries(db: Queryable, instanceId: string, status?: 'SENT' | 'FAILED'): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries d WHERE d.instance_id = $1 AND ($2::text IS NULL OR d.status = $2)`, [
    instanceId,
    status ?? null,
  ]);
  return rows[0]!.n;
}

/** One delivery by its id. */
export async function findDelivery(db: Queryable, id: string): Promise<DeliveryRecord | undefined> {
  const { rows } = await db.query<DeliveryRecord>(`SELECT ${COLUMNS} FROM deliveries d WHERE d.id = $1`, [id]);
  return rows[0];
}

/** Erasure: a candidate's e-mail records and sign-in links go (the invitations, anonymous, stay). */
export async function eraseCandidateMail(tx: Queryable, candidateId: string): Promise<void> {
  await tx.query('DELETE FROM deliveries WHERE candidate_id = $1', [candidateId]);
  await tx.query('DELETE FROM invite_links WHERE candidate_id = $1', [candidateId]);
}
