// Webhook endpoints, the outbox of events, deliveries and attempts. Only this module reads or
// writes webhook_endpoints, outbox_events, webhook_deliveries and webhook_attempts; other modules
// call emitEvents inside the transaction of the change the event describes.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { conflict, notFound } from '../../domain/errors.js';
import { generateSecret, messageId } from './signing.js';
import { refusedByPolicy } from './post.js';

export const EVENT_TYPES = [
  'invitation.created',
  'invitation.email.sent',
  'invitation.email.failed',
  'invitation.cancelled',
  'invitation.expired',
  'assessment.started',
  'assessment.completed',
  'score.finalized',
  'score.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Delays before the 2nd … 8th attempt: about 27.6 hours in all, each with ±10 % jitter. */
export const RETRY_DELAYS_MS = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 10 * 3600_000];
/** An endpoint that has failed (nothing but failures) for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/** How long the previous secret still signs after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  disabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
}

const ENDPOINT = `e.id, e.url, e.events, e.description, e.disabled_at IS NOT NULL AS disabled, e.disabled_reason AS "disabledReason",
  e.failing_since AS "failingSince", e.created_at AS "createdAt"`;

export async function createEndpoint(tx: Queryable, input: { instanceId: string; url: string; events: string[]; description?: string }): Promise<Endpoint & { secret: string }> {
  // Two registrations at once are counted one after the other: a lock per instance for this
  // transaction, taken before the count (a statement's snapshot is taken when it starts, so the
  // count must be a statement of its own, after the lock).
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $1::uuid::text))`, [input.instanceId]);
  const { rows: room } = await tx.query<{ count: number; max: number }>(
    `SELECT (SELECT count(*)::int FROM webhook_endpoints WHERE instance_id = $1::uuid) AS count, (SELECT max_webhook_endpoints FROM instances WHERE id = $1::uuid) AS max`,
    [input.instanceId],
  );
  if (room[0] && room[0].count >= room[0].max) {
    throw conflict(`This instance has ${room[0].count} webhook endpoints, the most the operator allows it (maxWebhookEndpoints): delete one first, or ask the operator`);
  }
  const id = `ep_${randomBytes(8).toString('hex')}`;
  const secret = generateSecret();
  await tx.query(`INSERT INTO webhook_endpoints (id, instance_id, url, events, secret, description) VALUES ($1, $2, $3, $4, $5, $6)`, [
    id,
    input.instanceId,
    input.url,
    input.events,
    secret,
    input.description ?? null,
  ]);
  return { ...(await requireEndpoint(tx, input.instanceId, id)), secret };
}

export async function listEndpoints(db: Queryable, instanceId: string): Promise<Endpoint[]> {
  const { rows } = await db.query<Endpoint>(`SELECT ${ENDPOINT} FROM webhook_endpoints e WHERE e.instance_id = $1 ORDER BY e.created_at, e.id`, [instanceId]);
  return rows;
}

export async function requireEndpoint(db: Queryable, instanceId: string, id: string): Promise<Endpoint> {
  const { rows } = await db.query<Endpoint>(`SELECT ${ENDPOINT} FROM webhook_endpoints e WHERE e.instance_id = $1 AND e.id = $2`, [instanceId, id]);
  if (!rows[0]) throw notFound(`No webhook endpoint ${id} in this instance`);
  return rows[0];
}

/** Changes what is given; enabling clears the failure record. */
export async function updateEndpoint(
  db: Queryable,
  instanceId: string,
  id: string,
  change: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
  at: Date,
): Promise<Endpoint> {
  await requireEndpoint(db, instanceId, id);
  await db.query(
    `UPDATE webhook_endpoints SET url = COALESCE($3, url), events = COALESCE($4, events),
            description = CASE WHEN $5::boolean THEN $6 ELSE description END,
            disabled_at = CASE WHEN $7::boolean IS NULL THEN disabled_at WHEN $7 THEN NULL ELSE COALESCE(disabled_at, $8) END,
            disabled_reason = CASE WHEN $7::boolean IS NULL THEN disabled_reason WHEN $7 THEN NULL ELSE 'disabled by the operator' END,
            failing_since = CASE WHEN $7::boolean THEN NULL ELSE failing_since END
      WHERE instance_id = $1 AND id = $2`,
    [instanceId, id, change.url ?? null, change.events ?? null, change.description !== undefined, change.description ?? null, change.enabled ?? null, at],
  );
  return requireEndpoint(db, instanceId, id);
}

export async function deleteEndpoint(db: Queryable, instanceId: string, id: string): Promise<void> {
  const { rows } = await db.query('DELETE FROM webhook_endpoints WHERE instance_id = $1 AND id = $2 RETURNING id', [instanceId, id]);
  if (rows.length === 0) throw notFound(`No webhook endpoint ${id} in this instance`);
}

/** A new secret; the previous one keeps signing for 24 hours, so receivers can switch without a gap. */
export async function rotateSecret(db: Queryable, instanceId: string, id: string, now: Date): Promise<Endpoint & { secret: string }> {
  await requireEndpoint(db, instanceId, id);
  const secret = generateSecret();
  await db.query(`UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $3, secret = $4 WHERE instance_id = $1 AND id = $2`, [
    instanceId,
    id,
    new Date(now.getTime() + ROTATION_OVERLAP_MS),
    secret,
  ]);
  return { ...(await requireEndpoint(db, instanceId, id)), secret };
}

/** An event as emitted: for an instance, of a type, about an invitation (when it is about one). */
export interface EmittedEvent {
  instanceId: string;
  type: EventType;
  data: Record<string, unknown>;
  now: Date;
  invitationId?: string;
}

/**
 * Who else is told of events, in the statement that writes them (integrations with
 * applicant-tracking systems queue their callbacks): modules that cannot be imported here without
 * an import cycle register a statement of their own, which reads the events written from `input`
 * (message_id, instance_id, type, body, created_at, invitation_id (null when the event is not about
 * one), n: its place in the order given) and writes what it owes; it takes no parameters. Each
 * runs as a part of the outbox's one statement, so that an event costs one round trip however many
 * parts are told of it.
 */
const riders = new Set<string>();
export function rideWithEvents(statement: string): void {
  riders.add(statement);
}

/**
 * Writes events into the outbox, each with one delivery per enabled endpoint that wants it, in one
 * statement (the deadline sweep writes two for every attempt of a batch). Call it inside the
 * transaction of the change: both commit, or neither. Events take their ids, and so their order,
 * in the order given.
 */
export async function emitEvents(tx: Queryable, events: EmittedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const gathering = gathered.get(tx);
  if (gathering) {
    gathering.push(...events);
    return;
  }
  await writeEvents(tx, events);
}

/** The events emitted on a transaction inside inOneStatement, not written yet. */
const gathered = new WeakMap<Queryable, EmittedEvent[]>();

/**
 * Runs `work` in the transaction `tx` with the events it emits gathered, then writes them all, in
 * the order emitted, with one statement (and one per listener) instead of one for each emitEvents:
 * a completion emits assessment.completed, then score.finalized. Nothing is written when `work`
 * throws (its transaction rolls back anyway). Inside another inOneStatement, `work` just runs.
 */
export async function inOneStatement<T>(tx: Queryable, work: () => Promise<T>): Promise<T> {
  if (gathered.has(tx)) return work();
  const events: EmittedEvent[] = [];
  gathered.set(tx, events);
  let result: T;
  try {
    result = await work();
  } finally {
    gathered.delete(tx);
  }
  if (events.length > 0) await writeEvents(tx, events);
  return result;
}

async function writeEvents(tx: Queryable, events: EmittedEvent[]): Promise<void> {
  const parts = [...riders].map((statement, i) => `, rider${i} AS (${statement})`).join('');
  await tx.query(
    `WITH input AS (SELECT * FROM unnest($1::text[], $2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::bigint[]) WITH ORDINALITY
                      AS t(message_id, instance_id, type, body, created_at, invitation_id, n)),
          e AS (INSERT INTO outbox_events (message_id, instance_id, type, body, created_at)
                SELECT message_id, instance_id, type, body, created_at FROM input ORDER BY n
                RETURNING id, instance_id, type, created_at)${parts}
     INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
     SELECT e.id, w.id, e.created_at, e.created_at FROM e JOIN webhook_endpoints w ON w.instance_id = e.instance_id
      WHERE w.disabled_at IS NULL AND (cardinality(w.events) = 0 OR e.type = ANY(w.events))`,
    [
      events.map(() => messageId()),
      events.map((event) => event.instanceId),
      events.map((event) => event.type),
      events.map((event) => JSON.stringify({ type: event.type, timestamp: event.now.toISOString(), data: event.data })),
      events.map((event) => event.now),
      events.map((event) => event.invitationId ?? null),
    ],
  );
}

export interface DueDelivery {
  id: string;
  endpointId: string;
  /** The instance whose endpoint it is (for each instance's fair share of a node's slots). */
  instanceId: string;
  url: string;
  secrets: string[];
  messageId: string;
  body: string;
  attempts: number;
}

/**
 * Takes up to `limit` due deliveries for this node, holding each for `holdMs` (a node that dies
 * mid-delivery releases them then). Other nodes skip what is held, so no attempt runs twice at once.
 */
export async function claimDue(db: Queryable & { transaction?: unknown }, now: Date, limit: number, holdMs: number, skipEndpoints: string[] = []): Promise<DueDelivery[]> {
  const { rows } = await db.query<DueDelivery & { previous: string | null; previousUntil: Date | null; secret: string }>(
    `/* webhook_claim */ WITH due AS (
       SELECT d.id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.locked_until IS NULL OR d.locked_until <= $1)
          AND NOT (d.endpoint_id = ANY($4::text[]))
        ORDER BY d.next_attempt_at, d.id
        LIMIT $2
        FOR UPDATE SKIP LOCKED)
     UPDATE webhook_deliveries d SET locked_until = $3 FROM due, webhook_endpoints w, outbox_events o
      WHERE d.id = due.id AND w.id = d.endpoint_id AND o.id = d.event_id
      RETURNING d.id::text AS id, d.endpoint_id AS "endpointId", w.instance_id AS "instanceId", w.url, w.secret, w.previous_secret AS previous, w.previous_until AS "previousUntil",
                o.message_id AS "messageId", o.body, d.attempts`,
    [now, limit, new Date(now.getTime() + holdMs), skipEndpoints],
  );
  return rows.map(({ previous, previousUntil, secret, ...row }) => ({
    ...row,
    secrets: previous && previousUntil && previousUntil > now ? [secret, previous] : [secret],
  }));
}

export interface AttemptOutcome {
  status?: number;
  response: string;
  durationMs: number;
}

/** What an attempt ended as: the next try, a success, or the end (410 Gone, retries spent, endpoint disabled). */
export async function recordAttempt(db: Queryable, delivery: DueDelivery, outcome: AttemptOutcome, now: Date, random = Math.random): Promise<'succeeded' | 'retry' | 'failed'> {
  const attempt = [delivery.id, now, outcome.status ?? null, outcome.durationMs, outcome.response.slice(0, 1024)];
  const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  if (ok) {
    // The common case in one statement: the attempt, the delivery done, and the endpoint's failing
    // streak ended only when there was one (no row written per delivery otherwise).
    await db.query(
      `WITH attempt AS (INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, response) VALUES ($1, $2, $3, $4, $5)),
            done AS (UPDATE webhook_deliveries SET status = 'succeeded', attempts = attempts + 1, locked_until = NULL, next_attempt_at = NULL WHERE id = $1)
       UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $6 AND failing_since IS NOT NULL`,
      [...attempt, delivery.endpointId],
    );
    return 'succeeded';
  }
  await db.query(`INSERT INTO webhook_attempts (delivery_id, at, status_code, duration_ms, response) VALUES ($1, $2, $3, $4, $5)`, attempt);
  if (refusedByPolicy(outcome)) {
    await db.query(`UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, locked_until = NULL, next_attempt_at = NULL WHERE id = $1`, [delivery.id]);
    return 'failed';
  }
  if (outcome.status === 410) {
    await db.query(`UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, locked_until = NULL, next_attempt_at = NULL WHERE id = $1`, [delivery.id]);
    await disable(db, delivery.endpointId, 'the endpoint answered 410 Gone', now);
    return 'failed';
  }
  const { rows } = await db.query<{ failingSince: Date }>(
    `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since AS "failingSince"`,
    [delivery.endpointId, now],
  );
  const failingSince = rows[0]?.failingSince;
  if (failingSince && now.getTime() - new Date(failingSince).getTime() >= DISABLE_AFTER_MS) {
    await db.query(`UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, locked_until = NULL, next_attempt_at = NULL WHERE id = $1`, [delivery.id]);
    await disable(db, delivery.endpointId, 'every delivery failed for 5 days', now);
    return 'failed';
  }
  const delay = RETRY_DELAYS_MS[delivery.attempts];
  if (delay === undefined) {
    await db.query(`UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, locked_until = NULL, next_attempt_at = NULL WHERE id = $1`, [delivery.id]);
    return 'failed';
  }
  const jittered = Math.round(delay * (0.9 + random() * 0.2));
  await db.query(`UPDATE webhook_deliveries SET attempts = attempts + 1, locked_until = NULL, next_attempt_at = $2 WHERE id = $1`, [
    delivery.id,
    new Date(now.getTime() + jittered),
  ]);
  return 'retry';
}

async function disable(db: Queryable, endpointId: string, reason: string, now: Date): Promise<void> {
  await db.query(`UPDATE webhook_endpoints SET disabled_at = COALESCE(disabled_at, $2), disabled_reason = $3 WHERE id = $1`, [endpointId, now, reason]);
  // What was still waiting for it will not be sent; a replay after re-enabling sends it.
  await db.query(`UPDATE webhook_deliveries SET status = 'failed', locked_until = NULL, next_attempt_at = NULL WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);
}

/** Endpoints disabled since `since` (the operator is told). */
export async function disabledSince(db: Queryable, since: Date): Promise<{ id: string; instanceId: string; url: string; reason: string }[]> {
  const { rows } = await db.query<{ id: string; instanceId: string; url: string; reason: string }>(
    `SELECT id, instance_id AS "instanceId", url, disabled_reason AS reason FROM webhook_endpoints WHERE disabled_at >= $1`,
    [since],
  );
  return rows;
}

/** Sends one message again, or every message since a time, to an endpoint: each as a fresh delivery schedule. */
export async function replay(db: Queryable, instanceId: string, endpointId: string, which: { messageId?: string; since?: Date }, now: Date): Promise<number> {
  await requireEndpoint(db, instanceId, endpointId);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (event_id, endpoint_id, next_attempt_at, created_at)
     SELECT o.id, $2, $5, $5 FROM outbox_events o
      WHERE o.instance_id = $1 AND ($3::text IS NULL OR o.message_id = $3) AND ($4::timestamptz IS NULL OR o.created_at >= $4)
     ON CONFLICT (event_id, endpoint_id) DO UPDATE SET status = 'pending', attempts = 0, next_attempt_at = EXCLUDED.next_attempt_at, locked_until = NULL
     RETURNING id`,
    [instanceId, endpointId, which.messageId ?? null, which.since ?? null, now],
  );
  return rows.length;
}

export interface AttemptView {
  messageId: string;
  type: string;
  deliveryStatus: string;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  response: string;
}

/** The newest attempts at an endpoint first. */
export async function listAttempts(db: Queryable, instanceId: string, endpointId: string, limit: number): Promise<AttemptView[]> {
  await requireEndpoint(db, instanceId, endpointId);
  const { rows } = await db.query<AttemptView>(
    `SELECT o.message_id AS "messageId", o.type, d.status AS "deliveryStatus", a.at, a.status_code AS "statusCode", a.duration_ms AS "durationMs", a.response
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN outbox_events o ON o.id = d.event_id
      WHERE d.endpoint_id = $1 ORDER BY a.id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows;
}

/** Gives claimed deliveries back at once (this node took more for one endpoint than it sends at a time). */
export async function releaseClaims(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.query('UPDATE webhook_deliveries SET locked_until = NULL WHERE id = ANY($1::bigint[])', [ids]);
}
