// The Integrations page's sections of the ATSs an owner connects with credentials of their own
// (Workable, HiBob, Lever, SmartRecruiters): what to paste into the ATS, whether the instance is
// connected (the last four characters of each secret, never more), and the form that connects it.
import { html, type SafeHtml } from '../../html/html.js';
import type { Partner } from '../../modules/integrations/repository.js';
import { errorSummary, fieldError, invalidAttributes } from '../components.js';

export type Connected = Exclude<Partner, 'greenhouse' | 'ashby'>;
export const CONNECTED: Connected[] = ['workable', 'smartrecruiters', 'hibob', 'lever'];

interface Field {
  name: string;
  label: string;
  /** A secret (sealed, shown by its last four characters) or a setting that is no secret. */
  secret: boolean;
}

interface Description {
  /** What the customer pastes into the ATS: label and address under the service's base. */
  paste: [string, string][];
  /** How the ATS authenticates its calls to us. */
  inbound: string;
  /** Whether the ATS calls with an API key of the instance (a button makes one). */
  apiKey: boolean;
  fields: Field[];
  /** Where our calls back go. */
  outbound: string;
}

export const DESCRIPTIONS: Record<Connected, Description> = {
  workable: {
    paste: [['Base URL (tests, assessments)', '/partners/workable']],
    inbound: 'Workable sends an API key of this instance as a Bearer token: make one below and paste it into Workable.',
    apiKey: true,
    fields: [{ name: 'token', label: 'Workable token (the one Workable issued for results)', secret: true }],
    outbound: "Results are PUT to the callback_url of each assessment, with Workable's token.",
  },
  smartrecruiters: {
    paste: [['Base URL (packages, orders)', '/partners/smartrecruiters']],
    inbound: 'SmartRecruiters sends an API key of this instance as a Bearer token: make one below and give it to SmartRecruiters.',
    apiKey: true,
    fields: [
      { name: 'clientId', label: 'SmartRecruiters client id', secret: false },
      { name: 'clientSecret', label: 'SmartRecruiters client secret', secret: true },
    ],
    outbound: "Status and results go under each order, with a token from SmartRecruiters' OAuth endpoint for this client.",
  },
  hibob: {
    paste: [['Webhook URL (assessment.triggered, assessment.cancelled)', '/partners/hibob/events']],
    inbound: 'Bob signs its events (Bob-Signature) with the webhook secret below; the company id says which company they are of.',
    apiKey: false,
    fields: [
      { name: 'companyId', label: 'HiBob company id', secret: false },
      { name: 'accessToken', label: 'Access token for Bob’s API', secret: true },
      { name: 'webhookSecret', label: 'Webhook signing secret', secret: true },
    ],
    outbound: "Saving publishes this instance's assessments to Bob as the company's packages; status and results are PATCHed to Bob's assessment.",
  },
  lever: {
    paste: [['Webhook URL (candidate stage change; candidate archive state change)', '/partners/lever/webhook']],
    inbound: "Lever signs each webhook with the webhook's signature token, given below.",
    apiKey: false,
    fields: [
      { name: 'apiKey', label: 'Lever API key (reads the opportunity, writes notes)', secret: true },
      { name: 'signatureToken', label: 'Webhook signature token', secret: true },
      { name: 'stage', label: 'Stage id that invites the candidate', secret: false },
      { name: 'assessment', label: 'Assessment id the stage invites to', secret: false },
    ],
    outbound: 'The start, the result (with the report link and its PDF) and a withdrawal are notes on the opportunity.',
  },
};

/** The form's name of a field: `secret_<name>` or `option_<name>`. */
export const inputName = (field: Field) => `${field.secret ? 'secret' : 'option'}_${field.name}`;
/** The command's name of a field (its refusals are named so). */
const commandName = (field: Field) => `${field.secret ? 'secrets' : 'options'}.${field.name}`;

/** A form's secrets and settings: the fields given (blank ones kept as they are). */
export function formValues(partner: Connected, body: Record<string, string | undefined>): { secrets?: Record<string, string>; options?: Record<string, string> } {
  const pick = (secret: boolean) => {
    const given = DESCRIPTIONS[partner].fields.filter((f) => f.secret === secret && (body[inputName(f)] ?? '').trim() !== '');
    return given.length > 0 ? Object.fromEntries(given.map((f) => [f.name, body[inputName(f)]!])) : undefined;
  };
  return { secrets: pick(true), options: pick(false) };
}

export interface SectionView {
  partner: Connected;
  label: string;
  base: string;
  owner: boolean;
  settings: { secretHints: Record<string, string>; options: Record<string, string> };
  /** The hidden fields of every form of this section. */
  hidden: SafeHtml;
  keyButton: SafeHtml | false;
  emailSetting: SafeHtml;
  testForm: SafeHtml | false;
  /** The refusals of this section's connect form, if it was just refused. */
  errors?: { name: string; detail: string }[];
  /** The newest callback to this ATS and how many of the shown ones failed. */
  lastCallback?: { status: string; at: string; failed: number };
}

export function connectSection(view: SectionView): SafeHtml {
  const d = DESCRIPTIONS[view.partner];
  const id = (f: Field) => `${view.partner}-${f.name}`;
  const connected = d.fields.every((f) => (f.secret ? view.settings.secretHints[f.name] : view.settings.options[f.name]));
  const state = d.fields.map((f) =>
    f.secret
      ? view.settings.secretHints[f.name]
        ? html`<dt>${f.label}</dt><dd>set (ending in <code>${view.settings.secretHints[f.name]}</code>)</dd>`
        : html`<dt>${f.label}</dt><dd>not set</dd>`
      : html`<dt>${f.label}</dt><dd>${view.settings.options[f.name] ? html`<code>${view.settings.options[f.name]}</code>` : 'not set'}</dd>`,
  );
  const fields = Object.fromEntries(d.fields.map((f) => [commandName(f), id(f)]));
  const form = view.owner
    ? html`${errorSummary(`${view.partner}-connect-errors`, `${view.label} was not connected:`, view.errors, fields)}<form method="post" action="/console/integrations/settings" class="invite-form">${view.hidden}
${d.fields.map(
  (f) =>
    html`<div class="field"><label for="${id(f)}">${f.label}</label><input type="${f.secret ? 'password' : 'text'}" id="${id(f)}" name="${inputName(f)}" autocomplete="off" maxlength="${f.secret ? 500 : 200}"${!connected && html` required`}${invalidAttributes(view.errors, commandName(f), `${id(f)}-error`)}>${fieldError(view.errors, commandName(f), `${id(f)}-error`)}</div>`,
)}
<p class="hint">${connected ? 'Leave a field blank to keep what is set.' : 'Every field is needed once; secrets are stored encrypted and never shown again.'}</p>
<button type="submit" class="primary">${connected ? `Save the ${view.label} settings` : `Connect ${view.label}`}</button>
</form>`
    : html`<p class="hint">Only an owner (or the operator) may connect ${view.label}.</p>`;
  return html`<section class="panel" aria-labelledby="${view.partner}">
<h2 id="${view.partner}">${view.label} <span class="badge">${connected ? 'connected' : 'not connected'}</span></h2>
<p>${d.inbound}</p>
<dl class="facts">${d.paste.map(([label, path]) => html`<dt>${label}</dt><dd><code>${view.base}${path}</code></dd>`)}</dl>
${view.keyButton && html`<p>${view.keyButton}</p>`}
<p>${d.outbound}</p>
${view.lastCallback && html`<p>Last callback: ${view.lastCallback.status} (${view.lastCallback.at}); ${view.lastCallback.failed} failed of those below.</p>`}
<dl class="facts">${state}</dl>
${form}
<p>${view.emailSetting}</p>
<div>${view.testForm}</div>
</section>`;
}
