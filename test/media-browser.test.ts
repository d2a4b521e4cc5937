// Media in content, end to end: a zip of a YAML document and its files published through the
// admin API, each file stored by its sha256 and served with its type, nosniff and a year's caching;
// a candidate in Chromium sees the picture load, the SVG figure, and the audio's controls. Every
// hostile or incomplete package is refused with a clear error and publishes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { zipSync } from 'fflate';
import sharp from 'sharp';
import { ADMIN_TOKEN } from './harness.js';
import { haveBrowser, startAttemptPage, startDemo, type DemoBrowser } from './support/demo-browser.js';

const browserHere = haveBrowser('media browser tests');

const yaml = (prompt: string, id = 'media-demo') => `id: ${id}
name: Media demo
description: Pictures and sound in questions.
durationMinutes: 10
passScore: 50
lowPassScore: 40
categories:
  - id: reading
    name: Reading
questions:
  - id: q1
    category: reading
    type: single-choice
    prompt: |
${prompt
  .split('\n')
  .map((line) => `      ${line}`)
  .join('\n')}
    options:
      - text: Rising
        correct: true
      - text: Falling
`;

const PROMPT = `Look at the chart: ![A bar chart of sales rising from 10 in January to 40 in April](figures/chart.png)

The shapes: ![Three squares in a row, the last one filled](shapes.svg)

Listen: ![A speaker reads the sales figures for January to April](audio/figures.wav)

The sales follow $$s = 10m$$ where $m$ is the month.

What is the trend?`;

function wav(size: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + size, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(size, 40);
  // A quiet 440 Hz tone, 8-bit unsigned.
  const samples = Buffer.alloc(size);
  for (let i = 0; i < size; i++) samples[i] = 128 + Math.round(20 * Math.sin((2 * Math.PI * 440 * i) / 8000));
  return Buffer.concat([header, samples]);
}

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 70 20" width="210" height="60"><rect x="0" y="0" width="20" height="20" fill="none" stroke="#000"/><rect x="25" y="0" width="20" height="20" fill="none" stroke="#000"/><rect x="50" y="0" width="20" height="20" fill="#000"/></svg>';

describe('media in content, published as a zip and shown to a candidate', { skip: !browserHere && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let chart: Buffer;

  before(async () => {
    demo = await startDemo();
    chart = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2a6' } })
      .png()
      .withExif({ IFD0: { Artist: 'exif-author-name' } })
      .toBuffer();
  });
  after(async () => {
    await demo?.close();
  });

  const publish = (files: Record<string, Uint8Array | string>) =>
    fetch(`${demo.base}/admin/v1/instances/demo/assessments/package`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/zip' },
      body: zipSync(Object.fromEntries(Object.entries(files).map(([name, data]) => [name, typeof data === 'string' ? Buffer.from(data) : data]))),
    });

  const published = async () => {
    const response = await fetch(`${demo.base}/admin/v1/instances/demo/assessments`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    return ((await response.json()) as { id: string }[]).map((a) => a.id);
  };

  it('refuses a hostile or incomplete package with a clear error, publishing nothing', async () => {
    const jpeg = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    const cases: [string, Record<string, Uint8Array | string>, RegExp][] = [
      ['no alternative text', { 'a.yaml': yaml('Look: ![](figures/chart.png)'), 'figures/chart.png': chart }, /shows the image "figures\/chart.png" without alternative text/],
      ['a file not given', { 'a.yaml': yaml('Look: ![A chart](figures/missing.png)') }, /names the file "figures\/missing.png", which was not given/],
      [
        'a polyglot JPEG',
        { 'a.yaml': yaml('Look: ![A photo](photo.jpg)'), 'photo.jpg': Buffer.concat([jpeg, Buffer.from('<html><script>alert(1)</script>')]) },
        /photo\.jpg: is a JPG file with HTML markup inside it \(a polyglot\)/,
      ],
      [
        'an SVG with script',
        { 'a.yaml': yaml('Look: ![Shapes](s.svg)'), 's.svg': '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>' },
        /s\.svg: is an SVG with content that could run or load something \(<script>\)/,
      ],
      [
        'audio over the limit',
        { 'a.yaml': yaml('Listen: ![A long talk](talk.wav)'), 'talk.wav': wav(10 * 1024 * 1024) },
        /talk\.wav: is 10\.0 MB; audio files may be at most 10 MB/,
      ],
      ['a file outside the folder', { 'a.yaml': yaml('Look: ![A chart](../etc/chart.png)') }, /a media file is named by its path beside the content/],
      ['TeX that does not convert', { 'a.yaml': yaml('Solve $\\frac{1$ now.') }, /has the formula \$\\frac\{1\$, which is not TeX that converts/],
      ['two documents', { 'a.yaml': yaml('x'), 'b.yaml': yaml('y') }, /has 2 documents at its top/],
    ];
    for (const [what, files, message] of cases) {
      const response = await publish(files);
      const body = (await response.json()) as { detail: string };
      assert.equal(response.status, 400, `${what}: ${JSON.stringify(body)}`);
      assert.match(body.detail, message, what);
    }
    // A zip bomb: a few kilobytes that would unpack to more than the limit.
    const bomb = zipSync({ 'a.yaml': Buffer.from(yaml('x')), 'zeros.bin': Buffer.alloc(90 * 1024 * 1024) }, { level: 9 });
    assert.ok(bomb.length < 1024 * 1024, `the bomb is ${bomb.length} bytes`);
    const response = await fetch(`${demo.base}/admin/v1/instances/demo/assessments/package`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/zip' },
      body: bomb,
    });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { detail: string }).detail, /unpacks to 90\.0 MB; a package may unpack to at most 80 MB/);
    assert.ok(!(await published()).includes('media-demo'), 'nothing was published');
  });

  it('publishes the files by their sha256, serves them safely, and a candidate sees and hears them', async () => {
    const response = await publish({
      'media-demo/assessment.yaml': yaml(PROMPT),
      'media-demo/figures/chart.png': chart,
      'media-demo/shapes.svg': SVG,
      'media-demo/audio/figures.wav': wav(16000),
    });
    assert.equal(response.status, 201, await response.clone().text());
    assert.deepEqual(await response.json(), { id: 'media-demo', instance: 'demo', version: 1, outcome: 'created' });
    // The same package again is the same content.
    const again = await publish({
      'media-demo/assessment.yaml': yaml(PROMPT),
      'media-demo/figures/chart.png': chart,
      'media-demo/shapes.svg': SVG,
      'media-demo/audio/figures.wav': wav(16000),
    });
    assert.equal(((await again.json()) as { outcome: string }).outcome, 'unchanged');

    const { link } = await demo.invite('media.candidate@example.com', ['media-demo']);
    const { context, page, blocked } = await startAttemptPage(demo, link);

    const chartImage = page.getByRole('img', { name: 'A bar chart of sales rising from 10 in January to 40 in April' });
    await chartImage.waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('img.media')].every((img) => (img as HTMLImageElement).complete));
    const sizes = await page.locator('img.media').evaluateAll((images) => images.map((img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight]));
    assert.deepEqual(sizes, [
      [120, 80],
      [210, 60],
    ]);
    const audio = page.locator('audio[controls]');
    assert.equal(await audio.count(), 1);
    assert.equal(await audio.getAttribute('aria-label'), 'A speaker reads the sales figures for January to April');
    await page.waitForFunction(() => (document.querySelector('audio') as HTMLAudioElement).readyState >= 1, undefined, { timeout: 10000 });
    const duration = await audio.evaluate((a) => (a as HTMLAudioElement).duration);
    assert.ok(Math.abs(duration - 2) < 0.01, `the audio lasts 2 s, is ${duration}`);
    // The formula is MathML, drawn by the browser.
    const formula = page.locator('.prompt math[display="block"]');
    assert.equal(await formula.count(), 1);
    assert.equal((await formula.textContent())?.replace(/\s/g, ''), 's=10m');
    const box = await formula.boundingBox();
    assert.ok(box && box.height > 5 && box.width > 20, `the formula is drawn: ${JSON.stringify(box)}`);
    assert.deepEqual(blocked, [], 'nothing was refused by the CSP');

    // Each file is served by its sha256 with its type, nosniff and a year's caching; the PNG has no EXIF.
    const src = (await chartImage.getAttribute('src'))!;
    assert.match(src, /^\/portal\/media\/[0-9a-f]{64}\.png$/);
    const served = await fetch(`${demo.base}${src}`);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(served.headers.get('cache-control'), 'private, max-age=31536000, immutable');
    const bytes = Buffer.from(await served.arrayBuffer());
    assert.ok(!bytes.includes('exif-author-name'), 'the metadata is gone');
    const { createHash } = await import('node:crypto');
    assert.equal(`/portal/media/${createHash('sha256').update(bytes).digest('hex')}.png`, src);
    const svgSrc = (await page.locator('img.media').nth(1).getAttribute('src'))!;
    const svg = await fetch(`${demo.base}${svgSrc}`);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(svg.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal((await fetch(`${demo.base}${src.replace('.png', '.gif')}`)).status, 404, 'only under its own type');
    await context.close();
  });
});
