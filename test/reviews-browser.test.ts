// Reviewing together in a real browser (Debian's Chromium with playwright-core): in an instance
// with two reviewers per answer, blind review and agree-within 20 points, two reviewers score a
// free-text answer in their queues without seeing the candidate's name or each other's score,
// they disagree, and the lead (a manager) settles it. axe-core checks each screen. Skipped
// without Chromium unless REQUIRE_BROWSER=1, which makes that a failure.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import { type Browser, type Page } from 'playwright-core';
import { launchBrowser } from './support/demo-browser.js';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import type { Database } from '../src/db/database.js';
import { openMigratedPglite } from './support/templates.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { ADMIN_TOKEN, freePort, sampleAssessment } from './harness.js';
import { passwordChosen } from './support/console.js';
import { invite } from './support/portal.js';
import { takeWithLink } from './support/take.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(import.meta.dirname, '..', 'artifacts', 'screenshots');
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the reviews browser test would be skipped`);
}
if (!haveBrowser) console.log(`# reviews browser test SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe('reviewing together in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let app: FastifyInstance;
  let db: Database;
  let base: string;
  const passwords: Record<string, string> = {};
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await openMigratedPglite();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildApp({
      config: { publicUrl: base, adminToken: ADMIN_TOKEN, keyCacheMs: 2000 },
      db,
      mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 2000, mailDir: mkdtempSync(path.join(tmpdir(), 'ac-reviews-mail-')) }),
    });
    await app.listen({ port, host: '127.0.0.1' });
    const inject = (options: { method: 'GET' | 'POST'; url: string; payload?: unknown; headers?: Record<string, string> }) =>
      app.inject({ ...options, payload: options.payload as string, headers: { ...admin, ...(options.headers ?? {}) } });
    const settings = { name: 'demo', reviewersPerAnswer: 2, blindReview: true, reviewAgreement: 'agree-within', reviewAgreementPoints: 20 };
    assert.equal((await inject({ method: 'POST', url: '/admin/v1/instances', payload: settings })).statusCode, 201);
    const published = await inject({
      method: 'POST',
      url: '/admin/v1/instances/demo/assessments',
      headers: { 'content-type': 'application/yaml' },
      payload: sampleAssessment('alpha'),
    });
    assert.equal(published.statusCode, 201, published.body);
    for (const [email, role] of [
      ['ann.reviewer@example.com', 'reviewer'],
      ['ben.reviewer@example.com', 'reviewer'],
      ['lea.manager@example.com', 'manager'],
      ['cal.reviewer@example.com', 'reviewer'],
    ] as const) {
      passwords[email] = (await inject({ method: 'POST', url: '/admin/v1/users', payload: { email, role, instances: ['demo'] } })).json().password;
      await passwordChosen({ db }, email);
    }
    const key = (await inject({ method: 'POST', url: '/admin/v1/keys', payload: { instances: ['demo'] } })).json().key as string;
    const api = { request: (options: InjectOptions) => app.inject(options) };
    const invited = await invite(api, { instance: 'demo', key }, { email: 'zelda.quux@example.com', firstName: 'Zelda', lastName: 'Quux' }, ['alpha']);
    await takeWithLink(api, invited.link);
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

  async function signedIn(email: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base}/console/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(passwords[email]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview of demo' }).waitFor();
    return page;
  }

  async function reviewBlind(email: string, score: string, comment: string, screen: string, unseen: RegExp[]) {
    const page = await signedIn(email);
    await page.goto(`${base}/console/reviews?instance=demo`);
    await page.getByRole('heading', { name: /^Answer [0-9A-F]{6} · Sample assessment$/ }).waitFor();
    const text = await page.locator('main').innerText();
    assert.match(text, /I listened, apologised & fixed the <order>\./);
    for (const hidden of unseen) assert.doesNotMatch(text, hidden, `${screen}: ${hidden} is hidden`);
    await accessible(page, screen);
    await page.screenshot({ path: path.join(SHOTS, `reviews-${screen}.png`), fullPage: true });
    await page.getByLabel('Score (0–100)').fill(score);
    await page.getByLabel('Comment (optional)').fill(comment);
    await page.getByRole('button', { name: 'Save and next' }).click();
    await page.getByText('Score saved.').waitFor();
    await page.getByText('Nothing waits for review.').waitFor();
    await page.context().close();
  }

  it('two reviewers score blind, disagree, and the lead settles it', async () => {
    await reviewBlind('ann.reviewer@example.com', '90', 'Warm and concrete', 'first-reviewer', [/Zelda/, /Quux/, /zelda\.quux/]);
    await reviewBlind('ben.reviewer@example.com', '40', 'Too short', 'second-reviewer', [/Zelda/, /zelda\.quux/, /Warm and concrete/, /90 \/ 100/]);

    const lead = await signedIn('lea.manager@example.com');
    await lead.goto(`${base}/console/reviews?instance=demo`);
    await lead.getByRole('heading', { name: 'Disagreements to settle (1)' }).waitFor();
    const panel = lead.locator('section.disagreements');
    assert.match(await panel.innerText(), /Warm and concrete[^]*Too short/);
    await accessible(lead, 'lead');
    await lead.screenshot({ path: path.join(SHOTS, 'reviews-lead.png'), fullPage: true });
    await panel.getByLabel('Final score (0–100)').fill('70');
    await panel.getByLabel('Why (optional)').fill('Concrete remedy; brief');
    await panel.getByRole('button', { name: 'Settle' }).click();
    await lead.getByText('Settled: the answer has its final score.').waitFor();
    assert.equal(await lead.locator('section.disagreements').count(), 0);
    await lead.locator('.badge.review-settled').first().waitFor();
    await accessible(lead, 'settled');
    const pending = await app.inject({ method: 'GET', url: '/admin/v1/instances/demo/reviews', headers: admin });
    assert.deepEqual(pending.json(), []);
    await lead.context().close();
  });

  it("a reviewer who has not reviewed the candidate finds no name or e-mail on any page, in the CSV, a search or the candidate's page", async () => {
    const page = await signedIn('cal.reviewer@example.com');
    const NAMES = /Zelda|Quux|zelda\.quux/i;
    const candidateId = (await db.query<{ id: string }>("SELECT id FROM candidates WHERE first_name = 'Zelda'")).rows[0]!.id;
    // Every page the navigation reaches, as the reviewer sees it (text and title).
    const links = await page.locator('nav a[href^="/console"]').evaluateAll((as) => [...new Set(as.map((a) => (a as HTMLAnchorElement).getAttribute('href')!))]);
    assert.ok(links.length >= 3, `the navigation has links: ${links.join(', ')}`);
    assert.ok(!links.some((l) => l.startsWith('/console/candidates') || l.startsWith('/console/invitations')), links.join(', '));
    for (const link of links) {
      const response = await page.goto(`${base}${link}`);
      assert.ok(response && response.status() < 400, `${link}: ${response?.status()}`);
      assert.doesNotMatch(`${await page.title()}\n${await page.locator('body').innerText()}`, NAMES, link);
    }
    // What is not in the navigation is refused without a name, typed in by hand.
    for (const url of [
      '/console/candidates?instance=demo',
      '/console/candidates?instance=demo&q=Zelda',
      '/console/candidates.csv?instance=demo',
      `/console/candidates/${candidateId}?instance=demo`,
      `/console/compare?instance=demo&ids=${candidateId},${candidateId}`,
      '/console/invitations?instance=demo',
      `/console/candidates/${candidateId}/pdf/alpha?instance=demo`,
    ]) {
      const response = await page.request.get(`${base}${url}`);
      assert.equal(response.status(), 403, url);
      assert.doesNotMatch(await response.text(), NAMES, url);
    }
    await page.goto(`${base}/console/candidates/${candidateId}?instance=demo`);
    assert.doesNotMatch(`${await page.title()}\n${await page.locator('body').innerText()}`, NAMES);
    await accessible(page, 'blind refusal');
    await page.context().close();
  });
});
