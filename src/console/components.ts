// Components of the console's own, drawn through the escaping template layer, styled in
// assets/console.css on Open Props' tokens.
import { html, type SafeHtml } from '../html/html.js';

/**
 * A search box over a long list of choices (more than 8): it narrows the list as one types
 * (console.js); without script it stays hidden and the list scrolls in its box.
 */
export function optionSearch(list: string, count: number): SafeHtml | false {
  return (
    count > 8 &&
    html`<div class="field option-search" hidden><label for="${list}-search">Find an assessment</label><input type="search" id="${list}-search" data-filters="${list}" autocomplete="off"></div>`
  );
}

type FieldErrors = readonly { name: string; detail: string }[] | undefined;

/**
 * The errors of a refused form at its top (role="alert"): each names its field and links to it
 * when the form has one by that name (`fields`: name to the control's id).
 */
export function errorSummary(id: string, title: string, errors: FieldErrors, fields: Record<string, string>): SafeHtml | false {
  return (
    errors !== undefined &&
    errors.length > 0 &&
    html`<div class="error-summary" role="alert" id="${id}"><p class="error">${title}</p><ul>${errors.map((e) => {
      const target = fields[e.name];
      return html`<li>${target ? html`<a href="#${target}">${e.name}</a>` : html`<code>${e.name}</code>`} ${e.detail}</li>`;
    })}</ul></div>`
  );
}

/** A field's own errors, beside it; `describedBy` is the id the control names in aria-describedby. */
export function fieldError(errors: FieldErrors, name: string, describedBy: string): SafeHtml | false {
  const mine = (errors ?? []).filter((e) => e.name === name);
  return mine.length > 0 && html`<p class="field-error" id="${describedBy}">${mine.map((e) => e.detail).join('; ')}</p>`;
}

/** The attributes of a control with errors: aria-invalid and where its error is. */
export function invalidAttributes(errors: FieldErrors, name: string, describedBy: string): SafeHtml | false {
  return (errors ?? []).some((e) => e.name === name) && html` aria-invalid="true" aria-describedby="${describedBy}"`;
}

/**
 * A labelled control: a short label, the field's rules as a hint under it, the control, and the
 * field's errors beside it; the control is named by the label and described by the hint and the
 * errors. `control` gets the attributes to put on it (id, name, aria-describedby, aria-invalid).
 */
export function field(input: { id: string; name: string; label: string; hint?: string | SafeHtml; errors: FieldErrors; control: (attributes: SafeHtml) => SafeHtml }): SafeHtml {
  const { id, name, label, hint, errors, control } = input;
  const invalid = (errors ?? []).some((e) => e.name === name);
  const describedBy = [hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ');
  const attributes = html` id="${id}" name="${name}"${describedBy !== '' && html` aria-describedby="${describedBy}"`}${invalid && html` aria-invalid="true"`}`;
  return html`<div class="field"><label for="${id}">${label}</label>${hint && html`<p class="hint field-hint" id="${id}-hint">${hint}</p>`}${control(attributes)}${fieldError(errors, name, `${id}-error`)}</div>`;
}

/** An empty list: what is missing, in bold, and what to do next. */
export function emptyState(title: string, next: SafeHtml | string): SafeHtml {
  return html`<div class="empty"><p><strong>${title}</strong> ${next}</p></div>`;
}

/**
 * A column header that sorts the list by it: a link (no script), the column's current direction
 * in aria-sort and as an arrow. Following it on the sorted column turns the order round; on
 * another column sorts by that in its natural order (`firstDescending`: newest or highest first).
 */
export function sortHeader(
  label: string,
  key: string,
  current: { sort: string; descending: boolean },
  href: (sort: string, descending: boolean) => string,
  firstDescending = false,
): SafeHtml {
  const on = current.sort === key;
  const next = on ? !current.descending : firstDescending;
  const state = on ? (current.descending ? 'descending' : 'ascending') : 'none';
  return html`<th scope="col" aria-sort="${state}"><a class="sort" href="${href(key, next)}">${label}<span class="sort-arrow" aria-hidden="true">${on ? (current.descending ? ' ↓' : ' ↑') : ' ↕'}</span><span class="visually-hidden">${`, sort ${next ? 'descending' : 'ascending'}`}</span></a></th>`;
}

/**
 * Numbered pages of a list: where one is, the first and last pages, two either side, Previous and
 * Next. `more`: the list was counted only up to `total` and holds more; the last page is then not
 * known, and "Next" leads on past the count.
 */
export function pager(input: { page: number; size: number; total: number; more?: boolean; noun: string; href: (page: number) => string }): SafeHtml {
  const counted = Math.max(1, Math.ceil(input.total / input.size));
  const pages = input.more ? Math.max(counted, input.page + 1) : counted;
  const first = Math.min(input.total, (input.page - 1) * input.size + 1);
  const last = Math.min(input.total, input.page * input.size);
  const shown = [...new Set([1, ...(input.more ? [] : [pages]), ...[-2, -1, 0, 1, 2].map((d) => input.page + d)])].filter((p) => p >= 1 && p <= pages).sort((a, b) => a - b);
  const count = (n: number) => n.toLocaleString('en-GB');
  const items = shown.map((p, i) => {
    const gap = i > 0 && p - shown[i - 1]! > 1 && html`<li class="gap" aria-hidden="true">…</li>`;
    const link =
      p === input.page ? html`<li><a href="${input.href(p)}" aria-current="page">${p}</a></li>` : html`<li><a href="${input.href(p)}" aria-label="${`Page ${p}`}">${p}</a></li>`;
    return html`${gap}${link}`;
  });
  return html`<nav class="pager" aria-label="${`Pages of ${input.noun}`}">
<p class="pager-count" role="status">${input.total === 0 ? `No ${input.noun}` : `${input.noun[0]!.toUpperCase()}${input.noun.slice(1)} ${count(first)}–${count(last)} of ${input.more ? 'more than ' : ''}${count(input.total)}`}</p>
${
  pages > 1 &&
  html`<ul>${input.page > 1 && html`<li><a href="${input.href(input.page - 1)}" rel="prev">Previous</a></li>`}${items}${input.page < pages && html`<li><a href="${input.href(input.page + 1)}" rel="next">Next</a></li>`}</ul>`
}
</nav>`;
}
