// URLs as they may be logged: every secret and personal datum (API keys, the admin token, link
// tokens, report links' signatures, single sign-on's codes, passwords, search terms and e-mail
// addresses) replaced, including ones a client put where they do not belong (a key in the query
// string). The log lines themselves are written by logging.ts.

/**
 * The one list of what never reaches a log line from a URL: query parameters (by name, any case)
 * whose values are secrets or personal data, replaced by [redacted] whatever they hold. Besides
 * these, API keys (`ack_…`) and e-mail addresses are replaced wherever they appear in the URL,
 * percent-encoded or not, and a URL carried in a parameter (the console's `next=`) is scrubbed by
 * the same rules.
 */
export const REDACTED_PARAMS: ReadonlySet<string> = new Set([
  // report links' signatures, sign-in link tokens, keys and passwords
  'signature',
  'sig',
  'token',
  'sessiontoken',
  'access_token',
  'key',
  'api_key',
  'apikey',
  'x-api-key',
  'password',
  'secret',
  // single sign-on's return from the identity provider: the authorization code and its state
  'code',
  'state',
  'id_token',
  // personal data: the console's candidate search, e-mail and actor filters
  'q',
  'email',
  'actor',
]);

const API_KEY = /ack_[A-Za-z0-9_-]+/g;
const EMAIL = /[^\s@/?&=#:;,<>"'()[\]]+@[^\s@/?&=#:;,<>"'()[\]]+/g;
const NESTED_DEPTH = 3;
const QUICK_CHECK = /[?#@%]|ack_/;
/** What only the full scrub handles: encoded text, a fragment, a key or an e-mail address. */
const NEEDS_DECODING = /[#@%+]|ack_/;
/**
 * A parameter of the list may be named in a plain query: one of the names after `?` or `&`, with
 * the spaces trim() would take. Case-folded with the `u` flag, which folds at least what
 * toLowerCase() lowers to these names (the Kelvin sign to `k`), so a URL it does not match holds
 * nothing redactPlainQuery would redact; one it matches is looked at name by name.
 */
const MAYBE_REDACTED = new RegExp(`[?&]\\s*(?:${[...REDACTED_PARAMS].map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\s*=`, 'iu');

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Keys and e-mail addresses out of one piece of a URL; percent-encoded ones too. */
function scrubText(text: string, depth: number): string {
  const plain = decoded(text);
  // A URL given as a parameter's value: scrubbed as a URL, so its own parameters are redacted.
  if (depth < NESTED_DEPTH && plain !== text && /^\/[^?]*\?/.test(plain)) {
    const nested = scrubUrlAt(plain, depth + 1);
    return nested === plain ? text : encodeURIComponent(nested);
  }
  const scrubbed = plain.replace(API_KEY, 'ack_[redacted]').replace(EMAIL, '[email]');
  if (scrubbed === plain) return text;
  return plain === text ? scrubbed : encodeURIComponent(scrubbed).replace(/%2F/g, '/');
}

function scrubUrlAt(url: string, depth: number): string {
  const hash = url.indexOf('#');
  const fragment = hash < 0 ? '' : url.slice(hash + 1);
  const rest = hash < 0 ? url : url.slice(0, hash);
  const mark = rest.indexOf('?');
  const path = mark < 0 ? rest : rest.slice(0, mark);
  let out = path
    .split('/')
    .map((segment) => scrubText(segment, depth))
    .join('/');
  if (mark >= 0) out += `?${scrubQuery(rest.slice(mark + 1), depth)}`;
  // The portal's sign-in link carries its token in the fragment (#?sessionToken=…).
  if (hash >= 0) out += `#${fragment.startsWith('?') ? `?${scrubQuery(fragment.slice(1), depth)}` : scrubText(fragment, depth)}`;
  return out;
}

function scrubQuery(query: string, depth: number): string {
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return scrubText(pair, depth);
      const name = pair.slice(0, eq);
      if (REDACTED_PARAMS.has(decoded(name).trim().toLowerCase())) return `${scrubText(name, depth)}=[redacted]`;
      return `${scrubText(name, depth)}=${scrubText(pair.slice(eq + 1), depth)}`;
    })
    .join('&');
}

/** The whole scrub, for every URL (scrubUrl takes shortcuts where it may; a test holds them to this). */
export const scrubUrlFully = (url: string): string => scrubUrlAt(url, 0);

/** A URL with every secret and personal datum of the list above replaced. */
export function scrubUrl(url: string): string {
  // Most request lines (a bare path) hold nothing to scrub: they are not taken apart.
  if (!QUICK_CHECK.test(url)) return url;
  // A plain query (the API's reads: ?candidateIds=…): nothing in it is encoded, so no value can hold
  // a key, an address or a nested URL; only the parameters' names are looked at.
  if (!NEEDS_DECODING.test(url)) return MAYBE_REDACTED.test(url) ? redactPlainQuery(url) : url;
  return scrubUrlAt(url, 0);
}

/** scrubUrlAt's answer for a URL with a query and none of NEEDS_DECODING's characters, without taking the rest apart. */
export function redactPlainQuery(url: string): string {
  const mark = url.indexOf('?');
  let out: string | undefined;
  let start = mark + 1;
  while (start <= url.length) {
    const end = url.indexOf('&', start) < 0 ? url.length : url.indexOf('&', start);
    const eq = url.indexOf('=', start);
    if (eq >= 0 && eq < end && REDACTED_PARAMS.has(url.slice(start, eq).trim().toLowerCase())) {
      out = `${out ?? url.slice(0, start)}${url.slice(start, eq)}=[redacted]`;
    } else if (out !== undefined) {
      out += url.slice(start, end);
    }
    if (end < url.length && out !== undefined) out += '&';
    start = end + 1;
  }
  return out ?? url;
}
