// The Integrations page of an instance: what to paste into each ATS (the addresses of the adapters
// and an API key made for those that call with one), the company's credentials at the ATS (owners
// only: the Ashby key, Workable's token, HiBob's, Lever's and SmartRecruiters' secrets), whether the
// service e-mails the candidates an ATS sends, the newest callbacks to each ATS with a retry, and
// sending a test to oneself as an ATS would. The markup is views.ts and connect.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, forbidden, invalidInput } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import type { SafeHtml } from '../../html/html.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { configurePartner, retryPartnerCallback, startFromPartner } from '../../modules/integrations/commands.js';
import { PARTNERS, failedCallbacks, listCallbacks, partnerSettings, type Partner } from '../../modules/integrations/repository.js';
import type { InviteDeps } from '../../modules/invitations/deps.js';
import { createKey } from '../../modules/keys/commands.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { Frame } from '../layout.js';
import { CONNECTED, formValues, type Connected } from './connect.js';
import { LABELS, integrationsBody, type PageState } from './views.js';

export interface IntegrationPageDeps {
  db: Database;
  invite: InviteDeps;
  publicUrl: string;
  now: () => Date;
  keyDeps: Parameters<typeof createKey>[1];
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml;
  frameOf(request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame;
  instanceOf(request: FastifyRequest, name: unknown, permission: 'manage'): Instance;
  /** What the ATS's adapter does once settings are saved (HiBob publishes the packages): a sentence saying how it went. */
  partnerConnected?: (partner: Partner, instanceId: string) => Promise<string | undefined>;
}

export function integrationsRoutes(scope: FastifyInstance, deps: IntegrationPageDeps): void {
  const { db } = deps;
  const base = deps.publicUrl.replace(/\/+$/, '');
  const isOwner = (request: FastifyRequest) => request.consoleUser!.user.role === 'owner';
  const partnerOf = (value: unknown): Partner => {
    const found = PARTNERS.find((p) => p === value);
    if (!found) throw invalidInput([{ in: 'body', name: 'partner', detail: `must be one of ${PARTNERS.join(', ')}` }]);
    return found;
  };

  /** The page again with a form's refusals beside its fields (400); other errors go on. */
  const refusedBy = (request: FastifyRequest, reply: FastifyReply, instance: Instance, form: NonNullable<PageState['refused']>['form'], error: unknown) => {
    if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'not-found')) throw error;
    // The invite command names the assessment as the first of a list (assessments.0): the form has one.
    const named = (name: string) => (name.startsWith('assessments') ? 'assessment' : name);
    const errors = error.code === 'invalid' ? (error.fields ?? []).map((f) => ({ name: named(f.name), detail: f.detail })) : [{ name: 'assessment', detail: error.message }];
    return show(request, reply, instance, { refused: { form, errors } }, 400);
  };

  async function show(request: FastifyRequest, reply: FastifyReply, instance: Instance, state: PageState = {}, status = 200) {
    const settings = Object.fromEntries(await Promise.all(PARTNERS.map(async (p) => [p, await partnerSettings(db, instance.id, p)] as const)));
    const callbacks = await listCallbacks(db, instance.id, 20);
    const assessments = await listAssessments(db, [instance.id]);
    const body = integrationsBody({
      instance: instance.name,
      csrf: request.consoleUser!.csrfToken,
      base,
      owner: isOwner(request),
      settings: Object.fromEntries(
        PARTNERS.map((p) => [p, { keyHint: settings[p]!.keyHint, sendEmail: settings[p]!.sendEmail, secretHints: settings[p]!.secretHints, options: settings[p]!.options }]),
      ) as Parameters<typeof integrationsBody>[0]['settings'],
      failed: await failedCallbacks(db, instance.id, new Date(deps.now().getTime() - 30 * 24 * 3600_000)),
      callbacks,
      assessments: assessments.map((a) => ({ id: a.id, name: a.name })),
      email: request.consoleUser!.user.email,
      state,
    });
    return deps.page(reply, deps.consolePage(deps.frameOf(request, 'integrations', instance), `Integrations of ${instance.name}`, body), status);
  }

  scope.get<{ Querystring: { instance?: string } }>('/console/integrations', async (request, reply) =>
    show(request, reply, deps.instanceOf(request, request.query.instance, 'manage')),
  );

  scope.post<{ Body: Record<string, string | undefined> }>('/console/integrations/key', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const partner = partnerOf(body.partner);
    const made = await runCommand(
      db,
      commandRequest(request, deps.now()),
      (ctx) => createKey(ctx, deps.keyDeps, { instances: [instance.name], label: LABELS[partner] }),
      'key_create',
    );
    return show(request, reply, instance, { created: { partner, key: made.key } });
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/integrations/settings', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const partner = partnerOf(body.partner);
    const apiKey = body.apiKey === undefined || body.apiKey.trim() === '' ? (body.removeKey === '1' ? null : undefined) : body.apiKey;
    // The company's credential at the ATS is an owner's to set, like the addresses mail comes from.
    if (apiKey !== undefined && !isOwner(request)) throw forbidden(`Only an owner (or the operator) may set the instance's ${LABELS[partner]} API key`);
    const { secrets, options } = CONNECTED.includes(partner as Connected) ? formValues(partner as Connected, body) : {};
    if ((secrets || options) && !isOwner(request)) throw forbidden(`Only an owner (or the operator) may connect ${LABELS[partner]}`);
    const sendEmail = body.sendEmail === undefined ? undefined : body.sendEmail === 'true';
    try {
      await runCommand(
        db,
        commandRequest(request, deps.now()),
        (ctx) => configurePartner(ctx, { instanceId: instance.id, partner, apiKey, sendEmail, secrets, options }),
        'partner_configure',
      );
    } catch (error) {
      return refusedBy(request, reply, instance, partner === 'ashby' ? 'ashby-key' : `${partner}-connect`, error);
    }
    const note = secrets || options ? await deps.partnerConnected?.(partner, instance.id) : undefined;
    return show(request, reply, instance, { notice: `${LABELS[partner]} settings saved.${note ? ` ${note[0]!.toUpperCase()}${note.slice(1)}.` : ''}` });
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/integrations/callbacks/:id/retry', async (request, reply) => {
    const instance = deps.instanceOf(request, request.body?.instance, 'manage');
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => retryPartnerCallback(ctx, { instanceId: instance.id, callbackId: request.params.id }), 'partner_retry');
    return show(request, reply, instance, { notice: `Callback ${request.params.id} will be sent again.` });
  });

  // A test sent to oneself as the ATS would send it: the same command as the adapter's (an
  // invitation with the ATS as its source, e-mailed when the instance e-mails), with no callback.
  scope.post<{ Body: Record<string, string | undefined> }>('/console/integrations/test', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const partner = partnerOf(body.partner);
    const user = request.consoleUser!.user;
    let started;
    try {
      started = await startFromPartner(deps.invite, commandRequest(request, deps.now()), {
        instanceId: instance.id,
        partner,
        requestKey: `console-test\n${user.email}\n${body.assessment ?? ''}\n${deps.now().toISOString()}`,
        assessment: body.assessment ?? '',
        candidate: { email: user.email, firstName: 'Test', lastName: `(${LABELS[partner]})` },
        callbackUrl: null,
        external: { test: true, sentBy: user.email },
        events: [],
        repeated: 'same',
      });
    } catch (error) {
      return refusedBy(request, reply, instance, `${partner}-test`, error);
    }
    const mailed =
      started.emailed === 'SENT'
        ? `e-mailed to ${user.email}`
        : started.emailed === 'FAILED'
          ? 'the e-mail failed (see Deliveries)'
          : 'not e-mailed (the instance leaves that to the ATS)';
    return show(request, reply, instance, { notice: `Test sent as ${LABELS[partner]} would send it (${started.link.publicId}): ${mailed}.` });
  });
}
