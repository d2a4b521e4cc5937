// QTI 3.0 packages that other tools wrote (test/fixtures/qti/third-party/, each with its origin and
// licence), imported as a new user would over the admin API: readable ids, no question published
// without its pictures or formulas (what cannot be kept is reported as not imported), and the
// export carries the files and imports again to the same content.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { describeEachStore } from './harness.js';
import { invite } from './support/portal.js';
import { reportPdfOf, takeWithLink } from './support/take.js';
import { zipFolder } from './support/zip-folder.js';

const THIRD_PARTY = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'qti', 'third-party');

const work = mkdtempSync(path.join(tmpdir(), 'ac-qti-third-party-'));
after(() => rmSync(work, { recursive: true, force: true }));

// The sound and video of the examples are on the project's storage, not in the package.
const AUDIO_URL = 'https://s3.amazonaws.com/grud-amp-bucket-1/items/1/395362d7-242f-421f-bbef-da3958d28497/sbac-200-51246/glossary/item_51246_skate-park_16_korean.ogg';
const VIDEO_URL =
  'https://storage.googleapis.com/bank-dev-ampup/c/54393195-3146-417d-ba1f-eb80dc5a30e8/43894675-a8cb-4846-b594-29fcd130bc7f/d4f2bfb9-2327-40b5-80ac-84908d9842d5/media/QTI2018.mp4';

type Report = { imported: { item: string }[]; notImported: { item: string; what: string; why: string }[]; notes: { file: string; item?: string; what: string }[] };
type Content = { id: string; name: string; description: string; questions: { id: string; prompt: string }[] };

describeEachStore('QTI packages written by other tools', (ctx) => {
  let instance: string;
  before(async () => {
    instance = await ctx().instance('qti-third-party');
  });

  const importPackage = async (into: string, zip: Uint8Array | Buffer, fileName: string) => {
    const response = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${into}/assessments/qti`,
      headers: { 'content-type': 'application/zip', 'x-file-name': fileName },
      payload: Buffer.from(zip),
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ id: string; report: Report }>();
  };
  const contentOf = async (name: string, id: string) =>
    (
      await ctx().db.query<{ content: Content }>(
        `SELECT v.content FROM assessments a JOIN instances i ON i.id = a.instance_id JOIN assessment_versions v ON v.assessment_id = a.id AND v.version = a.current_version
          WHERE i.name = $1 AND a.slug = $2`,
        [name, id],
      )
    ).rows[0]!.content;
  const mediaOf = async (name: string, id: string) =>
    (
      await ctx().db.query<{ content_type: string }>(
        `SELECT m.content_type FROM assessment_media m JOIN assessment_version_media u ON u.sha256 = m.sha256
           JOIN assessments a ON a.id = u.assessment_id JOIN instances i ON i.id = a.instance_id WHERE i.name = $1 AND a.slug = $2 ORDER BY 1`,
        [name, id],
      )
    ).rows.map((r) => r.content_type);

  /** Export from this instance, import into a fresh one: the files travel and the content is the same. */
  const roundTrip = async (id: string, files: number) => {
    const exported = await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/assessments/${id}/qti` });
    assert.equal(exported.statusCode, 200, exported.body);
    const entries = Object.keys(unzipSync(new Uint8Array(exported.rawPayload)));
    assert.equal(entries.filter((f) => /^media\/[0-9a-f]{64}\.(png|jpg)$/.test(f)).length, files, entries.join(', '));
    const other = await ctx().instance(`qti-third-party-${id.slice(0, 12)}`);
    assert.equal((await importPackage(other, exported.rawPayload, `${id}.zip`)).id, id);
    assert.deepEqual(await contentOf(other, id), await contentOf(instance, id));
  };

  it('amp-up.io examples: the sign and the postcard keep their pictures and the formula its brackets; media interactions are not imported', async () => {
    const { id, report } = await importPackage(instance, zipFolder(path.join(THIRD_PARTY, 'amp-up-io-examples')), 'amp-up-io-examples.zip');
    assert.equal(id, 'qti-3-player-examples');
    assert.deepEqual(
      report.imported.map((i) => i.item),
      ['q2-choice-interaction-single-sv-1', 'q5-extendedtext-sv-4'],
    );
    assert.deepEqual(
      report.notImported.map((n) => [n.item, n.why]),
      [
        ['media-interaction-audio', `the audio "${AUDIO_URL.slice(0, 100)}" is not a file of the package: the question would lose its meaning without it`],
        ['media-interaction-video', `the video "${VIDEO_URL.slice(0, 100)}" is not a file of the package: the question would lose its meaning without it`],
      ],
    );
    const content = await contentOf(instance, id);
    assert.equal(content.description, 'QTI 3 Player Examples');
    const [sign, postcard] = content.questions;
    assert.match(sign!.prompt, /^Look at the text in the picture\.\n\n!\[NEVER LEAVE LUGGAGE UNATTENDED\]\(media:[0-9a-f]{64}\.png\)\n\nWhat does it say\?$/);
    assert.match(postcard!.prompt, /!\[Postcard from Sam\.\]\(media:[0-9a-f]{64}\.png\)/);
    assert.match(postcard!.prompt, /> Here is a postcard of my town\./);
    // <mfenced> (not in MathML Core, so browsers would show no brackets) is written as its brackets.
    assert.match(
      postcard!.prompt,
      /<math><mrow><mn>14<\/mn><mo>×<\/mo><mrow><mi>tan<\/mi><mo>\u2061<\/mo><mrow><mo>\(<\/mo><mrow><mn>67<\/mn><\/mrow><mo>\)<\/mo><\/mrow><\/mrow><\/mrow><\/math> =$/,
    );
    assert.doesNotMatch(postcard!.prompt, /mfenced/);
    assert.deepEqual(await mediaOf(instance, id), ['image/png', 'image/png']);
    await roundTrip(id, 2);
  });

  it('a Dutch practice test: the id from its title, its figures published with the questions, the broken item reported', async () => {
    const zip = readFileSync(path.join(THIRD_PARTY, 'kennisnet-php-qti3', 'oefentoets-biotechnologie.zip'));
    const { id, report } = await importPackage(instance, zip, 'oefentoets-biotechnologie.zip');
    assert.equal(id, 'oefentoets-biologie-biotechnologie-havo-4-havo-5-variant-3');
    assert.equal(report.imported.length, 19);
    assert.deepEqual(
      report.notImported.map((n) => [n.item, n.why]),
      [['QUE_16_5', 'names 2 options for a single choice']],
    );
    const content = await contentOf(instance, id);
    assert.equal(content.name, 'Oefentoets Biologie: Biotechnologie | HAVO 4/HAVO 5 | variant 3');
    // Every item of the package that shows a figure is published with it.
    const withFigure = content.questions.filter((q) => /!\[afbeelding\]\(media:[0-9a-f]{64}\.jpg\)/.test(q.prompt)).map((q) => q.id);
    assert.deepEqual(withFigure, ['que-3-5', 'que-8-1', 'que-16-4']);
    // Their alternative text is "afbeelding" ("picture"): kept as written, and reported for the author to describe.
    const weak = report.notes.filter((n) => /alternative text "afbeelding", which does not say what it shows/.test(n.what)).map((n) => n.item);
    assert.deepEqual(weak, ['QUE_3_5', 'QUE_8_1', 'QUE_16_4', 'QUE_16_5'], 'the three published, and the item not imported');
    assert.ok(content.questions.every((q) => !/\[image:|afbeelding\]\((?!media:)/.test(q.prompt)));
    assert.deepEqual(await mediaOf(instance, id), ['image/jpeg', 'image/jpeg', 'image/jpeg']);
    await roundTrip(id, 3);
  });

  it('the PDF of an attempt at the amp-up.io examples prints the sign, the postcard and the formula', async () => {
    const key = await ctx().key([instance]);
    const person = { email: 'sam.postcard@example.com', firstName: 'Sam', lastName: 'Postcard' };
    const { candidateId, link } = await invite(ctx(), { instance, key }, person, ['qti-3-player-examples']);
    await takeWithLink(
      ctx(),
      link,
      undefined,
      [
        ['q2-choice-interaction-single-sv-1', 0],
        ['q5-extendedtext-sv-4', '32.98'],
      ],
      { slug: 'qti-3-player-examples' },
    );
    const file = path.join(work, `${ctx().store}.pdf`);
    writeFileSync(file, await reportPdfOf(ctx(), key, candidateId, 'qti-3-player-examples'));
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).split('\n').slice(2).join('\n');
    assert.match(images, /\s240\s+60\s/, `the sign (240 × 60) is in the PDF:\n${images}`);
    assert.match(images, /\s200\s+130\s/, `the postcard (200 × 130) is in the PDF:\n${images}`);
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    assert.match(text, /What does it say\?/);
    // An inline formula is drawn in its line (a picture three pixels a point, see media-pdf.test.ts);
    // its text, the PDF's text, reads as a person does.
    assert.match(images, /\simage\s+\d+\s+\d+\s.*\s216\s+216\s/, `the formula is drawn in the PDF:\n${images}`);
    assert.match(text, /14 × tan\u2061? ?\( ?67 ?\) =/, 'the formula with its brackets');
  });
});
