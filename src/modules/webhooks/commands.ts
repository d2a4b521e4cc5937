// The commands of webhook endpoints: register, change (enable, disable), delete, rotate the secret,
// replay. The admin API (the CLI's `webhook …`) and the console call the same ones; each checks
// its input, writes and records its audit entry in one transaction.
import type { CommandContext } from '../../domain/command.js';
import { invalidInput } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { EVENT_TYPES, createEndpoint, deleteEndpoint, replay, rotateSecret, updateEndpoint, type Endpoint, type EventType } from './repository.js';
import { endpointUrlProblem } from './ssrf.js';

/** The instance an endpoint belongs to: its id, and its name for the audit log. */
export interface EndpointInstance {
  id: string;
  name: string;
}

function checkUrl(url: string | undefined): void {
  const problem = url === undefined ? undefined : endpointUrlProblem(url);
  if (problem) throw invalidInput([{ in: 'body', name: 'url', detail: problem }]);
}

function checkEvents(events: string[] | undefined): EventType[] | undefined {
  if (events === undefined) return undefined;
  const unknown = events.find((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown !== undefined) throw invalidInput([{ in: 'body', name: 'events', detail: `${unknown} is not an event type; the types are ${EVENT_TYPES.join(', ')}` }]);
  return [...new Set(events)] as EventType[];
}

const targetOf = (instance: EndpointInstance, id: string) => `${instance.name}/${id}`;

/** Registers an endpoint (its signing secret is in the result, and nowhere else again). */
export async function registerEndpoint(
  ctx: CommandContext,
  input: { instance: EndpointInstance; url: string; events?: string[]; description?: string },
): Promise<Endpoint & { secret: string }> {
  checkUrl(input.url);
  const events = checkEvents(input.events) ?? [];
  const made = await createEndpoint(ctx.tx, { instanceId: input.instance.id, url: input.url, events, description: input.description });
  await audit(ctx, 'webhook.create', targetOf(input.instance, made.id));
  return made;
}

/** Changes what is given; enabling clears the endpoint's failure record. */
export async function changeEndpoint(
  ctx: CommandContext,
  input: { instance: EndpointInstance; id: string; change: { url?: string; events?: string[]; description?: string | null; enabled?: boolean } },
): Promise<Endpoint> {
  checkUrl(input.change.url);
  const changed = await updateEndpoint(ctx.tx, input.instance.id, input.id, { ...input.change, events: checkEvents(input.change.events) }, ctx.now);
  const action = input.change.enabled === undefined ? 'webhook.update' : input.change.enabled ? 'webhook.enable' : 'webhook.disable';
  await audit(ctx, action, targetOf(input.instance, input.id));
  return changed;
}

export async function removeEndpoint(ctx: CommandContext, input: { instance: EndpointInstance; id: string }): Promise<void> {
  await deleteEndpoint(ctx.tx, input.instance.id, input.id);
  await audit(ctx, 'webhook.delete', targetOf(input.instance, input.id));
}

/** A new secret; the previous one keeps signing for 24 hours. */
export async function rotateEndpointSecret(ctx: CommandContext, input: { instance: EndpointInstance; id: string }): Promise<Endpoint & { secret: string }> {
  const rotated = await rotateSecret(ctx.tx, input.instance.id, input.id, ctx.now);
  await audit(ctx, 'webhook.rotate-secret', targetOf(input.instance, input.id));
  return rotated;
}

/** Sends one message again, or every message since a time: each as a fresh delivery schedule. */
export async function replayToEndpoint(ctx: CommandContext, input: { instance: EndpointInstance; id: string; messageId?: string; since?: Date }): Promise<number> {
  const scheduled = await replay(ctx.tx, input.instance.id, input.id, { messageId: input.messageId, since: input.since }, ctx.now);
  await audit(ctx, 'webhook.replay', targetOf(input.instance, input.id));
  return scheduled;
}
