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
