// API keys of an instance: made (shown once), given a rate budget, revoked. The keys module's
// commands decide who may do what (a manager's budget has a ceiling; a key of other instances
// is changed only by who manages all of them).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, invalidInput } from '../../domain/errors.js';
import { changeKey, createKey, managedKey, revokeKey } from '../../modules/keys/commands.js';
import { listKeys, type KeySummary } from '../../modules/keys/repository.js';
import { byText, byTime, pageOf, parseOrder, parsePage, type Compare } from '../lists.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { instancesFor, type ConsoleContext } from '../context.js';
import { keysBody, type KeysPageState } from './views.js';

/** A form's rate budget: empty is none (the default), else a number the command judges. */
function rateOf(text: string | undefined): number | undefined {
  const rate = (text ?? '').trim();
  if (rate !== '' && !/^[0-9]{1,9}$/.test(rate)) throw invalidInput([{ name: 'rateLimit', detail: 'must be a whole number of requests per minute, 1 to 1000000' }]);
  return rate === '' ? undefined : Number(rate);
}

const KEYS_PAGE = 50;
const KEY_SORTS = ['created', 'label', 'used', 'state'] as const;
type KeySort = (typeof KEY_SORTS)[number];
const KEY_ORDER: Record<KeySort, Compare<KeySummary>> = {
  created: byTime((k) => k.createdAt),
  label: byText((k) => k.label ?? ''),
  used: byTime((k) => k.lastUsedAt),
  state: (a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null),
};
/** Keys without a label or never used come last, whichever way. */
const KEY_MISSING: Partial<Record<KeySort, (k: KeySummary) => boolean>> = { label: (k) => k.label === null, used: (k) => k.lastUsedAt === null };

/** What the keys module's commands need: the verifier whose cache they forget, and a manager's ceiling. */
export const keyDepsOf = (c: ConsoleContext) => ({ verifier: c.deps.verifier, rateCeiling: c.deps.rateCeiling ?? 600 });

export function registerKeyRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const keyDeps = keyDepsOf(c);
  const managedNames = (request: FastifyRequest) => instancesFor(request.consoleUser!.user, request.consoleUser!.visible, 'manage').map((i) => i.name);

  /**
   * The keys of an instance as this user may see them: a key granted to instances the user cannot
   * see names only those it can, and says how many others there are, never their names.
   */
  async function keysOf(request: FastifyRequest, instance: Instance) {
    const visible = new Set(request.consoleUser!.visible.map((i) => i.name));
    return (await listKeys(c.db, instance.name)).map((k) => {
      const shown = k.instances.filter((name) => visible.has(name));
      const hidden = k.instances.length - shown.length;
      return { ...k, instances: hidden === 0 ? shown : [...shown, `${hidden} other instance${hidden === 1 ? '' : 's'}`] };
    });
  }

  /** One page of the instance's keys in the order the query asks (`sort`, `page`); the first, oldest first, when it asks none. */
  async function keyList(request: FastifyRequest, instance: Instance, query: { sort?: string; page?: string } = {}) {
    const order = parseOrder(query.sort, KEY_SORTS, { sort: 'created', descending: false });
    const page = parsePage(query.page);
    return { ...pageOf(await keysOf(request, instance), order, KEY_ORDER, page, KEYS_PAGE, KEY_MISSING), order, page, size: KEYS_PAGE };
  }

  scope.get<{ Querystring: { instance?: string; sort?: string; page?: string } }>('/console/keys', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'manage');
    const list = await keyList(request, instance, request.query);
    return c.render(request, reply, { section: 'keys', instance }, `API keys of ${instance.name}`, keysBody(instance.name, list, request.consoleUser!.csrfToken));
  });

  /** The keys page again with a form's refusals beside its fields (status 400), or with the key just made. */
  async function keysPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, state: KeysPageState = {}, status = 200) {
    const shown = keysBody(instance.name, await keyList(request, instance), request.consoleUser!.csrfToken, state);
    return c.render(request, reply, { section: 'keys', instance }, `API keys of ${instance.name}`, shown, status);
  }
  /** The command's refusals of a form's input, to show beside its fields; anything else goes on. */
  const refusals = (error: unknown) => {
    if (error instanceof DomainError && error.code === 'invalid') return (error.fields ?? []).map((f) => ({ name: f.name, detail: f.detail }));
    throw error;
  };

  scope.post<{ Body: Record<string, string | undefined> }>('/console/keys', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const values = { label: body.label ?? '', rateLimit: body.rateLimit ?? '' };
    try {
      const input = { instances: [instance.name], label: body.label, rateLimit: rateOf(body.rateLimit) };
      const made = await c.command(request, 'key_create', (ctx) => createKey(ctx, keyDeps, input));
      return keysPage(request, reply, instance, { created: { id: made.summary.id, key: made.key } });
    } catch (error) {
      return keysPage(request, reply, instance, { create: { errors: refusals(error), values } }, 400);
    }
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/keys/:id/revoke', async (request, reply) => {
    const instance = c.instanceOf(request, request.body?.instance, 'manage');
    const ref = { id: request.params.id, instance: instance.name, managed: managedNames(request) };
    await c.command(request, 'key_revoke', async (ctx) => revokeKey(ctx, keyDeps, { id: (await managedKey(ctx, ref)).id }));
    return reply.redirect(`/console/keys?instance=${encodeURIComponent(instance.name)}`, 303);
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/keys/:id/rate-limit', async (request, reply) => {
    const instance = c.instanceOf(request, request.body?.instance, 'manage');
    const ref = { id: request.params.id, instance: instance.name, managed: managedNames(request) };
    try {
      const rateLimit = rateOf(request.body?.rateLimit) ?? null;
      await c.command(request, 'key_update', async (ctx) => changeKey(ctx, keyDeps, { id: (await managedKey(ctx, ref)).id, rateLimit }));
    } catch (error) {
      const errors = refusals(error);
      return keysPage(request, reply, instance, { rate: { id: request.params.id, errors, value: request.body?.rateLimit ?? '' } }, 400);
    }
    return reply.redirect(`/console/keys?instance=${encodeURIComponent(instance.name)}`, 303);
  });
}
