import { when } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { KeySummary } from '../../modules/keys/repository.js';
import { emptyState, errorSummary, fieldError, invalidAttributes, pager, sortHeader } from '../components.js';
import { sortParam, type Order } from '../lists.js';

/** An instance's keys in the order asked, one page of them, with the order and the total. */
export interface KeyList {
  rows: KeySummary[];
  order: Order;
  page: number;
  size: number;
  total: number;
}

type Refusals = { name: string; detail: string }[];

/** What the page shows besides the list: the key just made, or a refused form with what was typed. */
export interface KeysPageState {
  created?: { id: string; key: string };
  create?: { errors: Refusals; values: { label: string; rateLimit: string } };
  rate?: { id: string; errors: Refusals; value: string };
}

export function keysBody(instance: string, list: KeyList, csrf: string, state: KeysPageState = {}): SafeHtml {
  const keys = list.rows;
  const { created, create, rate } = state;
  const rateErrors = (id: string) => (rate?.id === id ? rate.errors : undefined);
  const href = (change: { sort?: string; page?: number }) => {
    const params = new URLSearchParams({ instance });
    if (change.sort && change.sort !== 'created') params.set('sort', change.sort);
    if (change.page && change.page > 1) params.set('page', String(change.page));
    return `/console/keys?${params}#keys-heading`;
  };
  const header = (label: string, key: string, firstDescending = false) =>
    sortHeader(label, key, list.order, (sort, descending) => href({ sort: sortParam({ sort, descending }) }), firstDescending);
  return html`<h1>API keys of ${instance}</h1>
${
  created &&
  html`<div class="panel created-key" role="status"><p><strong>New key ${created.id}.</strong> It is shown this once: copy it now into the client's secret store.</p>
<p><code class="secret" id="new-key">${created.key}</code></p></div>`
}
${errorSummary('key-errors', 'No key was made:', create?.errors, { label: 'key-label', rateLimit: 'key-rate' })}
${rate && errorSummary('rate-errors', `The rate limit of ${rate.id} was not changed:`, rate.errors, { rateLimit: `rate-${rate.id}` })}
<form method="post" action="/console/keys" class="filters">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<div class="field grow"><label for="key-label">Label</label><input type="text" id="key-label" name="label" maxlength="200" placeholder="e.g. Greenhouse production" value="${create?.values.label ?? ''}"${invalidAttributes(create?.errors, 'label', 'key-label-error')}>${fieldError(create?.errors, 'label', 'key-label-error')}</div>
<div class="field"><label for="key-rate">Requests per minute (optional)</label><input type="number" id="key-rate" name="rateLimit" min="1" max="1000000" step="1" value="${create?.values.rateLimit ?? ''}"${invalidAttributes(create?.errors, 'rateLimit', 'key-rate-error')}>${fieldError(create?.errors, 'rateLimit', 'key-rate-error')}</div>
<button type="submit" class="primary">Create a key</button>
</form>
<h2 id="keys-heading">Keys</h2>
${
  keys.length === 0
    ? list.total > 0
      ? emptyState('This page is past the last one.', html`<a href="${href({ sort: sortParam(list.order) })}">Go to the first page</a>.`)
      : emptyState('No keys yet.', 'Create one above for each client application (an ATS, a script), and give it to that application only.')
    : html`<div class="table-scroll"><table class="data"><caption class="visually-hidden">API keys</caption>
<thead><tr>${header('Key', 'created')}${header('Label', 'label')}<th scope="col">Instances</th><th scope="col">Rate limit</th>${header('Last used', 'used', true)}${header('State', 'state')}</tr></thead>
<tbody>${keys.map(
        (
          k,
        ) => html`<tr><th scope="row"><code>${k.prefix}…</code><br><span class="hint">${k.id}</span></th><td data-label="Label">${k.label ?? '-'}</td><td data-label="Instances">${k.instances.join(', ')}</td>
<td data-label="Rate limit">${
          k.revokedAt
            ? k.rateLimit === null
              ? 'default'
              : `${k.rateLimit}/min`
            : html`<form method="post" action="/console/keys/${k.id}/rate-limit" class="inline rate-form">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">
<label for="rate-${k.id}" class="visually-hidden">Requests per minute for ${k.id} (empty: the service default)</label>
<input type="number" id="rate-${k.id}" name="rateLimit" min="1" max="1000000" step="1" value="${rate?.id === k.id ? rate.value : (k.rateLimit ?? '')}" placeholder="default"${invalidAttributes(rateErrors(k.id), 'rateLimit', `rate-${k.id}-error`)}>
<button type="submit">Set<span class="visually-hidden"> the rate limit of ${k.id}</span></button>${fieldError(rateErrors(k.id), 'rateLimit', `rate-${k.id}-error`)}</form>`
        }</td><td data-label="Last used">${when(k.lastUsedAt)}</td>
<td data-label="State">${
          k.revokedAt
            ? `revoked ${when(k.revokedAt)}`
            : html`<form method="post" action="/console/keys/${k.id}/revoke" class="inline confirm" data-confirm="${`Revoke ${k.id}? Clients using it stop working at once.`}">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">
<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${k.id}</span></button></form>`
        }</td></tr>`,
      )}</tbody></table></div>`
}
${list.total > list.size && pager({ page: list.page, size: list.size, total: list.total, noun: 'keys', href: (page) => href({ sort: sortParam(list.order), page }) })}`;
}
