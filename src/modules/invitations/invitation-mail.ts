// Invitation e-mails: rendered in the candidate's language with the instance's branding, handed
// to the mailer after the invite's commit, and recorded (the delivery and its event, in a command
// of their own); sending one again with a fresh link (`resend`).
import path from 'node:path';
import type { Queryable } from '../../db/database.js';
import { monotonicMs } from '../../domain/clock.js';
import { runCommand, systemRequest, type CommandRequest } from '../../domain/command.js';
import { notFound } from '../../domain/errors.js';
import { chooseLanguage } from '../../i18n/i18n.js';
import { audit } from '../audit/audit.js';
import { loadTemplates, renderInvitationWith } from '../mail/invitation-message.js';
import { brandOf } from '../tenants/branding.js';
import { emitInvitationEvents } from '../webhooks/events.js';
import type { InviteRequest, LinkDeps, PreparedInvite } from './deps.js';
import { issueLink, type IssuedLink } from './links.js';

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
      systemRequest('mail', deps.now()),
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
          deps.now(),
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
