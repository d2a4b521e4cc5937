import { errorSummary, field } from '../components.js';
import { html, type SafeHtml } from '../../html/html.js';
import { brandOf } from '../../modules/tenants/branding.js';
import type { Instance } from '../../modules/tenants/repository.js';

/** The IANA zones this runtime knows, by region (Europe/Berlin under Europe), UTC first. */
const ZONE_REGIONS = (() => {
  const regions = new Map<string, string[]>();
  for (const zone of Intl.supportedValuesOf('timeZone')) {
    if (zone === 'UTC') continue;
    const region = zone.includes('/') ? zone.slice(0, zone.indexOf('/')) : 'Other';
    regions.set(region, [...(regions.get(region) ?? []), zone]);
  }
  return [...regions].sort(([a], [b]) => a.localeCompare(b));
})();

/** The time zone as a list to choose from, the current one chosen (kept even when this runtime does not know it). */
function timeZoneSelect(attributes: SafeHtml, current: string): SafeHtml {
  const known = current === 'UTC' || ZONE_REGIONS.some(([, zones]) => zones.includes(current));
  const option = (zone: string) => html`<option value="${zone}"${zone === current && html` selected`}>${zone.replaceAll('_', ' ')}</option>`;
  return html`<select${attributes}>${option('UTC')}${!known && current !== '' && option(current)}${ZONE_REGIONS.map(([region, zones]) => html`<optgroup label="${region}">${zones.map(option)}</optgroup>`)}</select>`;
}

/** The portal's accent colour when an instance sets none. */
const DEFAULT_ACCENT = '#0B57D0';

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
  return html`<h1>Settings of ${brand.company}</h1>
${!state.addressesLocked && html`<p><a href="/console/settings/sso?instance=${instance.name}">Single sign-on (OpenID Connect)</a> of this instance</p>`}
${state.saved && html`<p class="info" role="status">Saved.</p>`}
${errorSummary('settings-errors', 'Nothing was saved:', state.errors, SETTINGS_FIELDS)}
<form method="post" action="/console/settings" class="panel settings-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
${field({ id: 'set-portal', name: 'portalUrl', label: 'Portal URL', hint: `Candidate links start with it; empty: the service's own address.${locked ? ' Set by the operator.' : ''}`, errors: state.errors, control: (a) => html`<input type="url"${a} maxlength="500" value="${v.portalUrl ?? ''}" placeholder="https://assessments.example.com"${locked && html` readonly`}>` })}
${field({ id: 'set-ttl', name: 'inviteTtlDays', label: 'Invitation links stay valid for (days)', hint: '1 to 365.', errors: state.errors, control: (a) => html`<input type="number"${a} min="1" max="365" step="1" required value="${v.inviteTtlDays ?? ''}">` })}
${field({ id: 'set-from-name', name: 'mailFromName', label: 'Sender name of invitation e-mail', hint: 'Empty: the display name below.', errors: state.errors, control: (a) => html`<input type="text"${a} maxlength="100" value="${v.mailFromName ?? ''}">` })}
${field({ id: 'set-from-address', name: 'mailFromAddress', label: 'Sender address of invitation e-mail', hint: `Empty: the service's default.${locked ? ' Set by the operator.' : ''}`, errors: state.errors, control: (a) => html`<input type="email"${a} maxlength="254" value="${v.mailFromAddress ?? ''}"${locked && html` readonly`}>` })}
${field({ id: 'set-reminder', name: 'reminderDays', label: 'Remind candidates who have not started (days before expiry)', hint: 'Once, 1 to 60 days before the invitation expires; empty: no reminders.', errors: state.errors, control: (a) => html`<input type="number"${a} min="1" max="60" step="1" value="${v.reminderDays ?? ''}">` })}
${field({ id: 'set-report-days', name: 'reportLinkDays', label: 'Report links for recruiters stay valid for (days)', hint: '1 to 3650.', errors: state.errors, control: (a) => html`<input type="number"${a} min="1" max="3650" step="1" required value="${v.reportLinkDays ?? ''}">` })}
${field({ id: 'set-time-zone', name: 'timeZone', label: 'Time zone', hint: "Of the deadlines in candidates' e-mails.", errors: state.errors, control: (a) => timeZoneSelect(a, v.timeZone || 'UTC') })}
<fieldset>
<legend>What candidates see of the company</legend>
<p class="hint">Candidates now see the company as <strong>${brand.company}</strong>.</p>
${field({ id: 'set-display-name', name: 'displayName', label: 'Display name', hint: 'In the portal, the e-mail and the report; 1 to 100 characters. Empty: the sender name, else the instance name.', errors: state.errors, control: (a) => html`<input type="text"${a} maxlength="100" value="${v.displayName ?? ''}">` })}
${field({
  id: 'set-accent',
  name: 'accentColor',
  label: 'Accent colour',
  hint: 'Buttons and links in the portal; it needs at least 4.5:1 contrast against white to be readable.',
  errors: state.errors,
  control: (a) =>
    html`<span class="colour-choice"><input type="color"${a} value="${v.accentColor || DEFAULT_ACCENT}"><label class="choice"><input type="checkbox" name="accentDefault" id="set-accent-default" value="on"${!v.accentColor && html` checked`}> The default blue</label></span>`,
})}
${field({ id: 'set-support', name: 'supportEmail', label: "Support e-mail for candidates' questions", hint: 'Empty: the sender address, else "contact the company that invited you".', errors: state.errors, control: (a) => html`<input type="email"${a} maxlength="254" value="${v.supportEmail ?? ''}">` })}
${field({ id: 'set-privacy', name: 'privacyUrl', label: 'Privacy notice URL', hint: "Linked in the portal's footer; https://.", errors: state.errors, control: (a) => html`<input type="url"${a} maxlength="500" placeholder="https://example.com/privacy" value="${v.privacyUrl ?? ''}">` })}
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
<label for="set-logo">Logo image</label>
<p class="hint" id="set-logo-hint">A PNG, JPEG or WebP image of at most 200 KB, shown at most 2.5rem high (SVG is not accepted: it can carry scripts).</p>
<input type="file" id="set-logo" name="logo" accept="image/png,image/jpeg,image/webp" aria-describedby="set-logo-hint" required>
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
