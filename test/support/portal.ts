// A candidate as the suites drive one: invited through the API, and signed in to the portal with
// the invite's link as a browser is (the session cookie, the page's form token), with requests
// that carry both. One helper for every suite that needs a candidate in the portal.
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';

/** What the helpers need of a test's app: requests sent through it. */
export type Requester = { request(options: InjectOptions): Promise<LightMyRequestResponse> };

const FORM = 'application/x-www-form-urlencoded';

/** Who is invited: an address, a name (made up when not given) and any other field of the invite (language, extraTimePercent, …). */
export type Invitee = { email: string; firstName?: string; lastName?: string } & Record<string, unknown>;

/** The first row /v1/invite answers. */
export type Invited = { candidateId: string; link: string } & Record<string, unknown>;

/** How the invite is sent: `query` appended to its URL, `headers` beside the key's (an Idempotency-Key, say). */
export interface InviteOptions {
  query?: string;
  headers?: Record<string, string>;
}

/**
 * Invites `person` to `assessments` through the API; the invite must be answered 200. Answers its
 * first row, with the link's sign-in token and the whole response.
 */
export async function invite(
  ctx: Requester,
  t: { instance: string; key: string },
  person: Invitee,
  assessments: string[],
  options: InviteOptions = {},
): Promise<Invited & { token: string; response: LightMyRequestResponse }> {
  const response = await ctx.request({
    method: 'POST',
    url: `/v1/invite${options.query ?? ''}`,
    headers: { 'x-api-key': t.key, instance: t.instance, ...options.headers },
    payload: { firstName: 'Test', lastName: 'Candidate', ...person, assessments },
  });
  assert.equal(response.statusCode, 200, response.body);
  const first = (response.json() as Invited[])[0]!;
  return { ...first, token: first.link.split('sessionToken=')[1]!, response };
}

/** A browser signed in to the portal. */
export interface PortalBrowser {
  cookie: string;
  /** The form token of the assessment's page ('' when the page has no form). */
  csrf: string;
  /** The assessment's page as it first opened. */
  intro: LightMyRequestResponse;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A form post with the token, as the pages' forms send it (fields in order when given as pairs). */
  form(url: string, fields?: Record<string, string> | [string, string][]): Promise<LightMyRequestResponse>;
  /** An answer saved through the portal's API, as portal.js saves it. */
  save(question: string, value: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A JSON post to the portal's API with the token (and `headers`, a browser's user agent, say). */
  post(url: string, payload: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The footer's language switcher: the choice is a cookie sent with the requests after it. */
  choose(lang: string): Promise<void>;
}

/** What a browser sends besides the session: headers on the sign-in, the pages and their forms (Accept-Language, say). */
export interface BrowserOptions {
  headers?: Record<string, string>;
}

/** Opens the portal with a sign-in link and the assessment `slug`'s page, as a browser does. */
export async function openPortal(ctx: Requester, link: string, slug: string, options: BrowserOptions = {}): Promise<PortalBrowser> {
  const sent = options.headers ?? {};
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', headers: sent, payload: { token: link.split('sessionToken=')[1] } });
  assert.equal(opened.statusCode, 200, opened.body);
  let cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const get = (url: string, headers: Record<string, string> = {}) => ctx.request({ method: 'GET', url, headers: { cookie, ...sent, ...headers } });
  const intro = await get(`/portal/a/${slug}`);
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(intro.body)?.[1] ?? '';
  return {
    get cookie() {
      return cookie;
    },
    csrf,
    intro,
    get,
    form: (url, fields = {}) =>
      ctx.request({
        method: 'POST',
        url,
        headers: { cookie, ...sent, 'content-type': FORM },
        payload: new URLSearchParams([['_csrf', csrf], ...(Array.isArray(fields) ? fields : Object.entries(fields))]).toString(),
      }),
    save: (question, value, headers = {}) =>
      ctx.request({
        method: 'PUT',
        url: `/portal/api/a/${slug}/answers/${question}`,
        headers: { cookie, 'x-csrf-token': csrf, ...headers },
        payload: { value } as InjectOptions['payload'],
      }),
    post: (url, payload, headers = {}) => ctx.request({ method: 'POST', url, headers: { cookie, 'x-csrf-token': csrf, ...headers }, payload: payload as InjectOptions['payload'] }),
    async choose(lang) {
      const chosen = await ctx.request({ method: 'POST', url: '/portal/language', headers: { cookie, 'content-type': FORM }, payload: `lang=${lang}&back=/portal/` });
      assert.equal(chosen.statusCode, 303, chosen.body);
      cookie = `${cookie}; ${String(chosen.headers['set-cookie']).split(';')[0]!}`;
    },
  };
}

/** A person invited to `assessments` and signed in to the portal at the first one. */
export async function candidate(
  ctx: Requester,
  t: { instance: string; key: string },
  person: Invitee,
  assessments: string[],
  options: BrowserOptions = {},
): Promise<Invited & PortalBrowser> {
  const invited = await invite(ctx, t, person, assessments);
  const browser = await openPortal(ctx, invited.link, assessments[0]!, options);
  // Onto the browser, so that its cookie stays the live one (a language chosen adds to it).
  return Object.assign(browser, invited);
}
