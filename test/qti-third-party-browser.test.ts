// A QTI 3.0 package another tool wrote (the amp-up.io player's examples, test/fixtures/qti/third-party/),
// imported over the admin API and taken by a candidate in Chromium: the sign's picture loads, the
// postcard is shown as its picture, and the formula is MathML the browser draws, with its brackets.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ADMIN_TOKEN } from './harness.js';
import { haveBrowser, startAttemptPage, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { zipFolder } from './support/zip-folder.js';

const browserHere = haveBrowser('third-party QTI browser tests');
const EXAMPLES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'qti', 'third-party', 'amp-up-io-examples');

describe('a third-party QTI package taken in Chromium', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  before(async () => {
    demo = await startDemo();
  });
  after(async () => {
    await demo?.close();
  });

  it('shows the imported pictures loaded and the formula as MathML', async () => {
    const imported = await fetch(`${demo.base}/admin/v1/instances/demo/assessments/qti`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/zip', 'x-file-name': 'amp-up-io-examples.zip' },
      body: Buffer.from(zipFolder(EXAMPLES)),
    });
    assert.equal(imported.status, 201, await imported.clone().text());
    const { id } = (await imported.json()) as { id: string };
    assert.equal(id, 'qti-3-player-examples');

    const { link } = await demo.invite('qti.candidate@example.com', [id]);
    const { context, page, blocked } = await startAttemptPage(demo, link);

    const loaded = async () => {
      await page.waitForFunction(() => [...document.querySelectorAll('img.media')].every((img) => (img as HTMLImageElement).complete));
      return page
        .locator('img.media')
        .evaluateAll((images) => images.map((img) => [img.getAttribute('alt'), (img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight]));
    };
    await page.goto(`${demo.base}/portal/a/${id}?q=1`);
    assert.deepEqual(await loaded(), [['NEVER LEAVE LUGGAGE UNATTENDED', 240, 60]]);

    await page.goto(`${demo.base}/portal/a/${id}?q=2`);
    assert.deepEqual(await loaded(), [['Postcard from Sam.', 200, 130]]);
    const formula = page.locator('.prompt math');
    assert.equal(await formula.count(), 1);
    assert.equal((await formula.textContent())?.replace(/[\s\u2061]/g, ''), '14×tan(67)');
    assert.equal(await formula.locator('mfenced').count(), 0);
    const box = await formula.boundingBox();
    assert.ok(box && box.height > 5 && box.width > 40, `the formula is drawn: ${JSON.stringify(box)}`);
    assert.deepEqual(blocked, [], 'nothing was refused by the CSP');
    await context.close();
  });
});
