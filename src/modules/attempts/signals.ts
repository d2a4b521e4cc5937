// Proctoring signals as stored: every one counted per attempt (the red flag is judged on the
// counts), the first MAX_STORED_SIGNALS kept as rows (the reviewer's timeline).
import type { Database, Queryable } from '../../db/database.js';
import { lockInvitationOfAttempt } from '../invitations/machine.js';
import { runCommand, type CommandContext } from '../../domain/command.js';
import { invalidInput, notFound } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { changeRedFlag, setRedFlag } from '../invitations/record.js';
import { effectiveCounts, HEADLESS_AGENT, paceSignal, redFlagOf, SIGNAL_KINDS, type Signal, type SignalKind } from './proctoring.js';

/** What signals need of an attempt (repository.ts's Attempt has it). */
interface Attempt {
  id: string;
  invitationId: string;
  finishedAt: Date | null;
  firstAddress: string | null;
  firstAgent: string | null;
}

/** A stored signal, with its dismissal when a reviewer dismissed it. */
export type StoredSignal = Signal & { id: string; source: string; dismissed: { by: string; at: Date; reason: string } | null };

export async function signalsOf(db: Queryable, attemptId: string): Promise<StoredSignal[]> {
  const { rows } = await db.query<Signal & { id: string; source: string; dismissedBy: string | null; dismissedAt: Date | null; dismissedReason: string | null }>(
    `SELECT id::text AS id, kind, at, detail, source, dismissed_by AS "dismissedBy", dismissed_at AS "dismissedAt", dismissed_reason AS "dismissedReason"
       FROM proctor_signals WHERE attempt_id = $1 ORDER BY id`,
    [attemptId],
  );
  return rows.map(({ dismissedBy, dismissedAt, dismissedReason, ...s }) => ({
    ...s,
    dismissed: dismissedAt ? { by: dismissedBy ?? '-', at: dismissedAt, reason: dismissedReason ?? '' } : null,
  }));
}

/** Kinds a reviewer dismissed as a whole, with who, when and why. */
export type DismissedKinds = Partial<Record<SignalKind, { by: string; at: string; reason: string }>>;

/** What the red flag of an attempt is judged on: every signal counted (stored or not), and what reviewers dismissed. */
export interface SignalTally {
  counts: Partial<Record<SignalKind, number>>;
  /** Stored signals dismissed one by one, per kind. */
  dismissed: Partial<Record<SignalKind, number>>;
  dismissedKinds: DismissedKinds;
}

/** SQL (with the attempt's id as `attemptId`) of the dismissed stored signals per kind, as a JSON object. */
export const DISMISSED_SQL = (attemptId: string) =>
  `(SELECT coalesce(jsonb_object_agg(kind, n), '{}'::jsonb) FROM (SELECT kind, count(*)::int AS n FROM proctor_signals
     WHERE attempt_id = ${attemptId} AND dismissed_at IS NOT NULL GROUP BY kind) d)`;

export async function signalTallyOf(db: Queryable, attemptId: string): Promise<SignalTally> {
  const { rows } = await db.query<SignalTally>(
    `SELECT signal_counts AS counts, dismissed_kinds AS "dismissedKinds", ${DISMISSED_SQL('a.id')} AS dismissed FROM attempts a WHERE a.id = $1`,
    [attemptId],
  );
  return rows[0] ?? { counts: {}, dismissed: {}, dismissedKinds: {} };
}

/** The counts the red flag is judged on (effectiveCounts of a tally). */
export const countsOfTally = (t: SignalTally) => effectiveCounts(t.counts, t.dismissed, t.dismissedKinds);

/** Signals stored as rows per attempt (the reviewer's timeline); beyond it only their counts grow. */
export const MAX_STORED_SIGNALS = 200;

/**
 * Records a proctoring signal on an open attempt and refreshes the invitation's red flag. The
 * count of its kind always grows (attempts.signal_counts, which the red flag is judged from); the
 * signal itself is stored only while the attempt has fewer than MAX_STORED_SIGNALS, so neither the
 * work of a signal nor the size of a report grows with how many a page sends.
 */
export async function recordSignal(ctx: CommandContext, input: SignalInput): Promise<boolean> {
  // The invitation first, then the attempt: the lock order of every transaction that changes both.
  await lockInvitationOfAttempt(ctx.tx, input.attempt.id);
  return recordSignalIn(ctx.tx, input.attempt, input.kind, input.detail, input.source);
}

export interface SignalInput {
  attempt: Attempt;
  kind: SignalKind;
  detail: string;
  source: 'browser' | 'server';
}

/** recordSignal in a transaction that holds the attempt's invitation already. */
export async function recordSignalIn(tx: Queryable, attempt: Attempt, kind: SignalKind, detail: string, source: 'browser' | 'server'): Promise<boolean> {
  {
    const { rows } = await tx.query<SignalTally>(
      `UPDATE attempts a SET signal_counts = jsonb_set(signal_counts, ARRAY[$2::text], to_jsonb(coalesce((signal_counts ->> $2)::int, 0) + 1))
        WHERE id = $1 AND finished_at IS NULL RETURNING signal_counts AS counts, dismissed_kinds AS "dismissedKinds", ${DISMISSED_SQL('a.id')} AS dismissed`,
      [attempt.id, kind],
    );
    if (rows.length === 0) return false;
    await tx.query(
      `INSERT INTO proctor_signals (attempt_id, kind, detail, source)
       SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM proctor_signals WHERE attempt_id = $1) < $5`,
      [attempt.id, kind, detail.slice(0, 500), source, MAX_STORED_SIGNALS],
    );
    await setRedFlag(tx, attempt.invitationId, redFlagOf(countsOfTally(rows[0]!)));
    return true;
  }
}

/** Records a signal once per attempt per detail (a second report of the same is not counted again). */
export async function recordSignalOnce(ctx: CommandContext, input: SignalInput): Promise<void> {
  await lockInvitationOfAttempt(ctx.tx, input.attempt.id);
  const seen = await ctx.tx.query('SELECT 1 FROM proctor_signals WHERE attempt_id = $1 AND kind = $2 AND detail = $3', [input.attempt.id, input.kind, input.detail.slice(0, 500)]);
  if (seen.rows.length === 0) await recordSignalIn(ctx.tx, input.attempt, input.kind, input.detail, input.source);
}

/**
 * What a request tells of the attempt's client: a second address or browser than the attempt's
 * first, and a headless browser. Decided without the store, so that a request that tells nothing
 * new (nearly every one) runs no command: observeClient records what this finds.
 */
export function clientChanges(attempt: Attempt, client: { address: string; agent: string }): { kind: SignalKind; detail: string }[] {
  if (attempt.finishedAt) return [];
  const found: { kind: SignalKind; detail: string }[] = [];
  const changes: [SignalKind, string | null, string][] = [
    ['address-changed', attempt.firstAddress, client.address],
    ['agent-changed', attempt.firstAgent, client.agent],
  ];
  for (const [kind, first, now] of changes) if (first !== null && first !== now) found.push({ kind, detail: now });
  const headless = HEADLESS_AGENT.exec(client.agent);
  if (headless) found.push({ kind: 'automation', detail: `headless browser (${headless[0]} in the user agent)` });
  return found;
}

/** Records what clientChanges found, each once per attempt and detail (a command of the candidate's request). */
export async function observeClient(ctx: CommandContext, input: { attempt: Attempt; changes: { kind: SignalKind; detail: string }[] }): Promise<void> {
  for (const change of input.changes) await recordSignalOnce(ctx, { attempt: input.attempt, ...change, source: 'server' });
}

/**
 * Before an attempt is submitted: the times its answers were last saved (the server's clock),
 * judged for a machine's pace (paceSignal). Recorded once per attempt.
 */
export async function observePaceIn(tx: Queryable, attempt: Attempt): Promise<void> {
  if (attempt.finishedAt) return;
  const { rows } = await tx.query<{ at: Date }>('SELECT answered_at AS at FROM answers WHERE attempt_id = $1', [attempt.id]);
  const signal = paceSignal(rows.map((r) => new Date(r.at)));
  if (!signal) return;
  const seen = await tx.query('SELECT 1 FROM proctor_signals WHERE attempt_id = $1 AND kind = $2', [attempt.id, signal.kind]);
  if (seen.rows.length === 0) await recordSignalIn(tx, attempt, signal.kind, signal.detail, 'server');
}

const MAX_REASON = 500;

/**
 * A reviewer dismisses one stored signal, or every signal of a kind, of an attempt of the given
 * instances, with a reason (a closed laptop lid is not leaving the test). The signal stays, with
 * who dismissed it, when and why, and the audit log keeps the dismissal; the red flag is judged
 * again on what is not dismissed, and a finalized record that changes is announced (score.updated).
 */
export async function dismissSignals(
  ctx: CommandContext,
  input: { instanceIds: string[]; attemptId: string; signalId?: string; kind?: string; reason: string; by: string },
): Promise<{ redFlag: boolean }> {
  const reason = input.reason.trim();
  if (reason.length === 0 || reason.length > MAX_REASON) throw invalidInput([{ in: 'body', name: 'reason', detail: `must say why, in 1-${MAX_REASON} characters` }]);
  if ((input.signalId === undefined) === (input.kind === undefined)) throw invalidInput([{ in: 'body', name: 'signal', detail: 'name one signal, or one kind of signal' }]);
  const kind = input.kind === undefined ? undefined : SIGNAL_KINDS.find((k) => k === input.kind);
  if (input.kind !== undefined && !kind) throw invalidInput([{ in: 'body', name: 'kind', detail: `must be one of ${SIGNAL_KINDS.join(', ')}` }]);
  if (input.signalId !== undefined && !/^\d{1,18}$/.test(input.signalId)) throw notFound('No such signal');
  if (!/^[0-9a-f-]{36}$/i.test(input.attemptId)) throw notFound('No such attempt');
  // The invitation first, then the attempt: the lock order of every transaction that changes both.
  const invitationId = await lockInvitationOfAttempt(ctx.tx, input.attemptId);
  const { rows: owned } = await ctx.tx.query<{ id: string }>(
    'SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE a.id = $1 AND i.instance_id = ANY($2::uuid[]) FOR UPDATE OF a',
    [input.attemptId, input.instanceIds],
  );
  if (!invitationId || owned.length === 0) throw notFound('No such attempt in this instance');
  if (input.signalId !== undefined) {
    const { rows } = await ctx.tx.query(
      `UPDATE proctor_signals SET dismissed_at = $3, dismissed_by = $4, dismissed_reason = $5 WHERE id = $1 AND attempt_id = $2 AND dismissed_at IS NULL RETURNING id`,
      [input.signalId, input.attemptId, ctx.now, input.by, reason],
    );
    if (rows.length === 0) throw notFound('No such signal on this attempt, or it was dismissed already');
  } else {
    await ctx.tx.query(
      `UPDATE attempts SET dismissed_kinds = dismissed_kinds || jsonb_build_object($2::text, jsonb_build_object('by', $3::text, 'at', $4::timestamptz, 'reason', $5::text)) WHERE id = $1`,
      [input.attemptId, kind, input.by, ctx.now, reason],
    );
    await ctx.tx.query(`UPDATE proctor_signals SET dismissed_at = $3, dismissed_by = $4, dismissed_reason = $5 WHERE attempt_id = $1 AND kind = $2 AND dismissed_at IS NULL`, [
      input.attemptId,
      kind,
      ctx.now,
      input.by,
      reason,
    ]);
  }
  const tally = await signalTallyOf(ctx.tx, input.attemptId);
  const redFlag = redFlagOf(countsOfTally(tally));
  await changeRedFlag(ctx.tx, invitationId, redFlag, ctx.now);
  await audit(ctx, 'signal.dismiss', `${input.attemptId} ${input.signalId !== undefined ? `signal ${input.signalId}` : `every ${kind}`}: ${reason}`);
  return { redFlag };
}

/** dismissSignals in a transaction of its own. */
export const dismissSignalsNow = (db: Database, request: Parameters<typeof runCommand>[1], input: Parameters<typeof dismissSignals>[1]) =>
  runCommand(db, request, (ctx) => dismissSignals(ctx, input), 'signal_dismiss');
