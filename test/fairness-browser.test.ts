// Fairness and WCAG 2.2 in Debian's Chromium (playwright-core, as test/browser.test.ts): the
// practice question by keyboard before the clock, shuffled options that stay put on reload, the
// time-left announcements at 5 and 1 minutes (the page's clock moved with page.clock), focus never
// under the sticky bar (2.4.11), targets of at least 24 by 24 px (2.5.8), reflow at 320 px and at
// 200 % zoom (1.4.10), the feedback form by keyboard, and axe on every page. Without Chromium this
// skips and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { SHOTS, accessible, haveBrowser, startDemo, tabTo, type DemoBrowser } from './support/demo-browser.js';

const browserHere = haveBrowser('fairness browser tests');

describe('fairness and WCAG 2.2 in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let browser: DemoBrowser['browser'];
  let db: DemoBrowser['db'];
  let base: string;
  let people = 0;

  before(async () => {
    demo = await startDemo();
    ({ browser, db, base } = demo);
  });

  after(async () => {
    await demo?.close();
  });

  /** A new candidate invited to numerical reasoning, signed in, on their dashboard. */
  async function candidate(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; errors: string[]; candidateId: string }> {
    people++;
    const invited = await demo.invite(`fair${people}@example.com`, ['numerical-reasoning'], { firstName: 'Fran', lastName: 'Fair' });
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(invited.link);
    await page.getByRole('heading', { name: 'Hello Fran' }).waitFor();
    return { context, page, errors, candidateId: invited.candidateId };
  }

  /** Every visible interactive element smaller than 24 by 24 CSS px, except links inside a sentence (2.5.8's inline exception). */
  const smallTargets = (page: Page) =>
    page.evaluate(() => {
      const out: string[] = [];
      for (const el of document.querySelectorAll<HTMLElement>('a[href], button, input:not([type="hidden"]), select, textarea, summary')) {
        const rect = el.getBoundingClientRect();
        if (rect.width === 0 && rect.height === 0) continue;
        if (el.classList.contains('skip')) continue; // off-screen until focused; checked when focused
        const parent = el.parentElement;
        const inline = el.tagName === 'A' && parent !== null && parent.textContent!.trim() !== el.textContent!.trim() && getComputedStyle(el).display === 'inline';
        if (inline) continue;
        if (rect.width < 24 || rect.height < 24)
          out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el.textContent ?? '').trim().slice(0, 30)}" ${rect.width.toFixed(1)}x${rect.height.toFixed(1)}`);
      }
      return out;
    });

  /** Where this candidate's attempt shows a question (its questions are shuffled): ?q=<position>. */
  async function positionOf(candidateId: string, questionId: string): Promise<number> {
    const { rows } = await db.query<{ layout: { questions: string[] } }>(
      'SELECT t.layout FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 AND t.superseded_at IS NULL',
      [candidateId],
    );
    const position = rows[0]!.layout.questions.indexOf(questionId) + 1;
    assert.ok(position > 0, `${questionId} is given`);
    return position;
  }

  /** Whether the page scrolls sideways: the document is wider than the viewport. */
  const overflow = (page: Page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, view: document.documentElement.clientWidth }));

  /**
   * For each focusable element below the bar: the page is scrolled so that the element sits just
   * under the top of the viewport (behind the sticky bar), focus is put on the next element without
   * scrolling, and Shift+Tab moves to it, as a keyboard user going back up the page would. The
   * browser must scroll it clear of the bar (2.4.11); without scroll-padding it would not, the
   * element being inside the viewport already.
   */
  async function focusNeverUnderBar(page: Page, screen: string) {
    const count = await page.evaluate(() => {
      // Room below the page, so that any element can be scrolled up behind the bar.
      document.body.style.paddingBottom = `${2 * innerHeight}px`;
      const all = [...document.querySelectorAll<HTMLElement>('a[href], button, input:not([type="hidden"]), textarea, select')];
      const bar = document.querySelector('.attempt-bar')!;
      const usable = all.filter((el) => !bar.contains(el) && !el.classList.contains('skip') && el.getClientRects().length > 0 && !(el as HTMLButtonElement).disabled);
      usable.forEach((el, i) => el.setAttribute('data-focus-check', String(i)));
      return usable.length;
    });
    assert.ok(count > 5, `${count} focusable elements on ${screen}`);
    const hidden: string[] = [];
    let checked = 0;
    for (let i = 0; i < count - 1; i++) {
      const ready = await page.evaluate((i) => {
        const el = document.querySelector<HTMLElement>(`[data-focus-check="${i}"]`)!;
        const next = document.querySelector<HTMLElement>(`[data-focus-check="${i + 1}"]`)!;
        // Radio buttons of one group are one tab stop: skip a pair inside the same group.
        if (el instanceof HTMLInputElement && next instanceof HTMLInputElement && el.type === 'radio' && el.name === next.name) return false;
        next.focus({ preventScroll: true });
        window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 4);
        return true;
      }, i);
      if (!ready) continue;
      await page.keyboard.press('Shift+Tab');
      const state = await page.evaluate((i) => {
        const el = document.activeElement as HTMLElement;
        const bar = document.querySelector('.attempt-bar')!.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return {
          same: el.getAttribute('data-focus-check') === String(i),
          name: `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}"`,
          top: r.top,
          barBottom: bar.top <= 0.5 ? bar.bottom : 0,
        };
      }, i);
      if (!state.same) continue; // a radio group's checked option, for instance
      checked++;
      if (state.top < state.barBottom - 0.5) hidden.push(`${state.name}: top ${state.top.toFixed(0)}, bar ends ${state.barBottom.toFixed(0)}`);
    }
    assert.ok(checked > 5, `${checked} elements reached by Shift+Tab on ${screen}`);
    assert.deepEqual(hidden, [], `focus under the sticky bar on ${screen}`);
  }

  it('offers the practice question by keyboard before the clock, with feedback, and starts the clock only at Start', async () => {
    const { context, page, errors, candidateId } = await candidate({ width: 1280, height: 900 });
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('heading', { name: 'Practice first' }).waitFor();
    await accessible(page, 'intro with the practice invitation');
    await tabTo(page, 'a[href$="/practice"]');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Practice question' }).waitFor();
    assert.equal(await page.locator('#timer').count(), 0, 'no clock on the practice page');
    await accessible(page, 'practice question');
    // Tab into the radio group, take the first option, move with the arrows, then Check my answer.
    await tabTo(page, 'input[type="radio"][name="value"]');
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowDown');
    const chosen = await page.evaluate(() => (document.activeElement as HTMLInputElement).labels?.[0]?.textContent ?? '');
    await tabTo(page, 'button[value="check"]');
    await page.keyboard.press('Enter');
    const feedback = page.locator('#practice-feedback');
    await feedback.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'practice-feedback', 'focus moves to the feedback, which is read first');
    const said = (await feedback.textContent())!;
    assert.match(said, chosen === '60' ? /That is the answer we expected\./ : /The answer we expected was “60”\./);
    assert.match(said, /5 boxes of 12 pens each make 5 × 12 = 60 pens\./);
    assert.equal(await page.locator(`input[name="value"]:checked + label`).textContent(), chosen, 'the answer stays chosen');
    await accessible(page, 'practice question with feedback');
    assert.deepEqual(await smallTargets(page), [], 'targets on the practice page');
    await page.screenshot({ path: path.join(SHOTS, 'practice.png'), fullPage: true });
    const attempts = await db.query('SELECT 1 FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1', [candidateId]);
    assert.equal(attempts.rows.length, 0, 'the clock has not started');

    await tabTo(page, 'button[type="submit"].primary');
    await page.keyboard.press('Enter');
    await page.locator('#answer-form').waitFor();
    assert.equal(
      (await db.query('SELECT 1 FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1', [candidateId])).rows
        .length,
      0,
      'the practice answer was not stored',
    );
    await context.close();
    assert.deepEqual(errors, [], 'no script errors or CSP violations');
  });

  it('keeps shuffled options in place on reload and announces 5 and 1 minutes left once each', async () => {
    const { context, page, errors, candidateId } = await candidate({ width: 1280, height: 900 });
    await page.clock.install({ time: new Date() });
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    await page.locator('#answer-form').waitFor();
    // The second question is a single choice: its order is this attempt's, the same after a reload.
    // The questions are shuffled too: the percentage question is wherever this attempt put it.
    await page.goto(`${base}/portal/a/numerical-reasoning?q=${await positionOf(candidateId, 'nr-02')}`);
    assert.equal(await page.locator('#answer-form').getAttribute('data-question'), 'nr-02');
    const labels = () => page.locator('.option label').allTextContents();
    const values = () => page.locator('.option input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    const shown = await labels();
    const shownValues = await values();
    assert.equal(shown.length, 4);
    await page.reload();
    assert.deepEqual(await labels(), shown);
    assert.deepEqual(await values(), shownValues);
    assert.deepEqual(
      shownValues.map((v) => shown[shownValues.indexOf(v)]),
      shownValues.map((v) => ['20%', '25%', '60%', '125%'][Number(v)]),
      'each option keeps its own value, whatever its place',
    );

    const notice = page.locator('#time-notice');
    assert.equal(await notice.getAttribute('aria-live'), 'assertive');
    assert.equal(await notice.textContent(), '');
    assert.equal(await page.locator('#timer').getAttribute('aria-live'), null, 'the ticking countdown is not a live region');
    assert.equal(await page.locator('#timer').getAttribute('role'), null);
    // Count the region's changes: it must change once per threshold, not every second.
    await page.evaluate(() => {
      const w = window as unknown as { changes: number };
      w.changes = 0;
      new MutationObserver(() => w.changes++).observe(document.getElementById('time-notice')!, { childList: true, characterData: true, subtree: true });
    });
    const changes = () => page.evaluate(() => (window as unknown as { changes: number }).changes);
    await page.clock.fastForward('14:50'); // 20 minutes: 5:10 left
    await page.clock.runFor(5000);
    assert.equal(await notice.textContent(), '', 'not yet');
    await page.clock.runFor(6000); // 4:59 left
    assert.equal(await notice.textContent(), '5 minutes left.');
    await page.clock.runFor(30_000);
    assert.equal(await notice.textContent(), '5 minutes left.');
    assert.equal(await changes(), 1, 'announced once');
    // Another page opened with 4 minutes left (the deadline moved in the database; the page takes
    // its clock from the server's): the threshold already passed is not announced again.
    await db.query(`UPDATE attempts SET deadline_at = now() + interval '4 minutes' WHERE invitation_id IN (SELECT id FROM invitations WHERE candidate_id = $1)`, [candidateId]);
    await page.goto(`${base}/portal/a/numerical-reasoning?q=3`);
    await page.clock.runFor(2000);
    assert.equal(await page.locator('#time-notice').textContent(), '');
    await page.clock.fastForward('03:00'); // about 0:58 left
    await page.clock.runFor(1000);
    assert.equal(await page.locator('#time-notice').textContent(), '1 minute left.');
    await context.close();
    assert.deepEqual(errors, [], 'no script errors or CSP violations');
  });

  for (const viewport of [
    { width: 1280, height: 640, label: 'desktop' },
    { width: 390, height: 700, label: 'phone' },
  ]) {
    it(`keeps focus clear of the sticky bar and every target at least 24 px (${viewport.label})`, async () => {
      const { context, page, errors, candidateId } = await candidate(viewport);
      assert.deepEqual(await smallTargets(page), [], 'targets on the dashboard');
      await page.getByRole('link', { name: /Open/ }).click();
      await page.getByRole('button', { name: 'Start the assessment' }).waitFor();
      assert.deepEqual(await smallTargets(page), [], 'targets on the intro');
      await page.getByRole('button', { name: 'Start the assessment' }).click();
      // The first and last places, a choice question and the one with a table, wherever they are.
      for (const q of ['1', '17', await positionOf(candidateId, 'nr-02'), await positionOf(candidateId, 'nr-06')]) {
        await page.goto(`${base}/portal/a/numerical-reasoning?q=${q}`);
        await page.locator('#answer-form').waitFor();
        assert.deepEqual(await smallTargets(page), [], `targets on question ${q}`);
        await focusNeverUnderBar(page, `question ${q}`);
      }
      await page.goto(`${base}/portal/a/numerical-reasoning?q=review`);
      assert.deepEqual(await smallTargets(page), [], 'targets on the review page');
      await focusNeverUnderBar(page, 'the review page');
      // The skip link, when focused, is a target of its own.
      await page.goto(`${base}/portal/a/numerical-reasoning?q=1`);
      await page.keyboard.press('Tab');
      const skip = await page.evaluate(() => {
        const r = document.activeElement!.getBoundingClientRect();
        return { cls: document.activeElement!.className, w: r.width, h: r.height };
      });
      assert.equal(skip.cls, 'skip');
      assert.ok(skip.w >= 24 && skip.h >= 24, JSON.stringify(skip));
      await context.close();
      assert.deepEqual(errors, []);
    });
  }

  for (const viewport of [
    { width: 320, height: 640, label: '320 px wide' },
    { width: 640, height: 400, label: '1280 by 800 at 200 % zoom' },
  ]) {
    it(`reflows without sideways scrolling at ${viewport.label}, and axe finds nothing`, async () => {
      const { context, page, errors, candidateId } = await candidate(viewport);
      const check = async (screen: string) => {
        const { scroll, view } = await overflow(page);
        assert.ok(scroll <= view, `${screen}: the page is ${scroll} px wide in a ${view} px viewport`);
        await accessible(page, `${screen} at ${viewport.label}`);
      };
      await check('dashboard');
      await page.getByRole('link', { name: /Open/ }).click();
      await page.getByRole('button', { name: 'Start the assessment' }).waitFor();
      await check('intro');
      await page.goto(`${base}/portal/a/numerical-reasoning/practice`);
      await check('practice');
      await page.getByRole('button', { name: 'Start the assessment' }).click();
      for (const q of ['1', '17', ...(await Promise.all(['nr-06', 'nr-09'].map((id) => positionOf(candidateId, id))))]) {
        await page.goto(`${base}/portal/a/numerical-reasoning?q=${q}`);
        await page.locator('#answer-form').waitFor();
        await check(`question ${q}`);
      }
      await page.goto(`${base}/portal/a/numerical-reasoning?q=review`);
      await check('review');
      if (viewport.width === 320) await page.screenshot({ path: path.join(SHOTS, 'question-320.png'), fullPage: true });
      await context.close();
      assert.deepEqual(errors, []);
    });
  }

  it('takes the feedback after submitting by keyboard, once', async () => {
    const { context, page, errors, candidateId } = await candidate({ width: 390, height: 800 });
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    await page.locator('#answer-form').waitFor();
    await page.goto(`${base}/portal/a/numerical-reasoning?q=review`);
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    // Nothing is answered: submitting asks first.
    await page.getByRole('button', { name: 'Submit anyway' }).click();
    await page.getByRole('heading', { name: 'How was this assessment? (optional)' }).waitFor();
    await accessible(page, 'completed page with the feedback form');
    assert.deepEqual(await smallTargets(page), [], 'targets on the feedback form');
    assert.equal((await overflow(page)).scroll <= 390, true);
    await tabTo(page, 'input[name="rating"]');
    await page.keyboard.press('Space');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.locator('input[name="rating"]:checked').getAttribute('value'), '4');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Clear and fair.');
    await tabTo(page, 'button[type="submit"]');
    await page.screenshot({ path: path.join(SHOTS, 'feedback.png'), fullPage: true });
    await page.keyboard.press('Enter');
    await page.getByText('Thank you for your feedback.').waitFor();
    await accessible(page, 'completed page after feedback');
    const stored = await db.query<{ rating: number; comment: string }>(
      'SELECT f.rating, f.comment FROM attempt_feedback f JOIN attempts t ON t.id = f.attempt_id JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1',
      [candidateId],
    );
    assert.deepEqual(stored.rows, [{ rating: 4, comment: 'Clear and fair.' }]);
    await context.close();
    assert.deepEqual(errors, []);
  });
});
