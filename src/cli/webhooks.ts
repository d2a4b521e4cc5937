// webhook create / list / update / delete / rotate-secret / replay / attempts. The receiver's
// address is --endpoint URL (--url names the service, as in every command).
import { EVENT_TYPES, type EventType } from '../modules/webhooks/repository.js';
import { type Command, type Context, type Options, UsageError, done, ok } from './client.js';
import { list, needArg, positiveInteger, required, table, text } from './options.js';

/** The server's page size of webhook attempts when --limit is not given. */
const ATTEMPTS_PAGE = 50;

/** --events a,b (all: every event, an empty list), each an event the service sends. */
function eventList(options: Options): EventType[] | undefined {
  const names = list(options.events);
  if (names === undefined) return undefined;
  if (options.events === 'all') return [];
  return names.map((name) => {
    const known = EVENT_TYPES.find((type) => type === name);
    if (!known) throw new UsageError(`--events: ${name} is not an event; the events are ${EVENT_TYPES.join(', ')}`);
    return known;
  });
}

/**
 * The receiver's address, --endpoint. Before --url named the service everywhere, webhook create
 * took the receiver as --url: that spelling still works there (when --endpoint is not given),
 * with a note on standard error.
 */
export function endpointOption(ctx: Context, command: string, options: Options): string | undefined {
  const endpoint = text(options, 'endpoint');
  if (endpoint !== undefined || command !== 'webhook create') return endpoint;
  const legacy = text(options, 'url');
  if (legacy !== undefined) ctx.io.stderr.write('note: --url for the webhook endpoint is deprecated; use --endpoint URL (--url names the service, as in every command)\n');
  return legacy;
}

const path = (options: Options) => ({ instance: required(options, 'instance') });
const endpointId = (id: string | undefined, command: string) => needArg(id, `webhook ${command} needs the endpoint id (ep_…), as shown by webhook list`);

export const webhookCommands: Record<string, Command> = {
  async 'webhook create'(ctx, _args, options) {
    const url = endpointOption(ctx, 'webhook create', options);
    if (!url) throw new UsageError("--endpoint is required (the receiver's URL)");
    const body = { url, events: eventList(options), description: text(options, 'description') };
    const data = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/webhooks', { params: { path: path(options) }, body }));
    return {
      data,
      text: [
        `Created webhook endpoint ${data.id} for ${data.url} (${data.events.join(', ') || 'every event'}).`,
        'Its signing secret is shown this once; store it in the receiver now:',
        '',
        `  ${data.secret}`,
        '',
      ].join('\n'),
    };
  },
  async 'webhook list'(ctx, _args, options) {
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/webhooks', { params: { path: path(options) } }));
    return { data, text: table(data, ['id', 'url', 'events', 'disabled', 'disabledReason', 'failingSince', 'createdAt']) };
  },
  async 'webhook update'(ctx, [id], options) {
    const change = {
      url: endpointOption(ctx, 'webhook update', options),
      events: eventList(options),
      description: text(options, 'description'),
      enabled: options.enable ? true : options.disable ? false : undefined,
    };
    if (Object.values(change).every((v) => v === undefined))
      throw new UsageError('webhook update needs --endpoint, --events, --description, --enable or --disable (--url names the service)');
    const data = await ok(
      ctx,
      ctx.client.PATCH('/admin/v1/instances/{instance}/webhooks/{id}', { params: { path: { ...path(options), id: endpointId(id, 'update') } }, body: change }),
    );
    return { data, text: `Updated ${data.id}: ${data.url}, ${data.disabled ? `disabled (${data.disabledReason})` : 'enabled'}` };
  },
  async 'webhook delete'(ctx, [id], options) {
    const params = { path: { ...path(options), id: endpointId(id, 'delete') } };
    await done(ctx, ctx.client.DELETE('/admin/v1/instances/{instance}/webhooks/{id}', { params }));
    return { data: { id: params.path.id, deleted: true }, text: `Deleted ${params.path.id}` };
  },
  async 'webhook rotate-secret'(ctx, [id], options) {
    const data = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/webhooks/{id}/rotate-secret', { params: { path: { ...path(options), id: endpointId(id, 'rotate-secret') } } }),
    );
    return { data, text: [`New secret for ${data.id}; the old one keeps signing too for 24 hours:`, '', `  ${data.secret}`, ''].join('\n') };
  },
  async 'webhook replay'(ctx, [id], options) {
    const messageId = text(options, 'message');
    const since = text(options, 'since');
    const body = messageId !== undefined ? { messageId } : since !== undefined ? { since } : undefined;
    if (!body) throw new UsageError('webhook replay needs --message <msg_id> or --since ISO-8601');
    const data = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/webhooks/{id}/replay', { params: { path: { ...path(options), id: endpointId(id, 'replay') } }, body }),
    );
    return { data, text: `Scheduled ${data.scheduled} message(s) for delivery now` };
  },
  async 'webhook attempts'(ctx, [id], options) {
    const query = { limit: positiveInteger(options, 'limit') ?? ATTEMPTS_PAGE };
    const data = await ok(
      ctx,
      ctx.client.GET('/admin/v1/instances/{instance}/webhooks/{id}/attempts', { params: { path: { ...path(options), id: endpointId(id, 'attempts') }, query } }),
    );
    return { data, text: table(data, ['at', 'type', 'messageId', 'statusCode', 'durationMs', 'deliveryStatus', 'response']) };
  },
};
