// The markup of the Integrations page: what to paste into each ATS, the keys and credentials an
// owner sets (never shown again: only their last four characters), the e-mail setting, a test sent
// as the ATS would, and the newest callbacks to each ATS with a retry.
import { html, type SafeHtml } from '../../html/html.js';
import type { CallbackView, Partner } from '../../modules/integrations/repository.js';
import { emptyState, errorSummary, fieldError, invalidAttributes } from '../components.js';
import { ATS_LABELS, when } from '../format.js';
import { CONNECTED, connectSection } from './connect.js';

export const LABELS: Record<Partner, string> = ATS_LABELS;

export interface PageState {
  notice?: string;
  /** A refused form (the Ashby key, an ATS's connection, or a partner's test) and the command's words for its fields. */
  refused?: { form: 'ashby-key' | `${Partner}-connect` | `${Partner}-test`; errors: { name: string; detail: string }[] };
  /** A key just made for an ATS, shown this once. */
  created?: { partner: Partner; key: string };
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
  settings: Record<Partner, { keyHint: string | null; sendEmail: boolean; secretHints: Record<string, string>; options: Record<string, string> }>;
  /** Callbacks that failed for good in the last 30 days. */
  failed: number;
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
<p>Greenhouse, Ashby, Workable, SmartRecruiters, HiBob and Lever call this service directly: paste the addresses and a key below into the ATS, and invitations, progress and results flow with no code. Registering the partner integration with each ATS is theirs to do; <code>docs/ats.md</code> walks through both sides.</p>
${view.failed > 0 && html`<p class="error" role="status">${view.failed} callback${view.failed === 1 ? '' : 's'} to an ATS failed in the last 30 days: see Latest callbacks, and retry once the ATS is fixed.</p>`}
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
${CONNECTED.map((partner) => {
  const mine = view.callbacks.filter((c) => c.partner === partner);
  return connectSection({
    partner,
    label: LABELS[partner],
    base: view.base,
    owner: view.owner,
    settings: view.settings[partner],
    hidden: hidden(partner),
    keyButton: partner === 'workable' || partner === 'smartrecruiters' ? keyButton(partner) : false,
    emailSetting: emailSetting(partner),
    testForm: testForm(partner),
    errors: refused(`${partner}-connect`),
    ...(mine[0] ? { lastCallback: { status: mine[0].status, at: when(mine[0].createdAt), failed: mine.filter((c) => c.status === 'failed').length } } : {}),
  });
})}
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
