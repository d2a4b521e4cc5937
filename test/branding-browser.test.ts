// The branded portal in Chromium (playwright-core, Debian's browser), at 1280 px and at 390 px:
// the demo's logo is shown (the CSP lets it and the theme load: no console error), the title and
// the footer name the company and whom to contact, the accent colour is the demo's, nothing
// overflows the phone's width, and axe finds nothing on the dashboard, the introduction and a
// question. Without Chromium it is skipped and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import { type Browser, type Page } from 'playwright-core';
import { launchBrowser } from './support/demo-browser.js';
import { startBrandedDemo, type BrandedDemo } from '../scripts/branded-demo.js';
import { DEMO_BRANDING } from '../src/seed.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}`);
if (!haveBrowser) console.log(`# branded portal browser tests SKIPPED: no Chromium at ${CHROMIUM}`);

/** '#1D6B57' as the browser reports a computed colour. */
const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

describe('the branded portal in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let demo: BrandedDemo;

  before(async () => {
    demo = await startBrandedDemo();
    browser = await launchBrowser();
  });
  after(async () => {
    try {
      await browser?.close();
    } finally {
      await demo?.close();
    }
  });

  async function checkAccessibility(page: Page, screen: string) {
    const result = (await page.evaluate(`${axe.source}; axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'best-practice'] })`)) as {
      violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
    };
    assert.deepEqual(
      result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `axe on ${screen}`,
    );
  }

  async function checkBrand(page: Page, width: number, screen: string) {
    assert.match(await page.title(), / · Demo Company$/, `${screen}: the title names the company`);
    const logo = page.getByRole('img', { name: 'Demo Company' });
    await logo.waitFor();
    assert.ok(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), `${screen}: the logo loaded`);
    const box = (await logo.boundingBox())!;
    assert.ok(box.height <= 40 && box.width <= width, `${screen}: the logo fits the header (${box.width}×${box.height})`);
    const footer = page.locator('footer.site-footer');
    assert.match(
      (await footer.innerText()).replace(/\s+/g, ' '),
      new RegExp(`Questions\\? Contact ${DEMO_BRANDING.supportEmail.replace(/\./g, '\\.')}\\. Privacy notice of Demo Company`),
    );
    assert.equal(await footer.getByRole('link', { name: 'Privacy notice of Demo Company' }).getAttribute('href'), DEMO_BRANDING.privacyUrl);
    const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
    assert.equal(accent.toUpperCase(), DEMO_BRANDING.accentColor, `${screen}: the theme sets the accent colour`);
    assert.equal(
      await page
        .locator('a')
        .first()
        .evaluate((a) => getComputedStyle(a).color),
      rgb(DEMO_BRANDING.accentColor),
    );
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${screen}: no sideways scrolling at ${width} px`);
    await checkAccessibility(page, `${screen} at ${width} px`);
  }

  for (const width of [1280, 390]) {
    it(`shows the company on every screen at ${width} px, and axe finds nothing`, async () => {
      const invited = await demo.invite(`brand.${width}@example.com`, 'Alex', ['customer-support', 'numerical-reasoning']);
      const context = await browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));

      await page.goto(invited.link);
      await page.waitForURL(`${demo.base}/portal/`);
      await page.getByRole('heading', { name: 'Hello Alex' }).waitFor();
      await checkBrand(page, width, 'dashboard');
      await page.locator('a[href="/portal/a/customer-support"]').click();
      await page.getByRole('button', { name: 'Start the assessment' }).waitFor();
      await checkBrand(page, width, 'intro');
      // The primary button is the accent colour, its text white: AA contrast, as the setting checked.
      const start = page.getByRole('button', { name: 'Start the assessment' });
      assert.equal(await start.evaluate((b) => getComputedStyle(b).backgroundColor), rgb(DEMO_BRANDING.accentColor));
      await start.click();
      await page.locator('#answer-form').waitFor();
      await checkBrand(page, width, 'question');
      assert.deepEqual(errors, [], 'no script error and no CSP violation');
      await context.close();
    });
  }
});
