// /docs in Chromium under its Content-Security-Policy: Swagger UI renders the operations, and the
// browser reports no refused resource, no script error.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Browser } from 'playwright-core';
import { launchBrowser } from './support/demo-browser.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { openMigratedPglite } from './support/templates.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { ADMIN_TOKEN, freePort } from './harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the docs browser test would be skipped`);
if (!haveBrowser) console.log(`# docs browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe('/docs in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let app: FastifyInstance;
  let db: Database;
  let base: string;

  before(async () => {
    db = await openMigratedPglite();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildApp({
      config: { publicUrl: base, adminToken: ADMIN_TOKEN, keyCacheMs: 2000 },
      db,
      mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 2000, mailDir: '/tmp/ac-docs-mail' }),
    });
    await app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  after(async () => {
    try {
      await browser?.close();
    } finally {
      await app?.close();
      await db?.close();
    }
  });

  it('renders the operations with a Content-Security-Policy and nothing refused', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    const answer = await page.goto(`${base}/docs/`);
    assert.match(String(answer?.headers()['content-security-policy']), /script-src 'self'/);
    await page.getByText('/v1/invite').first().waitFor({ timeout: 15_000 });
    await page.getByText('/v1/invite').first().click();
    await page.getByText('Try it out').first().waitFor({ timeout: 5000 });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
