// What the service keeps for applicant-tracking systems that call it in their own shapes: the
// links between an ATS's request and an invitation, the callbacks owed to the ATS (an outbox of
// their own, fed by the invitation's events inside the transaction that emits them), and each
// instance's settings per ATS. Only this module writes partner_links, partner_callbacks and
// partner_settings.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import { sealer, serverKey } from '../../db/secrets.js';
import { stateSql, type InvitationState } from '../invitations/machine.js';
import { refusedByPolicy } from '../webhooks/post.js';
import { RETRY_DELAYS_MS } from '../webhooks/repository.js';

/** The ATSs with an adapter of their own (src/partners/<name>/; their facts in the adapters' registry, src/partners/index.ts). */
export const PARTNERS = ['greenhouse', 'ashby', 'workable', 'hibob', 'lever', 'smartrecruiters'] as const;
export type Partner = (typeof PARTNERS)[number];

export interface PartnerLink {
  id: string;
  publicId: string;
  instanceId: string;
  invitationId: string;
  partner: Partner;
  callbackUrl: string | null;
  external: Record<string, unknown>;
  createdAt: Date;
}

const LINK = `l.id::text AS id, l.public_id AS "publicId", l.instance_id AS "instanceId", l.invitation_id::text AS "invitationId", l.partner,
  l.callback_url AS "callbackUrl", l.external, l.created_at AS "createdAt"`;

/** The link made by an earlier request with the same key, if any. */
export async function findLink(db: Queryable, instanceId: string, partner: Partner, requestKey: string): Promise<PartnerLink | undefined> {
  const { rows } = await db.query<PartnerLink>(`SELECT ${LINK} FROM partner_links l WHERE l.instance_id = $1 AND l.partner = $2 AND l.request_key = $3`, [
    instanceId,
    partner,
    requestKey,
  ]);
  return rows[0];
}

/** Serialises requests with the same key (two identical requests at once make one link). */
export async function lockRequestKey(tx: Queryable, instanceId: string, partner: Partner, requestKey: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('partner_links:' || $1::text || ':' || $2 || ':' || $3))`, [instanceId, partner, requestKey]);
}

/** Greenhouse's partner_interview_id and Ashby's assessment_id: a UUID (Ashby documents one). */
const newPublicId = () => randomUUID();

export async function insertLink(
  tx: Queryable,
  input: {
    instanceId: string;
    invitationId: string;
    partner: Partner;
    requestKey: string;
    callbackUrl: string | null;
    external: Record<string, unknown>;
    events: string[];
    now: Date;
  },
): Promise<PartnerLink> {
  const { rows } = await tx.query<PartnerLink>(
    `INSERT INTO partner_links AS l (public_id, instance_id, invitation_id, partner, request_key, callback_url, external, events, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${LINK}`,
    [newPublicId(), input.instanceId, input.invitationId, input.partner, input.requestKey, input.callbackUrl, JSON.stringify(input.external), input.events, input.now],
  );
  return rows[0]!;
}

/** What an ATS reads of the invitation behind one of its links. */
export interface LinkedInvitation extends PartnerLink {
  candidateId: string;
  assessmentSlug: string;
  state: InvitationState;
  reportDays: number;
  /** The score record as clients read it (GET /v1/score), as JSON text; null until it is made. */
  record: string | null;
}

/** A link of an instance by the id the ATS knows it by, with its invitation's state. */
export async function linkedInvitation(db: Queryable, instanceId: string, partner: Partner, publicId: string, now: Date): Promise<LinkedInvitation | undefined> {
  const { rows } = await db.query<LinkedInvitation>(
    `SELECT ${LINK}, i.candidate_id AS "candidateId", a.slug AS "assessmentSlug", ${stateSql('$4')} AS state, n.report_link_days AS "reportDays", i.record
       FROM partner_links l JOIN invitations i ON i.id = l.invitation_id JOIN assessments a ON a.id = i.assessment_id JOIN instances n ON n.id = l.instance_id
      WHERE l.instance_id = $1 AND l.partner = $2 AND l.public_id = $3`,
    [instanceId, partner, publicId, now],
  );
  return rows[0];
}

/**
 * The outbox's rider (webhooks' rideWithEvents): each event of an invitation that an ATS started
 * queues one callback per link that wants that event, in the statement that writes the events and
 * in their order (nothing is written for invitations no ATS started).
 */
export const CALLBACKS_OF_EVENTS = `INSERT INTO partner_callbacks (link_id, instance_id, event, body, next_attempt_at, created_at)
     SELECT l.id, l.instance_id, e.type, e.body, e.created_at, e.created_at
       FROM input e JOIN partner_links l ON l.invitation_id = e.invitation_id
      WHERE e.type = ANY(l.events)
      ORDER BY e.n, l.id`;

export interface DueCallback {
  id: string;
  event: string;
  /** The event as the outbox recorded it: `{type, timestamp, data: {…, score}}`. */
  body: string;
  attempts: number;
  link: PartnerLink;
  candidateId: string;
  assessmentSlug: string;
  reportDays: number;
  /** The event of the link's next callback already queued after this one, if any (an adapter may leave out what it supersedes). */
  nextEvent: string | null;
}

/**
 * Takes up to `limit` due callbacks, holding each for `holdMs`. A link's callback is due only when
 * none before it is still pending: the ATS hears the invitation's states in the order they happened.
 */
export async function claimDueCallbacks(db: Queryable, now: Date, limit: number, holdMs: number): Promise<DueCallback[]> {
  const { rows } = await db.query<Omit<DueCallback, 'link'> & Omit<PartnerLink, 'id'> & { linkId: string }>(
    `WITH due AS (
       SELECT c.id FROM partner_callbacks c
        WHERE c.status = 'pending' AND c.next_attempt_at <= $1 AND (c.locked_until IS NULL OR c.locked_until <= $1)
          AND NOT EXISTS (SELECT 1 FROM partner_callbacks b WHERE b.link_id = c.link_id AND b.status = 'pending' AND b.id < c.id)
        ORDER BY c.next_attempt_at, c.id
        LIMIT $2
        FOR UPDATE SKIP LOCKED)
     UPDATE partner_callbacks c SET locked_until = $3 FROM due, partner_links l, invitations i, assessments a, instances n
      WHERE c.id = due.id AND l.id = c.link_id AND i.id = l.invitation_id AND a.id = i.assessment_id AND n.id = l.instance_id
      RETURNING c.id::text AS id, c.event, c.body, c.attempts, l.id::text AS "linkId", l.public_id AS "publicId", l.instance_id AS "instanceId",
                l.invitation_id::text AS "invitationId", l.partner, l.callback_url AS "callbackUrl", l.external, l.created_at AS "createdAt",
                i.candidate_id AS "candidateId", a.slug AS "assessmentSlug", n.report_link_days AS "reportDays",
                (SELECT b.event FROM partner_callbacks b WHERE b.link_id = c.link_id AND b.status = 'pending' AND b.id > c.id ORDER BY b.id LIMIT 1) AS "nextEvent"`,
    [now, limit, new Date(now.getTime() + holdMs)],
  );
  return rows.map(({ id, event, body, attempts, candidateId, assessmentSlug, reportDays, nextEvent, linkId, ...link }) => ({
    id,
    event,
    body,
    attempts,
    candidateId,
    assessmentSlug,
    reportDays,
    nextEvent,
    link: { ...link, id: linkId },
  }));
}

/** What one try of a callback ended as: the next try (RETRY_DELAYS_MS, as webhooks), a success, or the end. */
export async function recordCallbackAttempt(
  db: Queryable,
  callbackId: string,
  attempts: number,
  outcome: { status?: number; response: string },
  now: Date,
  random = Math.random,
): Promise<'succeeded' | 'retry' | 'failed'> {
  const ok = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
  const delay = RETRY_DELAYS_MS[attempts];
  // A 4xx other than 408 and 429 will not change by asking again: given up at once.
  // Nor will the service's own refusal of the address (refusedByPolicy).
  const final = (outcome.status !== undefined && outcome.status >= 400 && outcome.status < 500 && outcome.status !== 408 && outcome.status !== 429) || refusedByPolicy(outcome);
  const result = ok ? 'succeeded' : final || delay === undefined ? 'failed' : 'retry';
  const next = result === 'retry' ? new Date(now.getTime() + Math.round(delay! * (0.9 + random() * 0.2))) : null;
  await db.query(
    `UPDATE partner_callbacks SET status = $2, attempts = attempts + 1, locked_until = NULL, next_attempt_at = $3,
            last_attempt_at = $4, last_status = $5, last_response = $6
      WHERE id = $1`,
    [callbackId, result === 'retry' ? 'pending' : result, next, now, outcome.status ?? null, outcome.response.slice(0, 1024)],
  );
  return result;
}

/** Settles a callback the adapter leaves out (a later one of the same link says more), without sending it. */
export async function skipCallback(db: Queryable, callbackId: string, reason: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE partner_callbacks SET status = 'succeeded', locked_until = NULL, next_attempt_at = NULL, last_attempt_at = $2, last_status = NULL, last_response = $3 WHERE id = $1`,
    [callbackId, now, `not sent: ${reason}`.slice(0, 1024)],
  );
}

/** How many of the instance's ATS callbacks failed for good since `since` (the overview). */
export async function failedCallbacks(db: Queryable, instanceId: string, since: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM partner_callbacks WHERE instance_id = $1 AND status = 'failed' AND last_attempt_at >= $2`, [
    instanceId,
    since,
  ]);
  return rows[0]!.n;
}

/** Gives claimed callbacks back at once (a node that stops before sending them). */
export async function releaseCallbacks(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0) await db.query('UPDATE partner_callbacks SET locked_until = NULL WHERE id = ANY($1::bigint[])', [ids]);
}

export interface CallbackView {
  id: string;
  partner: Partner;
  publicId: string;
  event: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatus: number | null;
  lastResponse: string | null;
}

/** The newest callbacks of an instance first. */
export async function listCallbacks(db: Queryable, instanceId: string, limit: number): Promise<CallbackView[]> {
  const { rows } = await db.query<CallbackView>(
    `SELECT c.id::text AS id, l.partner, l.public_id AS "publicId", c.event, c.status, c.attempts, c.created_at AS "createdAt", c.next_attempt_at AS "nextAttemptAt",
            c.last_attempt_at AS "lastAttemptAt", c.last_status AS "lastStatus", c.last_response AS "lastResponse"
       FROM partner_callbacks c JOIN partner_links l ON l.id = c.link_id
      WHERE c.instance_id = $1 ORDER BY c.id DESC LIMIT $2`,
    [instanceId, limit],
  );
  return rows;
}

/** Sends a callback of the instance again: pending from now, with a fresh schedule of retries. False when there is none. */
export async function requeueCallback(tx: Queryable, instanceId: string, callbackId: string, now: Date): Promise<boolean> {
  if (!/^\d{1,18}$/.test(callbackId)) return false;
  const { rows } = await tx.query(
    `UPDATE partner_callbacks SET status = 'pending', attempts = 0, next_attempt_at = $3, locked_until = NULL WHERE instance_id = $1 AND id = $2 RETURNING id`,
    [instanceId, callbackId, now],
  );
  return rows.length > 0;
}

export interface PartnerSettings {
  /** The instance's API key at the ATS, opened; undefined when none is set. */
  apiKey?: string;
  /** The last four characters of that key, to recognise it by. */
  keyHint: string | null;
  /** Whether the service e-mails the candidate the link (else the ATS reaches them). */
  sendEmail: boolean;
  /** The instance's other secrets at the ATS by name (tokens, signing secrets), opened. */
  secrets: Record<string, string>;
  /** The last four characters of each secret. */
  secretHints: Record<string, string>;
  /** Settings that are no secret (an ATS's company id, a stage). */
  options: Record<string, string>;
  updatedAt: Date | null;
}

/** A change of settings: a value sets, null removes, absent keeps. */
export interface SettingsChange {
  apiKey?: string | null;
  sendEmail?: boolean;
  secrets?: Record<string, string | null>;
  options?: Record<string, string | null>;
}

const KEY_SECRET = 'partner-credentials';
const keyContext = (instanceId: string, partner: Partner) => `partner-key v1\n${instanceId}\n${partner}`;
const secretsContext = (instanceId: string, partner: Partner) => `partner-secrets v1\n${instanceId}\n${partner}`;
const sealerOf = async (db: Queryable) => sealer(await serverKey(db, KEY_SECRET, 'assessment-connect partner credentials v1'));

type SettingsRow = {
  instanceId: string;
  sealed: Buffer | null;
  sealedSecrets: Buffer | null;
  secretHints: Record<string, string>;
  options: Record<string, string>;
  keyHint: string | null;
  sendEmail: boolean;
  updatedAt: Date;
};
const settingsColumns = (t: string) => `${t}.instance_id AS "instanceId", ${t}.sealed_key AS sealed, ${t}.sealed_secrets AS "sealedSecrets", ${t}.secret_hints AS "secretHints",
  ${t}.options, ${t}.key_hint AS "keyHint", ${t}.send_email AS "sendEmail", ${t}.updated_at AS "updatedAt"`;

async function opened(db: Queryable, partner: Partner, row: SettingsRow): Promise<PartnerSettings> {
  const box = row.sealed || row.sealedSecrets ? await sealerOf(db) : undefined;
  const apiKey = row.sealed ? box!.open(row.sealed, keyContext(row.instanceId, partner)) : undefined;
  const secretsText = row.sealedSecrets ? box!.open(row.sealedSecrets, secretsContext(row.instanceId, partner)) : undefined;
  const secrets = secretsText ? (JSON.parse(secretsText) as Record<string, string>) : {};
  return { apiKey, keyHint: row.keyHint, sendEmail: row.sendEmail, secrets, secretHints: row.secretHints, options: row.options, updatedAt: row.updatedAt };
}

export async function partnerSettings(db: Queryable, instanceId: string, partner: Partner): Promise<PartnerSettings> {
  const { rows } = await db.query<SettingsRow>(`SELECT ${settingsColumns('s')} FROM partner_settings s WHERE s.instance_id = $1 AND s.partner = $2`, [instanceId, partner]);
  const row = rows[0];
  if (!row) return { keyHint: null, sendEmail: true, secrets: {}, secretHints: {}, options: {}, updatedAt: null };
  return opened(db, partner, row);
}

/**
 * The instances connected to an ATS (with settings), optionally only those whose setting `option`
 * is `value`: how an ATS that calls one address for all its customers (a signed webhook) is
 * matched to an instance, by the secret that verifies its signature.
 */
export async function connectedInstances(
  db: Queryable,
  partner: Partner,
  where?: { option: string; value: string },
): Promise<(PartnerSettings & { instanceId: string; instanceName: string })[]> {
  const { rows } = await db.query<SettingsRow & { instanceName: string }>(
    `SELECT ${settingsColumns('s')}, n.name AS "instanceName" FROM partner_settings s JOIN instances n ON n.id = s.instance_id
      WHERE s.partner = $1 AND ($2::text IS NULL OR s.options->>$2 = $3) ORDER BY s.instance_id LIMIT 1000`,
    [partner, where?.option ?? null, where?.value ?? null],
  );
  return Promise.all(rows.map(async (row) => ({ ...(await opened(db, partner, row)), instanceId: row.instanceId, instanceName: row.instanceName })));
}

/** Sets (or, with null, removes) the instance's API key, secrets and settings at the ATS (the secrets sealed); and/or whether the service e-mails candidates. */
export async function savePartnerSettings(tx: Queryable, instanceId: string, partner: Partner, change: SettingsChange, now: Date): Promise<void> {
  const box = await sealerOf(tx);
  const sealed = typeof change.apiKey === 'string' ? box.seal(change.apiKey, keyContext(instanceId, partner)) : null;
  const hint = typeof change.apiKey === 'string' ? change.apiKey.slice(-4) : null;
  const current = change.secrets || change.options ? await partnerSettings(tx, instanceId, partner) : undefined;
  const merge = (base: Record<string, string>, delta: Record<string, string | null>) => {
    const next = { ...base };
    for (const [name, value] of Object.entries(delta)) {
      if (value === null) delete next[name];
      else next[name] = value;
    }
    return next;
  };
  const secrets = change.secrets ? merge(current!.secrets, change.secrets) : undefined;
  const hints = secrets ? Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, value.slice(-4)])) : null;
  const options = change.options ? merge(current!.options, change.options) : null;
  const sealedSecrets = secrets && Object.keys(secrets).length > 0 ? box.seal(JSON.stringify(secrets), secretsContext(instanceId, partner)) : null;
  await tx.query(
    `INSERT INTO partner_settings (instance_id, partner, sealed_key, key_hint, send_email, updated_at, sealed_secrets, secret_hints, options)
     VALUES ($1, $2, $3, $4, COALESCE($6, true), $7, $9, COALESCE($10::jsonb, '{}'), COALESCE($11::jsonb, '{}'))
     ON CONFLICT (instance_id, partner) DO UPDATE SET
       sealed_key = CASE WHEN $5::boolean THEN EXCLUDED.sealed_key ELSE partner_settings.sealed_key END,
       key_hint = CASE WHEN $5::boolean THEN EXCLUDED.key_hint ELSE partner_settings.key_hint END,
       sealed_secrets = CASE WHEN $8::boolean THEN EXCLUDED.sealed_secrets ELSE partner_settings.sealed_secrets END,
       secret_hints = COALESCE($10::jsonb, partner_settings.secret_hints),
       options = COALESCE($11::jsonb, partner_settings.options),
       send_email = COALESCE($6, partner_settings.send_email), updated_at = EXCLUDED.updated_at`,
    [
      instanceId,
      partner,
      sealed,
      hint,
      change.apiKey !== undefined,
      change.sendEmail ?? null,
      now,
      secrets !== undefined,
      sealedSecrets,
      hints ? JSON.stringify(hints) : null,
      options ? JSON.stringify(options) : null,
    ],
  );
}
