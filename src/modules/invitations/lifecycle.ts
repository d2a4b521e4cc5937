// The life of one invitation (a candidate and an assessment) after it is made: what a client
// reads of it, withdrawing it, extending it, reminding the candidate, and its expiry.
//
// | state       | re-invite            | cancel                      | extend        | remind             | expiry job          |
// |-------------|----------------------|-----------------------------|---------------|--------------------|---------------------|
// | INVITED     | fresh link, renewed  | CANCELLED                   | new expiresAt | fresh link, e-mail | EXPIRED at expiresAt|
// | EXPIRED     | INVITED again        | CANCELLED                   | INVITED again | 409 (extend first) | -                   |
// | IN_PROGRESS | nothing changes      | CANCELLED, attempt closed   | 409           | fresh link, e-mail | - (its own deadline)|
// | COMPLETED   | nothing changes      | 409                         | 409           | 409                | -                   |
// | CANCELLED   | INVITED again*       | nothing (idempotent)        | 409           | 409                | -                   |
// (*) only if it was not started; a withdrawn attempt stays closed.
import type { Database, Queryable } from '../../db/database.js';
import { conflict, invalidInput, notFound } from '../../domain/errors.js';
import type { Job } from '../../jobs/runner.js';
import { closeWithdrawn, supersedeAttempt } from '../attempts/repository.js';
import { reportLinks } from '../reports/links.js';
import { emitInvitationEvents } from '../webhooks/events.js';
import { LIMIT_MINUTES, resetForRetake } from './record.js';
import { deliver, issueLink, type InviteDeps } from './service.js';

export type InvitationState = 'INVITED' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED' | 'EXPIRED';

export interface InvitationView {
  assessmentId: string;
  assessmentName: string;
  status: InvitationState;
  invitedAt: Date;
  expiresAt: Date;
  cancelledAt: Date | null;
  reportUrl: string;
}

export interface CandidateView {
  candidateId: string;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  invitations: InvitationView[];
}

const STATE = `CASE WHEN i.cancelled_at IS NOT NULL THEN 'CANCELLED'
                    WHEN i.assessment_status = 'INVITED' AND i.expires_at <= $3 THEN 'EXPIRED'
                    ELSE i.assessment_status END`;

/** A candidate of the given instances with each invitation's state; undefined for anyone else. */
export async function candidateView(db: Queryable, instanceIds: string[], candidateId: string, now: Date, publicUrl: string): Promise<CandidateView | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(candidateId)) return undefined;
  const { rows } = await db.query<{ email: string | null; firstName: string | null; lastName: string | null; instanceId: string; reportDays: number; invitations: (Omit<InvitationView, 'reportUrl'> & { invitedAt: string; expiresAt: string; cancelledAt: string | null })[] }>(
    `SELECT c.email, c.first_name AS "firstName", c.last_name AS "lastName", n.id AS "instanceId", n.report_link_days AS "reportDays",
            COALESCE((SELECT jsonb_agg(jsonb_build_object('assessmentId', a.slug, 'assessmentName', a.name, 'status', ${STATE},
                                                          'invitedAt', i.created_at, 'expiresAt', i.expires_at, 'cancelledAt', i.cancelled_at) ORDER BY i.created_at, a.slug)
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
    invitations: row.invitations.map((i) => ({
      ...i,
      invitedAt: new Date(i.invitedAt),
      expiresAt: new Date(i.expiresAt),
      cancelledAt: i.cancelledAt ? new Date(i.cancelledAt) : null,
      reportUrl: links.get(i.assessmentId)!,
    })),
  };
}

interface Locked {
  id: string;
  instanceId: string;
  candidateId: string;
  assessmentUuid: string;
  state: InvitationState;
}

/** The invitation of a candidate and assessment (by the id clients use), locked for a change. */
async function lock(tx: Queryable, instanceIds: string[], candidateId: string, assessmentId: string, now: Date): Promise<Locked> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(candidateId) || !/^[a-z][a-z0-9-]{0,63}$/.test(assessmentId)) {
    throw notFound('No such invitation');
  }
  const { rows } = await tx.query<Locked>(
    `SELECT i.id, i.instance_id AS "instanceId", i.candidate_id AS "candidateId", i.assessment_id AS "assessmentUuid", ${STATE} AS state
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id
      WHERE i.candidate_id = $1 AND i.instance_id = ANY($2::uuid[]) AND a.slug = $4
      FOR UPDATE OF i`,
    [candidateId, instanceIds, now, assessmentId],
  );
  if (!rows[0]) throw notFound('No such invitation: the candidate is not invited to this assessment in your instances');
  return { ...rows[0], id: String(rows[0].id) };
}

/** Withdraws an invitation: its link no longer opens it, an attempt in progress is closed unscored. Idempotent. */
export async function cancelInvitation(db: Database, instanceIds: string[], candidateId: string, assessmentId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const inv = await lock(tx, instanceIds, candidateId, assessmentId, now);
    if (inv.state === 'CANCELLED') return;
    if (inv.state === 'COMPLETED') throw conflict('This assessment is completed: its result stands and cannot be withdrawn');
    await tx.query('UPDATE invitations SET cancelled_at = $2 WHERE id = $1', [inv.id, now]);
    await closeWithdrawn(tx, inv.id);
    await emitInvitationEvents(tx, 'invitation.cancelled', [inv.id], now);
  });
}

/** Moves the time until which an invitation may be started (and its links' expiry with it). */
export async function extendInvitation(db: Database, instanceIds: string[], candidateId: string, assessmentId: string, until: Date, now: Date): Promise<void> {
  if (until.getTime() <= now.getTime()) throw invalidInput([{ in: 'body', name: 'expiresAt', detail: 'must be in the future' }]);
  if (until.getTime() > now.getTime() + 366 * 86_400_000) throw invalidInput([{ in: 'body', name: 'expiresAt', detail: 'must be within a year' }]);
  await db.transaction(async (tx) => {
    const inv = await lock(tx, instanceIds, candidateId, assessmentId, now);
    if (inv.state !== 'INVITED' && inv.state !== 'EXPIRED') throw conflict(`An invitation that is ${inv.state.toLowerCase().replace('_', ' ')} cannot be extended`);
    await tx.query('UPDATE invitations SET expires_at = $2, expired_at = NULL WHERE id = $1', [inv.id, until]);
    await tx.query(
      `UPDATE invite_links SET expires_at = greatest(expires_at, $3) WHERE candidate_id = $1 AND $2 = ANY(assessment_ids) AND revoked_at IS NULL`,
      [inv.candidateId, inv.assessmentUuid, until],
    );
  });
}

/** Who gets a fresh link to one invitation, and with what time limit (their own). */
async function recipientOf(tx: Queryable, inv: Locked): Promise<{ email: string | null; firstName: string; lastName: string; name: string; durationMinutes: number }> {
  const { rows } = await tx.query<{ email: string | null; firstName: string; lastName: string; name: string; durationMinutes: number }>(
    `SELECT c.email, c.first_name AS "firstName", c.last_name AS "lastName", s.name, ${LIMIT_MINUTES} AS "durationMinutes"
       FROM candidates c, invitations i JOIN assessments s ON s.id = i.assessment_id WHERE c.id = $1 AND i.candidate_id = c.id AND i.assessment_id = $2`,
    [inv.candidateId, inv.assessmentUuid],
  );
  return rows[0]!;
}

/** E-mails a fresh link of one invitation (after commit); SENT or FAILED as the relay answered. */
function sendFreshLink(deps: InviteDeps, p: { inv: Locked; who: { email: string; firstName: string; lastName: string; name: string; durationMinutes: number }; issued: Awaited<ReturnType<typeof issueLink>> }) {
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

/** Sends the candidate a fresh link to this assessment; SENT or FAILED as the relay answered. */
export async function remindInvitation(deps: InviteDeps, instanceIds: string[], candidateId: string, assessmentId: string, now: Date): Promise<'SENT' | 'FAILED'> {
  const prepared = await deps.db.transaction(async (tx) => {
    const inv = await lock(tx, instanceIds, candidateId, assessmentId, now);
    if (inv.state !== 'INVITED' && inv.state !== 'IN_PROGRESS') throw conflict(`An invitation that is ${inv.state.toLowerCase().replace('_', ' ')} gets no reminder${inv.state === 'EXPIRED' ? ': extend it first' : ''}`);
    const who = await recipientOf(tx, inv);
    if (who.email === null) throw conflict("This candidate's data was erased: there is nobody to remind");
    const issued = await issueLink(tx, deps, inv.instanceId, inv.candidateId, [inv.assessmentUuid]);
    return { inv, who: { ...who, email: who.email }, issued };
  });
  return sendFreshLink(deps, prepared);
}

/**
 * Lets a candidate take an assessment again (an operator's decision): the finished attempt stays
 * as history with its answers and the record as it stood, the record starts over as INVITED, and
 * a fresh link is issued (and e-mailed when `email`). Completed assessments, and withdrawn ones
 * that had been started, can be retaken; anything else is 409.
 */
export async function retakeInvitation(
  deps: InviteDeps,
  instanceIds: string[],
  candidateId: string,
  assessmentId: string,
  now: Date,
  email: boolean,
  /** Runs before commit (the console's audit entry). */
  inTransaction?: (tx: Queryable) => Promise<void>,
): Promise<{ link: string; expiresAt: Date; invitationStatus?: 'SENT' | 'FAILED' }> {
  const prepared = await deps.db.transaction(async (tx) => {
    const inv = await lock(tx, instanceIds, candidateId, assessmentId, now);
    if (inv.state !== 'COMPLETED' && inv.state !== 'CANCELLED') {
      throw conflict(`An assessment that is ${inv.state.toLowerCase().replace('_', ' ')} cannot be retaken: only a completed one (or one withdrawn after it was started)`);
    }
    if (!(await supersedeAttempt(tx, inv.id, now))) throw conflict('This assessment was withdrawn before it was started: invite the candidate again to reopen it');
    await resetForRetake(tx, inv.id, now);
    const who = await recipientOf(tx, inv);
    if (who.email === null) throw conflict("This candidate's data was erased: there is nobody to invite");
    const issued = await issueLink(tx, deps, inv.instanceId, inv.candidateId, [inv.assessmentUuid]);
    await tx.query('UPDATE invitations SET expires_at = greatest(expires_at, $2) WHERE id = $1', [inv.id, issued.expiresAt]);
    await inTransaction?.(tx);
    return { inv, who: { ...who, email: who.email }, issued };
  });
  const result: { link: string; expiresAt: Date; invitationStatus?: 'SENT' | 'FAILED' } = { link: prepared.issued.link, expiresAt: prepared.issued.expiresAt };
  if (email) {
    result.invitationStatus = await sendFreshLink(deps, prepared);
  }
  return result;
}

/**
 * Automatic reminders: once per invitation, the instance's `reminder_days` before it expires
 * (null: off), a fresh link by e-mail to each candidate for all of their assessments due then.
 * Invitations made with less time than that get none. Rows are claimed with SKIP LOCKED, so
 * nodes share the work and none is reminded twice; a reminder never races the expiry, which
 * takes only invitations whose time has run out.
 */
export function reminderJob(deps: InviteDeps, everyMs: number, clock: () => Date): Job {
  return {
    name: 'invitation-reminders',
    everyMs,
    async run() {
      const now = clock();
      const due = await deps.db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string; instanceId: string; candidateId: string; assessmentUuid: string; email: string | null; firstName: string; lastName: string; name: string; durationMinutes: number; expiresAt: Date }>(
          `SELECT i.id, i.instance_id AS "instanceId", i.expires_at AS "expiresAt", i.candidate_id AS "candidateId", i.assessment_id AS "assessmentUuid",
                  c.email, c.first_name AS "firstName", c.last_name AS "lastName", s.name, ${LIMIT_MINUTES} AS "durationMinutes"
             FROM invitations i JOIN instances n ON n.id = i.instance_id JOIN candidates c ON c.id = i.candidate_id JOIN assessments s ON s.id = i.assessment_id
            WHERE i.assessment_status = 'INVITED' AND i.cancelled_at IS NULL AND i.expired_at IS NULL AND i.reminded_at IS NULL
              AND i.expires_at > $1 AND i.expires_at <= $1 + make_interval(days => n.reminder_days)
              AND i.created_at <= i.expires_at - make_interval(days => n.reminder_days)
            ORDER BY i.expires_at LIMIT 100 FOR UPDATE OF i SKIP LOCKED`,
          [now],
        );
        if (rows.length === 0) return [];
        await tx.query('UPDATE invitations SET reminded_at = $2 WHERE id = ANY($1::bigint[])', [rows.map((r) => String(r.id)), now]);
        const byCandidate = new Map<string, typeof rows>();
        for (const row of rows) if (row.email !== null) byCandidate.set(row.candidateId, [...(byCandidate.get(row.candidateId) ?? []), row]);
        const deliveries = [];
        for (const group of byCandidate.values()) {
          const first = group[0]!;
          const issued = await issueLink(tx, deps, first.instanceId, first.candidateId, group.map((r) => r.assessmentUuid));
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
      });
      // After commit: each e-mail's outcome is recorded as a delivery (SENT or FAILED), as for invites.
      for (const delivery of due) await deliver(deps, delivery);
      return due.length;
    },
  };
}

/** Announces invitations whose time to start ran out (invitation.expired), each once, whichever node. */
export function expiryJob(db: Database, everyMs: number, clock: () => Date): Job {
  return {
    name: 'invitation-expiry',
    everyMs,
    async run() {
      const now = clock();
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: string }>(
          `SELECT id FROM invitations WHERE assessment_status = 'INVITED' AND cancelled_at IS NULL AND expired_at IS NULL AND expires_at <= $1
            ORDER BY expires_at LIMIT 200 FOR UPDATE SKIP LOCKED`,
          [now],
        );
        if (rows.length === 0) return 0;
        const ids = rows.map((r) => String(r.id));
        await tx.query('UPDATE invitations SET expired_at = $2 WHERE id = ANY($1::bigint[])', [ids, now]);
        await emitInvitationEvents(tx, 'invitation.expired', ids, now);
        return ids.length;
      });
    },
  };
}
