// candidate export / erase / retake, report-link revoke / rotate-key: what is stored about a
// person, and the links that show their report.
import { type Command, UsageError, ok } from './client.js';
import { candidateSelector, required } from './options.js';

export const candidateCommands: Record<string, Command> = {
  async 'candidate export'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/candidates/export', { params: { path: { instance } }, body: candidateSelector(options) }));
    // The export is a JSON document either way.
    return { data, text: JSON.stringify(data, null, 2) };
  },
  async 'candidate erase'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/candidates/erase', { params: { path: { instance } }, body: candidateSelector(options) }));
    const text = data.erased
      ? `Erased candidate ${data.id} in ${instance} (${data.mailFilesDeleted} e-mail files deleted); score records keep the id and numbers only.`
      : `Candidate ${data.id} in ${instance} was erased already (at ${data.erasedAt}); nothing changed.`;
    return { data, text };
  },
  async 'candidate retake'(ctx, _args, options) {
    const path = { instance: required(options, 'instance'), candidateId: required(options, 'candidate'), assessmentId: required(options, 'assessment') };
    const data = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/candidates/{candidateId}/invitations/{assessmentId}/retake', {
        params: { path },
        body: { email: options['no-email'] !== true },
      }),
    );
    const mail = data.invitationStatus === undefined ? 'no e-mail sent' : `e-mail ${data.invitationStatus}`;
    return { data, text: `The candidate may take ${path.assessmentId} again (${mail}); the earlier attempt stays in the history.\nTheir link: ${data.link}` };
  },
  async 'report-link revoke'(ctx, [url]) {
    if (!url) throw new UsageError('report-link revoke needs the link (quote it: it has & in it)');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/report-links/revoke', { body: { url } }));
    return { data, text: `Withdrawn: the report link of candidate ${data.candidateId} for ${data.assessmentId} opens nothing from now on` };
  },
  async 'report-link rotate-key'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/report-links/rotate-key', { params: { path: { instance } } }));
    return { data, text: `Every report link of ${instance} made before ${data.rotatedAt} opens nothing now; new links are signed with a new key` };
  },
};
