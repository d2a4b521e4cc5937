// An instance's settings, for owners and managers: the portal's address, e-mail, reminders, report
// links, the time zone, branding and the logo. The admin API's schema checks the form's values (the
// same words for the same mistakes); the rules beyond it (who may change what, branding) are the
// tenants module's commands'.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { DomainError } from '../../domain/errors.js';
import { fieldErrors, problemFor } from '../../http/errors.js';
import { validatorCompiler } from '../../http/validation.js';
import { Settings } from '../../modules/tenants/admin-routes.js';
import { changeTenantSettings, removeTenantLogo, setTenantLogo } from '../../modules/tenants/commands.js';
import type { Instance, InstanceSettings } from '../../modules/tenants/repository.js';
import type { ConsoleContext } from '../context.js';
import { reviewSettingsPanel } from '../reviews/views.js';
import { settingsBody } from './views.js';

const FIELDS = [
  'portalUrl',
  'inviteTtlDays',
  'mailFromName',
  'mailFromAddress',
  'reminderDays',
  'reportLinkDays',
  'timeZone',
  'displayName',
  'accentColor',
  'supportEmail',
  'privacyUrl',
] as const;

/** A field error of a command, shown on the settings page; anything else goes to the error page. */
const fieldsOf = (error: unknown) => (error instanceof DomainError && error.fields ? error.fields.map((f) => ({ name: f.name, detail: f.detail })) : undefined);

export function registerSettingsRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const isOwner = (request: FastifyRequest) => request.consoleUser!.user.role === 'owner';
  const saved = (reply: FastifyReply, instance: Instance) => reply.redirect(`/console/settings?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);

  scope.get<{ Querystring: { instance?: string; saved?: string } }>('/console/settings', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'manage');
    const body = settingsBody(instance, request.consoleUser!.csrfToken, {
      saved: request.query.saved === '1',
      addressesLocked: !isOwner(request),
      reviews: reviewSettingsPanel(instance, request.consoleUser!.csrfToken),
    });
    return c.render(request, reply, { section: 'settings', instance }, `Settings of ${instance.name}`, body);
  });

  const checkSettings = validatorCompiler()({ schema: Settings, httpPart: 'body', method: 'POST', url: '/console/settings' }) as ((
    data: unknown,
  ) => data is Static<typeof Settings>) & {
    errors?: unknown[];
  };
  const refused = (request: FastifyRequest, reply: FastifyReply, instance: Instance, errors: { name: string; detail: string }[], status: number, values?: Record<string, string>) =>
    c.render(
      request,
      reply,
      { section: 'settings', instance },
      `Settings of ${instance.name}`,
      settingsBody(instance, request.consoleUser!.csrfToken, {
        errors,
        values,
        addressesLocked: !isOwner(request),
        reviews: reviewSettingsPanel(instance, request.consoleUser!.csrfToken),
      }),
      status,
    );

  scope.post<{ Body: Record<string, string | undefined> }>('/console/settings', async (request, reply) => {
    // The colour picker always sends a colour: "The default blue" ticked clears the setting instead.
    const body: Record<string, string | undefined> = { ...request.body };
    if (body.accentDefault === 'on') body.accentColor = '';
    const instance = c.instanceOf(request, body.instance, 'manage');
    const values: Record<string, string> = Object.fromEntries(FIELDS.map((name) => [name, (body[name] ?? '').trim()]));
    // A field the form did not send (an older page; a manager's read-only addresses) stays as it is;
    // an empty one clears its setting. A number that is not a whole number fails the schema's range.
    const whole = (value: string) => (/^\d{1,4}$/.test(value) ? Number(value) : -1);
    const given: Record<string, unknown> = {};
    // The addresses and the sender name may be cleared here (back to the service's own), which the
    // admin API's schema has no null for: set aside from its check.
    const cleared: InstanceSettings = {};
    for (const name of FIELDS) {
      if (body[name] === undefined) continue;
      const value = values[name]!;
      if (name === 'inviteTtlDays' || name === 'reportLinkDays') given[name] = whole(value);
      else if (name === 'reminderDays') given[name] = value === '' ? null : whole(value);
      else if (name === 'timeZone') given[name] = value === '' ? 'UTC' : value;
      else if (value !== '') given[name] = value;
      else if (name === 'portalUrl' || name === 'mailFromName' || name === 'mailFromAddress') cleared[name] = null;
      else given[name] = null;
    }
    if (!checkSettings(given)) return refused(request, reply, instance, fieldErrors('body', (checkSettings.errors ?? []) as never), 400, values);
    const changes = { ...given, ...cleared };
    try {
      await c.command(request, 'instance_update', (ctx) => changeTenantSettings(ctx, { instance: instance.name, changes }));
    } catch (error) {
      const fields = fieldsOf(error);
      if (!fields) throw error;
      return refused(request, reply, instance, fields, 400, values);
    }
    return saved(reply, instance);
  });

  scope.post<{ Body: { instance?: string; logo?: { type: string; bytes: Buffer } | string } }>('/console/settings/logo', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const file = typeof body.logo === 'object' && body.logo !== null && body.logo.bytes.length > 0 ? body.logo : undefined;
    if (!file) return refused(request, reply, instance, [{ name: 'logo', detail: 'Choose a logo file to upload' }], 400);
    try {
      await c.command(request, 'instance_logo_set', (ctx) => setTenantLogo(ctx, { instance: instance.name, declaredType: file.type, bytes: file.bytes }));
    } catch (error) {
      const fields = fieldsOf(error);
      if (!fields) throw error;
      return refused(request, reply, instance, fields, problemFor(error, request).status);
    }
    return saved(reply, instance);
  });

  scope.post<{ Body: { instance?: string } }>('/console/settings/logo/remove', async (request, reply) => {
    const instance = c.instanceOf(request, request.body?.instance, 'manage');
    await c.command(request, 'instance_logo_remove', (ctx) => removeTenantLogo(ctx, { instance: instance.name }));
    return saved(reply, instance);
  });
}
