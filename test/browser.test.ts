// The portal in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
// browser). Two candidates take sample assessments from real invites; the scores, the red flag
// and the accessibility of every main screen are checked, and screenshots are kept under
// artifacts/screenshots (git-ignored; CI keeps them). Without Chromium these tests are skipped
// and say so, unless REQUIRE_BROWSER=1 (as .ci/run sets it), which makes that a failure.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import axe from 'axe-core';
import type { Browser, Page } from 'playwright-core';
import { parse } from 'yaml';
import type { FastifyInstance } from 'fastify';
import type { AssessmentContent } from '../src/modules/assessments/content-schema.js';
import type { ScoreRecord } from '../src/modules/scores/format.js';
import { CATALOGUE_DIR } from '../src/seed.js';
import { ADMIN_TOKEN } from './harness.js';
import { movingClock } from './support/clock.js';
import { startDemo, type DemoBrowser } from './support/demo-browser.js';
import { typeAsPerson } from './support/keyboard.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(import.meta.dirname, '..', 'artifacts', 'screenshots');
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.REQUIRE_BROWSER === '1') {
  throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the browser tests would be skipped`);
}
if (!haveBrowser) console.log(`# browser tests SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

const content = (file: string) => parse(readFileSync(path.join(CATALOGUE_DIR, file), 'utf8')) as AssessmentContent;

describe('the portal in Chromium', { skip: !haveBrowser && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  let app: FastifyInstance;
  let base: string;
  let key: string;

  let demo: DemoBrowser;
  // The typing test's time passes on this clock and the page's, not on the wall's.
  const clock = movingClock();
  before(async () => {
    demo = await startDemo({ now: clock.now });
    ({ browser, app, base, key } = demo);
  });

  after(async () => {
    await demo?.close();
  });

  const invite = (email: string, assessments: string[]) => demo.invite(email, assessments);

  async function scores(candidateId: string) {
    const response = await fetch(`${base}/v1/score?candidateIds=${candidateId}`, { headers: { 'x-api-key': key } });
    return (await response.json()) as ScoreRecord[];
  }

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

  async function shot(page: Page, name: string) {
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  }

  /** The answer given to a free-text question when answering well. */
  const WELL_WRITTEN = 'I would thank them, apologise for the delay, explain the next step and when it will happen.';

  /** Answers the question on screen: correctly, or wrongly when `well` is false. */
  async function answer(page: Page, assessment: AssessmentContent, well: boolean) {
    const form = page.locator('#answer-form');
    const id = await form.getAttribute('data-question');
    const question = assessment.questions.find((q) => q.id === id)!;
    if (question.type === 'single-choice') {
      const option = question.options.find((o) => !!o.correct === well)!;
      await page.getByLabel(option.text, { exact: true }).check();
    } else if (question.type === 'multiple-choice') {
      for (const option of question.options) if (!!option.correct === well) await page.getByLabel(option.text, { exact: true }).check();
    } else if (question.type === 'short-answer') {
      await page.locator('#answer').click();
      await typeAsPerson(page, well ? question.accept[0]! : 'no idea');
    } else {
      await page.locator('#answer').click();
      await typeAsPerson(page, well ? WELL_WRITTEN : 'ok');
    }
    // Every answer is saved as it is given (a choice at once, text after a pause).
    await page.locator('#save-status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
  }

  /** Asserts that the question on screen shows the answer that `answer(…, true)` gave it. */
  async function shownAsAnswered(page: Page, assessment: AssessmentContent) {
    const id = await page.locator('#answer-form').getAttribute('data-question');
    const question = assessment.questions.find((q) => q.id === id)!;
    if (question.type === 'single-choice' || question.type === 'multiple-choice') {
      for (const option of question.options) {
        assert.equal(await page.getByLabel(option.text, { exact: true }).isChecked(), !!option.correct, `${question.id}: ${option.text}`);
      }
    } else {
      const given = question.type === 'short-answer' ? question.accept[0]! : WELL_WRITTEN;
      assert.equal(await page.locator('#answer').inputValue(), given, question.id);
    }
  }

  it('a candidate takes the typing assessment well, reloading midway, and is scored COMPLETED', async () => {
    const dataEntry = content('data-entry.yaml');
    const invited = await invite('robin.well@example.com', ['data-entry']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    // The page's clock runs with the wall's until the typing test moves it on.
    await context.clock.install();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));

    await page.goto(invited.link);
    await page.waitForURL(`${base}/portal/`);
    assert.equal(new URL(page.url()).hash, '', 'the token is cleared from the address bar');
    await page.getByRole('heading', { name: 'Hello Robin' }).waitFor();
    await checkAccessibility(page, 'dashboard');
    await shot(page, '1-dashboard');

    await page.getByRole('link', { name: /Open/ }).click();
    await checkAccessibility(page, 'intro');
    await shot(page, '2-intro');
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    await page.waitForLoadState('domcontentloaded');
    await page.locator('#answer-form').waitFor();
    await checkAccessibility(page, 'question');
    await shot(page, '3-question');

    const half = Math.ceil(dataEntry.questions.length / 2);
    for (let i = 0; i < dataEntry.questions.length; i++) {
      await answer(page, dataEntry, true);
      if (i === half) {
        // A reload in the middle: the saved answer is still there, and the candidate resumes.
        await page.reload();
        await page.locator('#answer-form').waitFor();
        assert.equal(await page.locator('#answer-form').getAttribute('data-question'), dataEntry.questions[i]!.id, 'resumes on the same question');
        await shownAsAnswered(page, dataEntry);
      }
      await page.getByRole('button', { name: /Save and next|Save and review/ }).click();
      await page.waitForLoadState('domcontentloaded');
    }

    // The typing test, typed with a human rhythm: uneven gaps between keys, about 60 wpm. (An even
    // rhythm, as pressSequentially's fixed delay gives, is rightly flagged as machine typing.) The
    // gaps pass on the page's clock (the intervals it measures) and on the service's (the test's
    // duration), not on the wall's.
    await page.getByRole('heading', { name: 'Typing test' }).waitFor();
    await checkAccessibility(page, 'typing');
    await page.getByRole('button', { name: 'Start typing' }).click();
    await page.locator('#typing-area').waitFor({ state: 'visible' });
    const passage = dataEntry.typingTest!.passage.slice(0, 90);
    await page.locator('#typing-area').focus();
    for (const [i, char] of [...passage].entries()) {
      await page.keyboard.type(char);
      const gap = 110 + ((i * 53) % 120);
      await page.clock.fastForward(gap);
      clock.offset += gap;
    }
    await shot(page, '4-typing');
    await page.getByRole('button', { name: 'Finish typing test' }).click();
    await page.getByText(/Typing test done/).waitFor();
    await page.getByRole('link', { name: 'Review and submit' }).click();
    await checkAccessibility(page, 'review');
    await shot(page, '5-review');
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    await shot(page, '6-completed');
    await context.close();
    assert.deepEqual(errors, [], 'no script errors or CSP violations in the page');

    const [record] = await scores(invited.candidateId);
    assert.equal(record!.assessmentStatus, 'COMPLETED');
    assert.equal(record!.completion, '100');
    const wpm = Number(record!.typingSpeed);
    assert.ok(wpm > 30 && wpm < 200, `typing speed ${wpm}`);
    const typingCategory = dataEntry.categories.find((c) => c.id === dataEntry.typingTest!.category)!.name;
    for (const category of record!.categoryScores) {
      if (category.name !== typingCategory) assert.equal(category.score, '100', category.name);
    }
    assert.equal(record!.scoreStatus, 'PASS');
    const attempts = await app.inject({
      method: 'GET',
      url: `/admin/v1/instances/demo/candidates/${invited.candidateId}/attempts`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    // Playwright drives this Chromium, so navigator.webdriver is true and the page says so: the
    // automation rule, and only it, raises the red flag of an otherwise clean attempt.
    const attempt = attempts.json()[0] as { redFlagReasons: string[]; signals: { kind: string; detail: string }[] };
    assert.equal(record!.redFlag, true, JSON.stringify(attempt.signals));
    assert.deepEqual(attempt.redFlagReasons, ['the browser was controlled by automation software'], JSON.stringify(attempt.signals));
    assert.ok(
      attempt.signals.some((s) => s.kind === 'automation' && s.detail === 'navigator.webdriver is true'),
      JSON.stringify(attempt.signals),
    );
    assert.ok(record!.started < record!.finished, 'started before finished');
  });

  it('a candidate who switches tabs and pastes is red-flagged, and a poor attempt fails', async () => {
    const support = content('numerical-reasoning.yaml');
    const invited = await invite('robin.flagged@example.com', ['numerical-reasoning']);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    await page.goto(invited.link);
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Start the assessment' }).click();
    await page.locator('#answer-form').waitFor();
    await shot(page, 'mobile-question');

    // Another tab comes to the front. Playwright keeps every page focused unless told not to;
    // without that emulation the page really loses focus, as it would for a person.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
    const other = await context.newPage();
    await other.goto('about:blank');
    await other.bringToFront();
    await page.bringToFront();
    let pasted = false;

    for (let i = 0; i < support.questions.length; i++) {
      const id = await page.locator('#answer-form').getAttribute('data-question');
      const question = support.questions.find((q) => q.id === id)!;
      if (question.type === 'short-answer' && !pasted) {
        pasted = true;
        await page.evaluate("navigator.clipboard.writeText('12345')");
        await page.locator('#answer').focus();
        await page.keyboard.press('Control+V');
      } else {
        await answer(page, support, false);
      }
      await page.getByRole('button', { name: /Save and next|Save and review/ }).click();
      await page.waitForLoadState('domcontentloaded');
    }
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    await context.close();

    const [record] = await scores(invited.candidateId);
    assert.equal(record!.assessmentStatus, 'COMPLETED');
    assert.equal(record!.redFlag, true);
    assert.equal(record!.scoreStatus, 'FAIL');
    const attempts = await app.inject({
      method: 'GET',
      url: `/admin/v1/instances/demo/candidates/${invited.candidateId}/attempts`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const kinds = attempts.json()[0].signals.map((s: { kind: string }) => s.kind);
    assert.ok(kinds.includes('paste'), `signals: ${kinds}`);
    assert.ok(kinds.includes('page-hidden') || kinds.includes('focus-lost'), `signals: ${kinds}`);
  });
});
