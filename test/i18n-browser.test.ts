// A German-speaking candidate on a 390 px phone, in Debian's Chromium (playwright-core, never a
// downloaded browser), with axe on every screen: dashboard, intro, a question, the review, the
// confirmation that submitting with gaps asks for, the completed page; and the typing test with
// the on-screen keyboard up (a 390×500 viewport), where the passage must stay in view while the
// candidate types. Without Chromium it is skipped and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type DemoBrowser } from './support/demo-browser.js';
import { typeAsPerson } from './support/keyboard.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(import.meta.dirname, '..', 'artifacts', 'screenshots');
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the browser tests would be skipped`);
}
if (!haveBrowser) console.log(`# i18n browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

describe('the portal in German on a phone, in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let base: string;

  let demo: DemoBrowser;
  before(async () => {
    demo = await startDemo({ settings: { mailFromName: 'Beispiel GmbH' }, mailDir: 'i18n-mail' });
    ({ browser, base } = demo);
  });

  after(async () => {
    await demo?.close();
  });

  const invite = (email: string, assessments: string[]) => demo.invite(email, assessments, { language: 'de' });

  async function checkAccessibility(page: Page, screen: string) {
    const result = (await page.evaluate(`${axe.source}; axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'best-practice'] })`)) as {
      violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
    };
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
      [],
      `accessibility of ${screen}`,
    );
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `de-${name}.png`), fullPage: true });

  it('walks dashboard → intro → a question → submit in German at 390 px, asked first because of the gaps', async () => {
    const invited = await invite('robin.de@example.com', ['numerical-reasoning']);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));

    await page.goto(invited.link);
    await page.getByRole('heading', { name: 'Guten Tag, Robin' }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'de', "the invite's language, not the browser's");
    assert.equal(await page.getAttribute('html', 'dir'), 'ltr');
    await checkAccessibility(page, 'dashboard (de)');
    await shot(page, '1-dashboard');

    await page.getByRole('link', { name: /Öffnen/ }).click();
    await page.getByRole('button', { name: 'Test beginnen' }).waitFor();
    await checkAccessibility(page, 'intro (de)');
    await shot(page, '2-intro');
    await page.getByRole('button', { name: 'Test beginnen' }).click();
    await page.locator('#answer-form').waitFor();
    await page.getByRole('heading', { name: /^Frage 1 von \d+$/ }).waitFor();
    await checkAccessibility(page, 'question (de)');

    // Answer the first question; the script says "Gespeichert" in German.
    const type = await page.locator('#answer-form').getAttribute('data-type');
    if (type === 'short-answer') {
      await page.locator('#answer').click();
      await typeAsPerson(page, '42');
    } else await page.locator('input[name="value"]').first().check();
    await page.locator('#save-status').filter({ hasText: 'Gespeichert' }).waitFor({ timeout: 5000 });
    await shot(page, '3-question');
    await page.getByRole('button', { name: 'Speichern und weiter' }).click();
    await page.getByRole('heading', { name: /^Frage 2 von \d+$/ }).waitFor();
    const chip = page.getByRole('navigation', { name: 'Fragen' }).getByRole('link', { name: '1 (beantwortet)', exact: true });
    assert.equal(await chip.locator('.mark').textContent(), '✓', 'answered: a check mark, not only a colour');
    assert.ok(await page.getByRole('navigation', { name: 'Fragen' }).getByRole('link', { name: '3 (nicht beantwortet)', exact: true }).isVisible());

    await page.goto(`${base}/portal/a/numerical-reasoning?q=review`);
    await page.getByRole('heading', { name: 'Überprüfen und abgeben' }).waitFor();
    await checkAccessibility(page, 'review (de)');
    // By keyboard: the submit button, then the confirmation page's own.
    await page.getByRole('button', { name: 'Test abgeben' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Mit unbeantworteten Fragen abgeben?' }).waitFor();
    assert.match(String(await page.locator('#confirm-message').textContent()), /^Sie haben \d+ Fragen nicht beantwortet\. Möchten Sie trotzdem abgeben\?$/);
    await checkAccessibility(page, 'confirm (de)');
    await shot(page, '4-confirm');
    await page.getByRole('button', { name: 'Trotzdem abgeben' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /abgeschlossen/ }).waitFor();
    await checkAccessibility(page, 'completed (de)');
    await shot(page, '5-completed');
    await context.close();
    assert.deepEqual(errors, [], 'no script errors or CSP violations in the page');
  });

  it('keeps the typing passage in view while the candidate types with the keyboard up (390×500)', async () => {
    const invited = await invite('robin.typing@example.com', ['data-entry']);
    const context = await browser.newContext({ viewport: { width: 390, height: 500 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(invited.link);
    await page.getByRole('link', { name: /Öffnen/ }).click();
    await page.getByRole('button', { name: 'Test beginnen' }).click();
    await page.locator('#answer-form').waitFor();
    const steps = await page.locator('.steps .step').count();
    await page.goto(`${base}/portal/a/data-entry?q=${steps}`);
    await page.getByRole('heading', { name: 'Tipptest' }).waitFor();
    await checkAccessibility(page, 'typing (de, 390×500)');
    await page.getByRole('button', { name: 'Tippen beginnen' }).click();
    await page.locator('#typing-area:focus').waitFor();
    assert.equal(await page.locator('#typing-start').isVisible(), false, 'the used Start button makes room');
    // The page scrolls the passage into view a moment after the box takes focus: wait for that.
    await page.waitForFunction(() => {
      const passage = document.getElementById('passage')!.getBoundingClientRect();
      const bar = document.querySelector('.attempt-bar')!.getBoundingClientRect();
      return passage.top >= bar.bottom - 1 && passage.bottom <= window.innerHeight;
    });

    const inView = async () =>
      page.evaluate(() => {
        const passage = document.getElementById('passage')!.getBoundingClientRect();
        const area = document.getElementById('typing-area')!.getBoundingClientRect();
        const bar = document.querySelector('.attempt-bar')!.getBoundingClientRect();
        return {
          passageTop: passage.top,
          passageBottom: passage.bottom,
          areaTop: area.top,
          areaBottom: area.bottom,
          barBottom: bar.bottom,
          height: window.innerHeight,
          focused: document.activeElement?.id,
        };
      });
    const check = (r: Awaited<ReturnType<typeof inView>>, when: string) => {
      assert.equal(r.focused, 'typing-area', when);
      assert.ok(r.passageTop >= r.barBottom - 1, `${when}: the passage starts below the sticky bar (${JSON.stringify(r)})`);
      assert.ok(r.passageBottom <= r.height, `${when}: the passage ends inside the viewport (${JSON.stringify(r)})`);
      assert.ok(r.areaTop >= 0 && r.areaTop < r.height, `${when}: the box is in view too (${JSON.stringify(r)})`);
    };
    check(await inView(), 'after Start typing');
    await page.keyboard.type('Each morning the stock team compares the delivery note', { delay: 20 });
    check(await inView(), 'while typing');
    await shot(page, '6-typing-keyboard');
    await context.close();
    assert.deepEqual(errors, []);
  });
});
