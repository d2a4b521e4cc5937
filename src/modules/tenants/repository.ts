import { notFound } from '../../domain/errors.js';
import type { Queryable } from '../../db/database.js';

export interface Instance {
  id: string;
  name: string;
  portalUrl: string | null;
  inviteTtlDays: number;
  mailFromName: string | null;
  mailFromAddress: string | null;
  /** Days after the last completed assessment when a candidate is erased; null: kept. */
  retentionDays: number | null;
  /** Days a report link stays valid (default 90). */
  reportLinkDays: number;
  /** Days before an invitation expires when the candidate is reminded, once; null: off (default 2). */
  reminderDays: number | null;
  /** The company's name as candidates see it; null: the sender name, else the instance name (brandOf). */
  displayName: string | null;
  /** '#RRGGBB', contrast-checked against white when set. */
  accentColor: string | null;
  supportEmail: string | null;
  privacyUrl: string | null;
  /** sha256 (hex) of the logo, which lives in instance_logos; null: no logo. */
  logoSha256: string | null;
  /** The portal's and e-mails' language when neither the invitation nor the browser names one (default en). */
  defaultLanguage: string;
  /** How many webhook endpoints the instance may register (the operator's setting, default 10). */
  maxWebhookEndpoints: number;
  /** Every console user of the instance must have a second factor (the operator's setting). */
  requireTwoFactor: boolean;
  /** The IANA time zone deadlines are given in to candidates (default UTC). */
  timeZone: string;
  /** How many reviewers score each free-text answer, 1-5 (default 1). */
  reviewersPerAnswer: number;
  /** Reviewers see neither the candidate's name nor the other reviews until they submitted their own (default false). */
  blindReview: boolean;
  /** How the reviews make the final score: their mean, or their mean when all are within reviewAgreementPoints of each other (else a lead settles). */
  reviewAgreement: 'mean' | 'agree-within';
  /** The distance, in percentage points, within which reviews agree (agree-within; default 20). */
  reviewAgreementPoints: number;
  /** Hours after completion or assignment when an assigned review is overdue and its reviewer is reminded, once; null: no reminders. */
  reviewDueHours: number | null;
  /** Reviewers may take answers nobody was assigned (default true); answers with assignees are theirs alone. */
  reviewUnassigned: boolean;
  createdAt: Date;
}

const COLUMNS = `id, name, portal_url AS "portalUrl", invite_ttl_days AS "inviteTtlDays", mail_from_name AS "mailFromName",
  mail_from_address AS "mailFromAddress", retention_days AS "retentionDays",
  report_link_days AS "reportLinkDays", reminder_days AS "reminderDays", display_name AS "displayName", accent_color AS "accentColor",
  support_email AS "supportEmail", privacy_url AS "privacyUrl", (SELECT l.sha256 FROM instance_logos l WHERE l.instance_id = instances.id) AS "logoSha256",
  default_language AS "defaultLanguage", max_webhook_endpoints AS "maxWebhookEndpoints",
  require_two_factor AS "requireTwoFactor", time_zone AS "timeZone", reviewers_per_answer AS "reviewersPerAnswer", blind_review AS "blindReview",
  review_agreement AS "reviewAgreement", review_agreement_points AS "reviewAgreementPoints", review_due_hours AS "reviewDueHours",
  review_unassigned AS "reviewUnassigned", created_at AS "createdAt"`;

export interface InstanceSettings {
  portalUrl?: string | null;
  inviteTtlDays?: number;
  mailFromName?: string | null;
  mailFromAddress?: string | null;
  retentionDays?: number | null;
  reportLinkDays?: number;
  reminderDays?: number | null;
  displayName?: string | null;
  accentColor?: string | null;
  supportEmail?: string | null;
  privacyUrl?: string | null;
  defaultLanguage?: string;
  maxWebhookEndpoints?: number;
  requireTwoFactor?: boolean;
  timeZone?: string;
  reviewersPerAnswer?: number;
  blindReview?: boolean;
  reviewAgreement?: 'mean' | 'agree-within';
  reviewAgreementPoints?: number;
  reviewDueHours?: number | null;
  reviewUnassigned?: boolean;
}

export const INSTANCE_NAME_PATTERN = '^[a-z][a-z0-9-]{0,62}$';

export async function createInstance(db: Queryable, input: { name: string } & InstanceSettings): Promise<Instance | undefined> {
  const { rows } = await db.query<Instance>(
    `INSERT INTO instances (name, portal_url, invite_ttl_days, mail_from_name, mail_from_address, retention_days, report_link_days, reminder_days,
                            display_name, accent_color, support_email, privacy_url, default_language, max_webhook_endpoints, time_zone,
                            reviewers_per_answer, blind_review, review_agreement, review_agreement_points, review_due_hours, review_unassigned)
     VALUES ($1, $2, coalesce($3, 14), $4, $5, $6, coalesce($7, 90), CASE WHEN $8::boolean THEN $9::integer ELSE 2 END, $10, $11, $12, $13, coalesce($14, 'en'),
             coalesce($15::integer, 10), coalesce($16, 'UTC'), coalesce($17::integer, 1), coalesce($18::boolean, false), coalesce($19, 'mean'),
             coalesce($20::integer, 20), $21::integer, coalesce($22::boolean, true))
     ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
    [
      input.name,
      input.portalUrl ?? null,
      input.inviteTtlDays ?? null,
      input.mailFromName ?? null,
      input.mailFromAddress ?? null,
      input.retentionDays ?? null,
      input.reportLinkDays ?? null,
      input.reminderDays !== undefined,
      input.reminderDays ?? null,
      input.displayName ?? null,
      input.accentColor ?? null,
      input.supportEmail ?? null,
      input.privacyUrl ?? null,
      input.defaultLanguage ?? null,
      input.maxWebhookEndpoints ?? null,
      input.timeZone ?? null,
      input.reviewersPerAnswer ?? null,
      input.blindReview ?? null,
      input.reviewAgreement ?? null,
      input.reviewAgreementPoints ?? null,
      input.reviewDueHours ?? null,
      input.reviewUnassigned ?? null,
    ],
  );
  return rows[0];
}

/** Changes the settings given (null clears one); undefined when there is no such instance. */
export async function updateInstance(db: Queryable, name: string, settings: InstanceSettings): Promise<Instance | undefined> {
  const sets: string[] = [];
  const params: unknown[] = [name];
  const columns = {
    portalUrl: 'portal_url',
    inviteTtlDays: 'invite_ttl_days',
    mailFromName: 'mail_from_name',
    mailFromAddress: 'mail_from_address',
    retentionDays: 'retention_days',
    reportLinkDays: 'report_link_days',
    reminderDays: 'reminder_days',
    displayName: 'display_name',
    accentColor: 'accent_color',
    supportEmail: 'support_email',
    privacyUrl: 'privacy_url',
    defaultLanguage: 'default_language',
    maxWebhookEndpoints: 'max_webhook_endpoints',
    requireTwoFactor: 'require_two_factor',
    timeZone: 'time_zone',
    reviewersPerAnswer: 'reviewers_per_answer',
    blindReview: 'blind_review',
    reviewAgreement: 'review_agreement',
    reviewAgreementPoints: 'review_agreement_points',
    reviewDueHours: 'review_due_hours',
    reviewUnassigned: 'review_unassigned',
  } as const;
  for (const [key, column] of Object.entries(columns)) {
    const value = settings[key as keyof InstanceSettings];
    if (value === undefined) continue;
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  }
  if (sets.length === 0) return findInstanceByName(db, name);
  const { rows } = await db.query<Instance>(`UPDATE instances SET ${sets.join(', ')} WHERE name = $1 RETURNING ${COLUMNS}`, params);
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

/** The instance an admin path names; a not-found error when there is none. */
export async function requireInstance(db: Queryable, name: string): Promise<Instance> {
  const instance = await findInstanceByName(db, name);
  if (!instance) throw notFound(`No instance named "${name}"`);
  return instance;
}

export async function findInstanceById(db: Queryable, id: string): Promise<Instance | undefined> {
  const { rows } = await db.query<Instance>(`SELECT ${COLUMNS} FROM instances WHERE id = $1`, [id]);
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

export interface Logo {
  contentType: string;
  bytes: Buffer;
  sha256: string;
}

/** Stores (or replaces) the instance's logo; false when there is no such instance. */
export async function setLogo(db: Queryable, name: string, logo: Logo, at: Date): Promise<boolean> {
  const { rows } = await db.query(
    `INSERT INTO instance_logos (instance_id, content_type, bytes, sha256, updated_at)
     SELECT id, $2, $3, $4, $5 FROM instances WHERE name = $1
     ON CONFLICT (instance_id) DO UPDATE SET content_type = excluded.content_type, bytes = excluded.bytes, sha256 = excluded.sha256, updated_at = excluded.updated_at
     RETURNING instance_id`,
    [name, logo.contentType, logo.bytes, logo.sha256, at],
  );
  return rows.length > 0;
}

/** Removes the instance's logo; whether there was one. */
export async function removeLogo(db: Queryable, name: string): Promise<boolean> {
  const { rows } = await db.query(`DELETE FROM instance_logos WHERE instance_id = (SELECT id FROM instances WHERE name = $1) RETURNING instance_id`, [name]);
  return rows.length > 0;
}

export async function findLogo(db: Queryable, name: string): Promise<Logo | undefined> {
  const { rows } = await db.query<Logo>(
    `SELECT l.content_type AS "contentType", l.bytes, l.sha256 FROM instance_logos l JOIN instances i ON i.id = l.instance_id WHERE i.name = $1`,
    [name],
  );
  const row = rows[0];
  return row && { ...row, bytes: Buffer.from(row.bytes) };
}

/** The instances that erase their candidates after a while, by name, and after how many days. */
export async function listRetention(db: Queryable): Promise<{ name: string; days: number }[]> {
  const { rows } = await db.query<{ name: string; days: number }>('SELECT name, retention_days AS days FROM instances WHERE retention_days IS NOT NULL ORDER BY name');
  return rows;
}
