// The assessment editor in a real browser (Debian's Chromium with playwright-core): a manager
// writes a new assessment with four question types (single choice, multiple choice, free text
// with guidance for reviewers, Likert) in CodeMirror, sees the check name a problem with its line
// (and the editor mark it), fixes it, reads the outline, previews at phone width, publishes and
// finds it in the assessments list. axe-core checks the editor page. Skipped without Chromium
// unless REQUIRE_BROWSER=1, which makes that a failure.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { accessible, consoleSignIn, demoUser, haveBrowser, SHOTS, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { editorLines, press, typeAsPerson, typeProgram } from './support/keyboard.js';

const present = haveBrowser('editor browser test');

const WRITTEN = (secondCorrect: boolean) => `id: support-basics
name: Support basics
description: Four kinds of question about helping customers.
durationMinutes: 15
passScore: 60
lowPassScore: 40
categories:
  - id: judgement
    name: Judgement
    weight: 2
  - id: style
    name: Working style
questions:
  - id: refund
    type: single-choice
    category: judgement
    prompt: A customer asks for a refund **after** the deadline. What do you do first?
    options:
      - text: Refuse at once
      - text: Listen and check the order
        correct: true
      - text: Escalate to a manager${secondCorrect ? '\n        correct: true' : ''}
  - id: channels
    type: multiple-choice
    category: judgement
    prompt: Which of these are support channels?
    options:
      - text: E-mail
        correct: true
      - text: Chat
        correct: true
      - text: Payroll
  - id: story
    type: free-text
    category: judgement
    prompt: Describe a time you calmed an upset customer.
    guidance: Look for listening, empathy and a concrete outcome.
  - id: calm
    type: likert
    category: style
    prompt: I stay calm when a customer is rude.
    scale: agreement-5
`;

describe('assessment editor in Chromium', { skip: !present && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let base: string;
  let password: string;

  before(async () => {
    demo = await startDemo({ mailDir: 'editor-mail' });
    base = demo.base;
    password = await demoUser(demo, 'mia.manager@example.com');
  });

  after(async () => {
    await demo?.close();
  });

  /** Replaces the editor's whole text by typing it, as a person writing the assessment would. */
  async function write(page: Page, text: string) {
    const editor = page.locator('.content-editor .cm-editor');
    await editor.getByRole('textbox').click();
    await press(page, 'Control+A');
    await press(page, 'Delete');
    await typeProgram(page, editor, text);
    assert.deepEqual(await editorLines(editor), text.split('\n'), 'the editor holds the text as typed');
  }

  it('writes a new assessment with four question types, fixes the problem the check names, previews at phone width and publishes', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await consoleSignIn(page, base, 'mia.manager@example.com', password);

    await page.goto(`${base}/console/assessments?instance=demo`);
    await page.getByRole('link', { name: 'Write a new assessment in the editor' }).click();
    await page.getByRole('heading', { name: 'New assessment' }).waitFor();
    await page.locator('.cm-content').waitFor();
    // The starting text is checked and previewed at once.
    await page.locator('#editor-check', { hasText: 'No problems: this would publish.' }).waitFor();
    await page.frameLocator('iframe[name="editor-preview"]').getByText('Which option is right?').waitFor();

    // Two correct options in a single-choice question: the check says so, on its line, in the importer's words.
    await write(page, WRITTEN(true));
    const problem = page.locator('#editor-check li', { hasText: 'must have exactly one correct option, has 2' });
    await problem.waitFor();
    assert.match(await problem.innerText(), /^Line 18, column 5: questions\.0\.options must have exactly one correct option, has 2$/);
    await page.locator('.cm-lintRange-error').first().waitFor();
    await accessible(page, 'editor with a problem');
    await page.screenshot({ path: path.join(SHOTS, 'editor-problem.png'), fullPage: true });

    // The fix, as a person makes it: to the end of the line the check named's second right answer, and Backspace until it is gone.
    const editor = page.locator('.content-editor .cm-editor');
    const lines = (await editorLines(editor)).length;
    await editor.locator('.cm-line', { hasText: 'correct: true' }).nth(1).click();
    await press(page, 'End');
    for (let guard = 0; (await editorLines(editor)).length === lines && guard < 30; guard++) await press(page, 'Backspace');
    assert.deepEqual(await editorLines(editor), WRITTEN(false).split('\n'));
    await page.locator('#editor-check', { hasText: 'No problems: this would publish.' }).waitFor();
    assert.equal(await page.locator('.cm-lintRange-error').count(), 0);
    const outline = await page.locator('#editor-outline').innerText();
    assert.match(outline, /Single choice 1, Multiple choice 1, Free text 1, Likert 1/);
    assert.match(outline, /Judgement \(judgement\)\s+2\s+3/);

    // The preview follows the text; at phone width the candidate's page fits 390 px without scrolling sideways.
    const preview = page.frameLocator('iframe[name="editor-preview"]');
    await preview.getByText('A customer asks for a refund').waitFor();
    assert.equal(await preview.locator('strong', { hasText: 'after' }).count(), 1);
    assert.equal(await preview.getByRole('radio').count(), 3 + 5);
    await page.getByLabel('Phone (390 px)').check();
    const box = await page.locator('iframe[name="editor-preview"]').boundingBox();
    assert.ok(box && box.width <= 390 && box.width >= 380, `the preview is ${box?.width} px wide`);
    const frame = page.frame({ name: 'editor-preview' })!;
    const overflow = await frame.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the phone preview scrolls sideways by ${overflow} px`);
    await accessible(page, 'editor, phone preview');
    await page.screenshot({ path: path.join(SHOTS, 'editor-phone-preview.png'), fullPage: true });

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 1.').waitFor();
    await page.goto(`${base}/console/assessments?instance=demo`);
    await page.getByRole('heading', { name: 'Support basics (version 1)' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('works as a plain form without JavaScript', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await consoleSignIn(page, base, 'mia.manager@example.com', password);
    await page.goto(`${base}/console/assessments/support-basics/edit?instance=demo`);
    // The textarea is the editor: to the end of the second line (the name), and type.
    const source = page.getByLabel('Content (YAML)');
    await source.click();
    await press(page, 'Control+Home');
    await press(page, 'ArrowDown');
    await press(page, 'End');
    await typeAsPerson(page, ' II');
    assert.match(await source.inputValue(), /^id: support-basics\nname: Support basics II\n/);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved. Candidates do not see it').waitFor();
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.frameLocator('iframe[name="editor-preview"]').getByRole('heading', { name: 'Preview: Support basics II' }).waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 2.').waitFor();
    await context.close();
  });
});
