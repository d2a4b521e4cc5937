// Webcam snapshots in Debian's Chromium (playwright-core) with a fake camera
// (--use-fake-device-for-media-stream, --use-fake-ui-for-media-stream: the camera is granted
// without a prompt and shows a test pattern): a candidate agrees before starting, the page sends
// a snapshot at once and the next when the server says it is due (the app's clock is frozen and
// moved 30 s by the test, no waiting); a second candidate declines and takes it without; the
// reviewer's report shows the strip of images and the other's "declined". axe on the question,
// the candidate's pages and the report. Without Chromium this skips and says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN } from './harness.js';
import { frozenClock } from './support/clock.js';
import { passwordChosen } from './support/console.js';
import { accessible, haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';

const browserHere = haveBrowser('webcam browser tests');
const clock = frozenClock();

const WEBCAM = `id: webcam
name: Webcam check
description: Two questions, with webcam snapshots.
durationMinutes: 15
passScore: 50
lowPassScore: 30
categories:
  - id: reasoning
    name: Reasoning
questions:
  - id: q1
    type: single-choice
    category: reasoning
    prompt: What is 2 + 2?
    options:
      - text: "3"
      - text: "4"
        correct: true
  - id: q2
    type: single-choice
    category: reasoning
    prompt: What is 3 + 3?
    options:
      - text: "6"
        correct: true
      - text: "7"
proctoring:
  webcam:
    intervalSeconds: 30
`;

describe('webcam snapshots in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  const candidates: Record<string, string> = {};

  before(async () => {
    demo = await startDemo({ now: clock.now, browserArgs: ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'] });
    await demo.publish(WEBCAM);
  });

  after(async () => {
    await demo?.close();
  });

  const snapshots = async (candidateId: string) =>
    (
      await demo.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webcam_snapshots s JOIN attempts a ON a.id = s.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1',
        [candidateId],
      )
    ).rows[0]!.n;

  /** The page's next snapshot upload, answered 201. */
  const snapshotTaken = (page: Page) => page.waitForResponse((r) => r.url().includes('/webcam/snapshots') && r.request().method() === 'POST', { timeout: 15_000 });

  it('takes a snapshot at once and the next when it is due, after the candidate agrees (axe-clean)', async () => {
    const invited = await demo.invite('agrees@example.com', ['webcam'], { firstName: 'Ada', lastName: 'Agrees' });
    candidates.agrees = invited.candidateId;
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });

    await page.goto(invited.link);
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('heading', { name: 'Webcam snapshots' }).waitFor();
    assert.match((await page.locator('.webcam-consent').textContent()) ?? '', /every 30 seconds[^]*No face recognition/);
    await accessible(page, 'the webcam question before starting');

    const first = snapshotTaken(page);
    await page.getByRole('button', { name: 'Agree and start' }).click();
    assert.equal((await first).status(), 201, 'the first snapshot is taken at once');
    assert.equal(await snapshots(invited.candidateId), 1);
    assert.match((await page.locator('#webcam').textContent()) ?? '', /Webcam snapshots on: a still image every 30 seconds/);
    await accessible(page, 'a question with snapshots on');

    // 30 seconds later by the app's clock: the next page takes the one now due.
    clock.move(30_000);
    await page.getByLabel('4').check();
    const second = snapshotTaken(page);
    await page.getByRole('button', { name: 'Save and next' }).click();
    assert.equal((await second).status(), 201, 'the next is taken when the server says it is due');
    assert.equal(await snapshots(invited.candidateId), 2);

    await page.getByLabel('6').check();
    await page.getByRole('button', { name: 'Save and review' }).click();
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    assert.equal(await snapshots(invited.candidateId), 2, 'no more than due');
    await context.close();
    assert.deepEqual(errors, []);
  });

  it('lets a candidate decline and take it without a camera', async () => {
    const invited = await demo.invite('declines@example.com', ['webcam'], { firstName: 'Dan', lastName: 'Declines' });
    candidates.declines = invited.candidateId;
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (/\/webcam\/(snapshots|unavailable)$/.test(request.url())) uploads.push(request.url());
    });
    await page.goto(invited.link);
    await page.getByRole('link', { name: /Open/ }).click();
    await page.getByRole('button', { name: 'Decline and start without snapshots' }).click();
    await page.getByRole('heading', { name: /Question 1/ }).waitFor();
    assert.equal(await page.locator('#webcam').count(), 0);
    assert.equal(await page.evaluate('document.featurePolicy ? document.featurePolicy.allowsFeature("camera") : "unknown"'), false, 'the page may not use the camera');
    await page.getByLabel('4').check();
    await page.getByRole('button', { name: 'Save and next' }).click();
    await page.getByLabel('6').check();
    await page.getByRole('button', { name: 'Save and review' }).click();
    await page.getByRole('button', { name: 'Submit the assessment' }).click();
    await page.getByRole('heading', { name: /completed/ }).waitFor();
    await context.close();
    assert.deepEqual(uploads, []);
    assert.equal(await snapshots(invited.candidateId), 0);
  });

  it('shows the reviewer the strip of snapshots with their times, and the other candidate declined (axe-clean)', async () => {
    assert.ok(candidates.agrees && candidates.declines, 'the candidates took it');
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const made = await demo.app.inject({
      method: 'POST',
      url: '/admin/v1/users',
      headers: admin,
      payload: { email: 'rita.reviewer@example.com', role: 'reviewer', instances: ['demo'] },
    });
    assert.equal(made.statusCode, 201, made.body);
    await passwordChosen({ db: demo.db }, 'rita.reviewer@example.com');
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${demo.base}/console/`);
    await page.waitForURL(/\/console\/sign-in/);
    await page.getByLabel('E-mail').fill('rita.reviewer@example.com');
    await page.getByLabel('Password').fill(made.json().password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/(?!sign-in)/);

    await page.goto(`${demo.base}/console/candidates/${candidates.agrees}?instance=demo`);
    await page.getByRole('heading', { name: 'Webcam snapshots' }).waitFor();
    assert.match((await page.locator('section.webcam').textContent()) ?? '', /one every 30 s\): agreed on .*2 snapshots/s);
    const images = page.locator('.webcam-strip img');
    assert.equal(await images.count(), 2);
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.webcam-strip img')].every((img) => img.complete && img.naturalWidth > 0));
    assert.deepEqual(await images.evaluateAll((all) => all.map((img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight])), [
      [320, 240],
      [320, 240],
    ]);
    assert.match((await images.first().getAttribute('alt')) ?? '', /^Webcam snapshot 1 of 2, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    const times = await page.locator('.webcam-time').allTextContents();
    assert.equal(new Date(`1970-01-01T${times[1]!.replace(' UTC', '')}Z`).getTime() - new Date(`1970-01-01T${times[0]!.replace(' UTC', '')}Z`).getTime(), 30_000);
    await accessible(page, 'the report with the strip of snapshots');

    await page.goto(`${demo.base}/console/candidates/${candidates.declines}?instance=demo`);
    await page.getByRole('heading', { name: 'Webcam snapshots' }).waitFor();
    assert.match((await page.locator('section.webcam').textContent()) ?? '', /declined: no snapshots were taken/);
    assert.equal(await page.locator('.webcam-strip img').count(), 0);
    await context.close();
  });
});
