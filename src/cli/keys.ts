// key create / update / list / revoke, and the audit log of operator actions.
import { type Command, UsageError, ok } from './client.js';
import { list, needArg, positiveInteger, required, table, text } from './options.js';

/** The server's page size of the audit log when --limit is not given. */
const AUDIT_PAGE = 100;

export const keyCommands: Record<string, Command> = {
  async 'key create'(ctx, _args, options) {
    const body = {
      instances: list(required(options, 'instance')) ?? [],
      label: text(options, 'label'),
      rateLimit: positiveInteger(options, 'rate-limit'),
      expiresAt: text(options, 'expires-at'),
    };
    const data = await ok(ctx, ctx.client.POST('/admin/v1/keys', { body }));
    return {
      data,
      text: [`Created key ${data.id} for ${data.instances.join(', ')}.`, 'The key is shown this once; store it now:', '', `  ${data.key}`, ''].join('\n'),
    };
  },
  async 'key update'(ctx, [keyId], options) {
    const id = needArg(keyId, 'key update needs the key id (key_…), as shown by key list');
    const rateLimit = options['rate-limit'] === 'default' ? null : positiveInteger(options, 'rate-limit');
    const label = text(options, 'label');
    if (rateLimit === undefined && label === undefined) throw new UsageError('key update needs --rate-limit N (or default) or --label L');
    const data = await ok(ctx, ctx.client.PATCH('/admin/v1/keys/{id}', { params: { path: { id } }, body: { rateLimit, label } }));
    const limit = data.rateLimit === null ? 'the service default' : `${data.rateLimit} requests per minute`;
    return { data, text: `Updated ${data.id}: rate limit ${limit}` };
  },
  async 'key list'(ctx, _args, options) {
    const data = await ok(ctx, ctx.client.GET('/admin/v1/keys', { params: { query: { instance: text(options, 'instance') } } }));
    return { data, text: table(data, ['id', 'prefix', 'label', 'instances', 'rateLimit', 'expiresAt', 'revokedAt', 'lastUsedAt']) };
  },
  async 'key revoke'(ctx, [keyId]) {
    const id = needArg(keyId, 'key revoke needs the key id (key_…), as shown by key list');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/keys/{id}/revoke', { params: { path: { id } } }));
    return { data, text: `Revoked ${data.id} at ${data.revokedAt}` };
  },
  async 'audit list'(ctx, _args, options) {
    const query = { limit: positiveInteger(options, 'limit') ?? AUDIT_PAGE, before: text(options, 'before') };
    const data = await ok(ctx, ctx.client.GET('/admin/v1/audit', { params: { query } }));
    return { data, text: table(data, ['id', 'at', 'action', 'target', 'status', 'clientIp', 'requestId']) };
  },
};
