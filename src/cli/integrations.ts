// ats <ats> / ats list / ats retry: an instance's integrations with applicant-tracking systems.
// The ATS's own credentials (--api-key, --token, --access-token, …) are sent once, stored
// encrypted and never shown again (only their last four characters).
import { type Command, type Options, UsageError, ok } from './client.js';
import { needArg, required, table, text } from './options.js';

/** --send-email true|false: whether the service e-mails the candidates the ATS sends. */
function sendEmail(options: Options): boolean | undefined {
  const value = text(options, 'send-email');
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError('--send-email must be true or false');
  return value === 'true';
}

type Ats = 'ashby' | 'greenhouse' | 'workable' | 'hibob' | 'lever' | 'smartrecruiters';

/**
 * Each ATS's options: the flag of its one API key (Ashby), its secrets and its settings that are no
 * secret, by flag and the name the service keeps them under; `required` on the first connection.
 */
const FLAGS: Record<Ats, { apiKey?: boolean; secrets?: Record<string, string>; options?: Record<string, string> }> = {
  greenhouse: {},
  ashby: { apiKey: true },
  workable: { secrets: { token: 'token' } },
  hibob: { secrets: { 'access-token': 'accessToken', 'webhook-secret': 'webhookSecret' }, options: { 'company-id': 'companyId' } },
  lever: { secrets: { 'api-key': 'apiKey', 'signature-token': 'signatureToken' }, options: { stage: 'stage', assessment: 'assessment' } },
  smartrecruiters: { secrets: { 'client-secret': 'clientSecret' }, options: { 'client-id': 'clientId' } },
};

/** The options of a command line named by the service's names: undefined when none is given. */
function named(options: Options, flags: Record<string, string> | undefined): Record<string, string> | undefined {
  const given = Object.entries(flags ?? {}).flatMap(([flag, name]) => {
    const value = text(options, flag);
    return value === undefined ? [] : [[name, value] as const];
  });
  return given.length > 0 ? Object.fromEntries(given) : undefined;
}

function configure(partner: Ats): Command {
  const flags = FLAGS[partner];
  return async (ctx, _args, options) => {
    const key = flags.apiKey ? text(options, 'api-key') : undefined;
    if (key !== undefined && options['remove-key']) throw new UsageError('--api-key and --remove-key exclude each other');
    if (partner === 'greenhouse' && text(options, 'api-key') !== undefined)
      throw new UsageError('Greenhouse needs no key of ours to call it back: give Greenhouse an API key of the instance instead (key create)');
    const secrets = named(options, flags.secrets);
    const settings = named(options, flags.options);
    const body = {
      ...(key !== undefined ? { apiKey: key } : flags.apiKey && options['remove-key'] ? { apiKey: null } : {}),
      ...(secrets ? { secrets } : {}),
      ...(settings ? { options: settings } : {}),
      ...(sendEmail(options) === undefined ? {} : { sendEmail: sendEmail(options) }),
    };
    const allFlags = [
      ...(flags.apiKey ? ['--api-key KEY', '--remove-key'] : []),
      ...Object.keys({ ...flags.secrets, ...flags.options }).map((f) => `--${f}`),
      '--send-email true|false',
    ];
    if (Object.keys(body).length === 0) throw new UsageError(`nothing to change: give ${allFlags.join(', ')}`);
    const data = await ok(
      ctx,
      ctx.client.PUT('/admin/v1/instances/{instance}/integrations/{partner}', { params: { path: { instance: required(options, 'instance'), partner } }, body }),
    );
    const hints = Object.entries(data.secretHints ?? {}).map(([name, hint]) => `${name} set (…${hint})`);
    const keyText = flags.apiKey || partner === 'greenhouse' ? [data.keyHint ? `API key set (…${data.keyHint})` : 'no API key set'] : [];
    const settingsText = Object.entries(data.options ?? {}).map(([name, value]) => `${name} ${value}`);
    return {
      data,
      text: `${partner}: ${[...keyText, ...hints, ...settingsText].join(', ') || 'nothing set'}; candidates ${data.sendEmail ? 'are e-mailed their link by this service' : 'are reached by the ATS'}.${data.note ? ` ${data.note[0]!.toUpperCase()}${data.note.slice(1)}.` : ''}`,
    };
  };
}

export const integrationCommands: Record<string, Command> = {
  ...Object.fromEntries((Object.keys(FLAGS) as Ats[]).map((partner) => [`ats ${partner}`, configure(partner)])),
  async 'ats list'(ctx, _args, options) {
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/integrations', { params: { path: { instance: required(options, 'instance') } } }));
    return {
      data,
      text: [
        table(
          data.settings.map((s) => ({
            ...s,
            secrets: Object.keys(s.secretHints ?? {}).join(' '),
            options: Object.entries(s.options ?? {})
              .map(([n, v]) => `${n}=${v}`)
              .join(' '),
          })),
          ['partner', 'keyHint', 'secrets', 'options', 'sendEmail'],
        ),
        '',
        'Newest callbacks:',
        table(data.callbacks, ['id', 'partner', 'publicId', 'event', 'status', 'attempts', 'lastStatus', 'lastAttemptAt']),
      ].join('\n'),
    };
  },
  async 'ats retry'(ctx, [id], options) {
    const callback = needArg(id, 'ats retry needs the callback id, as shown by ats list');
    await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/integrations/callbacks/{id}/retry', { params: { path: { instance: required(options, 'instance'), id: callback } } }),
    );
    return { data: { retried: callback }, text: `Callback ${callback} will be sent again.` };
  },
};
