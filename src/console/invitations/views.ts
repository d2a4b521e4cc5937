import { when } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import { emptyState, errorSummary, fieldError, invalidAttributes, optionSearch, pager } from '../components.js';

export interface InvitationsState {
  values?: { email?: string; firstName?: string; lastName?: string; assessments?: string[] };
  errors?: { name: string; detail: string }[];
  result?: { link: string; candidateId: string; invitationStatus?: string; email: string };
  resent?: string;
}

export function invitationsBody(
  instance: string,
  assessments: { id: string; name: string }[],
  deliveries: { id: string; candidateId: string; recipient: string; status: string; response: string; attemptedAt: Date }[],
  options: {
    csrf: string;
    canManage: boolean;
    state?: InvitationsState;
    /** The e-mails' page, status shown, and links to another. */
    mail?: { page: number; size: number; total: number; status?: 'SENT' | 'FAILED'; href: (change: { page?: number; mail?: string }) => string };
  },
): SafeHtml {
  const state = options.state ?? {};
  const mail = options.mail;
  const v = state.values ?? {};
  const form =
    options.canManage &&
    html`<section class="panel" aria-labelledby="invite-heading">
<h2 id="invite-heading">Invite a candidate</h2>
<p><a href="/console/invite/bulk?instance=${encodeURIComponent(instance)}" id="bulk-invite-link">Invite many from a CSV file</a></p>
${
  state.result &&
  html`<div class="info" role="status"><p>Invited ${state.result.email}${state.result.invitationStatus === 'SENT' ? ': the invitation e-mail is on its way' : state.result.invitationStatus === 'FAILED' ? ': the invitation e-mail could not be sent, send them the link below' : ''}. <a href="/console/candidates/${state.result.candidateId}?instance=${instance}">Open their report</a>.</p>
<p>Their link, if you send it yourself: <code class="secret">${state.result.link}</code></p></div>`
}
${errorSummary('invite-errors', 'Nothing was sent:', state.errors, { email: 'inv-email', firstName: 'inv-first', lastName: 'inv-last', assessments: 'inv-assessments' })}
<form method="post" action="/console/invitations" class="invite-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${instance}">
<div class="field"><label for="inv-email">E-mail</label><input type="email" id="inv-email" name="email"${invalidAttributes(state.errors, 'email', 'inv-email-error')} required maxlength="254" value="${v.email ?? ''}" autocomplete="off">${fieldError(state.errors, 'email', 'inv-email-error')}</div>
<div class="field"><label for="inv-first">First name</label><input type="text" id="inv-first" name="firstName"${invalidAttributes(state.errors, 'firstName', 'inv-first-error')} required maxlength="100" value="${v.firstName ?? ''}" autocomplete="off">${fieldError(state.errors, 'firstName', 'inv-first-error')}</div>
<div class="field"><label for="inv-last">Last name</label><input type="text" id="inv-last" name="lastName"${invalidAttributes(state.errors, 'lastName', 'inv-last-error')} required maxlength="100" value="${v.lastName ?? ''}" autocomplete="off">${fieldError(state.errors, 'lastName', 'inv-last-error')}</div>
<fieldset><legend>Assessments</legend>
${fieldError(state.errors, 'assessments', 'inv-assessments-error')}${optionSearch('inv-assessments', assessments.length)}<div class="option-list" id="inv-assessments">${assessments.map(
      (a) =>
        html`<div class="option"><input type="checkbox" id="inv-a-${a.id}" name="assessments" value="${a.id}"${(v.assessments ?? []).includes(a.id) && html` checked`}><label for="inv-a-${a.id}">${a.name}</label></div>`,
    )}</div>
</fieldset>
<div class="option"><input type="checkbox" id="inv-send" name="sendInvite" value="true" checked><label for="inv-send">E-mail the invitation to the candidate</label></div>
<button type="submit" class="primary">Invite</button>
</form>
</section>`;
  return html`<h1>Invitations of ${instance}</h1>
${form}
<div class="section-header"><h2 id="mail-heading">Invitation e-mails</h2>${
    mail &&
    html`<nav class="actions" aria-label="Which e-mails">${(
      [
        ['', 'All'],
        ['sent', 'Sent'],
        ['failed', 'Failed'],
      ] as const
    ).map(
      ([value, label]) =>
        html`<a class="button" href="${mail.href({ mail: value })}"${(mail.status?.toLowerCase() ?? '') === value ? html` aria-current="page"` : html``}>${label}</a>`,
    )}</nav>`
  }</div>
${state.resent && html`<p class="info" role="status">${state.resent}</p>`}
${
  deliveries.length === 0
    ? emptyState(
        mail && mail.total > 0 ? 'This page is past the last one.' : mail?.status === 'FAILED' ? 'No e-mail has failed.' : 'No e-mail has been sent yet.',
        mail && mail.total > 0
          ? html`<a href="${mail.href({ page: 1 })}">Go to the first page</a>.`
          : options.canManage
            ? 'Invite a candidate above and tick "E-mail the invitation" to send one.'
            : 'An owner or a manager invites candidates.',
      )
    : html`<table class="data"><caption class="visually-hidden">Invitation e-mails, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">The relay said</th>${options.canManage && html`<th scope="col">Action</th>`}</tr></thead>
<tbody>${deliveries.map(
        (
          d,
        ) => html`<tr><td data-label="When">${when(d.attemptedAt)}</td><td data-label="To"><a href="/console/candidates/${d.candidateId}?instance=${instance}">${d.recipient}</a></td>
<td data-label="Status">${d.status === 'SENT' ? 'sent' : html`<span class="flag">failed</span>`}</td><td data-label="The relay said">${d.response}</td>
${options.canManage && html`<td><form method="post" action="/console/invitations/${d.id}/resend" class="inline"><input type="hidden" name="_csrf" value="${options.csrf}"><input type="hidden" name="instance" value="${instance}"><button type="submit">Resend<span class="visually-hidden"> to ${d.recipient}</span></button></form></td>`}</tr>`,
      )}</tbody></table>`
}
${mail && pager({ page: mail.page, size: mail.size, total: mail.total, noun: 'e-mails', href: (page) => mail.href({ page }) })}`;
}
