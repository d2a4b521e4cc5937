// QTI items that carry pictures, sound and formulas: the prompt keeps them (the files from the
// package, MathML as it is), and an item whose media cannot be kept (no alternative text, no
// description, a file not in the package) is not imported, with why; published over the
// admin API, the files are stored and the formula is MathML on the candidate's page.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { strToU8, unzipSync, zipSync } from 'fflate';
import sharp from 'sharp';
import { markdown } from '../src/html/markdown.js';
import { readQtiPackage } from '../src/modules/assessments/qti/import.js';
import { describeEachStore } from './harness.js';

const item = (id: string, body: string) =>
  `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="${id}" title="${id}" adaptive="false" time-dependent="false">
<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>A</qti-value></qti-correct-response></qti-response-declaration>
<qti-item-body>${body}<qti-choice-interaction response-identifier="RESPONSE" max-choices="1"><qti-simple-choice identifier="A">Yes</qti-simple-choice><qti-simple-choice identifier="B">No</qti-simple-choice></qti-choice-interaction></qti-item-body></qti-assessment-item>`;

const MATH = '<m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mi>E</m:mi><m:mo>=</m:mo><m:mi>m</m:mi><m:msup><m:mi>c</m:mi><m:mn>2</m:mn></m:msup></m:math>';

async function mediaPackage(): Promise<Uint8Array> {
  const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#c33' } })
    .png()
    .toBuffer();
  const items: Record<string, string> = {
    'items/sign.xml': item('sign', '<p>What does the sign say? <img src="../resources/sign.png" alt="A red sign: NEVER LEAVE LUGGAGE UNATTENDED"/></p>'),
    'items/energy.xml': item('energy', `<p>Is ${MATH} the energy of a mass at rest?</p>`),
    'items/no-alt.xml': item('no-alt', '<p>What is shown? <img src="../resources/sign.png"/></p>'),
    'items/clip.xml': item('clip', '<p>Listen: <audio src="../resources/clip.mp3" controls="controls"/></p>'),
    'items/missing.xml': item('missing', '<p>Look: <img src="../resources/nowhere.png" alt="A chart"/></p>'),
  };
  const resources = Object.keys(items)
    .map((href, i) => `<resource identifier="r${i}" type="imsqti_item_xmlv3p0" href="${href}"><file href="${href}"/></resource>`)
    .join('');
  const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources>${resources}</resources></manifest>`;
  return zipSync({
    'imsmanifest.xml': strToU8(manifest),
    ...Object.fromEntries(Object.entries(items).map(([k, v]) => [k, strToU8(v)])),
    'resources/sign.png': png,
    'resources/clip.mp3': Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(500)]),
  });
}

describe('QTI items with pictures, sound and formulas', () => {
  it('keeps the image with its file and the MathML; an item that would lose its meaning is not imported', async () => {
    const { content, report, media } = readQtiPackage(await mediaPackage(), 'media.zip');
    assert.deepEqual(
      report.imported.map((i) => i.item),
      ['sign', 'energy'],
    );
    assert.deepEqual(
      report.notImported.map((n) => [n.item, n.why]),
      [
        ['no-alt', 'the image "../resources/sign.png" has no alternative text (alt): the question would lose its meaning without it'],
        ['clip', 'the audio "../resources/clip.mp3" has no description or transcript (title, aria-label or its text): the question would lose its meaning without it'],
        ['missing', 'the image "../resources/nowhere.png" is not a file of the package: the question would lose its meaning without it'],
      ],
    );
    assert.match(content.questions[0]!.prompt, /!\[A red sign: NEVER LEAVE LUGGAGE UNATTENDED\]\(resources\/sign\.png\)/);
    assert.deepEqual([...media.keys()], ['resources/sign.png']);
    assert.match(content.questions[1]!.prompt, /<math><mi>E<\/mi><mo>=<\/mo><mi>m<\/mi><msup><mi>c<\/mi><mn>2<\/mn><\/msup><\/math>/);
    assert.match(String(markdown(content.questions[1]!.prompt)), /<p>Is <math><mi>E<\/mi>.*<\/math> the energy/);
  });
});

describe('a media interaction beside a question', () => {
  it('is its sound in the prompt (listen, then answer), with a note that the play limits are not kept', () => {
    const body =
      '<qti-media-interaction response-identifier="PLAYS" max-plays="2"><qti-prompt><p>Listen first.</p></qti-prompt><audio src="../resources/clip.mp3" title="A station announcement: the train to Leeds leaves from platform 4"/></qti-media-interaction><p>Which platform?</p>';
    const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources><resource identifier="r" type="imsqti_item_xmlv3p0" href="items/listen.xml"><file href="items/listen.xml"/></resource></resources></manifest>`;
    const zip = zipSync({
      'imsmanifest.xml': strToU8(manifest),
      'items/listen.xml': strToU8(item('listen', body)),
      'resources/clip.mp3': Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(500)]),
    });
    const { content, report, media } = readQtiPackage(zip, 'listen.zip');
    assert.deepEqual(report.notImported, []);
    assert.equal(content.questions[0]!.prompt, 'Listen first.\n\n![A station announcement: the train to Leeds leaves from platform 4](resources/clip.mp3)\n\nWhich platform?');
    assert.deepEqual([...media.keys()], ['resources/clip.mp3']);
    assert.ok(report.notes.some((n) => n.item === 'listen' && /min-plays, max-plays and the play count are not kept/.test(n.what)));
  });
});

describe('ids of imported assessments', () => {
  const withTest = (identifier: string, title: string) => {
    const test = `<?xml version="1.0"?><qti-assessment-test xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="${identifier}" title="${title}"><qti-test-part identifier="p" navigation-mode="nonlinear" submission-mode="simultaneous"><qti-assessment-section identifier="s" title="Part one" visible="true"><qti-assessment-item-ref identifier="i" href="items/i.xml"/></qti-assessment-section></qti-test-part></qti-assessment-test>`;
    const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources><resource identifier="t" type="imsqti_test_xmlv3p0" href="test.xml"><file href="test.xml"/></resource><resource identifier="r" type="imsqti_item_xmlv3p0" href="items/i.xml"><file href="items/i.xml"/></resource></resources></manifest>`;
    return zipSync({ 'imsmanifest.xml': strToU8(manifest), 'test.xml': strToU8(test), 'items/i.xml': strToU8(item('i', '<p>Is it?</p>')) });
  };

  it('makes the id from the title when the identifier is for machines, takes a chosen id, and sets no "Imported from" description', () => {
    const read = readQtiPackage(withTest('ce0e519b-1b33-5503-b093-37dda626e3c4', 'Demotoets'), 'x.zip');
    assert.equal(read.content.id, 'demotoets');
    assert.equal(read.content.description, 'Demotoets');
    assert.ok(read.report.notes.some((n) => /is not readable or does not name the test: the id "demotoets" is made from its title/.test(n.what)));
    assert.equal(readQtiPackage(withTest('customer-support', 'Customer support'), 'x.zip').content.id, 'customer-support');
    assert.equal(readQtiPackage(withTest('ce0e519b-1b33-5503-b093-37dda626e3c4', 'Demotoets'), 'x.zip', 'rekenen-2026').content.id, 'rekenen-2026');
  });
});

describeEachStore('QTI items with media over the admin API', (ctx) => {
  let instance: string;
  before(async () => {
    instance = await ctx().instance('qti-media');
  });

  it('publishes the package with its files over the admin API, the image served from the store', async () => {
    const response = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments/qti`,
      headers: { 'content-type': 'application/zip' },
      payload: Buffer.from(await mediaPackage()),
    });
    assert.equal(response.statusCode, 201, response.body);
    const listed = await ctx().db.query<{ sha256: string; content_type: string }>(
      `SELECT m.sha256, m.content_type FROM assessment_media m JOIN assessment_version_media u ON u.sha256 = m.sha256
         JOIN assessments a ON a.id = u.assessment_id JOIN instances i ON i.id = a.instance_id WHERE i.name = $1`,
      [instance],
    );
    assert.equal(listed.rows.length, 1);
    assert.equal(listed.rows[0]!.content_type, 'image/png');
    const served = await ctx().request({ method: 'GET', url: `/portal/media/${listed.rows[0]!.sha256}.png` });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
  });

  it('exports the files with the items, and the export imports again to the same content', async () => {
    const png = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#36c' } })
      .jpeg()
      .toBuffer();
    const yaml = `id: round-media
name: Round trip with media
description: Pictures and sound.
durationMinutes: 10
passScore: 50
lowPassScore: 40
categories:
  - id: c
    name: C
questions:
  - id: q1
    category: c
    type: single-choice
    prompt: "Look: ![A blue square](blue.jpg) and listen: ![A beep](beep.mp3)"
    options:
      - text: Blue
        correct: true
      - text: Red
`;
    const zip = zipSync({
      'assessment.yaml': strToU8(yaml),
      'blue.jpg': png,
      'beep.mp3': Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(300)]),
    });
    const published = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments/package`,
      headers: { 'content-type': 'application/zip' },
      payload: Buffer.from(zip),
    });
    assert.equal(published.statusCode, 201, published.body);
    const exported = await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/assessments/round-media/qti` });
    assert.equal(exported.statusCode, 200, exported.body);
    const files = Object.keys(unzipSync(new Uint8Array(exported.rawPayload)));
    assert.equal(files.filter((f) => /^media\/[0-9a-f]{64}\.(jpg|mp3)$/.test(f)).length, 2, files.join(', '));
    const item = new TextDecoder().decode(unzipSync(new Uint8Array(exported.rawPayload))['items/q1.xml']!);
    assert.match(item, /<img src="\.\.\/media\/[0-9a-f]{64}\.jpg" alt="A blue square"\/>/);
    assert.match(item, /<audio src="\.\.\/media\/[0-9a-f]{64}\.mp3" controls="controls" title="A beep"\/>/);

    const other = await ctx().instance('qti-media-again');
    const again = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${other}/assessments/qti`,
      headers: { 'content-type': 'application/zip' },
      payload: exported.rawPayload,
    });
    assert.equal(again.statusCode, 201, again.body);
    const contentOf = async (name: string) =>
      (
        await ctx().db.query<{ content: { questions: { prompt: string }[] } }>(
          `SELECT v.content FROM assessments a JOIN instances i ON i.id = a.instance_id JOIN assessment_versions v ON v.assessment_id = a.id AND v.version = a.current_version
            WHERE i.name = $1 AND a.slug = 'round-media'`,
          [name],
        )
      ).rows[0]!.content;
    const before = await contentOf(instance);
    assert.match(before.questions[0]!.prompt, /^Look: !\[A blue square\]\(media:[0-9a-f]{64}\.jpg\) and listen: !\[A beep\]\(media:[0-9a-f]{64}\.mp3\)$/);
    assert.equal((await contentOf(other)).questions[0]!.prompt, before.questions[0]!.prompt);
  });
});
