import { when } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import { emptyState, errorSummary, fieldError, invalidAttributes } from '../components.js';
import { FAILURE_CATEGORIES } from '../../modules/webhooks/post.js';

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  disabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
}

/**
 * What a tenant is shown of an attempt: `HTTP <status>`, or the category of a failure without an
 * answer; never a system message (attempts recorded before categories were are shown as
 * "connection failed"), which can name the service's internal hosts and addresses.
 */
function webhookAnswer(a: { statusCode: number | null; response: string }): string {
  if (a.statusCode !== null) return `HTTP ${a.statusCode}`;
  return (FAILURE_CATEGORIES as readonly string[]).includes(a.response) ? a.response : 'connection failed';
}

export function webhooksBody(
  instance: string,
  endpoints: WebhookEndpointView[],
  attempts: Record<string, { type: string; at: Date; statusCode: number | null; durationMs: number; deliveryStatus: string; response: string }[]>,
  eventTypes: readonly string[],
  csrf: string,
  state: { created?: { id: string; secret: string }; errors?: { name: string; detail: string }[]; notice?: string; values?: { url: string; events: string[] } } = {},
): SafeHtml {
  const hidden = html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">`;
  return html`<h1>Webhooks of ${instance}</h1>
<p>Events are POSTed to each endpoint, signed by the Standard Webhooks scheme; see <code>docs/webhooks.md</code> for a receiver.</p>
${state.notice && html`<p class="info" role="status">${state.notice}</p>`}
${
  state.created &&
  html`<div class="panel" role="status"><p><strong>Endpoint ${state.created.id}.</strong> Its signing secret is shown this once: store it with the receiver.</p><p><code class="secret">${state.created.secret}</code></p></div>`
}
${errorSummary('hook-errors', 'No endpoint was made:', state.errors, { url: 'hook-url', events: `hook-e-${eventTypes[0]}` })}
<section class="panel" aria-labelledby="new-endpoint">
<h2 id="new-endpoint">Add an endpoint</h2>
<form method="post" action="/console/webhooks" class="invite-form">
${hidden}
<div class="field"><label for="hook-url">URL</label><input type="url" id="hook-url" name="url" required maxlength="2000" placeholder="https://ats.example.com/hooks" value="${state.values?.url ?? ''}"${invalidAttributes(state.errors, 'url', 'hook-url-error')}>${fieldError(state.errors, 'url', 'hook-url-error')}</div>
<fieldset${invalidAttributes(state.errors, 'events', 'hook-events-error')}><legend>Events (none chosen: every event)</legend>
${fieldError(state.errors, 'events', 'hook-events-error')}
${eventTypes.map((t) => html`<div class="option"><input type="checkbox" id="hook-e-${t}" name="events" value="${t}"${state.values?.events.includes(t) ? html` checked` : html``}><label for="hook-e-${t}">${t}</label></div>`)}
</fieldset>
<button type="submit" class="primary">Add the endpoint</button>
</form>
</section>
${endpoints.length === 0 && emptyState('No endpoint yet.', 'Add the address of a receiver above: it gets every event of this instance (or those you tick), signed, and retried when it fails.')}
${endpoints.map(
  (e) => html`<section class="panel" aria-labelledby="ep-${e.id}">
<h2 id="ep-${e.id}">${e.url}</h2>
<p class="hint">${e.id} · ${e.events.length === 0 ? 'every event' : e.events.join(', ')}</p>
<p>${
    e.disabled
      ? html`<span class="flag">Disabled</span>: ${e.disabledReason ?? ''}`
      : e.failingSince
        ? html`<span class="flag">Failing</span> since ${when(e.failingSince)} (disabled after 5 days of failures)`
        : 'Delivering'
  }</p>
<form method="post" action="/console/webhooks/${e.id}/${e.disabled ? 'enable' : 'disable'}" class="inline">${hidden}<button type="submit">${e.disabled ? 'Enable' : 'Disable'}<span class="visually-hidden"> ${e.url}</span></button></form>
<form method="post" action="/console/webhooks/${e.id}/rotate-secret" class="inline confirm" data-confirm="Rotate the secret? The old one keeps signing for 24 hours.">${hidden}<button type="submit">Rotate the secret<span class="visually-hidden"> of ${e.url}</span></button></form>
<form method="post" action="/console/webhooks/${e.id}/replay" class="inline">${hidden}<input type="hidden" name="hours" value="24"><button type="submit">Send the last 24 hours again<span class="visually-hidden"> to ${e.url}</span></button></form>
${
  (attempts[e.id] ?? []).length === 0
    ? html`<p class="hint">Nothing sent yet: events go out as they happen, or <strong>Send the last 24 hours again</strong>.</p>`
    : html`<div class="table-scroll"><table class="data"><caption>Latest attempts</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Answer</th><th scope="col">Time</th><th scope="col">Delivery</th></tr></thead>
<tbody>${(attempts[e.id] ?? []).map((a) => html`<tr><td data-label="When">${when(a.at)}</td><td data-label="Event">${a.type}</td><td data-label="Answer">${webhookAnswer(a)}</td><td data-label="Time">${a.durationMs} ms</td><td data-label="Delivery">${a.deliveryStatus}</td></tr>`)}</tbody></table></div>`
}
</section>`,
)}`;
}
