// Inviting a candidate: resolve the assessments, make or find the candidate, add the
// invitations that are new, and issue a fresh link, all in one transaction; then, when asked,
// hand the e-mail to the mailer and record what happened. The invitation stands whatever the
// mailer says.
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Database, Queryable } from '../../db/database.js';
import { runCommand, systemRequest, type CommandContext, type CommandRequest } from '../../domain/command.js';
import { invalidInput, notFound } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { findAssessmentsBySlug } from '../assessments/repository.js';
import { upsertCandidate } from '../candidates/repository.js';
import { generateToken } from '../keys/secret.js';
import { chooseLanguage } from '../../i18n/i18n.js';
import { loadTemplates, renderInvitationWith } from '../mail/invitation-message.js';
import { brandOf, type BrandSource } from '../tenants/branding.js';
import type { Mailer } from '../mail/mailer.js';
import { emitInvitationEvents } from '../webhooks/events.js';
import { decide, lockInvitationById, type AttemptsOfInvitation } from './machine.js';
import { monotonicMs, systemClock } from '../../domain/clock.js';

export interface InviteRequest {
  email: string;
  firstName: string;
  lastName: string;
  assessments: string[];
  /** Extra time on every assessment of the invite, percent of its time limit (0-200); absent: unchanged (0 for new ones). */
  extraTimePercent?: number;
  /** The candidate's language (BCP 47); absent: unchanged. */
  language?: string;
  /** The client's own reference for these invitations (an application id), 1-200 characters; absent: unchanged. */
  externalReference?: string;
}

/** Where an invitation was first made: the v1 API, the console, or an applicant-tracking system's adapter. */
export type InvitationSource = 'api' | 'console' | 'greenhouse' | 'ashby';

/** An assessment of an invite that was left as it was, and why (inviting again cannot reopen it). */
export interface SkippedAssessment {
  assessmentId: string;
  status: 'COMPLETED' | 'CANCELLED';
  detail: string;
}

export interface InviteResult {
  link: string;
  candidateId: string;
  invitationStatus?: 'SENT' | 'FAILED';
  /** Assessments of the invite that nothing was done for; absent when there are none. */
  skipped?: SkippedAssessment[];
}

export interface InviteDeps {
  db: Database;
  mailer: Mailer;
  publicUrl: string;
  /** The sender when the instance has none of its own. */
  mailFrom: string;
  /** Per-instance template overrides live in <templatesDir>/<instance>/. */
  templatesDir?: string;
  log?: FastifyBaseLogger;
  /** The clock of event times; default the system clock. */
  now?: () => Date;
  /** The attempts module's part in cancel and retake. */
  attempts: AttemptsOfInvitation;
}

/** What inviting, issuing links and e-mailing need (all of InviteDeps but the attempts' part). */
export type LinkDeps = Omit<InviteDeps, 'attempts'>;

export const now = (deps: LinkDeps) => (deps.now ?? systemClock)();

/** The path of the candidate portal under the portal URL. */
export const PORTAL_PATH = '/portal';

export const portalLink = (base: string, token: string) => `${base.replace(/\/+$/, '')}${PORTAL_PATH}/#?sessionToken=${token}`;

interface IssuedLink {
  linkId: string;
  link: string;
  expiresAt: Date;
  /** What the e-mail needs of the instance: its sender and its branding (brandOf). */
  instance: BrandSource;
}

/** Inserts a fresh link for a candidate and assessments; the token exists only in the result. */
export async function issueLink(tx: Queryable, deps: LinkDeps, instanceId: string, candidateId: string, assessmentIds: string[], now: Date): Promise<IssuedLink> {
  const { token, hash } = generateToken();
  const { rows } = await tx.query<{ linkId: string; expiresAt: Date; portalUrl: string | null } & BrandSource>(
    `WITH n AS (
       SELECT id, portal_url, name, mail_from_name, mail_from_address, display_name, accent_color, support_email, privacy_url, invite_ttl_days,
              (SELECT l.sha256 FROM instance_logos l WHERE l.instance_id = instances.id) AS logo_sha256
         FROM instances WHERE id = $1
     ), link AS (
       INSERT INTO invite_links (instance_id, candidate_id, token_hash, assessment_ids, expires_at)
       SELECT n.id, $2, $3, $4, $5::timestamptz + make_interval(days => n.invite_ttl_days) FROM n
       RETURNING id, expires_at
     )
     SELECT link.id AS "linkId", link.expires_at AS "expiresAt", n.portal_url AS "portalUrl", n.name, n.mail_from_name AS "mailFromName",
            n.mail_from_address AS "mailFromAddress", n.display_name AS "displayName", n.accent_color AS "accentColor",
            n.support_email AS "supportEmail", n.privacy_url AS "privacyUrl", n.logo_sha256 AS "logoSha256"
       FROM link, n`,
    [instanceId, candidateId, hash, assessmentIds, now],
  );
  const { linkId, expiresAt, portalUrl, ...instance } = rows[0]!;
  return { linkId, link: portalLink(portalUrl ?? deps.publicUrl, token), expiresAt, instance };
}

/** The form of an assessment id (the CHECK on assessments.slug). */
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;

/** What the invite command made, to be e-mailed after commit. */
export interface PreparedInvite extends IssuedLink {
  candidateId: string;
  /** The assessments the link opens and the e-mail names, in the order asked for. */
  open: { id: string; slug: string; name: string; durationMinutes: number }[];
  skipped: SkippedAssessment[];
}

/**
 * Invites a candidate (found by e-mail, or made) to assessments of an instance: new invitations
 * are made, those not yet started are renewed (a withdrawn or expired one is open again), one in
 * progress goes on; a completed one, or one withdrawn after it was started, cannot be reopened by
 * inviting: it is left as it is, named in `skipped`, and neither e-mailed nor announced. A fresh
 * link opens what is open (all of them when nothing is, so that the candidate can still see
 * their results page).
 */
export async function inviteCandidate(
  ctx: CommandContext,
  deps: LinkDeps,
  input: { instanceId: string; request: InviteRequest; source?: InvitationSource },
): Promise<PreparedInvite> {
  const { tx } = ctx;
  const { instanceId, request } = input;
  // Only well-formed slugs are looked up: anything else (a NUL, which PostgreSQL refuses in
  // text, included) cannot name an assessment and is reported as unknown below.
  const found = await findAssessmentsBySlug(
    tx,
    instanceId,
    request.assessments.filter((slug) => SLUG.test(slug)),
  );
  const unknown = request.assessments.filter((slug) => !found.some((a) => a.slug === slug));
  if (unknown.length > 0) {
    throw invalidInput(
      unknown.map((slug) => ({
        in: 'body' as const,
        name: `assessments.${request.assessments.indexOf(slug)}`,
        detail: `"${slug}" is not a published assessment of this instance`,
      })),
      `Unknown assessment${unknown.length === 1 ? '' : 's'} for this instance: ${unknown.join(', ')}`,
    );
  }
  const candidateId = await upsertCandidate(tx, instanceId, request, ctx.now);
  // A fixed order of inserts and locks keeps two invites of one candidate from deadlocking each other.
  const assessmentIds = found.map((a) => a.id).sort();
  const { rows: created } = await tx.query<{ id: string }>(
    `INSERT INTO invitations (instance_id, candidate_id, assessment_id, expires_at, source)
     SELECT $1, $2, id, $4::timestamptz + make_interval(days => (SELECT invite_ttl_days FROM instances WHERE id = $1)), $5 FROM unnest($3::uuid[]) AS t(id) ORDER BY id
     ON CONFLICT (candidate_id, assessment_id) DO NOTHING
     RETURNING id`,
    [instanceId, candidateId, assessmentIds, ctx.now, input.source ?? 'api'],
  );
  // Every invitation of the invite, locked (in the same order) and decided by the state machine.
  const states = new Map<string, { id: string; outcome: ReturnType<typeof decide>; state: string }>();
  for (const assessmentId of assessmentIds) {
    const { rows } = await tx.query<{ id: string }>('SELECT id::text AS id FROM invitations WHERE candidate_id = $1 AND assessment_id = $2', [candidateId, assessmentId]);
    const inv = (await lockInvitationById(tx, rows[0]!.id, ctx.now))!;
    states.set(assessmentId, { id: inv.id, outcome: decide(inv.state, 'invite', inv.facts), state: inv.state });
  }
  const skipped: SkippedAssessment[] = [];
  const open: typeof found = [];
  for (const a of request.assessments.map((slug) => found.find((f) => f.slug === slug)!)) {
    if (open.includes(a) || skipped.some((s) => s.assessmentId === a.slug)) continue;
    const { outcome, state } = states.get(a.id)!;
    if ('same' in outcome && (state === 'COMPLETED' || state === 'CANCELLED')) {
      skipped.push({
        assessmentId: a.slug,
        status: state,
        detail: state === 'COMPLETED' ? 'completed: its result stands (an operator may allow a retake)' : 'withdrawn after it was started: it stays closed',
      });
    } else open.push(a);
  }
  // The client's reference goes on what this invite opens, before the events, which carry it.
  if (request.externalReference !== undefined) {
    await tx.query('UPDATE invitations SET external_reference = $2 WHERE id = ANY($1::bigint[])', [open.map((a) => states.get(a.id)!.id), request.externalReference]);
  }
  await emitInvitationEvents(
    tx,
    'invitation.created',
    created.map((r) => String(r.id)),
    ctx.now,
  );
  const linked = open.length > 0 ? open.map((a) => a.id).sort() : assessmentIds;
  const issued = await issueLink(tx, deps, instanceId, candidateId, linked, ctx.now);
  // Inviting again renews what is not yet started: it may be started until the new link
  // expires, and a withdrawn (never started) or expired invitation is open again. The
  // accommodation and language of this invite apply to what is not yet started.
  const renew = [...states.values()].filter((s) => 'to' in s.outcome || s.state === 'INVITED').map((s) => s.id);
  await tx.query(
    `UPDATE invitations SET expires_at = greatest(expires_at, $2), cancelled_at = NULL, expired_at = NULL,
            extra_time_percent = coalesce($3, extra_time_percent), language = coalesce($4, language)
      WHERE id = ANY($1::bigint[])`,
    [renew, issued.expiresAt, request.extraTimePercent ?? null, request.language ?? null],
  );
  await audit(ctx, 'invitation.create', candidateId);
  return { candidateId, open, skipped, ...issued };
}

/** The invite of /v1/invite and the console: the command (retried on a deadlock), then the e-mail after commit when asked. */
export async function invite(
  deps: LinkDeps,
  instanceId: string,
  request: InviteRequest,
  sendInvite: boolean,
  req: CommandRequest,
  source: InvitationSource = 'api',
): Promise<InviteResult> {
  const created = await retryOnConflict(() => runCommand(deps.db, req, (ctx) => inviteCandidate(ctx, deps, { instanceId, request, source }), 'invite'));
  const result: InviteResult = { link: created.link, candidateId: created.candidateId };
  if (sendInvite && created.open.length > 0) result.invitationStatus = await emailInvite(deps, instanceId, created, request);
  if (created.skipped.length > 0) result.skipped = created.skipped;
  return result;
}

/** E-mails what an invite command opened (after it committed); never throws. */
export function emailInvite(deps: LinkDeps, instanceId: string, created: PreparedInvite, request: InviteRequest): Promise<'SENT' | 'FAILED'> {
  return deliver(deps, {
    instanceId,
    instance: created.instance,
    candidate: { id: created.candidateId, email: request.email, firstName: request.firstName, lastName: request.lastName },
    linkId: created.linkId,
    link: created.link,
    expiresAt: created.expiresAt,
    // The e-mail states the candidate's own time limit (with any extra time, never why).
    assessments: created.open.map((a) => ({ ...a, durationMinutes: Math.ceil((a.durationMinutes * (100 + (request.extraTimePercent ?? 0))) / 100) })),
  });
}

export interface Delivery {
  instanceId: string;
  instance: IssuedLink['instance'];
  candidate: { id: string; email: string; firstName: string; lastName: string };
  linkId: string;
  link: string;
  expiresAt: Date;
  assessments: { name: string; durationMinutes: number }[];
  /** A reminder of assessments not started yet (its subject and first lines say so). */
  reminder?: boolean;
}

/**
 * The e-mail's language: that of the link's invitations (the first with a catalogue, in the
 * link's order), else the instance's default; and the instance's time zone for its deadline.
 */
async function mailLocale(db: Queryable, instanceId: string, linkId: string) {
  const { rows } = await db.query<{ defaultLanguage: string; languages: string[]; timeZone: string }>(
    `SELECT n.default_language AS "defaultLanguage", n.time_zone AS "timeZone",
            ARRAY(SELECT i.language FROM invite_links l JOIN invitations i ON i.candidate_id = l.candidate_id AND i.assessment_id = ANY(l.assessment_ids)
                   WHERE l.id = $2 AND i.language IS NOT NULL ORDER BY array_position(l.assessment_ids, i.assessment_id)) AS languages
       FROM instances n WHERE n.id = $1`,
    [instanceId, linkId],
  );
  return { lang: chooseLanguage(...(rows[0]?.languages ?? []), rows[0]?.defaultLanguage), timeZone: rows[0]?.timeZone ?? 'UTC' };
}

/** Renders and sends the invitation e-mail, and records the outcome; never throws. */
export async function deliver(deps: LinkDeps, d: Delivery): Promise<'SENT' | 'FAILED'> {
  const started = monotonicMs();
  let outcome;
  try {
    const { lang, timeZone } = await mailLocale(deps.db, d.instanceId, d.linkId);
    const templates = await loadTemplates(deps.templatesDir ? path.join(deps.templatesDir, d.instance.name) : undefined, lang);
    const brand = brandOf(d.instance);
    const message = renderInvitationWith(templates, {
      lang,
      timeZone,
      brand,
      reminder: d.reminder,
      to: { name: `${d.candidate.firstName} ${d.candidate.lastName}`, address: d.candidate.email },
      firstName: d.candidate.firstName,
      lastName: d.candidate.lastName,
      instance: d.instance.name,
      assessments: d.assessments,
      link: d.link,
      expiresAt: d.expiresAt,
    });
    // The sender is the company (brandOf), at the instance's address or else the service's.
    const from = { name: brand.senderName, address: d.instance.mailFromAddress ?? addressOf(deps.mailFrom) };
    outcome = await deps.mailer.send(from, message);
  } catch (error) {
    outcome = { status: 'FAILED' as const, detail: `could not prepare the message: ${(error as Error).message}` };
  }
  try {
    // The delivery and its event (invitation.email.sent or .failed, one per invitation the link
    // opens) commit together.
    await runCommand(
      deps.db,
      systemRequest('mail', now(deps)),
      async ({ tx }) => {
        await tx.query(
          `INSERT INTO deliveries (instance_id, candidate_id, invite_link_id, recipient, status, message_id, response, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            d.instanceId,
            d.candidate.id,
            d.linkId,
            d.candidate.email,
            outcome.status,
            outcome.messageId ?? null,
            outcome.detail.slice(0, 1000),
            Math.round(monotonicMs() - started),
          ],
        );
        const { rows } = await tx.query<{ id: string }>(
          `SELECT i.id FROM invitations i JOIN invite_links l ON l.candidate_id = i.candidate_id AND i.assessment_id = ANY(l.assessment_ids) WHERE l.id = $1`,
          [d.linkId],
        );
        await emitInvitationEvents(
          tx,
          outcome.status === 'SENT' ? 'invitation.email.sent' : 'invitation.email.failed',
          rows.map((r) => String(r.id)),
          now(deps),
        );
      },
      'delivery_record',
    );
  } catch (error) {
    deps.log?.error({ err: error, status: outcome.status }, 'could not record an e-mail delivery');
  }
  return outcome.status;
}

/** The address of a sender written "Name <address>" or bare. */
export function addressOf(sender: string): string {
  return /<([^<>\s]+)>\s*$/.exec(sender)?.[1] ?? sender.trim();
}

/**
 * Sends the invitation of an earlier delivery again, with a fresh link for the same assessments
 * (the old link's token was never stored, only its hash). Returns the id of the new delivery.
 */
/**
 * Sends an invitation e-mail again with a fresh link (links are kept only as hashes): the link is
 * issued and the resend audited in one transaction, the e-mail sent after it. Answers with the
 * new delivery's id.
 */
export async function resend(deps: LinkDeps, instance: { id: string; name: string }, deliveryId: string, request: CommandRequest): Promise<string> {
  const instanceId = instance.id;
  const prepared = await runCommand(
    deps.db,
    request,
    async (ctx) => {
      const tx = ctx.tx;
      const { rows } = await tx.query<{ candidateId: string; email: string; firstName: string; lastName: string; assessmentIds: string[] }>(
        `SELECT c.id AS "candidateId", c.email, c.first_name AS "firstName", c.last_name AS "lastName", l.assessment_ids::text[] AS "assessmentIds"
         FROM deliveries d JOIN invite_links l ON l.id = d.invite_link_id JOIN candidates c ON c.id = d.candidate_id
        WHERE d.id = $1 AND d.instance_id = $2`,
        [deliveryId, instanceId],
      );
      const found = rows[0];
      if (!found) throw notFound(`No delivery ${deliveryId} in this instance`);
      const assessments = await tx.query<{ name: string; durationMinutes: number }>(
        `SELECT name, duration_minutes AS "durationMinutes" FROM assessments WHERE id = ANY($1::uuid[]) ORDER BY array_position($1::uuid[], id)`,
        [found.assessmentIds],
      );
      const issued = await issueLink(tx, deps, instanceId, found.candidateId, found.assessmentIds, ctx.now);
      await audit(ctx, 'delivery.resend', `${instance.name}/${deliveryId}`);
      return { found, assessments: assessments.rows, issued };
    },
    'delivery_resend',
  );
  await deliver(deps, {
    instanceId,
    instance: prepared.issued.instance,
    candidate: { id: prepared.found.candidateId, email: prepared.found.email, firstName: prepared.found.firstName, lastName: prepared.found.lastName },
    linkId: prepared.issued.linkId,
    link: prepared.issued.link,
    expiresAt: prepared.issued.expiresAt,
    assessments: prepared.assessments,
  });
  const { rows } = await deps.db.query<{ id: string }>('SELECT id FROM deliveries WHERE invite_link_id = $1 ORDER BY id DESC LIMIT 1', [prepared.issued.linkId]);
  return rows[0]?.id ?? '';
}

const RETRYABLE = new Set(['40P01', '40001']);

/** Retries a transaction that lost a deadlock or serialisation race; each try is all-or-nothing. */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    }
  }
}
