// The one template layer of every HTML page the service renders (portal, console, dev mailbox):
// a tagged template `html` whose interpolated values are escaped unless they are already SafeHtml.
// Plain strings cannot be passed where markup is expected (SafeHtml is a class, not a string), so
// a forgotten escape is a type error, not an injection. Markup from elsewhere needs the visible,
// greppable call `trustedHtml(...)`.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value; only `html` calls it, so markup escapes by default. */
function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Markup that is safe to send: built by `html`, or deliberately trusted with `trustedHtml`. */
export class SafeHtml {
  readonly #markup: string;
  constructor(markup: string, token: symbol) {
    if (token !== CONSTRUCT) throw new TypeError('SafeHtml is made by html`` or trustedHtml()');
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

const CONSTRUCT = Symbol('SafeHtml');

/** What a template may interpolate. Booleans, null and undefined render nothing (for `cond && html`…`). */
export type Renderable = SafeHtml | string | number | bigint | boolean | null | undefined | readonly Renderable[];

// A value that lands in a URL attribute may only be a relative URL or an http(s)/mailto one, so a
// stored `javascript:` URL cannot run when clicked.
const URL_ATTRIBUTE = /\s(?:href|src|action|formaction|poster|cite)\s*=\s*["']?$/i;
const SAFE_URL = /^(?:[/?#.]|https?:|mailto:|[^:/?#]*(?:[/?#]|$))/i;

function render(value: Renderable, inUrl: boolean): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map((v: Renderable) => render(v, inUrl)).join('');
  const text = String(value);
  if (inUrl && !SAFE_URL.test(text.trim())) return 'about:invalid';
  return escapeText(text);
}

/** Tagged template: `html\`<p>${name}</p>\`` escapes name; nested html`` and arrays of it pass as markup. */
export function html(strings: TemplateStringsArray, ...values: Renderable[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]!, URL_ATTRIBUTE.test(strings[i]!)) + strings[i + 1]!;
  }
  return new SafeHtml(out, CONSTRUCT);
}

/**
 * Markup that did not come from `html` and is trusted anyway: a page's own static asset, or the
 * output of a renderer that escapes by itself (Markdown with raw HTML off, an SVG chart built from
 * numbers). Every call is a decision a reviewer should see.
 */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup, CONSTRUCT);
}

/** Joins rendered items with a separator (itself escaped unless SafeHtml). */
export function join(items: readonly Renderable[], separator: Renderable = ''): SafeHtml {
  const sep = render(separator, false);
  return new SafeHtml(items.map((item) => render(item, false)).join(sep), CONSTRUCT);
}

/** The whole document as a string, for a reply. */
export function documentString(page: SafeHtml): string {
  return page.toString();
}
