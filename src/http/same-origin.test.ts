// The one same-origin rule and CSRF check of the portal and the console, on a real Fastify request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { registerCookies, cookieOf } from './cookies.js';
import { csrfRefusal } from './csrf.js';
import { fromSameOrigin } from './same-origin.js';

const ORIGIN = 'https://assess.example';

async function app() {
  const server = Fastify();
  await registerCookies(server);
  server.post('/', async (request) => ({ same: fromSameOrigin(request, ORIGIN), csrf: csrfRefusal(request, 'tok', ORIGIN) ?? 'ok', cookie: cookieOf(request, 'a') ?? null }));
  return server;
}

describe('same origin and CSRF', () => {
  it('refuses what a browser says came from elsewhere, a POST saying none included, and passes our own pages and header-less tools', async () => {
    const server = await app();
    const cases: [Record<string, string>, boolean][] = [
      [{ 'sec-fetch-site': 'cross-site' }, false],
      [{ 'sec-fetch-site': 'same-site' }, false],
      [{ 'sec-fetch-site': 'none' }, false],
      [{ origin: 'https://evil.example' }, false],
      [{ origin: 'null' }, false],
      [{ origin: ORIGIN, 'sec-fetch-site': 'cross-site' }, false],
      [{ referer: 'https://evil.example/x' }, false],
      [{ referer: 'not a url' }, false],
      [{ 'sec-fetch-site': 'same-origin', origin: ORIGIN }, true],
      [{ 'sec-fetch-site': 'same-origin' }, true],
      [{ origin: ORIGIN }, true],
      [{ origin: 'http://localhost:80', host: 'localhost:80' }, true],
      [{ referer: `${ORIGIN}/console/keys` }, true],
      [{ origin: ORIGIN, referer: 'https://evil.example/x' }, true],
      [{}, true],
    ];
    for (const [headers, same] of cases) {
      const response = await server.inject({ method: 'POST', url: '/', headers, payload: { _csrf: 'tok' } });
      assert.equal(response.json().same, same, JSON.stringify(headers));
      assert.equal(response.json().csrf, same ? 'ok' : 'cross-site', JSON.stringify(headers));
    }
    await server.close();
  });

  it('wants the token in the form field or the header, and reads cookies by the kept library', async () => {
    const server = await app();
    const ask = async (payload: object, headers: Record<string, string> = {}) => (await server.inject({ method: 'POST', url: '/', headers, payload })).json();
    assert.equal((await ask({})).csrf, 'token');
    assert.equal((await ask({ _csrf: 'wrong' })).csrf, 'token');
    assert.equal((await ask({ _csrf: 'tok' })).csrf, 'ok');
    assert.equal((await ask({}, { 'x-csrf-token': 'tok' })).csrf, 'ok');
    assert.equal((await ask({}, { cookie: 'b=1; a=x=y' })).cookie, 'x=y');
    assert.equal((await ask({}, { cookie: 'b=1' })).cookie, null);
    await server.close();
  });
});
