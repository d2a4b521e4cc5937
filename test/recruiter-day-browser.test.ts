// A recruiter's day in a real browser (Debian's Chromium with playwright-core), end to end in one
// instance that wants two blind reviews per free-text answer, agreeing within 20 points:
//  1. the recruiter (a manager) writes an assessment with four question types and a rubric in the
//     editor, previews it at phone width and publishes it;
//  2. invites 200 candidates from a CSV file whose three bad rows the preview names;
//  3. five of them take it (through the portal's own requests: the candidates are not the subject
//     here); one writes a free-text answer, one leaves the page three times;
//  4. two reviewers score the free-text answer by the rubric, blind, and disagree; the recruiter,
//     as lead, settles it;
//  5. a reviewer dismisses the signals of the candidate who left the page, and the client's score
//     record (GET /v1/score) loses its red flag;
//  6. the recruiter compares the five side by side, decides on them and downloads the decisions.
// axe-core checks the screens on the way. Skipped without Chromium unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN } from './harness.js';
import { editorLines, press, typeProgram } from './support/keyboard.js';
import { passwordChosen } from './support/console.js';
import { invite } from './support/portal.js';
import { accessible, haveBrowser, SHOTS, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { takeWithLink } from './support/take.js';

const present = haveBrowser('recruiter day browser test');

const ASSESSMENT = `id: service-desk
name: Service desk
description: Four kinds of question for a service desk role.
durationMinutes: 20
passScore: 50
lowPassScore: 30
categories:
  - id: judgement
    name: Judgement
  - id: writing
    name: Writing
  - id: style
    name: Working style
questions:
  - id: first
    type: single-choice
    category: judgement
    prompt: A user cannot log in. What do you ask first?
    options:
      - text: Their password
      - text: What they see on the screen
        correct: true
      - text: Their manager's name
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
  - id: reply
    type: free-text
    category: writing
    prompt: Reply to a user whose laptop broke the day before a deadline.
    rubric:
      criteria:
        - id: empathy
          name: Empathy
          levels:
            - { label: None, points: 0 }
            - { label: Some, points: 1 }
            - { label: Strong, points: 3 }
        - id: remedy
          name: Remedy
          levels:
            - { label: Missing, points: 0 }
            - { label: Concrete, points: 2 }
  - id: calm
    type: likert
    category: style
    prompt: I stay calm when a user is rude.
    scale: agreement-5
`;

describe("a recruiter's day in Chromium", { skip: !present && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  const passwords: Record<string, string> = {};
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

  before(async () => {
    demo = await startDemo({
      mailDir: 'recruiter-day-mail',
      settings: { reviewersPerAnswer: 2, blindReview: true, reviewAgreement: 'agree-within', reviewAgreementPoints: 20 },
    });
    for (const [email, role] of [
      ['rita.recruiter@example.com', 'manager'],
      ['ann.reviewer@example.com', 'reviewer'],
      ['ben.reviewer@example.com', 'reviewer'],
    ] as const) {
      const made = await demo.app.inject({ method: 'POST', url: '/admin/v1/users', headers: admin, payload: { email, role, instances: ['demo'] } });
      assert.equal(made.statusCode, 201, made.body);
      passwords[email] = made.json().password;
      await passwordChosen({ db: demo.db }, email);
    }
  });

  after(async () => {
    await demo?.close();
  });

  async function signedIn(email: string): Promise<Page> {
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${demo.base}/console/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(passwords[email]!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview of demo' }).waitFor();
    return page;
  }

  /** A candidate takes the assessment through the portal's requests: answers by question id, then signals, then submit. */
  const take = (link: string, answers: Record<string, unknown>, signals: string[] = []) =>
    takeWithLink({ request: (options) => demo.app.inject(options) }, link, undefined, Object.entries(answers), { slug: 'service-desk', signals });

  it('writes, publishes, invites 200 from a CSV, reviews together, dismisses a signal, compares five and exports the decisions', { timeout: 420_000 }, async () => {
    const rita = await signedIn('rita.recruiter@example.com');
    const errors: string[] = [];
    rita.on('pageerror', (error) => errors.push(error.message));

    // 1. The editor: four question types and a rubric, checked, previewed at phone width, published.
    await rita.goto(`${demo.base}/console/assessments/new?instance=demo`);
    await rita.locator('.cm-content').waitFor();
    await rita.locator('#editor-check', { hasText: 'No problems: this would publish.' }).waitFor();
    // Typed as she writes it: the starting text selected and deleted, then line by line.
    const editor = rita.locator('.content-editor .cm-editor');
    await editor.getByRole('textbox').click();
    await press(rita, 'Control+A');
    await press(rita, 'Delete');
    await typeProgram(rita, editor, ASSESSMENT);
    assert.deepEqual(await editorLines(editor), ASSESSMENT.split('\n'));
    await rita.locator('#editor-outline', { hasText: 'Likert 1' }).waitFor();
    await rita.locator('#editor-check', { hasText: 'No problems: this would publish.' }).waitFor();
    assert.match(await rita.locator('#editor-outline').innerText(), /Single choice 1, Multiple choice 1, Free text 1, Likert 1/);
    const preview = rita.frameLocator('iframe[name="editor-preview"]');
    await preview.getByText('Reply to a user whose laptop broke').waitFor();
    await rita.getByLabel('Phone (390 px)').check();
    const box = await rita.locator('iframe[name="editor-preview"]').boundingBox();
    assert.ok(box && box.width <= 390, `the preview is ${box?.width} px wide`);
    await accessible(rita, 'editor');
    await rita.getByRole('button', { name: 'Publish' }).click();
    await rita.getByText('Published version 1.').waitFor();

    // 2. 203 rows, three of them bad, named by line, column and why; 200 invited.
    await rita.goto(`${demo.base}/console/invitations?instance=demo`);
    await rita.getByRole('link', { name: 'Invite many from a CSV file' }).click();
    const rows = ['email,firstName,lastName'];
    for (let i = 1; i <= 203; i++) rows.push(`person${i}@example.com,Given${i},Surname${i}`);
    rows[10] = 'not-an-address,Given10,Surname10';
    rows[50] = 'person50@example.com,,Surname50';
    rows[100] = `person100@example.com,Given100,${'x'.repeat(300)}`;
    await rita.getByLabel('CSV file').setInputFiles({ name: 'round-one.csv', mimeType: 'text/csv', buffer: Buffer.from(rows.join('\n') + '\n') });
    await rita.getByRole('button', { name: 'Upload' }).click();
    await rita.getByRole('heading', { name: 'round-one.csv' }).waitFor();
    await rita.getByLabel('Service desk').check();
    await rita.getByLabel('E-mail each candidate their invitation').uncheck();
    await rita.getByRole('button', { name: 'Check the rows' }).click();
    await rita.locator('#bulk-problems').waitFor();
    assert.match(await rita.locator('#bulk-summary').innerText(), /^203 rows: 200 to invite, 3 bad, 0 duplicates?, 0 known already\./);
    const problems = await rita.locator('#bulk-problems tbody tr').allInnerTexts();
    assert.equal(problems.length, 3);
    assert.match(problems[0]!, /^11\s+not-an-address\s+bad row: not invited\s+email: must match format "email"$/);
    assert.match(problems[1]!, /^51\s+person50@example\.com\s+bad row: not invited\s+firstName: /);
    assert.match(problems[2]!, /^101\s+person100@example\.com\s+bad row: not invited\s+lastName: /);
    await accessible(rita, 'bulk preview');
    await rita.getByRole('button', { name: 'Invite 200 candidates' }).click();
    await rita.getByText(/^done: 200 of 200 rows tried, 200 invited, 0 refused\.$/).waitFor({ timeout: 120_000 });
    const [download] = await Promise.all([rita.waitForEvent('download'), rita.getByRole('link', { name: 'Download the result file (CSV)' }).click()]);
    const result = readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\r\n');
    assert.equal(result.length, 1 + 203);
    // Links are kept only as hashes: the client asks for a fresh one as it would to resend it (POST /v1/invite again).
    const linkOf = async (i: number) =>
      (
        await invite(
          { request: (options) => demo.app.inject(options) },
          { instance: 'demo', key: demo.key },
          { email: `person${i}@example.com`, firstName: `Given${i}`, lastName: `Surname${i}` },
          ['service-desk'],
        )
      ).link;

    // 3. Five take it: the first writes the free-text answer, the second leaves the page three times.
    const five = [1, 2, 3, 4, 5].map((i) => `person${i}@example.com`);
    for (const i of five.keys()) {
      await take(
        await linkOf(i + 1),
        { first: i % 2 === 0 ? 1 : 0, channels: i < 3 ? [0, 1] : [0], calm: i % 5, ...(i === 0 ? { reply: 'I am sorry about the laptop. I will lend you one today.' } : {}) },
        i === 1 ? ['focus-lost', 'focus-lost', 'focus-lost'] : [],
      );
    }
    const key = demo.key;
    const records = async () =>
      (await demo.app.inject({ method: 'GET', url: '/v1/score?assessmentIds=service-desk', headers: { 'x-api-key': key, instance: 'demo' } })).json() as {
        candidateId: string;
        scoreStatus: string;
        redFlag: boolean;
      }[];
    const candidateIds = new Map<string, string>();
    for (const email of five) candidateIds.set(email, /"invited","([0-9a-f-]{36})"/.exec(result.find((line) => line.includes(`"${email}"`))!)![1]!);
    const recordOf = async (email: string) => (await records()).find((r) => r.candidateId === candidateIds.get(email))!;
    assert.equal((await recordOf(five[0]!)).scoreStatus, 'PENDING');
    assert.equal((await recordOf(five[1]!)).redFlag, true);

    // 4. Two reviewers score the answer by the rubric, blind; they disagree; Rita, a manager, settles it.
    for (const [email, empathy, remedy] of [
      ['ann.reviewer@example.com', 'Strong', 'Concrete'],
      ['ben.reviewer@example.com', 'None', 'Missing'],
    ] as const) {
      const reviewer = await signedIn(email);
      await reviewer.goto(`${demo.base}/console/reviews?instance=demo`);
      const text = await reviewer.locator('main').innerText();
      assert.match(text, /I am sorry about the laptop/);
      assert.doesNotMatch(text, /Given1 Surname1|person1@example\.com/, 'blind: no name before scoring');
      assert.doesNotMatch(text, /Strong \(3 points\) chosen|100 \/ 100/, "blind: not the other's review");
      await reviewer.getByRole('radio', { name: new RegExp(`^${empathy} \\(`) }).check();
      await reviewer.getByRole('radio', { name: new RegExp(`^${remedy} \\(`) }).check();
      await accessible(reviewer, `review by ${email}`);
      await reviewer.getByRole('button', { name: 'Save and next' }).click();
      await reviewer.getByText('Score saved.').waitFor();
      await reviewer.context().close();
    }
    assert.equal((await recordOf(five[0]!)).scoreStatus, 'PENDING', 'a disagreement waits for a lead');
    await rita.goto(`${demo.base}/console/reviews?instance=demo`);
    const disagreement = rita.locator('section.disagreements');
    await disagreement.waitFor();
    await disagreement.getByLabel('Final score (0–100)').fill('60');
    await disagreement.getByRole('button', { name: 'Settle' }).click();
    await rita.getByText('Settled: the answer has its final score.').waitFor();
    assert.notEqual((await recordOf(five[0]!)).scoreStatus, 'PENDING');

    // 5. Under blind review Ann, a reviewer, cannot open a candidate she has not reviewed; Rita,
    //    a manager, dismisses the signals of the candidate who left the page: the record loses its red flag.
    const ann = await signedIn('ann.reviewer@example.com');
    const refused = await ann.goto(`${demo.base}/console/candidates/${candidateIds.get(five[1]!)}?instance=demo`);
    assert.equal(refused?.status(), 403);
    assert.doesNotMatch(await ann.locator('body').innerText(), /person2|Given2|Surname2/);
    await ann.context().close();
    await rita.goto(`${demo.base}/console/candidates/${candidateIds.get(five[1]!)}?instance=demo`);
    const dismiss = rita.locator('details:not(.fold)', { hasText: 'Dismiss every signal of a kind' });
    await dismiss.locator('summary').click();
    await dismiss.getByPlaceholder('Why (e.g. closed the laptop lid)').fill('The building lost power; the candidate told us at once');
    await dismiss.getByRole('button', { name: /Dismiss/ }).click();
    await rita.getByText(/Every focus-lost signal was dismissed by rita\./).waitFor();
    assert.equal((await recordOf(five[1]!)).redFlag, false);

    // 6. Rita compares the five side by side, decides on each and downloads the decisions.
    await rita.goto(`${demo.base}/console/candidates?instance=demo&assessment=service-desk&status=COMPLETED`);
    for (let i = 1; i <= 5; i++) await rita.getByRole('checkbox', { name: `Choose Given${i} Surname${i}` }).check();
    await rita.getByRole('button', { name: 'Compare', exact: true }).click();
    await rita.getByRole('heading', { name: 'Compare candidates: Service desk' }).waitFor();
    assert.match(await rita.locator('table.compare caption').innerText(), /^5 candidates, Service desk$/);
    await accessible(rita, 'compare');
    await rita.screenshot({ path: path.join(SHOTS, 'recruiter-day-compare.png'), fullPage: true });
    for (const [i, decision] of (['Advance', 'Hold', 'Reject', 'Advance', 'Hold'] as const).entries()) {
      await rita.goto(`${demo.base}/console/candidates/${candidateIds.get(five[i]!)}?instance=demo`);
      await rita.locator('.page-header').getByRole('button', { name: decision, exact: true }).click();
      const form = rita.getByRole('dialog', { name: `${decision}: decide` });
      await form.getByLabel(/Note for your team/).fill(`Round one: ${decision.toLowerCase()}`);
      await form.getByRole('button', { name: decision, exact: true }).click();
      await rita.locator('.candidate-marks .badge').getByText(decision, { exact: true }).waitFor();
    }
    await rita.goto(`${demo.base}/console/candidates?instance=demo&assessment=service-desk&status=COMPLETED`);
    const [csv] = await Promise.all([rita.waitForEvent('download'), rita.getByRole('link', { name: 'Download CSV' }).click()]);
    const exported = readFileSync((await csv.path())!, 'utf8');
    for (const [i, decision] of ['advance', 'hold', 'reject', 'advance', 'hold'].entries()) {
      assert.match(exported, new RegExp(`person${i + 1}@example\\.com[^\\n]*${decision}[^\\n]*Round one: ${decision}`), `person${i + 1}'s decision in the export`);
    }
    assert.deepEqual(errors, []);
    await rita.context().close();
  });
});
