// A coding question in Debian's Chromium (playwright-core, as test/browser.test.ts): the portal's
// own CodeMirror bundle (no CDN) takes over the program field under the portal's
// Content-Security-Policy, what the candidate types is saved as they type, Run the examples
// answers from the sandbox, and axe finds no violation. Without Chromium this skips and says so,
// unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN } from './harness.js';
import { accessible, haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';

const browserHere = haveBrowser('coding question browser tests');
const CODING = readFileSync(path.join(import.meta.dirname, 'fixtures', 'coding.yaml'), 'utf8');

describe('a coding question in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;

  before(async () => {
    demo = await startDemo();
    const published = await demo.app.inject({
      method: 'POST',
      url: '/admin/v1/instances/demo/assessments',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' },
      payload: CODING,
    });
    assert.equal(published.statusCode, 201, published.body);
  });

  after(async () => {
    await demo?.close();
  });

  it('edits the program in CodeMirror, saves it as typed, and runs the examples', async () => {
    const invited = await demo.invite('cody@example.com', ['coding']);
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    page.on('request', (request) => requests.push(request.url()));

    await page.goto(invited.link);
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    const editor = page.locator('.code-editor .cm-content');
    await editor.waitFor();
    assert.equal(await page.locator('textarea.code').isHidden(), true, 'the textarea gives way to the editor');
    await accessible(page, 'coding question');

    // Replace the starter code by typing, as a candidate does.
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // (The editor closes brackets as they are opened; typing the closing one steps over it.)
    await page.keyboard.type('function total(xs) { return xs.reduce((a, b) => a + b, 0); }');
    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });

    await page.getByRole('button', { name: 'Run the examples' }).click();
    await page.locator('.run-output').filter({ hasText: /^1\. / }).waitFor({ timeout: 30000 });
    const output = await page.locator('.run-output').textContent();
    assert.match(output ?? '', /^1\. passed\n {3}3$/, `${output} / ${await page.locator('textarea.code').inputValue()}`);

    const answers = await demo.db.query<{ value: { language: string; source: string } }>("SELECT value FROM answers WHERE question_id = 'sum'");
    assert.equal(answers.rows.length, 1);
    assert.equal(answers.rows[0]!.value.language, 'javascript');
    // Chromium's typing into the editable content may give no-break spaces after a word (U+00A0,
    // which JavaScript reads as a space); the program is stored as the editor holds it.
    assert.equal(answers.rows[0]!.value.source.replace(/\u00a0/g, ' '), 'function total(xs) { return xs.reduce((a, b) => a + b, 0); }');
    // CodeMirror sets its tab size as a style attribute, which the portal's policy refuses (and
    // portal.css sets instead); nothing else may be refused or fail.
    assert.deepEqual(
      errors.filter((error) => !/^Applying inline style violates the following Content Security Policy directive 'style-src 'self''/.test(error)),
      [],
    );
    assert.ok(errors.length <= 1, errors.join('\n'));
    assert.deepEqual(
      requests.filter((url) => !url.startsWith(new URL(invited.link).origin)),
      [],
      'nothing is loaded from elsewhere',
    );
    await context.close();
  });
});
