// Signing in to the console over HTTP, for suites other than test/console.test.ts.
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { normaliseIdentifier } from '../../src/modules/users/identifier.js';
import type { TestContext } from '../harness.js';

export const FORM = 'application/x-www-form-urlencoded';
export const formOf = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

export const cookieOf = (response: LightMyRequestResponse, name: string) => {
  const all = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  return all.find((c) => c.startsWith(`${name}=`))?.split(';')[0];
};

/** The sign-in form's cookie and CSRF token; both stay valid for several attempts. */
export async function signInForm(ctx: TestContext): Promise<{ cookie: string; csrf: string }> {
  const form = await ctx.request({ method: 'GET', url: '/console/sign-in' });
  return { cookie: cookieOf(form, 'ac_console_signin')!, csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1]! };
}

export async function signIn(ctx: TestContext, email: string, password: string, extra: Partial<InjectOptions> = {}, form?: { cookie: string; csrf: string }) {
  const { cookie, csrf } = form ?? (await signInForm(ctx));
  return ctx.request({
    method: 'POST',
    url: '/console/sign-in',
    ...extra,
    headers: { cookie, 'content-type': FORM, ...(extra.headers ?? {}) },
    payload: formOf({ _csrf: csrf, email, password }),
  });
}

/**
 * Marks an operator-made account as if its user had chosen their own password already, so that
 * suites about other things sign in straight to the console (test/accounts.test.ts covers the
 * forced change itself).
 */
export async function passwordChosen(ctx: { db: TestContext['db'] }, email: string): Promise<void> {
  await ctx.db.query('UPDATE users SET must_change_password = false WHERE lower(email) = $1', [normaliseIdentifier(email)]);
}

/** A signed-in user: GET and form POST with the session's cookie and CSRF token. */
export async function consoleAs(ctx: TestContext, email: string, password: string) {
  await passwordChosen(ctx, email);
  const response = await signIn(ctx, email, password);
  assert.equal(response.statusCode, 303, response.body);
  const cookie = cookieOf(response, 'ac_console')!;
  const home = await ctx.request({ method: 'GET', url: '/console/', headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(home.body)?.[1] ?? '';
  return {
    cookie,
    csrf,
    get: (url: string) => ctx.request({ method: 'GET', url, headers: { cookie } }),
    /** A form post with the token (fields in order, a name repeated, when given as pairs). */
    post: (url: string, fields: Record<string, string> | [string, string][] = {}, headers: Record<string, string> = {}) =>
      ctx.request({
        method: 'POST',
        url,
        headers: { cookie, 'content-type': FORM, ...headers },
        payload: new URLSearchParams([['_csrf', csrf], ...(Array.isArray(fields) ? fields : Object.entries(fields))]).toString(),
      }),
  };
}

export async function consoleUser(ctx: TestContext, email: string, role: string, instances?: string[]) {
  const response = await ctx.request({ method: 'POST', url: '/admin/v1/users', payload: { email, role, instances } });
  assert.equal(response.statusCode, 201, response.body);
  await passwordChosen(ctx, email);
  return response.json() as { id: string; password: string };
}
