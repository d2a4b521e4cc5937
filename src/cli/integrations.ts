// ats ashby / ats greenhouse / ats list / ats retry: an instance's integrations with
// applicant-tracking systems. The ATS's own key (--api-key) is sent once, stored encrypted and
// never shown again (only its last four characters).
import { type Command, type Options, UsageError, ok } from './client.js';
import { needArg, required, table, text } from './options.js';

/** --send-email true|false: whether the service e-mails the candidates the ATS sends. */
function sendEmail(options: Options): boolean | undefined {
  const value = text(options, 'send-email');
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError('--send-email must be true or false');
  return value === 'true';
}

function configure(partner: 'ashby' | 'greenhouse'): Command {
  return async (ctx, _args, options) => {
    const key = text(options, 'api-key');
    if (key !== undefined && options['remove-key']) throw new UsageError('--api-key and --remove-key exclude each other');
    if (partner === 'greenhouse' && key !== undefined)
      throw new UsageError('Greenhouse needs no key of ours to call it back: give Greenhouse an API key of the instance instead (key create)');
    const body = {
      ...(key !== undefined ? { apiKey: key } : options['remove-key'] ? { apiKey: null } : {}),
      ...(sendEmail(options) === undefined ? {} : { sendEmail: sendEmail(options) }),
    };
    if (Object.keys(body).length === 0) throw new UsageError(`nothing to change: give ${partner === 'ashby' ? '--api-key KEY, --remove-key or ' : ''}--send-email true|false`);
    const data = await ok(
      ctx,
      ctx.client.PUT('/admin/v1/instances/{instance}/integrations/{partner}', { params: { path: { instance: required(options, 'instance'), partner } }, body }),
    );
    return {
      data,
      text: `${partner}: ${data.keyHint ? `API key set (…${data.keyHint})` : 'no API key set'}; candidates ${data.sendEmail ? 'are e-mailed their link by this service' : 'are reached by the ATS'}.`,
    };
  };
}

export const integrationCommands: Record<string, Command> = {
  'ats ashby': configure('ashby'),
  'ats greenhouse': configure('greenhouse'),
  async 'ats list'(ctx, _args, options) {
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/integrations', { params: { path: { instance: required(options, 'instance') } } }));
    return {
      data,
      text: [
        table(data.settings, ['partner', 'keyHint', 'sendEmail']),
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
