// The life of one invitation (a candidate and an assessment) after it is made: what a client
// reads of it, and the commands that move it (cancel, extend, remind, retake, and the clock's
// reminders and expiry). What each does in each state is decided by the state machine
// (machine.ts); each command locks the invitation's row first, so transitions of one invitation
// are serialised and its events leave in the order they happened.
import type { Database, Queryable } from '../../db/database.js';
import { runCommand, systemRequest, type CommandContext } from '../../domain/command.js';
import { conflict, invalidInput } from '../../domain/errors.js';
import type { Job } from '../../jobs/runner.js';
import { audit } from '../audit/audit.js';
import { reportLinks } from '../reports/links.js';
import { emitInvitationEvents } from '../webhooks/events.js';
import { LIMIT_MINUTES, resetForRetake } from './record.js';
import { allow, decide, lockInvitation, stateSql, type InvitationState, type LockedInvitation } from './machine.js';
import { deliver } from './invitation-mail.js';
import type { InvitationSource, InviteDeps, LinkDeps } from './deps.js';
import { issueLink } from './links.js';
import { isUuid } from '../../domain/ids.js';

export type { InvitationState } from './machine.js';

export interface InvitationView {
  assessmentId: string;
  assessmentName: string;
  status: InvitationState;
  invitedAt: Date;
  expiresAt: Date;
  cancelledAt: Date | null;
  reportUrl: string;
  /** Where it was first made. */
  source: InvitationSource;
  /** The client's own reference, when it gave one. */
  externalReference?: string;
  /** The language the current attempt shows the content in (en, de, es); absent before it starts. */
  contentLanguage?: string;
}

export interface CandidateView {
  candidateId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  invitations: InvitationView[];
}

const STATE = stateSql('$3');

/** A candidate of the given instances with each invitation's state; undefined for anyone else. */
export async function candidateView(db: Queryable, instanceIds: string[], candidateId: string, now: Date, publicUrl: string): Promise<CandidateView | undefined> {
  if (!isUuid(candidateId)) return undefined;
  const { rows } = await db.query<{
    email: string | null;
    firstName: string | null;
    lastName: string | null;
    instanceId: string;
    reportDays: number;
    invitations: (Omit<InvitationView, 'reportUrl' | 'externalReference' | 'contentLanguage'> & {
      invitedAt: string;
      expiresAt: string;
      cancelledAt: string | null;
      externalReference: string | null;
      contentLanguage: string | null;
    })[];
  }>(
    `SELECT c.email, c.first_name AS "firstName", c.last_name AS "lastName", n.id AS "instanceId", n.report_link_days AS "reportDays",
            COALESCE((SELECT jsonb_agg(jsonb_build_object('assessmentId', a.slug, 'assessmentName', a.name, 'status', ${STATE},
                                                          'invitedAt', i.created_at, 'expiresAt', i.expires_at, 'cancelledAt', i.cancelled_at,
                                                          'source', i.source, 'externalReference', i.external_reference,
                                                          'contentLanguage', (SELECT t.content_language FROM attempts t WHERE t.invitation_id = i.id AND t.superseded_at IS NULL))
                                                          ORDER BY i.created_at, a.slug)
                        FROM invitations i JOIN assessments a ON a.id = i.assessment_id WHERE i.candidate_id = c.id), '[]'::jsonb) AS invitations
       FROM candidates c JOIN instances n ON n.id = c.instance_id
      WHERE c.id = $1 AND c.instance_id = ANY($2::uuid[])`,
    [candidateId, instanceIds, now],
  );
  const row = rows[0];
  if (!row) return undefined;
  const links = await reportLinks(db, { instanceId: row.instanceId, days: row.reportDays, candidateId, assessmentIds: row.invitations.map((i) => i.assessmentId) }, now, publicUrl);
  return {
    candidateId,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    invitations: row.invitations.map(({ externalReference, contentLanguage, ...i }) => ({
      ...i,
      ...(externalReference === null ? {} : { externalReference }),
      ...(contentLanguage === null ? {} : { contentLanguage }),
      invitedAt: new Date(i.invitedAt),
      expiresAt: new Date(i.expiresAt),
      cancelledAt: i.cancelledAt ? new Date(i.cancelledAt) : null,
      reportUrl: links.get(i.assessmentId)!,
    })),
  };
}

/** Which invitation a client or operator names: a candidate and an assessment id, within instances. */
export interface InvitationRef {
  instanceIds: string[];
  candidateId: string;
  assessmentId: string;
}

const locate = (ctx: CommandContext, ref: InvitationRef) => lockInvitation(ctx.tx, ref.instanceIds, ref.candidateId, ref.assessmentId, ctx.now);
const targetOf = (ref: InvitationRef) => `${ref.candidateId}/${ref.assessmentId}`;

/** Withdraws an invitation: its link no longer opens it, an attempt in progress is closed unscored. Idempotent. */
export async function cancelInvitation(ctx: CommandContext, deps: Pick<InviteDeps, 'attempts'>, ref: InvitationRef): Promise<void> {
  const inv = await locate(ctx, ref);
  if ('same' in allow(inv.state, 'cancel', inv.facts)) return;
  await ctx.tx.query('UPDATE invitations SET cancelled_at = $2 WHERE id = $1', [inv.id, ctx.now]);
  await deps.attempts.closeWithdrawn(ctx.tx, inv.id, ctx.now);
  await emitInvitationEvents(ctx.tx, 'invitation.cancelled', [inv.id], ctx.now);
  await audit(ctx, 'invitation.cancel', targetOf(ref));
}

/**
 * Moves the time until which an invitation may be started (and its links' expiry with it). It
 * never moves it earlier: an invitation that may already be started later than `until` keeps
 * its time.
 */
export async function extendInvitation(ctx: CommandContext, ref: InvitationRef & { until: Date }): Promise<void> {
  if (ref.until.getTime() <= ctx.now.getTime()) throw invalidInput([{ in: 'body', name: 'expiresAt', detail: 'must be in the future' }]);
  if (ref.until.getTime() > ctx.now.getTime() + 366 * 86_400_000) throw invalidInput([{ in: 'body', name: 'expiresAt', detail: 'must be within a year' }]);
  const inv = await locate(ctx, ref);
  allow(inv.state, 'extend', inv.facts);
  await ctx.tx.query('UPDATE invitations SET expires_at = greatest(expires_at, $2), expired_at = NULL WHERE id = $1', [inv.id, ref.until]);
  await ctx.tx.query(`UPDATE invite_links SET expires_at = greatest(expires_at, $3) WHERE candidate_id = $1 AND $2 = ANY(assessment_ids) AND revoked_at IS NULL`, [
    inv.candidateId,
    inv.assessmentUuid,
    ref.until,
  ]);
  await audit(ctx, 'invitation.extend', targetOf(ref));
}

/** Who gets a fresh link to one invitation, and with what time limit (their own). */
async function recipientOf(tx: Queryable, inv: LockedInvitation): Promise<{ email: string | null; firstName: string; lastName: string; name: string; durationMinutes: number }> {
  const { rows } = await tx.query<{ email: string | null; firstName: string; lastName: string; name: string; durationMinutes: number }>(
    `SELECT c.email, c.first_name AS "firstName", c.last_name AS "lastName", s.name, ${LIMIT_MINUTES} AS "durationMinutes"
       FROM candidates c, invitations i JOIN assessments s ON s.id = i.assessment_id WHERE c.id = $1 AND i.candidate_id = c.id AND i.assessment_id = $2`,
    [inv.candidateId, inv.assessmentUuid],
  );
  return rows[0]!;
}

/** A fresh link of one invitation, ready to be e-mailed after commit (sendFreshLink). */
export interface FreshLink {
  inv: LockedInvitation;
  who: { email: string; firstName: string; lastName: string; name: string; durationMinutes: number };
  issued: Awaited<ReturnType<typeof issueLink>>;
}

/** E-mails a fresh link of one invitation (after commit); SENT or FAILED as the relay answered. */
export function sendFreshLink(deps: LinkDeps, p: FreshLink) {
  return deliver(deps, {
    instanceId: p.inv.instanceId,
    instance: p.issued.instance,
    candidate: { id: p.inv.candidateId, email: p.who.email, firstName: p.who.firstName, lastName: p.who.lastName },
    linkId: p.issued.linkId,
    link: p.issued.link,
    expiresAt: p.issued.expiresAt,
    assessments: [{ name: p.who.name, durationMinutes: p.who.durationMinutes }],
  });
}

/**
 * Issues the candidate a fresh link to this assessment, to be e-mailed after commit
 * (sendFreshLink): a reminder.
 */
export async function remindInvitation(ctx: CommandContext, deps: LinkDeps, ref: InvitationRef): Promise<FreshLink> {
  const inv = await locate(ctx, ref);
  allow(inv.state, 'remind', inv.facts);
  const who = await recipientOf(ctx.tx, inv);
  if (who.email === null) throw conflict("This candidate's data was erased: there is nobody to remind");
  const issued = await issueLink(ctx.tx, deps, inv.instanceId, inv.candidateId, [inv.assessmentUuid], ctx.now);
  await audit(ctx, 'invitation.remind', targetOf(ref));
  return { inv, who: { ...who, email: who.email }, issued };
}

/**
 * Lets a candidate take an assessment again (an operator's decision): the finished attempt stays
 * as history with its answers and the record as it stood, the record starts over as INVITED, and
 * a fresh link is issued (to be e-mailed after commit with sendFreshLink). Completed assessments,
 * and withdrawn ones that had been started, can be retaken; anything else is 409.
 */
export async function retakeInvitation(ctx: CommandContext, deps: InviteDeps, ref: InvitationRef): Promise<FreshLink> {
  const inv = await locate(ctx, ref);
  allow(inv.state, 'retake', inv.facts);
  if (!(await deps.attempts.supersede(ctx.tx, inv.id, ctx.now))) throw conflict('This assessment was withdrawn before it was started: invite the candidate again to reopen it');
  await resetForRetake(ctx.tx, inv.id, ctx.now);
  const who = await recipientOf(ctx.tx, inv);
  if (who.email === null) throw conflict("This candidate's data was erased: there is nobody to invite");
  const issued = await issueLink(ctx.tx, deps, inv.instanceId, inv.candidateId, [inv.assessmentUuid], ctx.now);
  await ctx.tx.query('UPDATE invitations SET expires_at = greatest(expires_at, $2) WHERE id = $1', [inv.id, issued.expiresAt]);
  await audit(ctx, 'invitation.retake', targetOf(ref));
  return { inv, who: { ...who, email: who.email }, issued };
}

/**
 * Automatic reminders: once per invitation, the instance's `reminder_days` before it expires
 * (null: off), a fresh link by e-mail to each candidate for all of their assessments due then.
 * Invitations made with less time than that get none. Rows are claimed with SKIP LOCKED, so
 * nodes share the work and none is reminded twice; a reminder never races the expiry, which
 * takes only invitations whose time has run out.
 */
/** Invitations a reminder run claims at most; a full batch has the next run come at once. */
const REMINDER_BATCH = 100;
const EXPIRY_BATCH = 200;

export function reminderJob(deps: LinkDeps, everyMs: number, clock: () => Date): Job {
  let backlog = false;
  return {
    name: 'invitation-reminders',
    everyMs,
    // A full batch leaves more due: the next run comes at once rather than a minute later.
    soonerMs: () => (backlog ? 0 : undefined),
    async run() {
      const now = clock();
      backlog = false;
      const due = await runCommand(
        deps.db,
        systemRequest('invitation-reminders', now),
        async ({ tx }) => {
          const { rows } = await tx.query<{
            id: string;
            instanceId: string;
            candidateId: string;
            assessmentUuid: string;
            email: string | null;
            firstName: string;
            lastName: string;
            name: string;
            durationMinutes: number;
            expiresAt: Date;
          }>(
            `SELECT i.id, i.instance_id AS "instanceId", i.expires_at AS "expiresAt", i.candidate_id AS "candidateId", i.assessment_id AS "assessmentUuid",
                  c.email, c.first_name AS "firstName", c.last_name AS "lastName", s.name, ${LIMIT_MINUTES} AS "durationMinutes"
             FROM invitations i JOIN instances n ON n.id = i.instance_id JOIN candidates c ON c.id = i.candidate_id JOIN assessments s ON s.id = i.assessment_id
            WHERE i.assessment_status = 'INVITED' AND i.cancelled_at IS NULL AND i.expired_at IS NULL AND i.reminded_at IS NULL
              AND i.expires_at > $1 AND i.expires_at <= $1 + make_interval(days => n.reminder_days)
              AND i.created_at <= i.expires_at - make_interval(days => n.reminder_days)
            ORDER BY i.expires_at LIMIT ${REMINDER_BATCH} FOR UPDATE OF i SKIP LOCKED`,
            [now],
          );
          backlog = rows.length === REMINDER_BATCH;
          if (rows.length === 0) return [];
          await tx.query('UPDATE invitations SET reminded_at = $2 WHERE id = ANY($1::bigint[])', [rows.map((r) => String(r.id)), now]);
          const byCandidate = new Map<string, typeof rows>();
          for (const row of rows) if (row.email !== null) byCandidate.set(row.candidateId, [...(byCandidate.get(row.candidateId) ?? []), row]);
          const deliveries = [];
          for (const group of byCandidate.values()) {
            const first = group[0]!;
            const issued = await issueLink(
              tx,
              deps,
              first.instanceId,
              first.candidateId,
              group.map((r) => r.assessmentUuid),
              now,
            );
            deliveries.push({
              instanceId: first.instanceId,
              instance: issued.instance,
              candidate: { id: first.candidateId, email: first.email!, firstName: first.firstName, lastName: first.lastName },
              linkId: issued.linkId,
              link: issued.link,
              // The e-mail names when the assessments must be started by, which is what is near.
              expiresAt: new Date(Math.min(...group.map((r) => new Date(r.expiresAt).getTime()))),
              reminder: true,
              assessments: group.map((r) => ({ name: r.name, durationMinutes: r.durationMinutes })),
            });
          }
          return deliveries;
        },
        'invitation_reminders',
      );
      // After commit: each e-mail's outcome is recorded as a delivery (SENT or FAILED), as for invites.
      for (const delivery of due) await deliver(deps, delivery);
      return due.length;
    },
  };
}

/**
 * The clock's transition: invitations whose time to start ran out become EXPIRED, each announced
 * (invitation.expired) once, whichever node takes it. Rows are claimed with SKIP LOCKED, so a
 * command holding one (an extend) is not waited for: it is decided after that command, by the
 * state it leaves.
 */
export async function expireDue(ctx: CommandContext, limit = EXPIRY_BATCH): Promise<number> {
  // Those whose time ran out and that were not announced yet, by their stored state (the state
  // derived from the time would already say EXPIRED); the machine decides what the clock does to each.
  const { rows } = await ctx.tx.query<{ id: string; state: InvitationState }>(
    `SELECT id, CASE WHEN cancelled_at IS NOT NULL THEN 'CANCELLED' ELSE assessment_status END AS state FROM invitations
      WHERE assessment_status = 'INVITED' AND cancelled_at IS NULL AND expired_at IS NULL AND expires_at <= $1
      ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [ctx.now, limit],
  );
  const expiring = rows.filter((row) => {
    const outcome = decide(row.state, 'expire', { started: false });
    return 'to' in outcome && outcome.to === 'EXPIRED';
  });
  if (expiring.length === 0) return 0;
  const ids = expiring.map((r) => String(r.id));
  await ctx.tx.query('UPDATE invitations SET expired_at = $2 WHERE id = ANY($1::bigint[])', [ids, ctx.now]);
  await emitInvitationEvents(ctx.tx, 'invitation.expired', ids, ctx.now);
  return ids.length;
}

/** Runs expireDue every `everyMs`, and again at once after a full batch (a backlog). */
export function expiryJob(db: Database, everyMs: number, clock: () => Date): Job {
  let backlog = false;
  return {
    name: 'invitation-expiry',
    everyMs,
    soonerMs: () => (backlog ? 0 : undefined),
    async run() {
      const expired = await runCommand(db, systemRequest('invitation-expiry', clock()), (ctx) => expireDue(ctx, EXPIRY_BATCH));
      backlog = expired === EXPIRY_BATCH;
      return expired;
    },
  };
}
