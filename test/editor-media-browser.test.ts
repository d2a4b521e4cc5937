// A picture uploaded in the console's assessment editor, in a real browser (Debian's Chromium with
// playwright-core): a manager chooses the file and writes its alternative text, uploads it (the
// text being edited stays as it was), sees it previewed, pastes the reference into a question,
// sees it in the preview and publishes; a candidate then sees the picture load in the question.
// Screenshots at 1280 and 390 px; axe-core checks the editor after the upload and after a refusal.
// Skipped without Chromium unless REQUIRE_BROWSER=1, which makes that a failure.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { accessible, consoleSignIn, demoUser, haveBrowser, SHOTS, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { editorLines, press, typeAsPerson, typeLines } from './support/keyboard.js';

const present = haveBrowser('editor media browser test');

const CONTENT = `id: figures
name: Figures
description: Reading a figure.
durationMinutes: 10
passScore: 60
lowPassScore: 40
categories:
  - id: reading
    name: Reading
questions:
  - id: colour
    type: single-choice
    category: reading
    prompt: |
      Which colour is the rectangle?
    options:
      - text: Green
        correct: true
      - text: Red
`;

describe('media uploaded in the assessment editor, in Chromium', { skip: !present && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let password: string;
  let picture: string;

  before(async () => {
    demo = await startDemo({ mailDir: 'editor-media-mail' });
    password = await demoUser(demo, 'mia.manager@example.com');
    await demo.publish(CONTENT);
    const folder = mkdtempSync(path.join(tmpdir(), 'editor-media-'));
    picture = path.join(folder, 'rectangle.png');
    writeFileSync(
      picture,
      await sharp({ create: { width: 160, height: 90, channels: 3, background: '#1b8a3a' } })
        .png()
        .toBuffer(),
    );
  });

  after(async () => {
    await demo?.close();
  });

  const signIn = (page: Page) => consoleSignIn(page, demo.base, 'mia.manager@example.com', password);

  /** Whether every picture the locator finds has loaded (decoded, with its size). */
  const loaded = (page: Page | ReturnType<Page['frameLocator']>, selector: string) =>
    page
      .locator(selector)
      .evaluateAll((images) => images.length > 0 && images.every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 160));

  it('uploads a picture, previews it, publishes it in a question, and a candidate sees it', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await signIn(page);
    await page.goto(`${demo.base}/console/assessments/figures/edit?instance=demo`);
    await page.locator('.cm-content').waitFor();

    // Without the alternative text: refused beside the field, nothing stored.
    const mediaCount = async () => (await demo.db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessment_media')).rows[0]!.n;
    const before = await mediaCount();
    await page.getByLabel('File', { exact: true }).setInputFiles(picture);
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByText('The file was not uploaded; nothing changed.').waitFor();
    assert.match(await page.locator('#media-text-error').innerText(), /is required for a picture: write what it shows/);
    await accessible(page, 'editor, upload refused');
    assert.equal(await mediaCount(), before);
    errors.length = 0; // the refusal's page is a 400, as it should be

    // With it: stored, the reference shown and the picture previewed; the text being edited kept.
    await page.locator('.cm-content').waitFor();
    await page.getByLabel('File', { exact: true }).setInputFiles(picture);
    await page.getByLabel(/^Alternative text/).click();
    await typeAsPerson(page, 'A green rectangle, wider than it is tall');
    await page.getByRole('button', { name: 'Upload' }).click();
    const reference = await page.getByLabel('Reference to paste').inputValue();
    assert.match(reference, /^!\[A green rectangle, wider than it is tall\]\(media:[0-9a-f]{64}\.png\)$/);
    await page.waitForFunction(() => [...document.querySelectorAll('.media-preview img.media')].every((img) => (img as HTMLImageElement).complete));
    assert.ok(await loaded(page, '.media-uploaded img.media'), 'the upload is previewed');
    assert.ok(await loaded(page, '.editor-media-list img.media'), 'and listed');
    await accessible(page, 'editor, picture uploaded');
    await page.screenshot({ path: path.join(SHOTS, 'editor-media-upload.png'), fullPage: true });

    // Named in the question, previewed as the candidate sees it, and published.
    // Typed after the prompt as a person does: to the end of its line, Enter, the reference on the new line.
    const editor = page.locator('.content-editor .cm-editor');
    const promptLine = editor.locator('.cm-line', { hasText: 'Which colour is the rectangle?' });
    const lineNumber = (await editorLines(editor)).findIndex((line) => line.includes('Which colour is the rectangle?')) + 1;
    await promptLine.click();
    await press(page, 'End');
    await press(page, 'Enter');
    await typeLines(page, editor, [`      ${reference}`], lineNumber + 1);
    await page.locator('#editor-check', { hasText: 'No problems: this would publish.' }).waitFor();
    const preview = page.frameLocator('iframe[name="editor-preview"]');
    await preview.getByRole('img', { name: 'A green rectangle, wider than it is tall' }).waitFor();
    await page.waitForFunction(() => {
      const frame = (document.querySelector('iframe[name="editor-preview"]') as HTMLIFrameElement).contentDocument;
      const img = frame?.querySelector('img.media') as HTMLImageElement | null;
      return img !== null && img !== undefined && img.complete && img.naturalWidth === 160;
    });
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published version 2.').waitFor();
    assert.match(await page.locator('.editor-media-list').innerText(), /1 file named in the text above/);

    // At 390 px the editor with its media fits without scrolling sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > 392)
        .map((e) => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`)
        .slice(0, 15),
    );
    assert.ok(overflow <= 0, `the editor scrolls sideways by ${overflow} px at 390 px: ${wide.join(', ')}`);
    await page.locator('#editor-media').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SHOTS, 'editor-media-phone.png'), fullPage: true });

    assert.deepEqual(errors, []);
    await context.close();

    // A candidate sees the picture load in the question.
    const { link } = await demo.invite('figures.candidate@example.com', ['figures']);
    const candidate = await demo.browser.newContext({ viewport: { width: 390, height: 844 } });
    const portal = await candidate.newPage();
    await portal.goto(link);
    await portal.getByRole('link', { name: /Open/ }).click();
    await portal.getByRole('button', { name: 'Start the assessment' }).click();
    await portal.getByRole('img', { name: 'A green rectangle, wider than it is tall' }).waitFor();
    await portal.waitForFunction(() => [...document.querySelectorAll('img.media')].every((img) => (img as HTMLImageElement).complete));
    assert.ok(await loaded(portal, 'img.media'), 'the candidate sees the picture');
    await portal.screenshot({ path: path.join(SHOTS, 'editor-media-candidate.png'), fullPage: true });
    await candidate.close();
  });

  it('uploads without JavaScript', async () => {
    const context = await demo.browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${demo.base}/console/assessments/figures/edit?instance=demo`);
    // The textarea is the editor: to the end of the name's line (the second), and type.
    await page.getByLabel('Content (YAML)').click();
    await press(page, 'Control+Home');
    await press(page, 'ArrowDown');
    await press(page, 'End');
    await typeAsPerson(page, ', unsaved');
    await page.getByLabel('File', { exact: true }).setInputFiles(picture);
    await page.getByLabel(/^Alternative text/).click();
    await typeAsPerson(page, 'The same green rectangle');
    await page.getByRole('button', { name: 'Upload' }).click();
    assert.match(await page.getByLabel('Reference to paste').inputValue(), /^!\[The same green rectangle\]\(media:[0-9a-f]{64}\.png\)$/);
    assert.match(await page.getByLabel('Content (YAML)').inputValue(), /name: Figures, unsaved/);
    await context.close();
  });
});
