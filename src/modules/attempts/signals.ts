// Proctoring signals as stored: every one counted per attempt (the red flag is judged on the
// counts), the first MAX_STORED_SIGNALS kept as rows (the reviewer's timeline).
import type { Database, Queryable } from '../../db/database.js';
import { lockInvitationOfAttempt } from '../invitations/machine.js';
import { setRedFlag } from '../invitations/record.js';
import { redFlagReasonsOf, type Signal, type SignalKind } from './proctoring.js';
import type { Attempt } from './repository.js';

export async function signalsOf(db: Queryable, attemptId: string): Promise<(Signal & { source: string })[]> {
  const { rows } = await db.query<Signal & { source: string }>('SELECT kind, at, detail, source FROM proctor_signals WHERE attempt_id = $1 ORDER BY id', [attemptId]);
  return rows;
}

/** How many signals of each kind an attempt had, stored or not. */
export async function signalCountsOf(db: Queryable, attemptId: string): Promise<Partial<Record<SignalKind, number>>> {
  const { rows } = await db.query<{ counts: Partial<Record<SignalKind, number>> }>('SELECT signal_counts AS counts FROM attempts WHERE id = $1', [attemptId]);
  return rows[0]?.counts ?? {};
}

/** Signals stored as rows per attempt (the reviewer's timeline); beyond it only their counts grow. */
export const MAX_STORED_SIGNALS = 200;

/**
 * Records a proctoring signal on an open attempt and refreshes the invitation's red flag. The
 * count of its kind always grows (attempts.signal_counts, which the red flag is judged from); the
 * signal itself is stored only while the attempt has fewer than MAX_STORED_SIGNALS, so neither the
 * work of a signal nor the size of a report grows with how many a page sends.
 */
export async function recordSignal(db: Database, attempt: Attempt, kind: SignalKind, detail: string, source: 'browser' | 'server'): Promise<boolean> {
  return db.transaction(async (tx) => {
    // The invitation first, then the attempt: the lock order of every transaction that changes both.
    await lockInvitationOfAttempt(tx, attempt.id);
    const { rows } = await tx.query<{ counts: Record<SignalKind, number> }>(
      `UPDATE attempts SET signal_counts = jsonb_set(signal_counts, ARRAY[$2::text], to_jsonb(coalesce((signal_counts ->> $2)::int, 0) + 1))
        WHERE id = $1 AND finished_at IS NULL RETURNING signal_counts AS counts`,
      [attempt.id, kind],
    );
    if (rows.length === 0) return false;
    await tx.query(
      `INSERT INTO proctor_signals (attempt_id, kind, detail, source)
       SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM proctor_signals WHERE attempt_id = $1) < $5`,
      [attempt.id, kind, detail.slice(0, 500), source, MAX_STORED_SIGNALS],
    );
    await setRedFlag(tx, attempt.invitationId, redFlagReasonsOf(rows[0]!.counts).length > 0);
    return true;
  });
}

/** Notes a second address or browser on the same attempt, once per distinct value. */
export async function observeClient(db: Database, attempt: Attempt, client: { address: string; agent: string }): Promise<void> {
  if (attempt.finishedAt) return;
  const changes: [SignalKind, string | null, string][] = [
    ['address-changed', attempt.firstAddress, client.address],
    ['agent-changed', attempt.firstAgent, client.agent],
  ];
  for (const [kind, first, now] of changes) {
    if (first === null || first === now) continue;
    const seen = await db.query('SELECT 1 FROM proctor_signals WHERE attempt_id = $1 AND kind = $2 AND detail = $3', [attempt.id, kind, now.slice(0, 500)]);
    if (seen.rows.length === 0) await recordSignal(db, attempt, kind, now, 'server');
  }
}
