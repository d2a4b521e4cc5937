// Invitations of an instance: one candidate invited from a form (the rules of POST /v1/invite:
// its parser, then the invitations module's checks), the e-mails sent with the relay's answers,
// and an e-mail sent again. Inviting from a CSV file is bulk.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidInput, notFound } from '../../domain/errors.js';
import { problemFor } from '../../http/errors.js';
import { commandRequest } from '../../http/command.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { countDeliveries, listDeliveries } from '../../modules/invitations/repository/deliveries.js';
import { parseInviteInput } from '../../modules/invitations/invite-input.js';
import { resend } from '../../modules/invitations/invitation-mail.js';
import { invite } from '../../modules/invitations/service.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { ConsoleContext } from '../context.js';
import { consolePage } from '../layout.js';
import { parsePage } from '../lists.js';
import { bulkInviteRoutes } from './bulk.js';
import { invitationsBody, type InvitationsState } from './views.js';

const MAIL_PAGE = 50;

export function registerInvitationRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const { db } = c;

  /** The page: the invite form, and the e-mails sent, newest first, 50 a page (`page`), all or of one status (`mail`: sent, failed). */
  async function invitationsPage(
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    state?: InvitationsState,
    status = 200,
    list: { page: number; mail?: 'SENT' | 'FAILED' } = { page: 1 },
  ) {
    const assessments = (await listAssessments(db, [instance.id])).map((a) => ({ id: a.id, name: a.name }));
    const [deliveries, total] = await Promise.all([
      listDeliveries(db, instance.id, { limit: MAIL_PAGE, offset: (list.page - 1) * MAIL_PAGE, status: list.mail }),
      countDeliveries(db, instance.id, list.mail),
    ]);
    const href = (change: { page?: number; mail?: string }) => {
      const mail = 'mail' in change ? change.mail : list.mail?.toLowerCase();
      const page = change.page ?? 1;
      return `/console/invitations?${new URLSearchParams({ instance: instance.name, ...(mail ? { mail } : {}), ...(page > 1 ? { page: String(page) } : {}) })}#mail-heading`;
    };
    const body = invitationsBody(instance.name, assessments, deliveries, {
      csrf: request.consoleUser!.csrfToken,
      canManage: c.may(request, instance, 'manage'),
      state,
      mail: { page: list.page, size: MAIL_PAGE, total, status: list.mail, href },
    });
    return c.render(request, reply, { section: 'invitations', instance }, `Invitations of ${instance.name}`, body, status);
  }

  scope.get<{ Querystring: { instance?: string; page?: string; mail?: string } }>('/console/invitations', async (request, reply) => {
    const { mail } = request.query;
    if (mail !== undefined && mail !== '' && mail !== 'sent' && mail !== 'failed') throw invalidInput([{ in: 'query', name: 'mail', detail: 'must be sent or failed' }]);
    const list = { page: parsePage(request.query.page), mail: mail ? (mail.toUpperCase() as 'SENT' | 'FAILED') : undefined };
    return invitationsPage(request, reply, c.instanceOf(request, request.query.instance, 'names'), undefined, 200, list);
  });

  scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/invitations', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const chosen = body.assessments === undefined ? [] : ([] as string[]).concat(body.assessments);
    const values = { email: text('email').trim(), firstName: text('firstName'), lastName: text('lastName'), assessments: chosen };
    // The rules of POST /v1/invite: its parser, then the same checks of the service.
    const parsed = parseInviteInput({ email: values.email, firstName: values.firstName, lastName: values.lastName, assessments: chosen });
    if (!parsed.ok) return invitationsPage(request, reply, instance, { values, errors: parsed.errors.map((e) => ({ name: e.field, detail: e.message })) }, 400);
    try {
      const input = parsed.value;
      const result = await invite(c.deps.invite, instance.id, input, text('sendInvite') === 'true', commandRequest(request, c.now()), 'console');
      return invitationsPage(request, reply, instance, { result: { ...result, email: input.email } });
    } catch (error) {
      const problem = problemFor(error, request);
      if (problem.status !== 400) throw error;
      return invitationsPage(request, reply, instance, { values, errors: (problem.errors ?? []).map((e) => ({ name: e.name, detail: e.detail })) }, 400);
    }
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/invitations/:id/resend', async (request, reply) => {
    const instance = c.instanceOf(request, request.body?.instance, 'manage');
    if (!/^[1-9]\d{0,17}$/.test(request.params.id)) throw notFound('No such e-mail in this instance');
    const id = await resend(c.deps.invite, instance, request.params.id, commandRequest(request, c.now()));
    const sent = (await listDeliveries(db, instance.id, { limit: 50 })).find((d) => d.id === String(id));
    return invitationsPage(request, reply, instance, {
      resent: sent ? `Sent again to ${sent.recipient}: ${sent.status === 'SENT' ? 'sent' : 'failed'} (${sent.response}).` : 'Sent again.',
    });
  });

  bulkInviteRoutes(scope, { db, now: c.now, page: c.page, consolePage, frameOf: c.frameOf, instanceOf: c.instanceOf });
}
