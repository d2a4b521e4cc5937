import { when } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { AuditEntry } from '../../modules/audit/audit.js';

export function auditBody(entries: AuditEntry[], filters: { actor?: string; action?: string }, nextHref?: string): SafeHtml {
  return html`<h1>Audit log</h1>
<form method="get" action="/console/audit" class="filters" role="search">
<div class="field"><label for="f-actor">Who</label><input type="text" id="f-actor" name="actor" value="${filters.actor ?? ''}" maxlength="300"></div>
<div class="field"><label for="f-action">Action starts with</label><input type="text" id="f-action" name="action" value="${filters.action ?? ''}" maxlength="100"></div>
<button type="submit" class="primary">Filter</button>
</form>
<table class="data"><caption class="visually-hidden">Audit entries, newest first</caption>
<thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Status</th><th scope="col">From</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr><td>${e.id}</td><td>${when(e.at)}</td><td>${e.actor}</td><td>${e.action}</td><td>${e.target ?? '-'}</td><td>${e.status}</td><td>${e.clientIp}</td></tr>`,
  )}</tbody></table>
${nextHref && html`<p><a class="button" href="${nextHref}" rel="next">Older entries</a></p>`}`;
}
