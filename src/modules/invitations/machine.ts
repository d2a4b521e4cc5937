// The life of an invitation as one state machine: its states, the transitions that move it, and
// what each transition does in each state. Every command that changes an invitation locks its row
// first (lockInvitation), asks `decide` and does what the answer says, so that two transitions of
// one invitation at once are serialised by the row lock and end in one of the outcomes below,
// never in a mix of both. The table in docs/integration.md is generated from this one
// (machineTable) and a test keeps the two equal.
//
// Lock order: a transaction that touches an invitation and its attempt locks the invitation
// first, then the attempt. Every path keeps that order, so none can deadlock another.
import type { Queryable } from '../../db/database.js';
import { conflict, notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';

export type InvitationState = 'INVITED' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED' | 'EXPIRED';
export const STATES: readonly InvitationState[] = ['INVITED', 'EXPIRED', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'];

/** Everything that moves an invitation: clients', operators', the candidate's and the clock's. */
export type Transition = 'invite' | 'start' | 'submit' | 'expire' | 'cancel' | 'extend' | 'remind' | 'retake';

/**
 * What the invitation's commands need of its attempt, which the attempts module owns. The app
 * gives it (InviteDeps.attempts), so that this module does not import the attempts module, which
 * reports to the invitation's record (record.ts) and so depends on this one.
 */
export interface AttemptsOfInvitation {
  /** Closes the open attempt of a withdrawn invitation, unscored; nothing when none is open. */
  closeWithdrawn(tx: Queryable, invitationId: string, now: Date): Promise<void>;
  /** Makes the finished attempt history, for a retake; false when there is none. */
  supersede(tx: Queryable, invitationId: string, now: Date): Promise<boolean>;
}

/** What a transition does from a state: move to another state, change nothing, or refuse (409). */
export type Outcome = { to: InvitationState; doc: string } | { same: true; doc: string } | { refuse: string; doc: string };

/** What the state alone does not say: whether the invitation was ever started (matters once withdrawn). */
export interface Facts {
  started: boolean;
}

type Cell = Outcome | ((facts: Facts) => Outcome);

const to = (state: InvitationState, doc = `\`${state}\``): Outcome => ({ to: state, doc });
const same = (doc: string): Outcome => ({ same: true, doc });
const refuse = (reason: string, doc = '`409`'): Outcome => ({ refuse: reason, doc });

/** The table itself: state by transition. */
const MACHINE: Record<InvitationState, Record<Transition, Cell>> = {
  INVITED: {
    invite: same('a fresh link; may be started until it expires'),
    start: to('IN_PROGRESS'),
    submit: refuse('This assessment was not started'),
    expire: to('EXPIRED', '`EXPIRED`, `invitation.expired` sent once'),
    cancel: to('CANCELLED'),
    extend: same('a later `expiresAt` (never earlier)'),
    remind: same('a fresh link by e-mail, `SENT`/`FAILED`'),
    retake: refuse('An assessment that is invited cannot be retaken: only a completed one (or one withdrawn after it was started)'),
  },
  EXPIRED: {
    invite: to('INVITED', '`INVITED` again'),
    start: refuse('This assessment was not started in time'),
    submit: refuse('This assessment was not started'),
    expire: same('nothing changes (announced once)'),
    cancel: to('CANCELLED'),
    extend: to('INVITED', '`INVITED` again'),
    remind: refuse('An invitation that is expired gets no reminder: extend it first', '`409`: extend first'),
    retake: refuse('An assessment that is expired cannot be retaken: only a completed one (or one withdrawn after it was started)'),
  },
  IN_PROGRESS: {
    invite: same('nothing changes (progress kept); a fresh link'),
    start: same('nothing changes (the attempt goes on)'),
    submit: to('COMPLETED', '`COMPLETED`, scored'),
    expire: same('nothing changes (the attempt has its own time limit)'),
    cancel: to('CANCELLED', '`CANCELLED`; the attempt closes unscored (its record stays `IN_PROGRESS`/`PENDING`)'),
    extend: refuse('An invitation that is in progress cannot be extended', '`409` (the attempt has its own time limit)'),
    remind: same('a fresh link by e-mail'),
    retake: refuse('An assessment that is in progress cannot be retaken: only a completed one (or one withdrawn after it was started)'),
  },
  COMPLETED: {
    invite: same('nothing changes: no e-mail, no event; the answer lists it under `skipped`'),
    start: same('nothing changes'),
    submit: same('nothing changes'),
    expire: same('nothing changes'),
    cancel: refuse('This assessment is completed: its result stands and cannot be withdrawn', '`409`: a result stands'),
    extend: refuse('An invitation that is completed cannot be extended'),
    remind: refuse('An invitation that is completed gets no reminder'),
    retake: to('INVITED', '`INVITED` again, a fresh link; the attempt stays in the history; `score.updated`'),
  },
  CANCELLED: {
    invite: (f) => (f.started ? same('nothing changes once it was started (listed under `skipped`)') : to('INVITED', '`INVITED` again')),
    start: refuse('This assessment was withdrawn'),
    submit: same('nothing changes (the attempt was closed)'),
    expire: same('nothing changes'),
    cancel: same('nothing changes (`200`)'),
    extend: refuse('An invitation that is cancelled cannot be extended'),
    remind: refuse('An invitation that is cancelled gets no reminder'),
    retake: (f) =>
      f.started ? to('INVITED', '`INVITED` again, as for `COMPLETED`') : refuse('This assessment was withdrawn before it was started: invite the candidate again to reopen it'),
  },
};

/** What `transition` does to an invitation in `state`. */
export function decide(state: InvitationState, transition: Transition, facts: Facts): Outcome {
  const cell = MACHINE[state][transition];
  return typeof cell === 'function' ? cell(facts) : cell;
}

/** The outcome, or the domain error (409) when the transition is refused there. */
export function allow(state: InvitationState, transition: Transition, facts: Facts): Exclude<Outcome, { refuse: string }> {
  const outcome = decide(state, transition, facts);
  if ('refuse' in outcome) throw conflict(outcome.refuse);
  return outcome;
}

/** The state as clients read it, from the row's columns (SQL over `i`, the invitation, at `$now`). */
export const stateSql = (now: string) => `CASE WHEN i.cancelled_at IS NOT NULL THEN 'CANCELLED'
                    WHEN i.assessment_status = 'INVITED' AND i.expires_at <= ${now} THEN 'EXPIRED'
                    ELSE i.assessment_status END`;

export interface LockedInvitation {
  id: string;
  instanceId: string;
  candidateId: string;
  assessmentUuid: string;
  state: InvitationState;
  facts: Facts;
  expiresAt: Date;
}

const LOCKED = `i.id::text AS id, i.instance_id AS "instanceId", i.candidate_id AS "candidateId", i.assessment_id AS "assessmentUuid",
  ${stateSql('$1')} AS state, i.expires_at AS "expiresAt",
  EXISTS (SELECT 1 FROM attempts a WHERE a.invitation_id = i.id AND a.superseded_at IS NULL) AS started`;

type LockedRow = Omit<LockedInvitation, 'facts'> & { started: boolean };
const locked = (row: LockedRow): LockedInvitation => {
  const { started: wasStarted, ...rest } = row;
  return { ...rest, facts: { started: wasStarted } };
};

/** An invitation by its row id, locked for a transition; undefined when there is none. */
export async function lockInvitationById(tx: Queryable, invitationId: string, now: Date): Promise<LockedInvitation | undefined> {
  const { rows } = await tx.query<LockedRow>(`SELECT ${LOCKED} FROM invitations i WHERE i.id = $2 FOR UPDATE OF i`, [now, invitationId]);
  return rows[0] ? locked(rows[0]) : undefined;
}

/**
 * Locks the invitation of an attempt, the first step of a transaction that changes the attempt and
 * then its invitation (the lock order above). Returns the invitation's row id, or undefined.
 */
export async function lockInvitationOfAttempt(tx: Queryable, attemptId: string): Promise<string | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    'SELECT i.id::text AS id FROM invitations i WHERE i.id = (SELECT a.invitation_id FROM attempts a WHERE a.id = $1) FOR UPDATE OF i',
    [attemptId],
  );
  return rows[0]?.id;
}

const SLUG = /^[a-z][a-z0-9-]{0,63}$/;

/** The invitation of a candidate and assessment (by the id clients use) within the given instances, locked; 404 otherwise. */
export async function lockInvitation(tx: Queryable, instanceIds: string[], candidateId: string, assessmentId: string, now: Date): Promise<LockedInvitation> {
  if (!isUuid(candidateId) || !SLUG.test(assessmentId)) throw notFound('No such invitation');
  const { rows } = await tx.query<LockedRow>(
    `SELECT ${LOCKED} FROM invitations i JOIN assessments s ON s.id = i.assessment_id
      WHERE i.candidate_id = $2 AND i.instance_id = ANY($3::uuid[]) AND s.slug = $4
      FOR UPDATE OF i`,
    [now, candidateId, instanceIds, assessmentId],
  );
  if (!rows[0]) throw notFound('No such invitation: the candidate is not invited to this assessment in your instances');
  return locked(rows[0]);
}

/** The columns of the documented table, in order: the transitions clients and operators ask for. */
const DOCUMENTED: [Transition, string][] = [
  ['invite', 'invite again'],
  ['cancel', 'cancel'],
  ['extend', 'extend'],
  ['remind', 'remind'],
  ['retake', 'retake (operator)'],
  ['start', 'the candidate starts'],
  ['expire', 'when `expiresAt` passes'],
];

const cellDoc = (state: InvitationState, transition: Transition): string => {
  const cell = MACHINE[state][transition];
  if (typeof cell !== 'function') return cell.doc;
  const before = cell({ started: false }).doc;
  const after = cell({ started: true }).doc;
  return before === after ? before : `never started: ${before}; started: ${after}`;
};

const LABEL: Record<InvitationState, string> = {
  INVITED: '`INVITED`',
  EXPIRED: '`EXPIRED` (not started in time)',
  IN_PROGRESS: '`IN_PROGRESS`',
  COMPLETED: '`COMPLETED`',
  CANCELLED: '`CANCELLED`',
};

/** The table of docs/integration.md, made from the machine. */
export function machineTable(): string {
  const head = `| state | ${DOCUMENTED.map(([, name]) => name).join(' | ')} |`;
  const rule = `|${'---|'.repeat(DOCUMENTED.length + 1)}`;
  const rows = STATES.map((state) => `| ${LABEL[state]} | ${DOCUMENTED.map(([t]) => cellDoc(state, t)).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}
