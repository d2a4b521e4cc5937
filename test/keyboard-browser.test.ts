// Every question type answered by keyboard alone, in Debian's Chromium at 1280 and 390 px: a
// candidate moves with Tab, chooses with Space and the arrow keys, types the free text, the
// program and the typing passage key by key (test/support/keyboard.ts), and goes on with Enter;
// no mouse. On every stop of the focus a focus indicator is drawn; every control is named (axe, and
// the page's accessibility tree has no unnamed control); what was stored is exactly what was
// chosen and typed. The browser fails the suite on any CSP refusal or script error.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { SHOTS, accessible, haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { editorLines, press, typeAsPerson, typeProgram } from './support/keyboard.js';

const browserHere = haveBrowser('keyboard-only browser tests');

const ALL_TYPES = `id: every-type
name: Every type
description: One question of each kind, and a typing test.
durationMinutes: 30
passScore: 50
lowPassScore: 30
categories:
  - id: main
    name: Main
  - id: typing
    name: Typing
questions:
  - id: pick-one
    type: single-choice
    category: main
    prompt: Which planet is closest to the Sun?
    options:
      - text: Venus
      - text: Mercury
        correct: true
      - text: Mars
  - id: pick-many
    type: multiple-choice
    category: main
    prompt: Which of these are prime numbers?
    options:
      - text: "2"
        correct: true
      - text: "4"
      - text: "7"
        correct: true
  - id: agree
    type: likert
    category: main
    prompt: I enjoy solving puzzles.
    scale: agreement-5
  - id: order
    type: ranking
    category: main
    prompt: Put these in the order you would do them.
    options:
      - id: read
        text: Read the brief
      - id: ask
        text: Ask questions
      - id: start
        text: Start the work
    key: [start, read, ask]
  - id: story
    type: free-text
    category: main
    prompt: Describe a problem you solved.
    guidance: Look for a concrete outcome.
  - id: code
    type: coding
    category: main
    prompt: Write \`double(x)\`, twice \`x\`.
    languages: [python]
    entry: double
    starterCode:
      python: "def double(x):\\n    pass\\n"
    examples:
      - args: [2]
        expected: 4
    tests:
      - args: [3]
        expected: 6
typingTest:
  category: typing
  targetWpm: 40
  passage: The quick brown fox jumps over the lazy dog near the river bank today.
`;

const STORY = 'The build broke every night.\nI bisected the changes, found a clock bug and fixed it.';
const PROGRAM = 'def double(x):\n    return 2 * x\n';

describe('every question type by keyboard alone, in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;

  before(async () => {
    demo = await startDemo();
    await demo.publish(ALL_TYPES);
  });

  after(async () => {
    await demo?.close();
  });

  /** What has the focus: its tag, name attribute, value and text, and whether a focus indicator is drawn around it. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return { key: 'body', shown: false };
      const style = getComputedStyle(el);
      const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== 'none';
      // The code editor draws its ring on its frame, around the editable content.
      const frame = el.closest('.code-editor');
      const frameRing = frame !== null && getComputedStyle(frame).outlineStyle !== 'none';
      const input = el as HTMLInputElement;
      return {
        key: `${el.tagName.toLowerCase()}|${input.type ?? ''}|${input.name ?? ''}|${input.value ?? ''}|${(el.textContent ?? '').trim().slice(0, 60)}`,
        shown: ring || frameRing,
      };
    });

  /** Presses Tab until the focused element's key matches, checking at every stop that the focus is drawn. */
  async function tabUntil(page: Page, matches: RegExp, limit = 40): Promise<void> {
    for (let i = 0; i < limit; i++) {
      await press(page, 'Tab');
      const now = await focused(page);
      if (now.key !== 'body') assert.ok(now.shown, `the focus on ${now.key} is drawn`);
      if (matches.test(now.key)) return;
    }
    assert.fail(`Tab never reached ${matches}`);
  }

  /** The page's controls all have names: none shows up unnamed in the accessibility tree. */
  async function named(page: Page, screen: string): Promise<void> {
    await accessible(page, screen);
    const tree = await page.locator('main').ariaSnapshot();
    const unnamed = tree.split('\n').filter((line) => /^\s*- (radio|checkbox|textbox|button|combobox|link|slider|spinbutton)(\s*\[[^\]]*\])?:?\s*$/.test(line));
    assert.deepEqual(unnamed, [], `${screen}: every control is named\n${tree}`);
  }

  const next = async (page: Page, question: string) => {
    await tabUntil(page, /^button\|submit\|go\|(next|review)\|/);
    await press(page, 'Enter');
    if (question) await page.locator(`#answer-form[data-question="${question}"]`).waitFor();
  };

  for (const width of [1280, 390]) {
    it(`answers each type at ${width} px with Tab, Space, the arrows, Enter and typing, and stores exactly that`, async () => {
      const email = `keys-${width}@example.com`;
      const invited = await demo.invite(email, ['every-type']);
      const context = await demo.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 } });
      const page = await context.newPage();
      await page.goto(invited.link);
      await page.getByRole('heading', { name: 'Hello Robin' }).waitFor();
      await tabUntil(page, /^a\|.*Open/);
      await press(page, 'Enter');
      await page.getByRole('button', { name: 'Start the assessment' }).waitFor();
      await tabUntil(page, /^button\|submit\|.*Start the assessment/);
      await press(page, 'Enter');
      await page.locator('#answer-form[data-question="pick-one"]').waitFor();
      const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `keyboard-${name}-${width}.png`), fullPage: true });

      // Single choice: Tab into the group, an arrow moves and chooses.
      await named(page, 'single choice');
      await tabUntil(page, /^input\|radio\|value\|/);
      await press(page, 'Space');
      await press(page, 'ArrowDown');
      assert.equal(await page.getByRole('radio', { name: 'Mercury' }).isChecked(), true);
      await shot('single-choice');
      await next(page, 'pick-many');

      // Multiple choice: Tab from box to box, Space ticks.
      await named(page, 'multiple choice');
      await tabUntil(page, /^input\|checkbox\|value\|0\|/);
      await press(page, 'Space');
      await tabUntil(page, /^input\|checkbox\|value\|2\|/);
      await press(page, 'Space');
      await next(page, 'agree');

      // Likert: the arrows walk the scale.
      await named(page, 'Likert');
      await tabUntil(page, /^input\|radio\|value\|/);
      await press(page, 'Space');
      await press(page, 'ArrowRight', 3);
      assert.equal(await page.getByLabel('Agree', { exact: true }).isChecked(), true);
      await next(page, 'order');

      // Ranking: "Move up Start the work" twice puts it first.
      await named(page, 'ranking');
      await tabUntil(page, /^button\|.*\|move\|2:up\|/);
      await press(page, 'Enter');
      await press(page, 'Enter');
      await page.locator('.ranking-status', { hasText: 'position 1 of 3' }).waitFor();
      await next(page, 'story');

      // Free text: typed, line breaks and all.
      await named(page, 'free text');
      await tabUntil(page, /^textarea\|/);
      await typeAsPerson(page, STORY);
      await page.locator('#save-status', { hasText: 'Saved' }).waitFor({ timeout: 5000 });
      await next(page, 'code');

      // Coding: into the editor with Tab, the starter code away, the program typed; Escape then Tab leaves it.
      await named(page, 'coding');
      const editor = page.locator('.code-editor');
      await tabUntil(page, /^div\|.*def double/);
      await press(page, 'Control+A');
      await press(page, 'Delete');
      await typeProgram(page, editor, PROGRAM);
      assert.deepEqual(await editorLines(editor), PROGRAM.split('\n'));
      await page.locator('#save-status', { hasText: 'Saved' }).waitFor({ timeout: 5000 });
      await shot('coding');
      await press(page, 'Escape');
      await next(page, '');

      // The typing test: Start with Enter, the passage typed into the box it focuses, Finish with Tab and Enter.
      await page.getByRole('heading', { name: 'Typing test' }).waitFor();
      await named(page, 'typing test');
      await tabUntil(page, /^button\|button\|.*Start typing/);
      await press(page, 'Enter');
      await page.locator('#typing-area:focus').waitFor();
      const passage = 'The quick brown fox jumps over the lazy dog near the river bank today.';
      await typeAsPerson(page, passage);
      await tabUntil(page, /^button\|button\|.*Finish typing test/);
      await press(page, 'Enter');
      await page.getByText(/Typing test done/).waitFor();
      await shot('typing');
      await tabUntil(page, /^a\|.*Review and submit/);
      await press(page, 'Enter');
      await page.getByRole('button', { name: 'Submit the assessment' }).waitFor();
      await named(page, 'review');
      await tabUntil(page, /^button\|submit\|.*Submit the assessment/);
      await press(page, 'Enter');
      await page.getByText('Thank you').first().waitFor();
      await context.close();

      const stored = Object.fromEntries(
        (
          await demo.db.query<{ question_id: string; value: unknown }>(
            'SELECT a.question_id, a.value FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id JOIN candidates c ON c.id = i.candidate_id WHERE c.email = $1',
            [email],
          )
        ).rows.map((r) => [r.question_id, r.value]),
      );
      assert.deepEqual(stored, {
        'pick-one': 1,
        'pick-many': [0, 2],
        agree: 3,
        order: [2, 0, 1],
        story: STORY,
        code: { language: 'python', source: PROGRAM },
      });
    });
  }
});
