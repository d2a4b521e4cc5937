// The commands of voluntary self-identification: the candidate's answers after submitting an
// assessment (recordSelfId, from the portal), and an instance's settings (changeSelfIdSettings:
// on or off, and its questions; owners and managers in the console, the operator through the
// admin API). Each checks who asks and every value, writes in the command's transaction and, for
// people and client applications, records its audit entry (never the answers).
import type { CommandContext } from '../../domain/command.js';
import { conflict, forbidden, invalidInput, notFound, type DomainFieldError } from '../../domain/errors.js';
import { audit, actorName } from '../audit/audit.js';
import { PREFER_NOT, checkQuestions, defaultQuestions, type SelfIdQuestion } from './questions.js';
import { invitationOf, replaceSelfId, selfIdSettings, writeSelfIdSettings } from './repository.js';

/**
 * Stores the candidate's answers for one of their invitations, once its assessment is submitted:
 * question id to option id ("prefer-not-to-say" on every question); a question left out or given
 * as "" is not answered. A second submission replaces the first; one with no answer at all removes
 * them. A value the questions do not offer is refused, naming the question, and changes nothing.
 */
export async function recordSelfId(ctx: CommandContext, input: { invitationId: string; answers: Record<string, unknown> }): Promise<Record<string, string>> {
  if (ctx.actor.kind !== 'candidate') throw forbidden('Only the candidate answers these questions, about themselves');
  const invitation = await invitationOf(ctx.tx, input.invitationId);
  if (!invitation || invitation.candidateId !== ctx.actor.id) throw notFound('No such invitation of this candidate');
  const settings = await selfIdSettings(ctx.tx, invitation.instanceId);
  if (!settings.enabled) throw conflict('This company does not ask for self-identification');
  if (!invitation.completed) throw conflict('Self-identification is offered once the assessment is submitted');
  const questions = settings.own ?? defaultQuestions();
  const errors: DomainFieldError[] = [];
  const answers: Record<string, string> = {};
  for (const [id, value] of Object.entries(input.answers)) {
    const question = questions.find((q) => q.id === id);
    if (!question) {
      errors.push({ in: 'body', name: id.slice(0, 64), detail: 'is not one of the questions asked' });
      continue;
    }
    if (value === '' || value === undefined) continue;
    if (typeof value !== 'string' || (value !== PREFER_NOT && !question.options.some((o) => o.id === value)))
      errors.push({ in: 'body', name: id, detail: `must be one of ${[...question.options.map((o) => o.id), PREFER_NOT].join(', ')} (or no answer)` });
    else answers[id] = value;
  }
  if (errors.length > 0) throw invalidInput(errors.slice(0, 20));
  await replaceSelfId(ctx.tx, { invitationId: input.invitationId, instanceId: invitation.instanceId, answers, at: ctx.now });
  // The answers are the candidate's record; audit() keeps the log to people and client applications.
  await audit(ctx, 'self-identification.record', input.invitationId);
  return answers;
}

export interface SelfIdSettingsView {
  enabled: boolean;
  /** The questions in effect (the default set in English when `isDefault`), without "prefer not to say". */
  questions: SelfIdQuestion[];
  isDefault: boolean;
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** The instance's settings as the console and the admin API show them. */
export async function selfIdSettingsView(db: CommandContext['tx'], instanceId: string): Promise<SelfIdSettingsView> {
  const settings = await selfIdSettings(db, instanceId);
  return {
    enabled: settings.enabled,
    questions: settings.own ?? defaultQuestions(),
    isDefault: settings.own === null,
    updatedAt: settings.updatedAt,
    updatedBy: settings.updatedBy,
  };
}

/**
 * Turns the form on or off and sets its questions (null: back to the default set); a field left
 * undefined stays as it is. Owners, managers and the operator; not reviewers.
 */
export async function changeSelfIdSettings(
  ctx: CommandContext,
  input: { instance: { id: string; name: string }; enabled?: unknown; questions?: unknown },
): Promise<SelfIdSettingsView> {
  const actor = ctx.actor;
  if (actor.kind === 'user' ? actor.role === 'reviewer' : actor.kind !== 'admin-token' && actor.kind !== 'system')
    throw forbidden('Only owners, managers and the operator change the self-identification questions');
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') throw invalidInput([{ in: 'body', name: 'enabled', detail: 'must be true or false' }]);
  const current = await selfIdSettings(ctx.tx, input.instance.id);
  const own = input.questions === undefined ? current.own : input.questions === null ? null : checkQuestions(input.questions);
  await writeSelfIdSettings(ctx.tx, {
    instanceId: input.instance.id,
    enabled: input.enabled ?? current.enabled,
    own,
    at: ctx.now,
    by: actorName(actor) ?? (actor.kind === 'system' ? `system:${actor.job}` : 'system'),
  });
  await audit(ctx, 'self-identification.settings', input.instance.name);
  return selfIdSettingsView(ctx.tx, input.instance.id);
}
