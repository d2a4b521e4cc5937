// Integrity evidence in Debian's Chromium (playwright-core): a browser driven by automation
// (navigator.webdriver is true under Playwright) answering an assessment is flagged with that
// reason, a paste into the program is recorded with its size and question, and a free-text
// answer set without typing is reported; the report shows the risk level and its reasons.
// Without Chromium this skips and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN } from './harness.js';
import { accessible, haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { passwordChosen } from './support/console.js';

const browserHere = haveBrowser('integrity browser tests');
const INTEGRITY = readFileSync(path.join(import.meta.dirname, 'fixtures', 'integrity.yaml'), 'utf8');
const AUTOMATION = 'the browser was controlled by automation software';

describe('integrity evidence in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let first: { candidateId: string } | undefined;

  before(async () => {
    demo = await startDemo();
    await demo.publish(INTEGRITY);
  });

  after(async () => {
    await demo?.close();
  });

  it('flags the automated browser with its reason, and records a paste and an answer set without typing', async () => {
    const invited = await demo.invite('auto@example.com', ['integrity']);
    first = invited;
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.base });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(invited.link);
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    const editor = page.locator('.code-editor .cm-content');
    await editor.waitFor();

    // The program: pasted into the editor over the starter code.
    const program = 'function total(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n';
    await page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(program)})`);
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+V');
    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: /Save and next/ }).click();
    await page.waitForLoadState('domcontentloaded');

    // The free text: set whole, as a script does, with no keystroke.
    await page.locator('#answer').fill('A customer waited three weeks for a refund; I called them, explained what went wrong and stayed on it until it was paid.');
    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: /Save and review/ }).click();
    await page.waitForLoadState('domcontentloaded');
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    await context.close();
    assert.deepEqual(errors, []);

    const { rows } = await demo.db.query<{ kind: string; detail: string; source: string }>(
      'SELECT p.kind, p.detail, p.source FROM proctor_signals p JOIN attempts a ON a.id = p.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1 ORDER BY p.id',
      [invited.candidateId],
    );
    const found = (kind: string) => rows.filter((r) => r.kind === kind).map((r) => `${r.detail} (${r.source})`);
    const automation = found('automation');
    assert.ok(automation.includes('navigator.webdriver is true (browser)'), JSON.stringify(rows));
    assert.equal(automation.filter((d) => d.endsWith('(browser)')).length, 1, 'reported once per attempt, though every page says it');
    assert.deepEqual(found('paste'), [`${program.length} characters pasted in question sum (code) (browser)`]);
    assert.equal(found('untyped-answer').length, 1, JSON.stringify(rows));
    assert.match(found('untyped-answer')[0]!, /^grew by 1\d\d characters with 0 keystrokes and nothing pasted in question story \(free text\) \(browser\)$/);

    const record = (await (await fetch(`${demo.base}/v1/score?candidateIds=${invited.candidateId}`, { headers: { 'x-api-key': demo.key } })).json())[0];
    assert.equal(record.redFlag, true);
    const attempts = await demo.app.inject({
      method: 'GET',
      url: `/admin/v1/instances/demo/candidates/${invited.candidateId}/attempts`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.deepEqual(attempts.json()[0].redFlagReasons, ['pasted 1 time', AUTOMATION]);

    const candidate = await (await fetch(`${demo.base}/v1/candidates/${invited.candidateId}`, { headers: { 'x-api-key': demo.key } })).json();
    const report = await (await fetch(candidate.invitations[0].reportUrl)).text();
    assert.ok(report.includes(`<dt>Risk</dt><dd><span class="risk risk-high">high</span>: pasted 1 time; ${AUTOMATION}</dd>`), report.slice(report.indexOf('<dt>Red flag')));
  });

  it('shows a reviewer the same program, typed with other names, as similar answers side by side (axe-clean)', async () => {
    assert.ok(first, 'the first test ran');
    const invited = await demo.invite('copy@example.com', ['integrity'], { firstName: 'Casey', lastName: 'Copy' });
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(invited.link);
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    const editor = page.locator('.code-editor .cm-content');
    await editor.waitFor();
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // (The editor closes brackets as they are opened; typing the closing one steps over it.)
    await page.keyboard.type('function total(values) { return values.reduce((sum, x) => sum + x, 0); }');
    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: /Save and next/ }).click();
    await page.waitForLoadState('domcontentloaded');
    await page.locator('#answer').click();
    await page.keyboard.type('I listened first.');
    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: /Save and review/ }).click();
    await page.waitForLoadState('domcontentloaded');
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    await context.close();

    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const made = await demo.app.inject({ method: 'POST', url: '/admin/v1/users', headers: admin, payload: { email: 'rey.reviewer@example.com', role: 'owner' } });
    assert.equal(made.statusCode, 201, made.body);
    await passwordChosen({ db: demo.db }, 'rey.reviewer@example.com');
    const reviewer = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const console = await reviewer.newPage();
    await console.goto(`${demo.base}/console/`);
    await console.waitForURL(/\/console\/sign-in/);
    await console.getByLabel('E-mail').fill('rey.reviewer@example.com');
    await console.getByLabel('Password').fill(made.json().password);
    await console.getByRole('button', { name: 'Sign in' }).click();
    await console.getByRole('heading', { name: 'Overview of demo' }).waitFor();
    await console.goto(`${demo.base}/console/candidates/${invited.candidateId}?instance=demo`);
    await console.getByRole('heading', { name: 'Similar answers' }).waitFor();
    const pair = console.locator('.similar-pair').first();
    assert.match((await pair.textContent()) ?? '', /100 % alike \(\d+ shared fingerprints\) with Robin Tester/);
    assert.ok((await pair.locator('mark').count()) >= 2, 'the shared parts are marked on both sides');
    assert.equal(await pair.getByRole('link', { name: 'Robin Tester' }).getAttribute('href'), `/console/candidates/${first!.candidateId}?instance=demo`);
    await accessible(console, 'similar answers');
    await reviewer.close();
  });
});
