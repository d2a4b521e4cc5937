// Single sign-on in a real browser (Debian's Chromium with playwright-core), the provider on
// another site than the service (127.0.0.1 and localhost), so that the browser's SameSite rules
// apply as in production: the sign-in page's "Sign in with …" button, the provider, the return,
// and a signed-in console whose forms work. Skipped without Chromium unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser } from 'playwright-core';
import { launchBrowser } from './support/demo-browser.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { openMigratedPglite } from './support/templates.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { createInstance } from '../src/modules/tenants/repository.js';
import { ADMIN_TOKEN, freePort } from './harness.js';
import { startProvider, type TestProvider } from './support/oidc.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the SSO browser test would be skipped`);

describe('single sign-on in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let app: FastifyInstance;
  let db: Database;
  let idp: TestProvider;
  let base: string;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  before(async () => {
    db = await openMigratedPglite();
    await createInstance(db, { name: 'acme' });
    const port = await freePort();
    // The service at localhost, the provider at 127.0.0.1: two sites, as a company's provider is.
    base = `http://localhost:${port}`;
    idp = await startProvider(`${base}/console/sso-callback`);
    app = await buildApp({
      config: { publicUrl: base, adminToken: ADMIN_TOKEN, keyCacheMs: 2000, sweepEveryMs: 500, ssoAllowInsecureHttp: true },
      db,
      mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 2000, mailDir: mkdtempSync(path.join(tmpdir(), 'ac-sso-mail-')) }),
    });
    await app.listen({ port, host: '127.0.0.1' });
    const configured = await app.inject({
      method: 'PUT',
      url: '/admin/v1/instances/acme/sso',
      headers: admin,
      payload: {
        displayName: 'Acme ID',
        issuer: idp.issuer,
        clientId: idp.clientId,
        clientSecret: idp.clientSecret,
        allowedDomains: ['acme.test'],
        jit: true,
        defaultRole: 'manager',
      },
    });
    assert.equal(configured.statusCode, 200, configured.body);
    browser = await launchBrowser();
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await app?.close();
      await idp?.close();
      await db?.close();
    }
  });

  it('signs in with the "Sign in with Acme ID" button and lands in a working console', async () => {
    idp.accounts.set('maria', { email: 'maria.lopez@acme.test', email_verified: true });
    idp.login = 'maria';
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/console/sign-in?instance=acme`);
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await page.getByRole('button', { name: 'Continue at the provider' }).click();
    await page.waitForURL(`${base}/console/**`);
    await page.waitForSelector('h1');
    assert.equal(new URL(page.url()).pathname, '/console/', page.url());
    assert.match(await page.locator('h1').first().innerText(), /Overview of acme/);
    assert.match(await page.content(), /maria\.lopez@acme\.test/);
    // A form of the console works with the session (its CSRF token): signing out, from the user's menu.
    await page.locator('details.user-menu > summary').click();
    await page.getByRole('button', { name: /sign out/i }).click();
    await page.waitForURL(/\/console\/sign-in\?signedOut=1/);
    await context.close();
  });
});
