// Likert and ranking questions in Debian's Chromium (playwright-core, as test/browser.test.ts):
// a candidate answers the work-style assessment by keyboard alone (Tab, the arrow keys, Enter and
// Space, no mouse and no dragging), hears where a moved option went, and axe finds no violation
// on either question. Without Chromium this skips and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { ScoreRecord } from '../src/modules/scores/format.js';
import { SHOTS, accessible, haveBrowser, startDemo, tabTo, type DemoBrowser } from './support/demo-browser.js';

const browserHere = haveBrowser('question-type browser tests');

describe('Likert and ranking questions in Chromium, by keyboard', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let browser: DemoBrowser['browser'];
  let base: string;
  let key: string;

  before(async () => {
    demo = await startDemo();
    ({ browser, base, key } = demo);
  });

  after(async () => {
    await demo?.close();
  });

  const focusedName = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.textContent?.trim() ?? '');
  const order = (page: Page) => page.locator('.rank-item .rank-text').allTextContents();
  const saved = (page: Page) => page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });

  it('answers a Likert item with the arrow keys and a ranking with Move up / Move down, saved and scored', async () => {
    const invited = await demo.invite('kim.keyboard@example.com', ['work-style'], { firstName: 'Kim', lastName: 'Keyboard' });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));

    await page.goto(invited.link);
    await page.getByRole('heading', { name: 'Hello Kim' }).waitFor();
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    await page.locator('#answer-form').waitFor();

    // Question 1, a Likert item: the group is named by its prompt; Tab enters it, the arrows choose.
    const group = page.getByRole('group', { name: /I plan my work for the day before I start on it/ });
    await group.waitFor();
    await accessible(page, 'Likert question');
    await tabTo(page, 'input[type="radio"][name="value"]');
    await page.keyboard.press('Space'); // the first point: Strongly disagree
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByLabel('Agree', { exact: true }).isChecked(), true, 'three steps right of Strongly disagree is Agree');
    await saved(page);
    await page.screenshot({ path: path.join(SHOTS, 'likert.png'), fullPage: true });
    await tabTo(page, 'button[value="next"]');
    await page.keyboard.press('Enter');

    // Through to question 7, the first ranking, by the progress links (keyboard: Tab, Enter).
    await page.locator('#answer-form[data-question="ws-02"]').waitFor();
    await tabTo(page, 'a.step[href$="?q=7"]');
    await page.keyboard.press('Enter');
    await page.locator('#answer-form[data-question="ws-07"]').waitFor();
    await accessible(page, 'ranking question');
    assert.deepEqual(await order(page), [
      'Work through the unread messages',
      "Review your colleague's document",
      'Call the customer back',
      'Finish the weekly figures for your manager',
    ]);

    // "Move up Call the customer back", twice: focus stays on the button, the live region says where it went.
    await tabTo(page, 'button.rank-move[value="2:up"]');
    assert.equal(await focusedName(page), 'Move up Call the customer back');
    assert.equal(await page.getByRole('button', { name: 'Move up Call the customer back', exact: true }).count(), 1, await page.locator('.ranking-list').ariaSnapshot());
    await page.keyboard.press('Enter');
    await page.locator('#ranking-status').filter({ hasText: '“Call the customer back” moved to position 2 of 4.' }).waitFor();
    await page.keyboard.press('Space');
    await page.locator('#ranking-status').filter({ hasText: '“Call the customer back” moved to position 1 of 4.' }).waitFor();
    assert.equal(await focusedName(page), 'Move up Call the customer back', 'focus stays with the moved option');
    await page.keyboard.press('Enter');
    await page.locator('#ranking-status').filter({ hasText: '“Call the customer back” is already first, at position 1 of 4.' }).waitFor();
    assert.equal(await page.locator('button.rank-move[value="2:up"]').getAttribute('aria-disabled'), 'true');
    // Then the weekly figures up twice, to second place.
    await tabTo(page, 'button.rank-move[value="3:up"]');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.locator('#ranking-status').filter({ hasText: '“Finish the weekly figures for your manager” moved to position 2 of 4.' }).waitFor();
    assert.deepEqual(await order(page), [
      'Call the customer back',
      'Finish the weekly figures for your manager',
      'Work through the unread messages',
      "Review your colleague's document",
    ]);
    assert.equal(await page.locator('button.rank-move[value="1:down"]').getAttribute('aria-disabled'), 'true', 'the last cannot move down');
    assert.equal(await page.locator('button.rank-move[value="2:up"]').getAttribute('aria-disabled'), 'true', 'the first cannot move up');
    assert.equal(await page.locator('button.rank-move[value="0:up"]').getAttribute('aria-disabled'), null);
    await saved(page);
    await accessible(page, 'ranking question after moves');
    await page.screenshot({ path: path.join(SHOTS, 'ranking.png'), fullPage: true });

    // A reload shows the saved order: saved through the same answer path as every other question.
    await page.reload();
    await page.locator('#answer-form[data-question="ws-07"]').waitFor();
    assert.deepEqual(await order(page), [
      'Call the customer back',
      'Finish the weekly figures for your manager',
      'Work through the unread messages',
      "Review your colleague's document",
    ]);

    await page.goto(`${base}/portal/a/work-style?q=review`);
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    // Questions were left open: the portal asks first, naming how many.
    await page.getByRole('heading', { name: 'Submit with unanswered questions?' }).waitFor();
    await page.getByRole('button', { name: 'Submit anyway' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    await context.close();
    assert.deepEqual(errors, [], 'no script errors or CSP violations in the page');

    const [record] = (await (await fetch(`${base}/v1/score?candidateIds=${invited.candidateId}`, { headers: { 'x-api-key': key } })).json()) as ScoreRecord[];
    assert.equal(record!.completion, '25', '2 of 8 answered');
    // Agree on ws-01: (4 − 1) / (5 − 1) = 0.75 of 3 items; the ranking: 1 − 2/8 = 0.75 of 2 of 4 points.
    assert.deepEqual(record!.categoryScores, [
      { name: 'Planning & organisation', score: '25' },
      { name: 'Collaboration', score: '0' },
      { name: 'Situational judgement', score: '37.5' },
    ]);
  });
});
