// Whether a state-changing request comes from this site's own pages: one rule for every surface
// that takes forms (the portal and the console), so that none can be looser than another.
//
// - Sec-Fetch-Site, when the browser sends it, must be `same-origin`. `none` (a request the person
//   started themselves: a typed address, a bookmark) is refused too: browsers send it only for
//   navigations, which are GETs; a POST is never typed, so a POST saying `none` is not from our page.
//   `same-site` (a sibling subdomain) is another site's page as far as we are concerned.
// - Origin, when sent, must be the service's public origin or the origin the request reached
//   (http(s)://Host); `Origin: null` (a sandboxed frame, a redirect across sites) is refused.
// - Neither header: the Referer's origin decides the same way, when there is one.
// - No header at all: not a current browser's page (every current browser sends Origin on a POST),
//   so a script or curl, which cannot be tricked into a cross-site request: it passes, and the
//   CSRF token (csrf.ts) is still required.
import type { FastifyRequest } from 'fastify';

export function fromSameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin !== undefined) return ours(origin, publicOrigin, request.headers.host);
  if (site !== undefined) return true;
  const referer = request.headers.referer;
  if (referer === undefined) return true;
  let from: string;
  try {
    from = new URL(referer).origin;
  } catch {
    return false;
  }
  return ours(from, publicOrigin, request.headers.host);
}

function ours(origin: string, publicOrigin: string, host: string | undefined): boolean {
  return origin === publicOrigin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
}
