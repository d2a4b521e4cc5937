// The report's PDF prints the pictures a prompt shows (the stored file, drawn by pdfkit), a formula
// shown as a block drawn as a formula (MathJax's layout in a picture, not its TeX as text), and an
// inline formula drawn in its line of text, its readable text kept as the PDF's text, read back
// with poppler's pdfimages and pdftotext.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { describeEachStore, sampleAssessment } from './harness.js';
import { reportPdfOf, takeAssessment } from './support/take.js';

const work = mkdtempSync(path.join(tmpdir(), 'ac-media-pdf-'));
after(() => rmSync(work, { recursive: true, force: true }));

describeEachStore('pictures and formulas in the report PDF', (ctx) => {
  it('prints the picture of a prompt and its formulas: one shown as a block drawn as a formula', async () => {
    const instance = await ctx().instance('media-pdf');
    const yaml = sampleAssessment('alpha').replace(
      'prompt: What is 2 + 2?',
      () =>
        'prompt: "Look: ![A green square](square.png) and $E = mc^2$, $\\\\frac{a}{b} + \\\\sqrt{x}$.\\n\\n$$x = \\\\frac{-b \\\\pm \\\\sqrt{b^2-4ac}}{2a}$$\\n\\n- A circle of $\\\\pi r^2$\\n- A square\\n\\nWhat is 2 + 2?"',
    );
    const square = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#2a6' } })
      .png()
      .toBuffer();
    const published = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments/package`,
      headers: { 'content-type': 'application/zip' },
      payload: Buffer.from(zipSync({ 'alpha.yaml': strToU8(yaml), 'square.png': square })),
    });
    assert.equal(published.statusCode, 201, published.body);
    const key = await ctx().key([instance]);
    const candidateId = await takeAssessment(ctx(), instance, key, { email: 'pia.picture@example.com', firstName: 'Pia', lastName: 'Picture' });
    const file = path.join(work, `${ctx().store}.pdf`);
    writeFileSync(file, await reportPdfOf(ctx(), key, candidateId, 'alpha'));
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' })
      .split('\n')
      .slice(2)
      .filter((l) => l.trim() !== '');
    assert.ok(
      images.some((line) => /\s40\s+40\s/.test(line)),
      `the 40 × 40 picture is in the PDF:\n${images.join('\n')}`,
    );
    // The formula: a picture three pixels a point, 320 points wide (the formula at its size, then transparent).
    const formula = images.find((line) => /\s960\s+\d+\s/.test(line));
    assert.ok(formula, `the formula is drawn in the PDF:\n${images.join('\n')}`);
    // The three inline formulas (two in a line, one in a list's item): pictures of their own (three pixels a point), no taller than a line or two.
    const inlineFormulas = images.filter((line) => /^\s*\d+\s+\d+\s+image\s+(\d+)\s+(\d+)\s.*\s216\s+216\s/.test(line) && !/\s960\s/.test(line));
    assert.equal(inlineFormulas.length, 3, `the inline formulas are drawn in the PDF:\n${images.join('\n')}`);
    for (const line of inlineFormulas) assert.ok(Number(line.trim().split(/\s+/)[4]) < 60, `an inline formula is as tall as a line: ${line}`);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    // Its text (invisible over its picture) reads in the line, in order.
    assert.match(text, /Look: and E = mc\^2, a\/b \+ √x\./);
    const words = [
      ...execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' }).matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g),
    ].map((m) => ({ x: Number(m[1]), top: Number(m[2]), bottom: Number(m[3]), word: m[4] }));
    const look = words.find((w) => w.word === 'Look:')!;
    const line = words.filter((w) => w.top < look.bottom && w.bottom > look.top);
    assert.deepEqual(
      line.map((w) => w.word),
      ['Look:', 'and', 'E', '=', 'mc^2,', 'a/b', '+', '√x.'],
      'the formulas are on the line of the text around them, in order',
    );
    assert.doesNotMatch(text, /\\/, 'an inline formula is printed as text a person reads, not as its TeX');
    assert.match(text, /What is 2 \+ 2\?/);
    assert.match(text, /• A circle of π ?r\^2\s+• A square/, 'the list item reads with its formula');
    assert.doesNotMatch(text, /frac|sqrt|b\^2-4ac/, 'the block formula is not flattened to its TeX');
    // Drawn, it has ink: its transparency mask, read back, is opaque where the strokes are and only there.
    const prefix = path.join(work, `${ctx().store}-image`);
    execFileSync('pdfimages', ['-png', file, prefix]);
    const masks = [];
    for (const name of readdirSync(work).filter((f) => f.startsWith(`${ctx().store}-image`))) {
      const { data, info } = await sharp(path.join(work, name)).greyscale().raw().toBuffer({ resolveWithObject: true });
      if (info.width === 960) masks.push(data.filter((v) => v > 128).length / data.length);
    }
    assert.ok(
      masks.some((inked) => inked > 0.01 && inked < 0.5),
      `the formula's picture has strokes on a clear ground (${masks.join(', ')})`,
    );
  });
});
