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

/** An empty list: what is missing, in bold, and what to do next. */
export function emptyState(title: string, next: SafeHtml | string): SafeHtml {
  return html`<div class="empty"><p><strong>${title}</strong> ${next}</p></div>`;
}
