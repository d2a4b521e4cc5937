// Inviting a candidate (the command): resolve the assessments, make or find the candidate, add
// the invitations that are new, and issue a fresh link, all in one transaction; then, when asked,
// the e-mail (invitation-mail.ts) after commit. The invitation stands whatever the mailer says.
import { runCommand, type CommandContext, type CommandRequest } from '../../domain/command.js';
import { invalidInput } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { findAssessmentsBySlug } from '../assessments/repository.js';
import { upsertCandidate } from '../candidates/repository.js';
import { emitInvitationEvents } from '../webhooks/events.js';
import type { InvitationSource, InviteCommandDeps, InviteRequest, InviteResult, LinkDeps, PreparedInvite, SkippedAssessment } from './deps.js';
import { emailInvite } from './invitation-mail.js';
import { issueLink } from './links.js';
import { decide, lockInvitationById } from './machine.js';
import { insertMissingInvitations, invitationIdOf, renewInvitations, setExternalReference } from './repository/invitations.js';
import { retryOnConflict } from './retry.js';

/** The form of an assessment id (the CHECK on assessments.slug). */
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;

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
  deps: Pick<LinkDeps, 'publicUrl'>,
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
  const created = await insertMissingInvitations(tx, { instanceId, candidateId, assessmentIds, at: ctx.now, source: input.source ?? 'api' });
  // Every invitation of the invite, locked (in the same order) and decided by the state machine.
  const states = new Map<string, { id: string; outcome: ReturnType<typeof decide>; state: string }>();
  for (const assessmentId of assessmentIds) {
    const inv = (await lockInvitationById(tx, await invitationIdOf(tx, candidateId, assessmentId), ctx.now))!;
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
    await setExternalReference(
      tx,
      open.map((a) => states.get(a.id)!.id),
      request.externalReference,
    );
  }
  await emitInvitationEvents(tx, 'invitation.created', created, ctx.now);
  const linked = open.length > 0 ? open.map((a) => a.id).sort() : assessmentIds;
  const issued = await issueLink(tx, deps, instanceId, candidateId, linked, ctx.now);
  // Inviting again renews what is not yet started: it may be started until the new link
  // expires, and a withdrawn (never started) or expired invitation is open again. The
  // accommodation and language of this invite apply to what is not yet started.
  const renew = [...states.values()].filter((s) => 'to' in s.outcome || s.state === 'INVITED').map((s) => s.id);
  await renewInvitations(tx, renew, { expiresAt: issued.expiresAt, extraTimePercent: request.extraTimePercent, language: request.language });
  await audit(ctx, 'invitation.create', candidateId);
  return { candidateId, open, skipped, ...issued };
}

/**
 * The invite of /v1/invite and the console: the command (retried on a deadlock), then the e-mail
 * after commit when asked (which needs the mailer and the clock; the command alone does not).
 */
export async function invite(
  deps: InviteCommandDeps,
  instanceId: string,
  request: InviteRequest,
  sendInvite: false,
  req: CommandRequest,
  source?: InvitationSource,
): Promise<InviteResult>;
export async function invite(
  deps: LinkDeps,
  instanceId: string,
  request: InviteRequest,
  sendInvite: boolean,
  req: CommandRequest,
  source?: InvitationSource,
): Promise<InviteResult>;
export async function invite(
  deps: InviteCommandDeps | LinkDeps,
  instanceId: string,
  request: InviteRequest,
  sendInvite: boolean,
  req: CommandRequest,
  source: InvitationSource = 'api',
): Promise<InviteResult> {
  const created = await retryOnConflict(() => runCommand(deps.db, req, (ctx) => inviteCandidate(ctx, deps, { instanceId, request, source }), 'invite'));
  const result: InviteResult = { link: created.link, candidateId: created.candidateId };
  // sendInvite is true only with the mail's dependencies (the overloads above).
  if (sendInvite && created.open.length > 0) result.invitationStatus = await emailInvite(deps as LinkDeps, instanceId, created, request);
  if (created.skipped.length > 0) result.skipped = created.skipped;
  return result;
}
