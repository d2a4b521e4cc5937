// The README's pictures of what candidates see: the branded demo ("Demo Company", its logo and
// colour) at 1280 px and at 390 px, on the dashboard, an assessment's introduction, a question and
// a coding question with a program typed into its editor key by key.
// Run it again after changing the portal:
//
//   node --import tsx scripts/screenshots.ts            # writes docs/images/portal-*.png
//   node --import tsx scripts/screenshots.ts --logo     # also draws docs/images/demo-logo.png anew
//
// Uses Debian's Chromium (CHROMIUM_PATH, default /usr/bin/chromium) through playwright-core.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { DEMO_BRANDING } from '../src/seed.js';
import { DEMO_LOGO, startBrandedDemo } from './branded-demo.js';
import { typeProgram } from '../test/support/keyboard.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = path.dirname(DEMO_LOGO);
/** An assessment with a short first question that reads well in a picture. */
const ASSESSMENT = 'customer-support';
/** What the coding picture shows typed into the editor. */
const CODING_ANSWER = 'def second_largest(numbers):\n    values = sorted(set(numbers))\n    if len(values) < 2:\n        return None\n    return values[-2]';

export const VIEWPORTS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
] as const;

/** Draws the demo's logo (a mark and a wordmark in its accent colour) as a small transparent PNG. */
async function drawLogo(browser: Browser): Promise<void> {
  const page = await browser.newPage({ deviceScaleFactor: 2 });
  const colour = DEMO_BRANDING.accentColor;
  await page.setContent(`<!doctype html><html><body style="margin:0;background:transparent">
<div id="logo" style="display:inline-flex;align-items:center;gap:10px;padding:2px 4px;font:700 26px/1 system-ui,sans-serif;color:${colour}">
<svg width="34" height="34" viewBox="0 0 34 34" aria-hidden="true"><rect x="1" y="1" width="32" height="32" rx="8" fill="${colour}"/>
<path d="M9 23 L15 11 L19 19 L22 14 L26 23 Z" fill="#fff"/></svg>
<span>Demo Company</span></div></body></html>`);
  await page.locator('#logo').screenshot({ path: DEMO_LOGO, omitBackground: true });
  await page.close();
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
  mkdirSync(OUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    if (process.argv.includes('--logo') || !existsSync(DEMO_LOGO)) await drawLogo(browser);
    const demo = await startBrandedDemo();
    try {
      const written: string[] = [];
      for (const viewport of VIEWPORTS) {
        const invited = await demo.invite(`alex.${viewport.name}@example.com`, 'Alex', [ASSESSMENT, 'numerical-reasoning', 'data-entry', 'python-fundamentals']);
        const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
        const page = await context.newPage();
        const shot = async (screen: string) => {
          const file = path.join(OUT, `portal-${screen}-${viewport.name}.png`);
          await page.screenshot({ path: file, fullPage: false });
          written.push(file);
        };
        await page.goto(invited.link);
        await page.waitForURL(`${demo.base}/portal/`);
        await page.getByRole('heading', { name: 'Hello Alex' }).waitFor();
        await shot('dashboard');
        await page.locator(`a[href="/portal/a/${ASSESSMENT}"]`).click();
        await page.getByRole('button', { name: 'Start the assessment' }).waitFor();
        await shot('intro');
        await page.getByRole('button', { name: 'Start the assessment' }).click();
        await page.locator('#answer-form').waitFor();
        await shot('question');
        await page.goto(`${demo.base}/portal/a/python-fundamentals`);
        await page.getByRole('button', { name: 'Start the assessment' }).click();
        const editor = page.locator('.code-editor');
        await editor.getByRole('textbox').click();
        await page.keyboard.press('Control+A');
        await page.keyboard.press('Delete');
        await typeProgram(page, editor, CODING_ANSWER);
        await page.getByRole('button', { name: 'Run the examples' }).click();
        await page.locator('.run-output').filter({ hasText: /^1\. / }).waitFor({ timeout: 30000 });
        await page.evaluate(() => window.scrollTo(0, 0));
        await shot('coding');
        await context.close();
      }
      for (const file of [DEMO_LOGO, ...written]) console.log(`${path.relative(process.cwd(), file)}  ${Math.round(statSync(file).size / 1024)} KB`);
    } finally {
      await demo.close();
    }
  } finally {
    await browser.close();
  }
}

await main();
