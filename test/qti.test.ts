// QTI 3.0 packages: export and import round trips (every mappable catalogue assessment and a
// fixture of every mappable type), a package written by another tool with its report, bad
// packages refused with nothing written, and the admin API and console surfaces on both stores.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { DomainError } from '../src/domain/errors.js';
import { markdown } from '../src/html/markdown.js';
import { parseAssessment } from '../src/modules/assessments/content.js';
import type { AssessmentContent } from '../src/modules/assessments/content-schema.js';
import { exportQti } from '../src/modules/assessments/qti/export.js';
import { readQtiPackage } from '../src/modules/assessments/qti/import.js';
import { consoleAs, consoleUser } from './support/console.js';
import { zipFolder } from './support/zip-folder.js';
import { describeEachStore } from './harness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'qti');

function parse(source: string): AssessmentContent {
  const parsed = parseAssessment(source);
  assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.errors));
  return parsed.content;
}

const foreignZip = () => zipFolder(path.join(FIXTURES, 'foreign'));

/** What the export cannot hold taken out: the typing test, proctoring, translations, norms, coding questions and the categories left empty. */
function mappable(content: AssessmentContent): AssessmentContent {
  const { typingTest: _typing, proctoring: _proctoring, translations: _translations, norms: _norms, ...rest } = content;
  const questions = rest.questions.filter((q) => q.type !== 'coding');
  const categories = rest.categories.filter((c) => questions.some((q) => q.category === c.id));
  const pools = rest.pools?.filter((p) => categories.some((c) => c.id === p.category));
  return { ...rest, questions, categories, ...(pools === undefined ? {} : { pools }) };
}

function refusal(bytes: Uint8Array): DomainError {
  try {
    readQtiPackage(bytes, 'bad.zip');
  } catch (error) {
    assert.ok(error instanceof DomainError && error.code === 'invalid', String(error));
    return error;
  }
  assert.fail('the package was imported');
}
const detailOf = (error: DomainError) => `${error.message} ${(error.fields ?? []).map((f) => `${f.name}: ${f.detail}`).join(' | ')}`;

/** A minimal package: a manifest listing the given items (path -> XML), no test. */
function itemsPackage(items: Record<string, string>, extra: Record<string, Uint8Array> = {}): Uint8Array {
  const resources = Object.keys(items)
    .map((href, i) => `<resource identifier="r${i}" type="imsqti_item_xmlv3p0" href="${href}"><file href="${href}"/></resource>`)
    .join('');
  const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources>${resources}</resources></manifest>`;
  return zipSync({ 'imsmanifest.xml': strToU8(manifest), ...Object.fromEntries(Object.entries(items).map(([k, v]) => [k, strToU8(v)])), ...extra });
}
const choiceItem = (id: string) =>
  `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="${id}" title="${id}" adaptive="false" time-dependent="false">
<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>A</qti-value></qti-correct-response></qti-response-declaration>
<qti-item-body><qti-choice-interaction response-identifier="RESPONSE" max-choices="1"><qti-prompt>Pick A</qti-prompt><qti-simple-choice identifier="A">A</qti-simple-choice><qti-simple-choice identifier="B">B</qti-simple-choice></qti-choice-interaction></qti-item-body></qti-assessment-item>`;

describe('QTI 3.0 export and import', () => {
  it('round-trips every catalogue assessment: the same content, but for what does not map (typing test, coding, proctoring, translations)', () => {
    const files = readdirSync(path.join(ROOT, 'catalogue')).filter((f) => f.endsWith('.yaml'));
    assert.ok(files.length >= 10);
    let exact = 0;
    for (const file of files) {
      const content = parse(readFileSync(path.join(ROOT, 'catalogue', file), 'utf8'));
      // A test of coding questions only has nothing QTI can hold: its export is refused, saying so.
      if (mappable(content).questions.length === 0) {
        assert.throws(() => exportQti(content), /has no question that QTI can hold/, file);
        continue;
      }
      const exported = exportQti(content);
      const read = readQtiPackage(exported.zip, `${content.id}.zip`);
      assert.deepEqual(read.content, mappable(content), file);
      assert.deepEqual(read.report.notImported, [], file);
      assert.deepEqual(read.report.notes, [], file);
      if (content.translations)
        assert.ok(
          exported.omitted.some((o) => o.what.startsWith('the translations')),
          `${file}: the translations are named as left out`,
        );
      if (content.typingTest)
        assert.ok(
          exported.omitted.some((o) => o.what === 'the typing test'),
          file,
        );
      else if (content.translations) assert.deepEqual(read.content, mappable(content), file);
      else {
        assert.deepEqual(read.content, content, file);
        exact++;
      }
    }
    // Every test but the two tests of English carries German and Spanish (which QTI export leaves out, as named above).
    assert.ok(exact >= 2, `${exact} catalogue assessments have only mappable types and one language`);
  });

  it('round-trips a fixture with every mappable type and setting; the package is QTI 3.0 as other tools read it', () => {
    const content = parse(readFileSync(path.join(FIXTURES, 'every-type.yaml'), 'utf8'));
    const exported = exportQti(content);
    assert.deepEqual(exported.omitted, []);
    assert.deepEqual(readQtiPackage(exported.zip).content, content);
    const manifest = exported.files.get('imsmanifest.xml')!;
    assert.match(manifest, /<manifest xmlns="http:\/\/www\.imsglobal\.org\/xsd\/qti\/qtiv3p0\/imscp_v1p1"/);
    assert.match(manifest, /type="imsqti_test_xmlv3p0" href="assessment\.xml"/);
    assert.match(manifest, /<imsmd:duration>PT40S<\/imsmd:duration>/);
    const test = exported.files.get('assessment.xml')!;
    assert.match(test, /<qti-time-limits max-time="1500" allow-late-submission="false"\/>/);
    assert.match(test, /<qti-assessment-section identifier="style" title="Work style" visible="false" keep-together="false">\s*<qti-selection select="2"\/>/);
    assert.match(test, /<qti-ordering shuffle="true"\/>/);
    assert.match(test, /identifier="PASS_SCORE"[^>]*>\s*<qti-default-value>\s*<qti-value>65<\/qti-value>/);
    assert.match(test, /<qti-weight identifier="WEIGHT" value="1.5"\/>/);
    const single = exported.files.get('items/single.xml')!;
    assert.match(single, /cardinality="single" base-type="identifier">\s*<qti-correct-response>\s*<qti-value>choice-2<\/qti-value>/);
    assert.match(single, /rptemplates\/match_correct\.xml/);
    assert.match(single, /<qti-prompt>\s*<p>Which value is <em>largest<\/em>\? Use <code>max<\/code> if you like.<br\/>/);
    assert.match(single, /<qti-simple-choice identifier="choice-1">3 &lt; 4 &amp; 5<\/qti-simple-choice>/);
    const multiple = exported.files.get('items/multiple.xml')!;
    assert.match(
      multiple,
      /<qti-mapping default-value="0" lower-bound="0" upper-bound="1">\s*<qti-map-entry map-key="choice-1" mapped-value="0.5"\/>\s*<qti-map-entry map-key="choice-2" mapped-value="0.5"\/>\s*<qti-map-entry map-key="choice-3" mapped-value="-0.5"\/>/,
    );
    assert.match(exported.files.get('items/short.xml')!, /<qti-map-entry map-key="1,250" mapped-value="1" case-sensitive="false"\/>/);
    assert.match(exported.files.get('items/order.xml')!, /cardinality="ordered"[\s\S]*<qti-value>a<\/qti-value>\s*<qti-value>b<\/qti-value>[\s\S]*<qti-order-interaction/);
    const likert = exported.files.get('items/agree-reverse.xml')!;
    assert.doesNotMatch(likert, /qti-correct-response/);
    assert.match(likert, /<qti-map-entry map-key="point-1" mapped-value="1"\/>[\s\S]*<qti-map-entry map-key="point-7" mapped-value="0"\/>/);
    const essay = exported.files.get('items/essay.xml')!;
    assert.match(essay, /<qti-rubric-block view="scorer" use="scoring">/);
    assert.match(essay, /<qti-extended-text-interaction response-identifier="RESPONSE" expected-length="1500">/);
    assert.match(essay, /external-scored="human"/);
  });

  it('without the extension metadata (as another tool re-exports it), prompts come back as Markdown that renders the same', () => {
    const content = parse(readFileSync(path.join(FIXTURES, 'every-type.yaml'), 'utf8'));
    for (const file of readdirSync(path.join(ROOT, 'catalogue')).filter((f) => f.endsWith('.yaml'))) {
      const catalogue = parse(readFileSync(path.join(ROOT, 'catalogue', file), 'utf8'));
      // A test of coding questions only has nothing QTI can hold: its export is refused, saying so.
      if (mappable(catalogue).questions.length === 0) {
        assert.throws(() => exportQti(catalogue), /has no question that QTI can hold/, file);
        continue;
      }
      for (const source of [content, catalogue]) {
        const files = unzipSync(exportQti(source).zip);
        files['imsmanifest.xml'] = strToU8(new TextDecoder().decode(files['imsmanifest.xml']).replace(/<ac:extension>[^<]*<\/ac:extension>/g, ''));
        const read = readQtiPackage(zipSync(files)).content;
        const expected = mappable(source);
        // The practice question is marked in the extension only: without it, it is a question of its own.
        assert.equal(read.questions.length, expected.questions.length + (source.practice ? 1 : 0));
        for (const original of expected.questions) {
          const q = read.questions.find((r) => r.id === original.id)!;
          assert.equal(markdown(q.prompt).toString(), markdown(original.prompt).toString(), `${source.id}/${q.id}`);
          if (original.type !== 'likert') assert.equal(q.type, original.type, `${source.id}/${q.id}`);
        }
      }
    }
  });

  it('imports a package written by another tool, with a report naming what imported and what did not, and why', () => {
    const { content, report } = readQtiPackage(foreignZip(), 'foreign.zip');
    assert.deepEqual(
      report.imported.map((i) => [i.file, i.question, i.type]),
      [
        ['id-1a/MultipleChoice-choice-planets.xml', 'multiplechoice-choice-planets', 'single-choice'],
        ['id-2b/MultipleAnswer-choice-metals.xml', 'multipleanswer-choice-metals', 'multiple-choice'],
        ['id-3c/text_entry-capital.xml', 'text-entry-capital', 'short-answer'],
        ['id-4d/essay-holiday.xml', 'essay-holiday', 'free-text'],
        ['id-5e/order-rivers.xml', 'order-rivers', 'ranking'],
        ['id-6f/Likert-choice-teamwork.xml', 'likert-choice-teamwork', 'likert'],
      ],
    );
    assert.deepEqual(
      report.notImported.map((n) => [n.item, n.what]),
      [
        ['hotspot-maximum', '<qti-hotspot-interaction>'],
        ['matching-match-capitals', '<qti-match-interaction>'],
        ['upload-file', '<qti-upload-interaction>'],
        ['adaptive-guess', 'an adaptive item'],
        ['text_entry-two-gaps', '2 interactions (qti-text-entry-interaction)'],
        ['jumble-gapMatch', '<qti-gap-match-interaction>'],
        ['template-sum', 'a template item'],
      ],
    );
    for (const n of report.notImported) assert.ok(n.why.length > 10, n.item);
    const notes = report.notes.map((n) => `${n.item ?? '-'}: ${n.what}`).join('\n');
    assert.match(notes, /MultipleChoice-choice-planets: feedback \(<qti-feedback-block>\) is not imported/);
    assert.match(notes, /text_entry-capital: the answer "Sydney" is worth 0.5 of 1 there/);
    assert.match(notes, /order-rivers: option Nile: its picture is left out, its words saying what its alternative text says/);
    assert.match(notes, /order-rivers: its own response processing is replaced/);
    assert.match(notes, /Likert-choice-teamwork: no correct response: imported as a Likert item of 5 points/);
    assert.match(notes, /the test has no time limit: 30 minutes is set/);
    assert.match(notes, /TEST_FB: test feedback is not imported/);
    assert.equal(content.id, 'sample-generated-test');
    assert.equal(content.name, 'Mixed sample test');
    assert.deepEqual(content.categories, [{ id: 's1', name: 'Section 1 - items a-f' }]);
    const byId = Object.fromEntries(content.questions.map((q) => [q.id, q]));
    assert.equal(byId['multiplechoice-choice-planets']!.prompt, 'Our solar system has eight planets.\n\nWhich planet is the **largest**?');
    assert.equal(byId['multipleanswer-choice-metals']!.points, 2);
    assert.deepEqual((byId['text-entry-capital'] as { accept: string[] }).accept, ['Canberra']);
    assert.equal(byId['text-entry-capital']!.prompt, 'The capital city of Australia is \\_\\_\\_\\_\\_ .');
    assert.equal((byId['essay-holiday'] as { guidance?: string }).guidance, 'Give full marks to a clear plan with *three* reasons.');
    assert.deepEqual((byId['order-rivers'] as { key: string[] }).key, ['nile', 'amazon', 'yangtze', 'danube']);
  });

  describe('refuses bad packages with a clear error', () => {
    const cases: [string, () => Uint8Array, RegExp][] = [
      ['not a zip', () => strToU8('this is a text file, not a zip'), /is not a zip file/],
      ['a zip without manifest', () => zipSync({ 'item.xml': strToU8(choiceItem('a')) }), /has no imsmanifest\.xml at its root/],
      [
        'an external entity (XXE)',
        () =>
          itemsPackage({
            'a.xml': `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${choiceItem('a').replace('<?xml version="1.0"?>', '').replace('Pick A', '&xxe;')}`,
          }),
        /a\.xml: declares a DOCTYPE or entities.*refused/,
      ],
      [
        'an entity bomb (billion laughs) in the manifest',
        () =>
          zipSync({
            'imsmanifest.xml': strToU8(
              `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><manifest>&lol3;</manifest>`,
            ),
          }),
        /imsmanifest\.xml: declares a DOCTYPE or entities/,
      ],
      [
        'a zip bomb (over 50 MB unpacked)',
        () => zipSync({ 'imsmanifest.xml': strToU8('<manifest/>'), 'big.bin': new Uint8Array(51 * 1024 * 1024) }, { level: 9 }),
        /unpacks to 51\.0 MB; a package may unpack to at most 50 MB/,
      ],
      [
        'too many entries',
        () => zipSync(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`f${i}.txt`, strToU8('x')]))),
        /has 1001 entries; a package may have at most 1000/,
      ],
      [
        'a path leaving the package',
        () => itemsPackage({ 'a.xml': choiceItem('a') }, { '../evil.xml': strToU8('<x/>') }),
        /names the path "\.\.\/evil\.xml", which leaves the package/,
      ],
      [
        'a manifest href leaving the package',
        () => zipSync({ 'imsmanifest.xml': strToU8('<manifest><resources><resource identifier="r" type="imsqti_item_xmlv3p0" href="../../etc/passwd"/></resources></manifest>') }),
        /leaves the package/,
      ],
      [
        'more than 500 items',
        () => itemsPackage(Object.fromEntries(Array.from({ length: 501 }, (_, i) => [`i${i}.xml`, choiceItem(`i${i}`)]))),
        /has 501 items; a package may have at most 500/,
      ],
      ['malformed XML', () => itemsPackage({ 'a.xml': '<qti-assessment-item identifier="a"><qti-item-body></qti-assessment-item>' }), /a\.xml: is not well-formed XML/],
      [
        'unsupported interactions only',
        () =>
          zipFolder(path.join(FIXTURES, 'foreign')).slice(0, 0).length === 0
            ? itemsPackage({ 'h.xml': readFileSync(path.join(FIXTURES, 'foreign', 'id-7g', 'hotspot-maximum.xml'), 'utf8') })
            : new Uint8Array(),
        /Nothing in the package can be imported.*h\.xml#hotspot-maximum: <qti-hotspot-interaction>: this service has no questions answered by clicking an image/,
      ],
      [
        'a QTI 2.x package',
        () => zipSync({ 'imsmanifest.xml': strToU8('<manifest><resources><resource identifier="r" type="imsqti_item_xmlv2p2" href="a.xml"/></resources></manifest>') }),
        /QTI 2\.x resources only: this service reads QTI 3\.0 packages/,
      ],
    ];
    for (const [name, make, expected] of cases) {
      it(name, () => {
        assert.match(detailOf(refusal(make())), expected);
      });
    }
  });

  it('reads an item with nothing to answer (an introduction) as the instructions, not a question; one without text is refused, saying so', () => {
    const intro = `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="intro" title="Introduction" adaptive="false" time-dependent="false">
<qti-item-body><h2>Welcome</h2><p>This test has <strong>one</strong> question. Read it carefully.</p></qti-item-body></qti-assessment-item>`;
    const empty = `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="blank" title="Blank" adaptive="false" time-dependent="false"><qti-item-body><p> </p></qti-item-body></qti-assessment-item>`;
    const read = readQtiPackage(itemsPackage({ 'intro.xml': intro, 'q1.xml': choiceItem('colour-one'), 'blank.xml': empty }));
    assert.deepEqual(
      read.content.questions.map((q) => q.id),
      ['colour-one'],
    );
    assert.match(read.content.instructions ?? '', /Welcome/);
    assert.match(read.content.instructions ?? '', /This test has \*\*one\*\* question\. Read it carefully\./);
    assert.deepEqual(
      read.report.imported.find((i) => i.item === 'intro'),
      { file: 'intro.xml', item: 'intro', question: 'instructions', type: 'introduction (an item with nothing to answer)' },
    );
    assert.deepEqual(
      read.report.notImported.map((n) => [n.item, n.what, n.why]),
      [['blank', 'an item without interaction', 'there is nothing to answer or to read']],
    );
    assert.doesNotMatch(read.content.description, /imported from/i, 'the description is not about where it came from');
  });

  it("keeps an option's picture as its alternative text (options are text), and refuses an option picture without one", () => {
    const item = (options: string) =>
      `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="shapes" title="Shapes" adaptive="false" time-dependent="false">
<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>A</qti-value></qti-correct-response></qti-response-declaration>
<qti-item-body><qti-choice-interaction response-identifier="RESPONSE" max-choices="1"><qti-prompt>Which shape has three sides?</qti-prompt>${options}</qti-choice-interaction></qti-item-body></qti-assessment-item>`;
    const read = readQtiPackage(
      itemsPackage({
        'shapes.xml': item(
          '<qti-simple-choice identifier="A"><img src="t.png" alt="A red triangle"/></qti-simple-choice><qti-simple-choice identifier="B">Square <img src="s.png" alt="a blue square on its corner"/></qti-simple-choice><qti-simple-choice identifier="C">Circle</qti-simple-choice>',
        ),
      }),
    );
    const question = read.content.questions[0] as { options: { text: string }[] };
    assert.deepEqual(
      question.options.map((o) => o.text),
      ['A red triangle', 'Square (a blue square on its corner)', 'Circle'],
    );
    assert.ok(read.report.notes.some((n) => n.what.startsWith('option A: its picture is kept as its alternative text, the option reading "A red triangle"')));
    const refused = readQtiPackage(
      itemsPackage({
        'shapes.xml': item('<qti-simple-choice identifier="A"><img src="t.png"/></qti-simple-choice><qti-simple-choice identifier="B">Square</qti-simple-choice>'),
        'q1.xml': choiceItem('colour-one'),
      }),
    );
    assert.deepEqual(
      refused.report.notImported.map((n) => [n.item, n.what]),
      [['shapes', 'option A']],
    );
    assert.match(refused.report.notImported[0]!.why, /picture without alternative text/);
  });
});

describeEachStore('QTI packages over the admin API and in the console', (ctx) => {
  const count = async (instance: string) =>
    (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessments a JOIN instances i ON i.id = a.instance_id WHERE i.name = $1', [instance])).rows[0]!.n;

  let instance: string;
  before(async () => {
    instance = await ctx().instance('qti');
  });

  it('exports as application/zip, imports base64 or a raw zip with the report, audits the import, and refuses a bad package writing nothing', async () => {
    const source = readFileSync(path.join(FIXTURES, 'every-type.yaml'), 'utf8');
    assert.equal((await ctx().publish(instance, source)).statusCode, 201);
    const exported = await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/assessments/every-type/qti` });
    assert.equal(exported.statusCode, 200, exported.body);
    assert.equal(exported.headers['content-type'], 'application/zip');
    assert.match(String(exported.headers['content-disposition']), /filename="every-type-qti\.zip"/);
    assert.deepEqual(readQtiPackage(exported.rawPayload).content, parse(source));
    assert.equal((await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/assessments/nope/qti` })).statusCode, 404);

    const other = await ctx().instance('qti-other');
    const imported = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${other}/assessments/qti`,
      payload: { fileName: 'every.zip', content: exported.rawPayload.toString('base64') },
    });
    assert.equal(imported.statusCode, 201, imported.body);
    const result = imported.json() as { id: string; version: number; outcome: string; report: { imported: unknown[]; notImported: unknown[] } };
    assert.equal(result.id, 'every-type');
    assert.equal(result.report.imported.length, 9);
    const { rows } = await ctx().db.query<{ action: string; target: string }>("SELECT action, target FROM audit_log WHERE action = 'assessment.import' AND target = $1", [
      `${other}/every-type`,
    ]);
    assert.equal(rows.length, 1);

    const raw = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${other}/assessments/qti`,
      headers: { 'content-type': 'application/zip', 'x-file-name': 'foreign.zip' },
      payload: Buffer.from(foreignZip()),
    });
    assert.equal(raw.statusCode, 201, raw.body);
    assert.equal((raw.json() as { report: { notImported: unknown[] } }).report.notImported.length, 7);

    const third = await ctx().instance('qti-bad');
    for (const payload of [
      { content: Buffer.from('not a zip').toString('base64') },
      { content: Buffer.from(itemsPackage({ 'h.xml': readFileSync(path.join(FIXTURES, 'foreign', 'id-9i', 'upload-file.xml'), 'utf8') })).toString('base64') },
      { content: '%%%' },
    ]) {
      const refused = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${third}/assessments/qti`, payload });
      assert.equal(refused.statusCode, 400, refused.body);
      assert.ok((refused.json() as { errors: unknown[] }).errors.length > 0);
    }
    assert.equal(await count(third), 0);
  });

  it('imports a package again as a new assessment with a free id (demotoets, then demotoets-2), unless an id is chosen', async () => {
    const instance = await ctx().instance('qti-again');
    const test = `<?xml version="1.0"?><qti-assessment-test xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="ce0e519b-1c2d-4e5f-8a9b-0c1d2e3f4a5b" title="Demotoets"><qti-test-part identifier="p" navigation-mode="nonlinear" submission-mode="simultaneous"><qti-assessment-section identifier="s" title="Vragen" visible="true"><qti-assessment-item-ref identifier="q1" href="q1.xml"/></qti-assessment-section></qti-test-part></qti-assessment-test>`;
    const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources><resource identifier="t" type="imsqti_test_xmlv3p0" href="test.xml"><file href="test.xml"/></resource><resource identifier="r1" type="imsqti_item_xmlv3p0" href="q1.xml"><file href="q1.xml"/></resource></resources></manifest>`;
    const zip = Buffer.from(zipSync({ 'imsmanifest.xml': strToU8(manifest), 'test.xml': strToU8(test), 'q1.xml': strToU8(choiceItem('colour-one')) })).toString('base64');
    const importAs = (id?: string) => ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/assessments/qti`, payload: { content: zip, ...(id ? { id } : {}) } });
    const first = await importAs();
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().id, 'demotoets');
    const second = await importAs();
    assert.equal(second.statusCode, 201, second.body);
    assert.deepEqual([second.json().id, second.json().version, second.json().outcome], ['demotoets-2', 1, 'created']);
    assert.equal(second.json().report.assessment.id, 'demotoets-2');
    assert.ok(second.json().report.notes.some((n: { what: string }) => /the id "demotoets" is taken in this instance: imported as "demotoets-2"/.test(n.what)));
    assert.equal((await importAs()).json().id, 'demotoets-3');
    // A chosen id is that assessment: the same content again is unchanged, not a copy.
    const chosen = await importAs('demotoets');
    assert.deepEqual([chosen.statusCode, chosen.json().id, chosen.json().outcome], [200, 'demotoets', 'unchanged']);
    const own = await importAs('kennistoets');
    assert.deepEqual([own.statusCode, own.json().id], [201, 'kennistoets']);
    const { rows } = await ctx().db.query<{ slug: string; description: string }>(
      'SELECT a.slug, a.description FROM assessments a JOIN instances i ON i.id = a.instance_id WHERE i.name = $1 ORDER BY a.slug',
      [instance],
    );
    assert.deepEqual(
      rows.map((r) => r.slug),
      ['demotoets', 'demotoets-2', 'demotoets-3', 'kennistoets'],
    );
    assert.ok(
      rows.every((r) => r.description === 'Demotoets'),
      'the description is its name, not where it came from',
    );
  });

  it('console: the assessments page links "Export as QTI" and "Import a QTI package"; the import page shows the report; a bad package shows why', async () => {
    const password = (await consoleUser(ctx(), `qti-${ctx().store}@example.com`, 'manager', [instance])).password;
    const manager = await consoleAs(ctx(), `qti-${ctx().store}@example.com`, password);
    const list = await manager.get(`/console/assessments?instance=${instance}`);
    assert.match(list.body, new RegExp(`href="/console/assessments/every-type/qti\\?instance=${instance}" download>Export as QTI</a>`));
    assert.match(list.body, /href="\/console\/assessments\/qti\?instance=[^"]+">Import a QTI package<\/a>/);
    const download = await manager.get(`/console/assessments/every-type/qti?instance=${instance}`);
    assert.equal(download.statusCode, 200);
    assert.equal(readQtiPackage(download.rawPayload).content.id, 'every-type');
    assert.equal((await manager.get(`/console/assessments/qti?instance=${instance}`)).statusCode, 200);

    const upload = (bytes: Uint8Array) => {
      const boundary = '----qti' + Math.random().toString(16).slice(2);
      const part = (name: string, value: string | Uint8Array, filename?: string) =>
        Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: application/zip` : ''}\r\n\r\n`),
          Buffer.from(value),
          Buffer.from('\r\n'),
        ]);
      const payload = Buffer.concat([part('_csrf', manager.csrf), part('instance', instance), part('file', bytes, 'foreign.zip'), Buffer.from(`--${boundary}--\r\n`)]);
      return ctx().request({
        method: 'POST',
        url: '/console/assessments/qti',
        headers: { cookie: manager.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      });
    };
    const page = await upload(foreignZip());
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /Published sample-generated-test \(version 1\): 6 items imported, 7 not imported\./);
    assert.match(
      page.body,
      /<code>id-7g\/hotspot-maximum\.xml<\/code> \(<code>hotspot-maximum<\/code>\): &lt;qti-hotspot-interaction&gt;: this service has no questions answered by clicking an image/,
    );
    assert.match(page.body, /feedback \(&lt;qti-feedback-block&gt;\) is not imported/);
    const before = await count(instance);
    const bad = await upload(strToU8('not a zip'));
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /The package was refused; nothing was published/);
    assert.match(bad.body, /is not a zip file/);
    assert.equal(await count(instance), before);
  });
});
