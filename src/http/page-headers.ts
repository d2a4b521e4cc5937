import { randomBytes } from 'node:crypto';

const POLICY = (styles: string) =>
  `default-src 'none'; script-src 'self'; style-src ${styles}; img-src 'self' data:; media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

// The headers of every HTML page the service serves (the candidates' portal, the console, shared
// report links): no inline script or style, nothing fetched from elsewhere, no framing, no caching.
export const PAGE_HEADERS = {
  'content-security-policy': POLICY("'self'"),
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'cross-origin-opener-policy': 'same-origin',
  // Not no-referrer: with it, browsers send `Origin: null` on form posts, and the CSRF check
  // compares origins. The token lives in the fragment, which no Referer ever carries.
  'referrer-policy': 'same-origin',
} as const;

/** A fresh nonce for one response's style elements: 128 random bits. */
export function styleNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The page policy of a response whose own <style> elements carry `nonce` (the code editor's:
 * CodeMirror writes its styles into one). Inline style attributes stay refused, and so does any
 * <style> without the nonce: markup that reached a page cannot style it.
 */
export function pagePolicyWithStyleNonce(nonce: string): string {
  return POLICY(`'self' 'nonce-${nonce}'`);
}
