// The question builder in Chromium: a manager, by the visible labels only and typing with the
// keyboard, writes a new assessment's settings and a multiple-choice, a free-text (with a rubric)
// and a coding question (starter code, an example, hidden tests), moves a question with its
// buttons and another by dragging it, previews it, publishes it; a candidate invited to it then
// meets those questions in the portal. axe checks the builder's pages; none scrolls sideways at
// 390 px. The pages are pictured at 1280 and 390 px.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { accessible, consoleSignIn, demoUser, haveBrowser, SHOTS, startAttemptPage, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { press, typeAsPerson } from './support/keyboard.js';

const present = haveBrowser('question builder browser test');
// UPDATE_SCREENSHOTS=1 writes docs/images/console-builder-*.png (else artifacts/screenshots/), as the console's other pictures.
const IMAGES = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(realpathSync(SHOTS), '..', '..', 'docs', 'images') : SHOTS;

describe('question builder in Chromium', { skip: !present && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let password: string;

  before(async () => {
    demo = await startDemo({ mailDir: 'builder-mail' });
    password = await demoUser(demo, 'bo.builder@example.com');
  });

  after(async () => {
    await demo?.close();
  });

  /** Clicks the field its label names and types `text` into it, replacing what it held. */
  async function typeInto(page: Page, label: string, text: string, scope: Page | ReturnType<Page['locator']> = page) {
    await scope.getByLabel(label, { exact: true }).click();
    await press(page, 'Control+A');
    await press(page, 'Delete');
    await typeAsPerson(page, text);
  }

  async function noSidewaysScroll(page: Page, screen: string) {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${screen} scrolls sideways by ${overflow} px`);
  }

  const storedQuestions = async () =>
    (
      await demo.db.query<{ id: string; type: string }>(
        `SELECT e.q->>'id' AS id, e.q->>'type' AS type FROM assessment_versions v JOIN assessments a ON a.id = v.assessment_id,
           jsonb_array_elements(v.content->'questions') WITH ORDINALITY AS e(q, n)
          WHERE a.slug = 'support-builder' ORDER BY v.version, e.n`,
      )
    ).rows;

  it('builds an assessment of three question types by keyboard, publishes it, and a candidate meets its questions', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await consoleSignIn(page, demo.base, 'bo.builder@example.com', password);
    await page.goto(`${demo.base}/console/assessments?instance=demo`);
    await page.getByRole('link', { name: 'New assessment', exact: true }).click();
    await page.getByRole('heading', { name: 'New assessment' }).waitFor();

    // The settings.
    await typeInto(page, 'Id', 'support-builder');
    await typeInto(page, 'Name', 'Support builder');
    await typeInto(page, 'Description', 'Three kinds of question about helping customers.');
    await typeInto(page, 'Time limit (minutes)', '25');
    await typeInto(page, 'Pass score (%)', '60');
    await typeInto(page, 'Low pass score (%)', '80');
    await typeInto(page, 'Category 1 id', 'support');
    await typeInto(page, 'Category 1 name', 'Support');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // The importer's rule, beside its field and in the summary; nothing saved.
    await page.getByText('The settings were not saved:').waitFor();
    assert.equal(await page.getByLabel('Low pass score (%)', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.match(await page.locator('#f-lowPassScore-error').innerText(), /must not be above passScore/);
    await accessible(page, 'builder with a refused setting');
    await typeInto(page, 'Low pass score (%)', '40');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved in the draft.').waitFor();

    // A multiple-choice question with two right answers.
    await page.getByLabel('Question type').selectOption({ label: 'Multiple choice' });
    await page.getByRole('button', { name: 'Add question' }).click();
    await page.getByRole('heading', { name: 'New multiple choice question' }).waitFor();
    await typeInto(page, 'Prompt', 'Which of these are support channels?');
    await typeInto(page, 'Option 1', 'E-mail');
    await typeInto(page, 'Option 2', 'Chat');
    await typeInto(page, 'Option 3', 'Payroll');
    await page.getByLabel('Option 1 is a right answer').check();
    await page.getByLabel('Option 2 is a right answer').check();
    await page.getByRole('button', { name: 'Save question' }).click();
    await page.getByText('Question saved in the draft.').waitFor();

    // A free-text question with guidance and a rubric.
    await page.getByLabel('Question type').selectOption({ label: 'Free text' });
    await page.getByRole('button', { name: 'Add question' }).click();
    await typeInto(page, 'Prompt', 'Describe a time you calmed an upset customer.');
    await typeInto(page, 'Guidance for reviewers (optional)', 'Look for listening and a concrete outcome.');
    await typeInto(page, 'Criterion 1 Name', 'Empathy');
    await typeInto(page, 'Criterion 1 Id', 'empathy');
    await typeInto(page, 'Criterion 1 Levels', '0 | Missing | No sign of listening\n2 | Clear | Listens and acknowledges');
    await page.getByRole('button', { name: 'Save question' }).click();
    await page.getByText('Question saved in the draft.').waitFor();

    // A coding question: a mistake first (arguments that are not JSON), refused beside the field.
    await page.getByLabel('Question type').selectOption({ label: 'Coding' });
    await page.getByRole('button', { name: 'Add question' }).click();
    await typeInto(page, 'Prompt', 'Write total(items): the sum of the numbers in items.');
    await typeInto(page, 'Entry function (optional)', 'total');
    await typeInto(page, 'JavaScript starter code (optional)', 'function total(items) {\n  return 0;\n}');
    await typeInto(page, 'Example 1 Arguments (JSON list)', '[[1, 2]]');
    await typeInto(page, 'Example 1 Expected result (JSON)', '3');
    await typeInto(page, 'Hidden test 1 Arguments (JSON list)', '[[2, 2, 2]');
    await typeInto(page, 'Hidden test 1 Expected result (JSON)', '6');
    await page.getByRole('button', { name: 'Save question' }).click();
    await page.getByText('The question was not saved:').waitFor();
    assert.equal(await page.getByLabel('Hidden test 1 Arguments (JSON list)', { exact: true }).getAttribute('aria-invalid'), 'true');
    await accessible(page, 'coding question refused');
    await page.getByLabel('Hidden test 1 Arguments (JSON list)', { exact: true }).click();
    await press(page, 'End');
    await typeAsPerson(page, ']');
    await typeInto(page, 'Hidden test 2 Arguments (JSON list)', '[[]]');
    await typeInto(page, 'Hidden test 2 Expected result (JSON)', '0');
    await page.getByRole('heading', { name: 'New coding question' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(IMAGES, 'console-builder-question-1280.png'), fullPage: false });
    await page.getByRole('button', { name: 'Save question' }).click();
    await page.getByText('Question saved in the draft.').waitFor();

    // Reordered by keyboard: the coding question up to second place; then dragged to the top.
    const order = async () => (await page.locator('.builder-question .builder-prompt').allInnerTexts()).map((t) => t.split(' ')[0]);
    assert.deepEqual(await order(), ['Which', 'Describe', 'Write']);
    await page.getByRole('button', { name: 'Move up question 3' }).focus();
    await press(page, 'Enter');
    await page.getByText('Question moved.').waitFor();
    assert.deepEqual(await order(), ['Which', 'Write', 'Describe']);
    await page.locator('#question-2 .drag-handle').dragTo(page.locator('#question-1'));
    await page.waitForURL(/saved=moved#question-1$/);
    assert.deepEqual(await order(), ['Write', 'Which', 'Describe']);
    await accessible(page, 'builder with three questions');
    await noSidewaysScroll(page, 'the builder at 1280 px');
    await page.getByRole('heading', { name: 'Questions', exact: true }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(IMAGES, 'console-builder-1280.png'), fullPage: false });

    // At phone width: nothing scrolls sideways, the builder and a question's form.
    await page.setViewportSize({ width: 390, height: 844 });
    await noSidewaysScroll(page, 'the builder at 390 px');
    await page.locator('#question-1').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(IMAGES, 'console-builder-390.png'), fullPage: false });
    await page.getByRole('link', { name: 'Edit question 1' }).click();
    await page.getByRole('heading', { name: 'Question 1: Coding' }).waitFor();
    await noSidewaysScroll(page, 'a coding question at 390 px');
    await accessible(page, 'coding question at 390 px');
    await page.screenshot({ path: path.join(IMAGES, 'console-builder-question-390.png'), fullPage: false });
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.setViewportSize({ width: 1280, height: 900 });

    // The preview: the portal's own markup of the questions.
    await page.getByRole('link', { name: 'Preview as a candidate sees it' }).first().click();
    await page.getByRole('heading', { name: 'Preview: Support builder' }).waitFor();
    await page.getByText('Which of these are support channels?').waitFor();
    assert.equal(await page.getByRole('checkbox').count(), 3);
    await page.getByRole('link', { name: 'Back to the builder' }).click();

    // The same draft as a file.
    await page.getByRole('link', { name: 'Edit as file (YAML)' }).click();
    await page.locator('#editor-check', { hasText: 'No problems: this would publish.' }).waitFor();
    await page.goBack();

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 1.').waitFor();
    assert.deepEqual(await storedQuestions(), [
      { id: 'q3', type: 'coding' },
      { id: 'q1', type: 'multiple-choice' },
      { id: 'q2', type: 'free-text' },
    ]);
    await context.close();

    // A candidate invited to it meets the three questions, in that order.
    const invited = await demo.invite('casey.candidate@example.com', ['support-builder']);
    const attempt = await startAttemptPage(demo, invited.link);
    await attempt.page.getByText('Write total(items): the sum of the numbers in items.').waitFor();
    await attempt.page.locator('.code-editor').waitFor();
    await attempt.page.getByRole('button', { name: 'Next' }).click();
    await attempt.page.getByText('Which of these are support channels?').waitFor();
    assert.equal(await attempt.page.getByRole('checkbox').count(), 3);
    await attempt.page.getByRole('button', { name: 'Next' }).click();
    await attempt.page.getByText('Describe a time you calmed an upset customer.').waitFor();
    assert.deepEqual(attempt.blocked, []);
    await attempt.context.close();
  });
});
