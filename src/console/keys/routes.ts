// API keys of an instance: made (shown once), given a rate budget, revoked. The keys module's
// commands decide who may do what (a manager's budget has a ceiling; a key of other instances
// is changed only by who manages all of them).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidInput } from '../../domain/errors.js';
import { changeKey, createKey, managedKey, revokeKey } from '../../modules/keys/commands.js';
import { listKeys } from '../../modules/keys/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { instancesFor, type ConsoleContext } from '../context.js';
import { keysBody } from './views.js';

/** A form's rate budget: empty is none (the default), else a number the command judges. */
function rateOf(text: string | undefined): number | undefined {
  const rate = (text ?? '').trim();
  if (rate !== '' && !/^[0-9]{1,9}$/.test(rate)) throw invalidInput([{ name: 'rateLimit', detail: 'must be a whole number of requests per minute, 1 to 1000000' }]);
  return rate === '' ? undefined : Number(rate);
}

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

  scope.get<{ Querystring: { instance?: string } }>('/console/keys', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'manage');
    const keys = await keysOf(request, instance);
    return c.render(request, reply, { section: 'keys', instance }, `API keys of ${instance.name}`, keysBody(instance.name, keys, request.consoleUser!.csrfToken));
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/keys', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const input = { instances: [instance.name], label: body.label, rateLimit: rateOf(body.rateLimit) };
    const made = await c.command(request, 'key_create', (ctx) => createKey(ctx, keyDeps, input));
    const keys = await keysOf(request, instance);
    const shown = keysBody(instance.name, keys, request.consoleUser!.csrfToken, { id: made.summary.id, key: made.key });
    return c.render(request, reply, { section: 'keys', instance }, `API keys of ${instance.name}`, shown);
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
    const rateLimit = rateOf(request.body?.rateLimit) ?? null;
    await c.command(request, 'key_update', async (ctx) => changeKey(ctx, keyDeps, { id: (await managedKey(ctx, ref)).id, rateLimit }));
    return reply.redirect(`/console/keys?instance=${encodeURIComponent(instance.name)}`, 303);
  });
}
