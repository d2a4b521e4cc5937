// The commands behind the adapters of applicant-tracking systems: an ATS starts an assessment for
// a candidate (the invite command of /v1/invite, plus the link that remembers the ATS's request),
// withdraws it (the cancel command of /v1), and an owner or the operator sets the instance's key
// at the ATS. The adapters (src/partners/) only translate the ATS's shapes to these.
import { runCommand, type CommandContext, type CommandRequest } from '../../domain/command.js';
import { conflict, invalidInput, notFound } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { cancelInvitation } from '../invitations/lifecycle.js';
import { emailInvite } from '../invitations/invitation-mail.js';
import { retryOnConflict } from '../invitations/retry.js';
import type { InviteDeps, InviteRequest, PreparedInvite } from '../invitations/deps.js';
import { parseInviteInput } from '../invitations/invite-input.js';
import { inviteCandidate } from '../invitations/service.js';
import { rideWithEvents } from '../webhooks/repository.js';
import {
  CALLBACKS_OF_EVENTS,
  findLink,
  insertLink,
  linkedInvitation,
  lockRequestKey,
  partnerSettings,
  requeueCallback,
  savePartnerSettings,
  type Partner,
  type PartnerLink,
  type SettingsChange,
} from './repository.js';

// Every event of an invitation an ATS started may owe it a callback (see CALLBACKS_OF_EVENTS).
rideWithEvents(CALLBACKS_OF_EVENTS);

export interface StartInput {
  instanceId: string;
  partner: Partner;
  /** What makes the same request again find the same link (the ATS's own ids of it). */
  requestKey: string;
  /** An assessment id (slug) of the instance. */
  assessment: string;
  candidate: { email: string; firstName: string; lastName: string };
  /** Where the ATS wants to be told of progress, when it gives one address per request. */
  callbackUrl: string | null;
  /** The ATS's identifiers and what it sent about the candidate, kept as sent. */
  external: Record<string, unknown>;
  /** The events the ATS is called back for. */
  events: string[];
  /** A repeated request: answer the link it made (Greenhouse), or refuse it as a conflict (Ashby). */
  repeated: 'same' | 'conflict';
}

export interface Started {
  link: PartnerLink;
  /** The invite this request made; undefined when it repeated an earlier one. */
  invite?: PreparedInvite;
}

/**
 * Starts an assessment for a candidate at an ATS's request: the invite command (one candidate per
 * e-mail, the same rules as /v1/invite) and a link that remembers the request, in one transaction.
 * The same request again finds the link it made (or is refused: `repeated`).
 */
export async function startPartnerAssessment(ctx: CommandContext, deps: Omit<InviteDeps, 'attempts'>, input: StartInput): Promise<Started> {
  await lockRequestKey(ctx.tx, input.instanceId, input.partner, input.requestKey);
  const existing = await findLink(ctx.tx, input.instanceId, input.partner, input.requestKey);
  if (existing) {
    if (input.repeated === 'conflict') throw conflict(`This assessment was already started for this request (${existing.publicId})`);
    return { link: existing };
  }
  // The invite's own parser: an adapter's schema speaks the ATS's words, the invite's rules are one.
  const parsed = parseInviteInput({ ...input.candidate, assessments: [input.assessment] });
  if (!parsed.ok)
    throw invalidInput(parsed.errors.map((e) => ({ in: 'body', name: e.field.startsWith('assessments') ? 'assessment' : `candidate.${e.field}`, detail: e.message })));
  const request: InviteRequest = parsed.value;
  const invite = await inviteCandidate(ctx, deps, { instanceId: input.instanceId, request, source: input.partner });
  const { rows } = await ctx.tx.query<{ id: string }>(
    `SELECT i.id::text AS id FROM invitations i JOIN assessments a ON a.id = i.assessment_id WHERE i.candidate_id = $1 AND a.instance_id = $2 AND a.slug = $3`,
    [invite.candidateId, input.instanceId, input.assessment],
  );
  const link = await insertLink(ctx.tx, {
    instanceId: input.instanceId,
    invitationId: rows[0]!.id,
    partner: input.partner,
    requestKey: input.requestKey,
    callbackUrl: input.callbackUrl,
    external: input.external,
    events: input.events,
    now: ctx.now,
  });
  await audit(ctx, `partner.${input.partner}.start`, link.publicId);
  return { link, invite };
}

/**
 * startPartnerAssessment in its own transaction (retried on a deadlock), then the invitation
 * e-mail when the instance lets the service reach the candidate (and the request was new).
 */
export async function startFromPartner(deps: Omit<InviteDeps, 'attempts'>, req: CommandRequest, input: StartInput): Promise<Started & { emailed?: 'SENT' | 'FAILED' }> {
  const started = await retryOnConflict(() => runCommand(deps.db, req, (ctx) => startPartnerAssessment(ctx, deps, input), `partner-${input.partner}-start`));
  if (!started.invite || started.invite.open.length === 0) return started;
  const settings = await partnerSettings(deps.db, input.instanceId, input.partner);
  if (!settings.sendEmail) return started;
  return { ...started, emailed: await emailInvite(deps, input.instanceId, started.invite, { ...input.candidate, assessments: [input.assessment] }) };
}

/** Withdraws the invitation behind an ATS's link: the cancel command of /v1 (a completed one cannot be withdrawn). */
export async function cancelPartnerAssessment(
  ctx: CommandContext,
  deps: Pick<InviteDeps, 'attempts'>,
  input: { instanceId: string; partner: Partner } & ({ publicId: string } | { requestKey: string }),
): Promise<void> {
  // An ATS that names its own order (SmartRecruiters' order id) finds the link by the request it made.
  const publicId = 'publicId' in input ? input.publicId : (await findLink(ctx.tx, input.instanceId, input.partner, input.requestKey))?.publicId;
  const linked = publicId === undefined ? undefined : await linkedInvitation(ctx.tx, input.instanceId, input.partner, publicId, ctx.now);
  if (!linked) throw notFound(`No assessment ${'publicId' in input ? input.publicId : input.requestKey} was started by ${input.partner} for this instance`);
  await cancelInvitation(ctx, deps, { instanceIds: [input.instanceId], candidateId: linked.candidateId, assessmentId: linked.assessmentSlug });
}

const MAX_KEY = 500;
const MAX_OPTION = 200;
const NAME = /^[a-z][A-Za-z]{0,39}$/;

/** What an owner or the operator sees of an instance's settings at an ATS (never a secret, only its last four characters). */
export interface SettingsSummary {
  keyHint: string | null;
  sendEmail: boolean;
  /** The last four characters of each secret set (absent when none is). */
  secretHints?: Record<string, string>;
  /** The settings that are no secret (absent when none is set). */
  options?: Record<string, string>;
}

/** The summary of opened settings: the hints and options only when there are some (Greenhouse's and Ashby's stay as they were). */
export const summaryOf = (saved: { keyHint: string | null; sendEmail: boolean; secretHints: Record<string, string>; options: Record<string, string> }): SettingsSummary => ({
  keyHint: saved.keyHint,
  sendEmail: saved.sendEmail,
  ...(Object.keys(saved.secretHints).length > 0 ? { secretHints: saved.secretHints } : {}),
  ...(Object.keys(saved.options).length > 0 ? { options: saved.options } : {}),
});

/** The problems of named values: names a word of letters, values printable (secrets without spaces), null to remove. */
function namedProblems(field: 'secrets' | 'options', values: Record<string, string | null> | undefined): { in: 'body'; name: string; detail: string }[] {
  const problems: { in: 'body'; name: string; detail: string }[] = [];
  const max = field === 'secrets' ? MAX_KEY : MAX_OPTION;
  for (const [name, value] of Object.entries(values ?? {})) {
    if (!NAME.test(name)) problems.push({ in: 'body', name: `${field}.${name.slice(0, 40)}`, detail: 'must be a name of letters, starting with a lower-case one' });
    else if (value !== null && (value.trim() !== value || value.length === 0 || value.length > max || (field === 'secrets' ? /[\s\p{Cc}]/u : /\p{Cc}/u).test(value)))
      problems.push({ in: 'body', name: `${field}.${name}`, detail: `must be 1-${max} printable characters${field === 'secrets' ? ' without spaces' : ''}` });
  }
  return problems;
}

/** Sets or removes (null) the instance's API key, secrets and settings at an ATS, and/or whether the service e-mails candidates the ATS sends. */
export async function configurePartner(ctx: CommandContext, input: { instanceId: string; partner: Partner } & SettingsChange): Promise<SettingsSummary> {
  if (typeof input.apiKey === 'string') {
    const key = input.apiKey.trim();
    if (key.length === 0 || key.length > MAX_KEY || /[\s\p{Cc}]/u.test(key)) {
      throw invalidInput([{ in: 'body', name: 'apiKey', detail: `must be 1-${MAX_KEY} printable characters without spaces` }]);
    }
    input = { ...input, apiKey: key };
  }
  const trimmed = (values?: Record<string, string | null>) =>
    values && Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? value.trim() : null]));
  input = { ...input, secrets: trimmed(input.secrets), options: trimmed(input.options) };
  const problems = [...namedProblems('secrets', input.secrets), ...namedProblems('options', input.options)];
  if (problems.length > 0) throw invalidInput(problems);
  const { apiKey, sendEmail, secrets, options } = input;
  await savePartnerSettings(ctx.tx, input.instanceId, input.partner, { apiKey, sendEmail, secrets, options }, ctx.now);
  const what = [
    apiKey === undefined ? undefined : apiKey === null ? 'key removed' : 'key set',
    secrets && Object.keys(secrets).length > 0 ? `secrets ${Object.keys(secrets).join(', ')}` : undefined,
    options && Object.keys(options).length > 0 ? `options ${Object.keys(options).join(', ')}` : undefined,
  ].filter(Boolean);
  await audit(ctx, `partner.${input.partner}.configure`, what.length > 0 ? what.join('; ') : 'settings');
  return summaryOf(await partnerSettings(ctx.tx, input.instanceId, input.partner));
}

/** Sends a callback to an ATS again, with a fresh schedule of retries. */
export async function retryPartnerCallback(ctx: CommandContext, input: { instanceId: string; callbackId: string }): Promise<void> {
  if (!(await requeueCallback(ctx.tx, input.instanceId, input.callbackId, ctx.now))) throw notFound(`No callback ${input.callbackId} in this instance`);
  await audit(ctx, 'partner.callback.retry', input.callbackId);
}
