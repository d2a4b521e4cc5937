// Inviting from a CSV file in a real browser (Debian's Chromium with playwright-core): an owner
// opens the bulk invite from the Invitations page, uploads a file, maps the columns the headers
// did not name, reads the three bad rows in the preview, starts, watches the page reach done
// (it reloads itself while the service works) and downloads the result file. axe-core checks
// each page. Skipped without Chromium unless REQUIRE_BROWSER=1, which makes that a failure.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import { type Browser, type Page } from 'playwright-core';
import { launchBrowser } from './support/demo-browser.js';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { openMigratedPglite } from './support/templates.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { ADMIN_TOKEN, freePort, sampleAssessment } from './harness.js';
import { passwordChosen } from './support/console.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(import.meta.dirname, '..', 'artifacts', 'screenshots');
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the bulk invite browser test would be skipped`);
}
if (!haveBrowser) console.log(`# bulk invite browser test SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe('bulk invite in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let app: FastifyInstance;
  let db: Database;
  let base: string;
  let password: string;
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await openMigratedPglite();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildApp({
      config: { publicUrl: base, adminToken: ADMIN_TOKEN, keyCacheMs: 2000 },
      db,
      mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 2000, mailDir: path.join(SHOTS, '..', 'bulk-invite-mail') }),
    });
    await app.listen({ port, host: '127.0.0.1' });
    assert.equal((await app.inject({ method: 'POST', url: '/admin/v1/instances', headers: admin, payload: { name: 'demo' } })).statusCode, 201);
    const published = await app.inject({
      method: 'POST',
      url: '/admin/v1/instances/demo/assessments',
      headers: { ...admin, 'content-type': 'application/yaml' },
      payload: sampleAssessment('sample', { name: 'Sample assessment' }),
    });
    assert.equal(published.statusCode, 201, published.body);
    password = (await app.inject({ method: 'POST', url: '/admin/v1/users', headers: admin, payload: { email: 'olivia.owner@example.com', role: 'owner' } })).json().password;
    await passwordChosen({ db }, 'olivia.owner@example.com');
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

  async function accessible(page: Page, screen: string) {
    const result = (await page.evaluate(`${axe.source}; axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'best-practice'] })`)) as {
      violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
    };
    assert.deepEqual(
      result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `axe on ${screen}`,
    );
  }

  it('uploads a CSV, maps its columns, sees the three bad rows, starts, sees done and downloads the result file', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && !/status of 400/.test(message.text()) && errors.push(message.text()));
    await page.goto(`${base}/console/`);
    await page.getByLabel('E-mail').fill('olivia.owner@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview of demo' }).waitFor();

    await page.goto(`${base}/console/invitations?instance=demo`);
    await page.getByRole('link', { name: 'Invite many from a CSV file' }).click();
    await page.getByRole('heading', { name: 'Invite from a CSV file' }).waitFor();
    await accessible(page, 'upload');
    // Semicolons, a byte-order mark, a quoted cell; "Forenames" and "Name" are not guessed.
    const rows = ['Work e-mail;Forenames;Name;Language'];
    for (let i = 1; i <= 40; i++) rows.push(`person${i}@example.com;${i === 3 ? '"Anne; Marie"' : `Given${i}`};Surname${i};de`);
    rows[5] = 'not an address;Given5;Surname5;de';
    rows[12] = 'person12@example.com;;Surname12;de';
    rows[20] = 'person20@example.com;Given20;Surname20;german';
    rows.push('PERSON1@example.com;Again;Twice;de');
    await page.getByLabel('CSV file').setInputFiles({ name: 'applicants.csv', mimeType: 'text/csv', buffer: Buffer.from(`\uFEFF${rows.join('\r\n')}\r\n`) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('heading', { name: 'applicants.csv' }).waitFor();
    await accessible(page, 'mapping');
    await page.getByLabel('First name (required)').selectOption({ label: 'Forenames' });
    await page.getByLabel('Last name (required)').selectOption({ label: 'Name' });
    await page.getByLabel('Sample assessment').check();
    await page.getByLabel('E-mail each candidate their invitation').uncheck();
    await page.getByRole('button', { name: 'Check the rows' }).click();
    await page.locator('#bulk-problems').waitFor();
    await accessible(page, 'preview');
    await page.screenshot({ path: path.join(SHOTS, 'bulk-invite-preview.png'), fullPage: true });
    assert.match(await page.locator('#bulk-summary').innerText(), /^41 rows: 37 to invite, 3 bad, 1 duplicate, 0 known already\./);
    const problems = await page.locator('#bulk-problems tbody tr').allInnerTexts();
    assert.equal(problems.length, 4);
    assert.match(problems[0]!, /^6\s+not an address\s+bad row: not invited\s+Work e-mail: must match format "email"$/);
    assert.match(problems[1]!, /^13\s+person12@example\.com\s+bad row: not invited\s+Forenames: must NOT have fewer than 1 characters$/);
    assert.match(problems[2]!, /^21\s+person20@example\.com\s+bad row: not invited\s+Language: must be a BCP 47 language tag/);
    assert.match(problems[3]!, /^42\s+PERSON1@example\.com\s+duplicate: not invited\s+the same e-mail as line 2/);

    // At 390 px the wide tables scroll inside themselves, and the page stays accessible.
    await page.setViewportSize({ width: 390, height: 800 });
    await accessible(page, 'preview at 390 px');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), 'the page does not scroll sideways at 390 px');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Invite 37 candidates' }).click();
    // The page reloads itself while the service invites, until it is done.
    await page.getByText(/^done: 37 of 37 rows tried, 37 invited, 0 refused\.$/).waitFor({ timeout: 60_000 });
    await accessible(page, 'done');
    await page.screenshot({ path: path.join(SHOTS, 'bulk-invite-done.png'), fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the result file (CSV)' }).click()]);
    const saved = await download.path();
    const result = readFileSync(saved!, 'utf8').trimEnd().split('\r\n');
    assert.equal(result.length, 42);
    assert.equal(result[0], '"line","email","outcome","candidateId","link"');
    assert.match(result[1]!, /^"2","person1@example\.com","invited","[0-9a-f-]{36}","link not e-mailed/);
    assert.match(result[5]!, /^"6","not an address","not invited: invalid","","Work e-mail: /);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
