// instance create / update / list, with the branding candidates see (display name, logo, accent
// colour, support address, privacy page).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGES, isLang } from '../i18n/i18n.js';
import { checkLogo } from '../modules/tenants/branding.js';
import { type Command, type Context, type Options, UsageError, ok } from './client.js';
import { daysOrOff, needArg, positiveInteger, table, text } from './options.js';

/** A branding text option: undefined when not given, null when given empty (clears it). */
function textOrClear(options: Options, name: string): string | null | undefined {
  const value = text(options, name);
  if (value === undefined) return undefined;
  return value.trim() === '' ? null : value;
}

/** --default-language: a language with a catalogue (the server checks the same). */
function defaultLanguage(options: Options): string | undefined {
  const value = options['default-language'];
  if (value === undefined) return undefined;
  if (!isLang(value)) throw new UsageError(`--default-language must be a language with a catalogue: ${Object.keys(LANGUAGES).join(', ')}`);
  return value;
}

/** --require-two-factor on|off: whether every console user of the instance needs a second factor. */
function onOff(options: Options, name: string): boolean | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new UsageError(`--${name} must be on or off`);
}

function instanceSettings(options: Options) {
  return {
    displayName: textOrClear(options, 'display-name'),
    accentColor: textOrClear(options, 'accent-color'),
    supportEmail: textOrClear(options, 'support-email'),
    privacyUrl: textOrClear(options, 'privacy-url'),
    portalUrl: text(options, 'portal-url'),
    inviteTtlDays: positiveInteger(options, 'invite-ttl-days'),
    mailFromName: text(options, 'mail-from-name'),
    mailFromAddress: text(options, 'mail-from-address'),
    retentionDays: daysOrOff(options, 'retention-days', 3650),
    reportLinkDays: positiveInteger(options, 'report-link-days'),
    reminderDays: daysOrOff(options, 'reminder-days', 60),
    defaultLanguage: defaultLanguage(options),
    maxWebhookEndpoints: positiveInteger(options, 'max-webhook-endpoints'),
    requireTwoFactor: onOff(options, 'require-two-factor'),
    timeZone: text(options, 'time-zone'),
  };
}

const LOGO_FILE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.svg': 'image/svg+xml' };

/**
 * --logo FILE, --logo none or --no-logo: read and checked here (size, type by its bytes) before
 * anything is sent, so that a bad file changes nothing. undefined: no logo option given.
 */
function logoOption(options: Options): { bytes: Buffer; type: string } | 'remove' | undefined {
  const file = options.logo;
  if (options['no-logo'] === true) {
    if (file !== undefined) throw new UsageError('give --logo FILE or --no-logo, not both');
    return 'remove';
  }
  if (file === undefined) return undefined;
  if (typeof file !== 'string' || file === '') throw new UsageError('--logo needs a file (or none)');
  if (file === 'none') return 'remove';
  const type = LOGO_FILE_TYPES[path.extname(file).toLowerCase()];
  if (!type) throw new UsageError(`--logo ${file}: a logo is a .png, .jpg, .jpeg or .webp file`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const checked = checkLogo(type, bytes);
  if ('detail' in checked) throw new UsageError(`--logo ${file}: ${checked.detail}`);
  return { bytes, type };
}

/** Sets or removes the logo of an instance after its settings are saved: the instance as it is then. */
async function applyLogo(ctx: Context, instance: string, logo: { bytes: Buffer; type: string } | 'remove') {
  const params = { path: { instance } };
  if (logo === 'remove') return ok(ctx, ctx.client.DELETE('/admin/v1/instances/{instance}/logo', { params }));
  // The body is the image itself; the OpenAPI document describes no request body for it, so the
  // request is given its bytes on the way out.
  const image = new Blob([new Uint8Array(logo.bytes)], { type: logo.type });
  return ok(
    ctx,
    ctx.client.PUT('/admin/v1/instances/{instance}/logo', {
      params,
      headers: { 'content-type': logo.type },
      middleware: [{ onRequest: ({ request }) => new Request(request, { body: image }) }],
    }),
  );
}

export const instanceCommands: Record<string, Command> = {
  async 'instance create'(ctx, [name], options) {
    if (!name) throw new UsageError('instance create needs a name');
    const logo = logoOption(options);
    if (logo === 'remove') throw new UsageError('a new instance has no logo to remove');
    const settings = instanceSettings(options);
    const created = await ok(ctx, ctx.client.POST('/admin/v1/instances', { body: { name, ...settings } }));
    const data = logo === undefined ? created : await applyLogo(ctx, name, logo);
    return { data, text: `Created instance ${data.name} (shown to candidates as ${data.company})` };
  },
  async 'instance update'(ctx, [name], options) {
    const instance = needArg(name, 'instance update needs a name');
    const logo = logoOption(options);
    const settings = instanceSettings(options);
    const changes = Object.values(settings).some((v) => v !== undefined);
    const save = () => ok(ctx, ctx.client.PATCH('/admin/v1/instances/{instance}', { params: { path: { instance } }, body: settings }));
    let data;
    if (logo === undefined) data = await save();
    else {
      if (changes) await save();
      data = await applyLogo(ctx, instance, logo);
    }
    const logoNote = logo === undefined ? '' : logo === 'remove' ? '; logo removed' : `; logo at ${data.logoUrl}`;
    return { data, text: `Updated instance ${data.name} (shown to candidates as ${data.company})${logoNote}` };
  },
  async 'instance list'(ctx) {
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances'));
    return { data, text: table(data, ['name', 'displayName', 'portalUrl', 'inviteTtlDays', 'reminderDays', 'retentionDays', 'reportLinkDays', 'defaultLanguage', 'createdAt']) };
  },
};
