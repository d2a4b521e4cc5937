// Counts of invitation e-mail for the console's overview.
import type { Queryable } from '../../../db/database.js';

/** Deliveries of the instance that the relay refused or did not take since `since`. */
export async function failedDeliveries(db: Queryable, instanceId: string, since: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM deliveries WHERE instance_id = $1 AND status = 'FAILED' AND attempted_at >= $2`, [
    instanceId,
    since,
  ]);
  return rows[0]!.n;
}
