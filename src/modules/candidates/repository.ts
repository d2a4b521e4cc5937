import type { Queryable } from '../../db/database.js';

/**
 * The candidate with this e-mail in the instance, created or renamed to the latest names. Relies
 * on the unique index on (instance_id, lower(email)), so simultaneous invites of one new e-mail
 * make one candidate: the later insert waits for the earlier and becomes an update.
 */
export async function upsertCandidate(
  db: Queryable,
  instanceId: string,
  person: { email: string; firstName: string; lastName: string },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO candidates (instance_id, email, first_name, last_name) VALUES ($1, $2, $3, $4)
     ON CONFLICT (instance_id, lower(email))
     DO UPDATE SET email = EXCLUDED.email, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, updated_at = now()
     RETURNING id`,
    [instanceId, person.email, person.firstName, person.lastName],
  );
  return rows[0]!.id;
}
