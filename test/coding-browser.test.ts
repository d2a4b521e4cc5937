// A coding question in Debian's Chromium (playwright-core), taken as a person takes it: the
// program typed key by key into the portal's own CodeMirror bundle (no CDN) under the portal's
// Content-Security-Policy, line by line, looking after each Enter at where the cursor landed and
// how the editor indented it (test/support/keyboard.ts). What the editor shows, what the portal
// stored and what the sandbox made of it are checked: the program exactly as typed, in a monospace
// font with the line numbers beside it, its examples passing, its hidden tests graded as the same
// program run directly. Every page's CSP refusals and script errors fail the suite (the browser
// of test/support/demo-browser.ts). Without Chromium this skips and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { accessible, haveBrowser, startDemo, SHOTS, type DemoBrowser } from './support/demo-browser.js';
import { editorLines, press, typeAsPerson, typeProgram } from './support/keyboard.js';
import { parseAssessment } from '../src/modules/assessments/content.js';
import type { QuestionContent } from '../src/modules/assessments/content-schema.js';
import { gradeOf, runAgainst } from '../src/modules/attempts/coding-grades.js';

const browserHere = haveBrowser('coding question browser tests');
const CODING = readFileSync(path.join(import.meta.dirname, 'fixtures', 'coding.yaml'), 'utf8');
type Coding = Extract<QuestionContent, { type: 'coding' }>;

/** A library question as published from catalogue/. */
function libraryQuestion(file: string, id: string): Coding {
  const parsed = parseAssessment(readFileSync(path.join(import.meta.dirname, '..', 'catalogue', file), 'utf8'));
  assert.ok(parsed.ok);
  return parsed.content.questions.find((q): q is Coding => q.id === id && q.type === 'coding')!;
}

// Programs a candidate types, with what makes an editor stumble: blocks opened by `:` and `{`,
// lines that go back out, a callback whose `})` Enter moves to the line below, quotes and brackets
// the editor closes by itself, an empty line.
const TOTAL_JS = 'function total(xs) {\n  return xs.reduce((a, b) => {\n    return a + b;\n  }, 0);\n}\n';
const SECOND_LARGEST_PY = 'def second_largest(numbers):\n    values = sorted(set(numbers))\n    if len(values) < 2:\n        return None\n\n    return values[-2]\n';
// Small vowels only: passes the example, fails one hidden test.
const COUNT_VOWELS_JS =
  "function countVowels(text) {\n  let count = 0;\n  for (const c of text) {\n    if ('aeiou'.includes(c)) {\n      count += 1;\n    }\n  }\n  return count;\n}\n";

describe('a coding question in Chromium, typed as a person types', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;

  before(async () => {
    demo = await startDemo();
    await demo.publish(CODING);
  });

  after(async () => {
    await demo?.close();
  });

  /** Opens the first question of `slug` for a new candidate, in a page of `width` px. */
  async function firstQuestion(email: string, slugs: string[], width: number): Promise<{ page: Page; editor: Locator; close: () => Promise<void> }> {
    const invited = await demo.invite(email, slugs);
    const context = await demo.browser.newContext({ viewport: { width, height: width > 500 ? 900 : 844 } });
    const page = await context.newPage();
    await page.goto(invited.link);
    await page.getByRole('heading', { name: 'Hello Robin' }).waitFor();
    return { page, editor: page.locator('.code-editor'), close: () => context.close() };
  }

  async function start(page: Page, slug: string): Promise<Locator> {
    await page.goto(`${demo.base}/portal/a/${slug}`);
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    const editor = page.locator('.code-editor');
    await editor.locator('.cm-content').waitFor();
    return editor;
  }

  /** Clears the starter code as a person does: into the editor, select all, Delete. */
  async function clearEditor(page: Page, editor: Locator) {
    await editor.getByRole('textbox').click();
    await press(page, 'Control+A');
    await press(page, 'Delete');
    assert.deepEqual(await editorLines(editor), ['']);
  }

  const storedSource = async (questionId: string, email: string) =>
    (
      await demo.db.query<{ value: { language: string; source: string } }>(
        'SELECT a.value FROM answers a JOIN attempts t ON t.id = a.attempt_id JOIN invitations i ON i.id = t.invitation_id JOIN candidates c ON c.id = i.candidate_id WHERE a.question_id = $1 AND c.email = $2',
        [questionId, email],
      )
    ).rows;

  it('holds a JavaScript program typed line by line exactly, in a monospace font with the line numbers beside it, and runs its examples', async () => {
    const { page, close } = await firstQuestion('cody@example.com', ['coding'], 1280);
    const editor = await start(page, 'coding');
    assert.equal(await page.locator('textarea.code').isHidden(), true, 'the textarea gives way to the editor');
    await accessible(page, 'coding question');
    // The editor is named as the program's field and described by the question's hint.
    assert.equal(await editor.getByRole('textbox', { name: 'Your program' }).count(), 1);

    await clearEditor(page, editor);
    await typeProgram(page, editor, TOTAL_JS);
    assert.deepEqual(await editorLines(editor), TOTAL_JS.split('\n'), 'the editor shows the program as typed');

    // Set as code: a monospace font, the numbers in a gutter to the left of their lines, on the same rows.
    const font = await editor.locator('.cm-content').evaluate((el) => getComputedStyle(el).fontFamily);
    assert.match(font, /mono/i);
    const gutter = (await editor.locator('.cm-lineNumbers .cm-gutterElement', { hasText: /^2$/ }).boundingBox())!;
    const line2 = (await editor.locator('.cm-line').nth(1).boundingBox())!;
    assert.ok(gutter.x + gutter.width <= line2.x, `the line number (x ${gutter.x}) stands left of its line (x ${line2.x})`);
    assert.ok(Math.abs(gutter.y - line2.y) < 2, `line 2's number is on its row (${gutter.y} against ${line2.y})`);
    await page.screenshot({ path: path.join(SHOTS, 'coding-typed-1280.png'), fullPage: true });

    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await storedSource('sum', 'cody@example.com'), [{ value: { language: 'javascript', source: TOTAL_JS } }]);

    await page.getByRole('button', { name: 'Run the examples' }).click();
    await page.locator('.run-output').filter({ hasText: /^1\. / }).waitFor({ timeout: 30000 });
    assert.match((await page.locator('.run-output').textContent()) ?? '', /^1\. passed\n {3}3$/);

    // The page's policy lets through only style elements with this response's nonce, a new one each time.
    const policy = async () => {
      const answer = (await page.reload())!;
      await editor.locator('.cm-content').waitFor();
      const nonce = await page.locator('meta[name="style-nonce"]').evaluate((el) => (el as HTMLElement).nonce);
      return { header: answer.headers()['content-security-policy'], nonce };
    };
    const [first, second] = [await policy(), await policy()];
    assert.match(first.nonce!, /^[A-Za-z0-9+/]{22}==$/);
    assert.notEqual(first.nonce, second.nonce);
    assert.match(first.header!, new RegExp(`style-src 'self' 'nonce-${first.nonce!.replace(/[+/]/g, '\\$&')}';`));
    assert.doesNotMatch(first.header!, /unsafe-inline/);
    // A page without the editor has no nonce to give.
    const plain = (await page.goto(`${demo.base}/portal/a/coding?q=2`))!;
    assert.match(plain.headers()['content-security-policy']!, /style-src 'self';/);
    await page.goto(`${demo.base}/portal/a/coding?q=1`);
    await editor.locator('.cm-content').waitFor();

    // Switching the language keeps what was typed.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('python');
    assert.deepEqual(await editorLines(editor), TOTAL_JS.split('\n'));
    await close();
  });

  it('indents with Tab, and lets the keyboard out with Escape then Tab', async () => {
    const { page, close } = await firstQuestion('tabby@example.com', ['coding'], 1280);
    const editor = await start(page, 'coding');
    await clearEditor(page, editor);
    await press(page, 'Tab');
    await typeAsPerson(page, 'x');
    assert.deepEqual(await editorLines(editor), ['  x'], 'Tab indents inside the editor');
    await press(page, 'Escape');
    await press(page, 'Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    assert.equal(await editor.getByRole('textbox').evaluate((el) => el === document.activeElement), false, 'the focus left the editor');
    assert.ok(focused.length > 0, 'on the next control');
    assert.deepEqual(await editorLines(editor), ['  x'], 'and Tab did not type');
    await close();
  });

  it('a candidate types a JavaScript and a Python solution of the library tests and submits; their hidden tests score as the programs run directly (1280 and 390 px)', async () => {
    const email = 'dev@example.com';
    const invited = await demo.invite(email, ['javascript-fundamentals', 'python-fundamentals']);
    const cases = [
      { slug: 'javascript-fundamentals', file: 'javascript-fundamentals.yaml', id: 'js-01', source: COUNT_VOWELS_JS, width: 1280 },
      { slug: 'python-fundamentals', file: 'python-fundamentals.yaml', id: 'py-01', source: SECOND_LARGEST_PY, width: 390 },
    ];
    const direct: Record<string, number> = {};
    for (const c of cases) {
      const context = await demo.browser.newContext({ viewport: { width: c.width, height: c.width > 500 ? 900 : 844 } });
      const page = await context.newPage();
      await page.goto(invited.link);
      await page.getByRole('heading', { name: 'Hello Robin' }).waitFor();
      const editor = await start(page, c.slug);
      await clearEditor(page, editor);
      await typeProgram(page, editor, c.source);
      assert.deepEqual(await editorLines(editor), c.source.split('\n'), `${c.id}: the editor shows the program as typed`);
      await page.getByRole('button', { name: 'Run the examples' }).click();
      await page.locator('.run-output').filter({ hasText: /^1\. / }).waitFor({ timeout: 30000 });
      assert.match((await page.locator('.run-output').textContent()) ?? '', /^1\. passed/, `${c.id}: its example passes`);
      await page.screenshot({ path: path.join(SHOTS, `coding-typed-${c.id}-${c.width}.png`), fullPage: true });
      await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
      assert.deepEqual(
        (await storedSource(c.id, email)).map((r) => r.value.source),
        [c.source],
        `${c.id}: stored byte for byte`,
      );
      await page.goto(`${demo.base}/portal/a/${c.slug}?q=review`);
      await page.getByRole('button', { name: 'Submit the assessment' }).click();
      // The other questions are left open: the portal asks once more.
      await page.getByRole('button', { name: 'Submit anyway' }).click();
      await page.getByText('Thank you').first().waitFor();
      await context.close();
      const question = libraryQuestion(c.file, c.id);
      direct[c.id] = gradeOf(question, await runAgainst(question, { language: question.languages[0]!, source: c.source })).grade;
    }
    // Run directly: js-01 (small vowels only) passes 5 of its 6 hidden tests, py-01 all.
    assert.deepEqual(direct, { 'js-01': (100 * 5) / 6, 'py-01': 100 });

    const records = async () =>
      (await (await fetch(`${demo.base}/v1/score?candidateIds=${invited.candidateId}`, { headers: { 'x-api-key': demo.key } })).json()) as {
        assessmentId: string;
        scoreStatus: string;
        totalScore: string;
        categoryScores: { name: string; score: string }[];
      }[];
    let scored = await records();
    for (let i = 0; i < 120 && scored.some((r) => r.scoreStatus === 'PENDING'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      scored = await records();
    }
    const of = (id: string) => scored.find((r) => r.assessmentId === id)!;
    // Each question is one of three in "Strings and arrays" and one of two in "Strings and lists".
    const share = (grade: number, of: number) => String(Math.round((grade / of) * 100) / 100);
    assert.deepEqual(of('javascript-fundamentals').categoryScores, [
      { name: 'Strings and arrays', score: share(direct['js-01']!, 3) },
      { name: 'Maps and stacks', score: '0' },
    ]);
    assert.deepEqual(of('python-fundamentals').categoryScores, [
      { name: 'Strings and lists', score: share(direct['py-01']!, 2) },
      { name: 'Dictionaries and queues', score: '0' },
    ]);
  });

  it('without JavaScript the textarea is the editor: a program typed into it is saved as typed', async () => {
    // Signing in takes the link's token from its fragment (a script); the session then goes on without one.
    const { page: signIn, close: signedIn } = await firstQuestion('plain@example.com', ['coding'], 1280);
    const storageState = await signIn.context().storageState();
    await signedIn();
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false, storageState });
    const page = await context.newPage();
    await page.goto(`${demo.base}/portal/a/coding`);
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    const field = page.getByLabel('Your program');
    await field.click();
    await press(page, 'Control+A');
    await press(page, 'Delete');
    // A textarea indents nothing: the person types every space.
    await typeAsPerson(page, TOTAL_JS);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('heading', { name: /Question 2/ }).waitFor();
    assert.deepEqual(await storedSource('sum', 'plain@example.com'), [{ value: { language: 'javascript', source: TOTAL_JS } }]);
    await context.close();
  });
});
