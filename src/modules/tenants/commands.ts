// The commands of instances (tenants): create one, change its settings, set or remove its logo.
// The admin API (the operator, through the CLI), the console (owners and managers) and the demo
// seed call the same ones. Each checks who may change what, checks the values the schema cannot
// (branding: a blank name, contrast, a URL's scheme; a logo's bytes), writes and records its
// audit entry in one transaction.
import type { Actor, CommandContext } from '../../domain/command.js';
import { DomainError, conflict, forbidden, invalidInput, notFound } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { acceptLogo, checkBranding } from './branding.js';
import { createInstance, findInstanceByName, removeLogo, setLogo, updateInstance, type Instance, type InstanceSettings } from './repository.js';

/** The zone's name as the IANA database spells it (europe/berlin is Europe/Berlin), or undefined for no such zone. */
export function canonicalTimeZone(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: trimmed }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Settings only the operator sets: they bound what an instance may do on a shared service. */
const OPERATOR_ONLY = ['maxWebhookEndpoints', 'requireTwoFactor'] as const;
/** Settings the operator and owners set, not managers: where candidates' links point and whose address e-mail comes from (mail from a domain one does not own is spoofing). */
const OWNERS_ONLY = ['portalUrl', 'mailFromAddress'] as const;

const LABELS: Record<(typeof OPERATOR_ONLY)[number] | (typeof OWNERS_ONLY)[number], string> = {
  maxWebhookEndpoints: 'the number of webhook endpoints',
  requireTwoFactor: 'whether a second factor is required',
  portalUrl: 'the portal URL',
  mailFromAddress: 'the sender address',
};

/** The settings as stored: branding checked and normalised, the portal URL without a trailing slash; an invalid error naming each refused field. */
function normalised(settings: InstanceSettings): InstanceSettings {
  const { values, errors } = checkBranding(settings);
  if (settings.timeZone !== undefined) {
    const zone = canonicalTimeZone(settings.timeZone);
    if (zone === undefined) errors.push({ name: 'timeZone', detail: 'must be a time zone of the IANA database, such as Europe/Berlin, America/New_York or UTC' });
    else values.timeZone = zone;
  }
  if (errors.length > 0)
    throw invalidInput(
      errors.map((e) => ({ in: 'body' as const, name: e.name, detail: e.detail })),
      errors.map((e) => `${e.name} ${e.detail}`).join('; '),
    );
  return typeof values.portalUrl === 'string' ? { ...values, portalUrl: values.portalUrl.replace(/\/+$/, '') } : values;
}

/** The settings of `changes` whose value differs from the instance's (a form sends every field, changed or not). */
function changedNames(instance: Instance, changes: InstanceSettings, names: readonly (keyof InstanceSettings)[]): (keyof InstanceSettings)[] {
  return names.filter((name) => changes[name] !== undefined && changes[name] !== instance[name]);
}

function checkMayChange(actor: Actor, instance: Instance, changes: InstanceSettings): void {
  if (actor.kind === 'admin-token' || actor.kind === 'system') return;
  const refused = [...changedNames(instance, changes, OPERATOR_ONLY), ...(actor.kind === 'user' && actor.role === 'owner' ? [] : changedNames(instance, changes, OWNERS_ONLY))];
  if (refused.length > 0) {
    const operatorOnly = refused.some((name) => (OPERATOR_ONLY as readonly string[]).includes(name));
    throw forbidden(`Only the operator${operatorOnly ? '' : ' or an owner'} may change ${refused.map((name) => LABELS[name as keyof typeof LABELS]).join(' and ')}`);
  }
}

/** Creates an instance with the settings given (the rest take their defaults). Only the operator creates instances. */
export async function createTenant(ctx: CommandContext, input: { name: string; settings: InstanceSettings }): Promise<Instance> {
  if (ctx.actor.kind !== 'admin-token' && ctx.actor.kind !== 'system') throw forbidden('Only the operator creates instances');
  const created = await createInstance(ctx.tx, { ...normalised(input.settings), name: input.name });
  if (!created) throw conflict(`An instance named "${input.name}" exists already`);
  await audit(ctx, 'instance.create', created.name, 201);
  return created;
}

/**
 * Changes the settings given (undefined keeps one, null clears it). The operator may change any;
 * an owner all but the operator's; a manager neither the operator's nor the portal URL and sender
 * address. A value sent unchanged is no change, so a form may send every field.
 */
export async function changeTenantSettings(ctx: CommandContext, input: { instance: string; changes: InstanceSettings }): Promise<Instance> {
  const instance = await findInstanceByName(ctx.tx, input.instance);
  if (!instance) throw notFound(`No instance named "${input.instance}"`);
  const changes = normalised(input.changes);
  checkMayChange(ctx.actor, instance, changes);
  const updated = (await updateInstance(ctx.tx, instance.name, changes))!;
  await audit(ctx, 'instance.update', instance.name);
  return updated;
}

const REFUSALS = { 400: 'invalid', 413: 'too-large', 415: 'unsupported-type' } as const;

/** Sets the instance's logo from the uploaded bytes and their declared type: checked, decoded and encoded again (acceptLogo), or refused naming the field `logo`. */
export async function setTenantLogo(ctx: CommandContext, input: { instance: string; declaredType: string | undefined; bytes: Buffer }): Promise<Instance> {
  const instance = await findInstanceByName(ctx.tx, input.instance);
  if (!instance) throw notFound(`No instance named "${input.instance}"`);
  const accepted = await acceptLogo(input.declaredType, input.bytes);
  if ('detail' in accepted) throw new DomainError(REFUSALS[accepted.status], accepted.detail, [{ in: 'body', name: 'logo', detail: accepted.detail }]);
  await setLogo(ctx.tx, instance.name, accepted.logo, ctx.now);
  await audit(ctx, 'instance.logo.set', instance.name);
  return (await findInstanceByName(ctx.tx, instance.name))!;
}

/** Removes the instance's logo (nothing to remove is no error). */
export async function removeTenantLogo(ctx: CommandContext, input: { instance: string }): Promise<Instance> {
  const instance = await findInstanceByName(ctx.tx, input.instance);
  if (!instance) throw notFound(`No instance named "${input.instance}"`);
  await removeLogo(ctx.tx, instance.name);
  await audit(ctx, 'instance.logo.remove', instance.name);
  return (await findInstanceByName(ctx.tx, instance.name))!;
}
