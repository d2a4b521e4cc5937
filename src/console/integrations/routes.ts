// The Integrations page of an instance: what to paste into Greenhouse and Ashby (the addresses of
// the adapters and an API key made for each), the instance's Ashby key (owners only: it is a
// credential of the company at Ashby), whether the service e-mails the candidates an ATS sends,
// the newest callbacks to each ATS with a retry, and sending a test to oneself as an ATS would.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, forbidden, invalidInput } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import { html, type SafeHtml } from '../../html/html.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { configurePartner, retryPartnerCallback, startFromPartner } from '../../modules/integrations/commands.js';
import { PARTNERS, listCallbacks, partnerSettings, type CallbackView, type Partner } from '../../modules/integrations/repository.js';
import type { InviteDeps } from '../../modules/invitations/deps.js';
import { createKey } from '../../modules/keys/commands.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { when } from '../format.js';
import type { Frame } from '../layout.js';
import { emptyState, errorSummary, fieldError, invalidAttributes } from '../components.js';

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
}

const LABELS: Record<Partner, string> = { greenhouse: 'Greenhouse', ashby: 'Ashby', workable: 'Workable', hibob: 'HiBob', lever: 'Lever', smartrecruiters: 'SmartRecruiters' };

interface PageState {
  notice?: string;
  /** A refused form (the Ashby key, or a partner's test) and the command's words for its fields. */
  refused?: { form: 'ashby-key' | `${Partner}-test`; errors: { name: string; detail: string }[] };
  /** A key just made for an ATS, shown this once. */
  created?: { partner: Partner; key: string };
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
      settings: Object.fromEntries(PARTNERS.map((p) => [p, { keyHint: settings[p]!.keyHint, sendEmail: settings[p]!.sendEmail }])) as Record<
        Partner,
        { keyHint: string | null; sendEmail: boolean }
      >,
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
    const sendEmail = body.sendEmail === undefined ? undefined : body.sendEmail === 'true';
    try {
      await runCommand(db, commandRequest(request, deps.now()), (ctx) => configurePartner(ctx, { instanceId: instance.id, partner, apiKey, sendEmail }), 'partner_configure');
    } catch (error) {
      return refusedBy(request, reply, instance, 'ashby-key', error);
    }
    return show(request, reply, instance, { notice: `${LABELS[partner]} settings saved.` });
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

function callbackRow(instance: string, csrf: string, c: CallbackView): SafeHtml {
  const answer = c.lastStatus !== null ? `${c.lastStatus}` : (c.lastResponse ?? '-');
  return html`<tr><td data-label="When">${when(c.createdAt)}</td><td data-label="ATS">${LABELS[c.partner]}</td><td data-label="Assessment id"><code>${c.publicId}</code></td><td data-label="Event">${c.event}</td><td data-label="State">${c.status}${c.status === 'pending' && c.nextAttemptAt ? html` (next ${when(c.nextAttemptAt)})` : ''}</td><td data-label="Tries">${c.attempts}</td><td data-label="Last answer">${answer}</td>
<td>${c.status !== 'succeeded' && html`<form method="post" action="/console/integrations/callbacks/${c.id}/retry" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}"><button type="submit">Retry<span class="visually-hidden"> callback ${c.id}</span></button></form>`}</td></tr>`;
}

export function integrationsBody(view: {
  instance: string;
  csrf: string;
  base: string;
  owner: boolean;
  settings: Record<Partner, { keyHint: string | null; sendEmail: boolean }>;
  callbacks: CallbackView[];
  assessments: { id: string; name: string }[];
  email: string;
  state: PageState;
}): SafeHtml {
  const hidden = (partner: Partner) =>
    html`<input type="hidden" name="_csrf" value="${view.csrf}"><input type="hidden" name="instance" value="${view.instance}"><input type="hidden" name="partner" value="${partner}">`;
  const keyButton = (partner: Partner) =>
    html`<form method="post" action="/console/integrations/key" class="inline">${hidden(partner)}<button type="submit">Create an API key for ${LABELS[partner]}</button></form>`;
  const emailSetting = (partner: Partner) => html`<form method="post" action="/console/integrations/settings" class="inline">${hidden(partner)}
<label for="${partner}-send">Candidates ${LABELS[partner]} sends</label>
<select id="${partner}-send" name="sendEmail"><option value="true"${view.settings[partner].sendEmail && html` selected`}>are e-mailed their link by this service</option><option value="false"${!view.settings[partner].sendEmail && html` selected`}>are reached by ${LABELS[partner]}</option></select>
<button type="submit">Save</button></form>`;
  const refused = (form: string) => (view.state.refused?.form === form ? view.state.refused.errors : undefined);
  const testForm = (partner: Partner) => {
    const errors = refused(`${partner}-test`);
    return (
      view.assessments.length > 0 &&
      html`${errorSummary(`${partner}-test-errors`, 'No test was sent:', errors, { assessment: `${partner}-test` })}<form method="post" action="/console/integrations/test" class="inline">${hidden(partner)}
<label for="${partner}-test">Send me a test as ${LABELS[partner]} would</label>
<select id="${partner}-test" name="assessment"${invalidAttributes(errors, 'assessment', `${partner}-test-error`)}>${view.assessments.map((a) => html`<option value="${a.id}">${a.name}</option>`)}</select>
<button type="submit">Send to ${view.email}</button>${fieldError(errors, 'assessment', `${partner}-test-error`)}</form>`
    );
  };
  const keyErrors = refused('ashby-key');
  const created = view.state.created;
  return html`<h1>Integrations of ${view.instance}</h1>
<p>Greenhouse and Ashby call this service directly: paste the addresses and a key below into the ATS, and invitations, progress and results flow with no code. Registering the partner integration with Greenhouse or Ashby is theirs to do; <code>docs/ats.md</code> walks through both sides.</p>
${view.state.notice && html`<p class="info" role="status">${view.state.notice}</p>`}
${
  created &&
  html`<div class="panel" role="status"><p><strong>API key for ${LABELS[created.partner]}.</strong> It is shown this once: paste it into ${LABELS[created.partner]} now.</p><p><code class="secret">${created.key}</code></p></div>`
}
<section class="panel" aria-labelledby="greenhouse">
<h2 id="greenhouse">Greenhouse</h2>
<p>Greenhouse authenticates with HTTP Basic: the API key as the username, no password. Its partner endpoints:</p>
<dl class="facts">
<dt>list_tests</dt><dd><code>${view.base}/partners/greenhouse/list_tests</code></dd>
<dt>send_test</dt><dd><code>${view.base}/partners/greenhouse/send_test</code></dd>
<dt>test_status</dt><dd><code>${view.base}/partners/greenhouse/test_status</code></dd>
<dt>response_error</dt><dd><code>${view.base}/partners/greenhouse/response_error</code></dd>
</dl>
<p>${keyButton('greenhouse')}</p>
<p>${emailSetting('greenhouse')}</p>
<div>${testForm('greenhouse')}</div>
</section>
<section class="panel" aria-labelledby="ashby">
<h2 id="ashby">Ashby</h2>
<p>Ashby calls <code>assessment.list</code>, <code>assessment.start</code> and <code>assessment.cancel</code> under this base URL, with HTTP Basic (the API key as the username):</p>
<p><code>${view.base}/partners/ashby</code></p>
<p>${keyButton('ashby')}</p>
<p>Progress and results go back to Ashby's <code>assessment.update</code>, authenticated by the company's Ashby API key (with the candidatesWrite permission):
${view.settings.ashby.keyHint ? html`<strong>set</strong> (ending in <code>${view.settings.ashby.keyHint}</code>).` : html`<strong>not set</strong>: updates wait until it is.`}</p>
${
  view.owner
    ? html`${errorSummary('ashby-key-errors', 'The Ashby key was not saved:', keyErrors, { apiKey: 'ashby-key' })}<form method="post" action="/console/integrations/settings" class="invite-form">${hidden('ashby')}
<div class="field"><label for="ashby-key">Ashby API key</label><input type="password" id="ashby-key" name="apiKey" autocomplete="off" maxlength="500" required${invalidAttributes(keyErrors, 'apiKey', 'ashby-key-error')}>${fieldError(keyErrors, 'apiKey', 'ashby-key-error')}</div>
<button type="submit" class="primary">Save the Ashby key</button>
</form>
${view.settings.ashby.keyHint && html`<form method="post" action="/console/integrations/settings" class="inline confirm" data-confirm="Remove the Ashby key? Updates to Ashby wait until a key is set again.">${hidden('ashby')}<input type="hidden" name="removeKey" value="1"><button type="submit">Remove the Ashby key</button></form>`}`
    : html`<p class="hint">Only an owner (or the operator) may set it.</p>`
}
<p>${emailSetting('ashby')}</p>
<div>${testForm('ashby')}</div>
</section>
<section class="panel" aria-labelledby="callbacks">
<h2 id="callbacks">Latest callbacks</h2>
${
  view.callbacks.length === 0
    ? emptyState('No callbacks yet.', 'A callback is made when a candidate an ATS sent starts, finishes, is scored, or is withdrawn.')
    : html`<table class="data"><thead><tr><th scope="col">When</th><th scope="col">ATS</th><th scope="col">Assessment id</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Tries</th><th scope="col">Last answer</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${view.callbacks.map((c) => callbackRow(view.instance, view.csrf, c))}</tbody></table>`
}
</section>`;
}
