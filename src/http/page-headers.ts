// The headers of every HTML page the service serves (the candidates' portal, the console, shared
// report links): no inline script or style, nothing fetched from elsewhere, no framing, no caching.
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'cross-origin-opener-policy': 'same-origin',
  // Not no-referrer: with it, browsers send `Origin: null` on form posts, and the CSRF check
  // compares origins. The token lives in the fragment, which no Referer ever carries.
  'referrer-policy': 'same-origin',
} as const;
