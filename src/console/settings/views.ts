import { errorSummary, fieldError, invalidAttributes } from '../components.js';
import { html, type SafeHtml } from '../../html/html.js';
import { brandOf } from '../../modules/tenants/branding.js';
import type { Instance } from '../../modules/tenants/repository.js';

/** The IANA zones this runtime knows, offered while typing the instance's time zone. */
const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

/** Each setting's control, for the error summary's links. */
const SETTINGS_FIELDS: Record<string, string> = {
  portalUrl: 'set-portal',
  inviteTtlDays: 'set-ttl',
  mailFromName: 'set-from-name',
  mailFromAddress: 'set-from-address',
  reminderDays: 'set-reminder',
  reportLinkDays: 'set-report-days',
  timeZone: 'set-time-zone',
  displayName: 'set-display-name',
  accentColor: 'set-accent',
  supportEmail: 'set-support',
  privacyUrl: 'set-privacy',
};

export function settingsBody(
  instance: Pick<
    Instance,
    | 'name'
    | 'portalUrl'
    | 'inviteTtlDays'
    | 'mailFromName'
    | 'mailFromAddress'
    | 'reminderDays'
    | 'reportLinkDays'
    | 'timeZone'
    | 'displayName'
    | 'accentColor'
    | 'supportEmail'
    | 'privacyUrl'
    | 'logoSha256'
  >,
  csrf: string,
  state: { saved?: boolean; errors?: { name: string; detail: string }[]; values?: Record<string, string>; addressesLocked?: boolean; reviews?: SafeHtml } = {},
): SafeHtml {
  // The portal URL and the sender address are the operator's (and owners') to set: read-only to managers.
  const locked = state.addressesLocked === true;
  const v = state.values ?? {
    portalUrl: instance.portalUrl ?? '',
    inviteTtlDays: String(instance.inviteTtlDays),
    mailFromName: instance.mailFromName ?? '',
    mailFromAddress: instance.mailFromAddress ?? '',
    reminderDays: instance.reminderDays === null ? '' : String(instance.reminderDays),
    reportLinkDays: String(instance.reportLinkDays),
    timeZone: instance.timeZone,
    displayName: instance.displayName ?? '',
    accentColor: instance.accentColor ?? '',
    supportEmail: instance.supportEmail ?? '',
    privacyUrl: instance.privacyUrl ?? '',
  };
  const brand = brandOf(instance);
  return html`<h1>Settings of ${instance.name}</h1>
${!state.addressesLocked && html`<p><a href="/console/settings/sso?instance=${instance.name}">Single sign-on (OpenID Connect)</a> of this instance</p>`}
${state.saved && html`<p class="info" role="status">Saved.</p>`}
${errorSummary('settings-errors', 'Nothing was saved:', state.errors, SETTINGS_FIELDS)}
<form method="post" action="/console/settings" class="panel settings-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
<label for="set-portal">Portal URL (candidate links start with it; empty: the service's own address)${locked && ' — set by the operator'}</label>
<input type="url" id="set-portal" name="portalUrl" maxlength="500" value="${v.portalUrl ?? ''}" placeholder="https://assessments.example.com"${locked && html` readonly`}${invalidAttributes(state.errors, 'portalUrl', 'set-portal-error')}>${fieldError(state.errors, 'portalUrl', 'set-portal-error')}
<label for="set-ttl">Invitation links stay valid for (days, 1-365)</label>
<input type="number" id="set-ttl" name="inviteTtlDays" min="1" max="365" step="1" required value="${v.inviteTtlDays ?? ''}"${invalidAttributes(state.errors, 'inviteTtlDays', 'set-ttl-error')}>${fieldError(state.errors, 'inviteTtlDays', 'set-ttl-error')}
<label for="set-from-name">Sender name of invitation e-mail (empty: the display name below)</label>
<input type="text" id="set-from-name" name="mailFromName" maxlength="100" value="${v.mailFromName ?? ''}"${invalidAttributes(state.errors, 'mailFromName', 'set-from-name-error')}>${fieldError(state.errors, 'mailFromName', 'set-from-name-error')}
<label for="set-from-address">Sender address of invitation e-mail (empty: the service default)${locked && ' — set by the operator'}</label>
<input type="email" id="set-from-address" name="mailFromAddress" maxlength="254" value="${v.mailFromAddress ?? ''}"${locked && html` readonly`}${invalidAttributes(state.errors, 'mailFromAddress', 'set-from-address-error')}>${fieldError(state.errors, 'mailFromAddress', 'set-from-address-error')}
<label for="set-reminder">Remind candidates who have not started this many days before their invitation expires, once (1-60; empty: no reminders)</label>
<input type="number" id="set-reminder" name="reminderDays" min="1" max="60" step="1" value="${v.reminderDays ?? ''}"${invalidAttributes(state.errors, 'reminderDays', 'set-reminder-error')}>${fieldError(state.errors, 'reminderDays', 'set-reminder-error')}
<label for="set-report-days">Report links for recruiters stay valid for (days, 1-3650)</label>
<input type="number" id="set-report-days" name="reportLinkDays" min="1" max="3650" step="1" required value="${v.reportLinkDays ?? ''}"${invalidAttributes(state.errors, 'reportLinkDays', 'set-report-days-error')}>${fieldError(state.errors, 'reportLinkDays', 'set-report-days-error')}
<label for="set-time-zone">Time zone of deadlines in candidates' e-mails (a name such as Europe/Berlin or America/New_York; empty: UTC)</label>
<input type="text" id="set-time-zone" name="timeZone" maxlength="64" list="time-zones" value="${v.timeZone ?? ''}" autocomplete="off"${invalidAttributes(state.errors, 'timeZone', 'set-time-zone-error')}>${fieldError(state.errors, 'timeZone', 'set-time-zone-error')}
<datalist id="time-zones">${TIME_ZONES.map((zone) => html`<option value="${zone}">`)}</datalist>
<fieldset>
<legend>What candidates see of the company</legend>
<p class="hint">Candidates now see the company as <strong>${brand.company}</strong>.</p>
<label for="set-display-name">Display name, in the portal, the e-mail and the report (1-100 characters; empty: the sender name, else the instance name)</label>
<input type="text" id="set-display-name" name="displayName" maxlength="100" value="${v.displayName ?? ''}"${invalidAttributes(state.errors, 'displayName', 'set-display-name-error')}>${fieldError(state.errors, 'displayName', 'set-display-name-error')}
<label for="set-accent">Accent colour, #RRGGBB (at least 4.5:1 contrast against white; empty: the default blue)</label>
<input type="text" id="set-accent" name="accentColor" maxlength="7" pattern="#[0-9A-Fa-f]{6}" placeholder="#0B57D0" value="${v.accentColor ?? ''}"${invalidAttributes(state.errors, 'accentColor', 'set-accent-error')}>${fieldError(state.errors, 'accentColor', 'set-accent-error')}
<label for="set-support">Support e-mail for candidates' questions (empty: the sender address, else "contact the company that invited you")</label>
<input type="email" id="set-support" name="supportEmail" maxlength="254" value="${v.supportEmail ?? ''}"${invalidAttributes(state.errors, 'supportEmail', 'set-support-error')}>${fieldError(state.errors, 'supportEmail', 'set-support-error')}
<label for="set-privacy">Privacy notice URL, linked in the portal's footer (https://)</label>
<input type="url" id="set-privacy" name="privacyUrl" maxlength="500" placeholder="https://example.com/privacy" value="${v.privacyUrl ?? ''}"${invalidAttributes(state.errors, 'privacyUrl', 'set-privacy-error')}>${fieldError(state.errors, 'privacyUrl', 'set-privacy-error')}
</fieldset>
<p><button type="submit" class="primary">Save settings</button></p>
</form>
${state.reviews}
<section class="panel" aria-labelledby="logo-heading">
<h2 id="logo-heading">Logo</h2>
${brand.logoPath ? html`<p><img class="logo-preview" src="${brand.logoPath}" alt="The current logo of ${brand.company}"></p>` : html`<p>No logo: the portal's header shows the display name as text.</p>`}
<form method="post" action="/console/settings/logo" enctype="multipart/form-data" class="settings-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
<label for="set-logo">A PNG, JPEG or WebP image of at most 200 KB, shown at most 2.5rem high (SVG is not accepted: it can carry scripts)</label>
<input type="file" id="set-logo" name="logo" accept="image/png,image/jpeg,image/webp" required>
<p><button type="submit">Upload logo</button></p>
</form>
${
  brand.logoPath &&
  html`<form method="post" action="/console/settings/logo/remove" class="inline">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
<button type="submit">Remove the logo</button>
</form>`
}
</section>`;
}
