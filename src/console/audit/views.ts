import { when } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { AuditEntry } from '../../modules/audit/audit.js';
import { emptyState, pager, sortHeader } from '../components.js';
import { sortParam, type Order } from '../lists.js';

/** One page of the log: in the order asked, or (`keyset`) the entries before an entry number, newest first. */
export interface AuditList {
  entries: AuditEntry[];
  order: Order;
  page: number;
  size: number;
  total: number;
  /** Counted only up to `total`: there are more. */
  more: boolean;
  keyset: boolean;
}

export function auditBody(list: AuditList, filters: { actor?: string; action?: string }): SafeHtml {
  const href = (change: { sort?: string; page?: number }) => {
    const params = new URLSearchParams();
    if (filters.actor) params.set('actor', filters.actor);
    if (filters.action) params.set('action', filters.action);
    if (change.sort && change.sort !== 'number-desc') params.set('sort', change.sort);
    if (change.page && change.page > 1) params.set('page', String(change.page));
    const query = params.toString();
    return `/console/audit${query ? `?${query}` : ''}`;
  };
  const sort = sortParam(list.order);
  const header = (label: string, key: string, firstDescending = false) =>
    sortHeader(label, key, list.order, (s, descending) => href({ sort: sortParam({ sort: s, descending }) }), firstDescending);
  const filtered = filters.actor !== undefined || filters.action !== undefined;
  const last = list.entries.at(-1);
  const older =
    list.keyset &&
    list.entries.length === list.size &&
    last &&
    `/console/audit?${new URLSearchParams({ ...(filters.actor ? { actor: filters.actor } : {}), ...(filters.action ? { action: filters.action } : {}), before: last.id })}`;
  return html`<h1>Audit log</h1>
<form method="get" action="/console/audit" class="filters" role="search">
<div class="field"><label for="f-actor">Who</label><input type="text" id="f-actor" name="actor" value="${filters.actor ?? ''}" maxlength="300"></div>
<div class="field"><label for="f-action">Action starts with</label><input type="text" id="f-action" name="action" value="${filters.action ?? ''}" maxlength="100"></div>
${sort !== 'number-desc' && html`<input type="hidden" name="sort" value="${sort}">`}
<button type="submit" class="primary">Filter</button>
</form>
${
  list.entries.length === 0
    ? list.total > 0
      ? emptyState('No entries here.', html`This page is past the last one: <a href="${href({ sort })}">go to the first page</a>.`)
      : filtered
        ? emptyState('No entry matches.', html`Check the spelling of who (as <code>user:e-mail</code>, <code>key:id</code>) or <a href="/console/audit">show every entry</a>.`)
        : emptyState('Nothing recorded yet.', 'Every change people and client applications make is written here as it happens.')
    : html`<div class="table-scroll"><table class="data"><caption class="visually-hidden">Audit entries</caption>
<thead><tr>${header('#', 'number', true)}<th scope="col">When</th>${header('Who', 'actor')}${header('Action', 'action')}<th scope="col">Target</th><th scope="col">Status</th><th scope="col">From</th></tr></thead>
<tbody>${list.entries.map(
        (e) =>
          html`<tr><td data-label="Entry">${e.id}</td><td data-label="When">${when(e.at)}</td><td data-label="Who">${e.actor}</td><td data-label="Action">${e.action}</td><td data-label="Target">${e.target ?? '-'}</td><td data-label="Status">${e.status}</td><td data-label="From">${e.clientIp}</td></tr>`,
      )}</tbody></table></div>`
}
${
  list.keyset
    ? older && html`<p><a class="button" href="${older}" rel="next">Older entries</a></p>`
    : pager({ page: list.page, size: list.size, total: list.total, more: list.more, noun: 'entries', href: (page) => href({ sort, page }) })
}`;
}
