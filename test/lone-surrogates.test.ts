// Text that is not Unicode, written as an escape of half a UTF-16 surrogate pair ("\udfff" in JSON
// or YAML, &#xDFFF; in XML), is refused where it comes in with a clear error naming where, and
// nothing is written: PostgreSQL refuses it inside jsonb (it answered 500) and writes it into text
// as U+FFFD. A whole pair written as two escapes is a character like any other.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { describeEachStore, sampleAssessment } from './harness.js';

const qtiPackage = (prompt: string) => {
  const item = `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="i1" title="Pick" adaptive="false" time-dependent="false">
<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>A</qti-value></qti-correct-response></qti-response-declaration>
<qti-item-body><qti-choice-interaction response-identifier="RESPONSE" max-choices="1"><qti-prompt>${prompt}</qti-prompt><qti-simple-choice identifier="A">A</qti-simple-choice><qti-simple-choice identifier="B">B</qti-simple-choice></qti-choice-interaction></qti-item-body></qti-assessment-item>`;
  const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources><resource identifier="r0" type="imsqti_item_xmlv3p0" href="i1.xml"><file href="i1.xml"/></resource></resources></manifest>`;
  return Buffer.from(zipSync({ 'imsmanifest.xml': strToU8(manifest), 'i1.xml': strToU8(item) })).toString('base64');
};

it('assessment YAML: an escape of half a pair is refused at its line and field, in a key too; a whole pair is kept', () => {
  const refused = parseAssessment(sampleAssessment('alpha').replace('prompt: What is 2 + 2?', 'prompt: "What is \\ud83d 2 + 2?"'));
  assert.ok(!refused.ok);
  assert.equal(refused.errors.length, 1);
  assert.equal(refused.errors[0]!.path, 'questions.0.prompt');
  assert.equal(typeof refused.errors[0]!.line, 'number');
  assert.match(refused.errors[0]!.message, /half of a UTF-16 surrogate pair alone/);
  const key = parseAssessment(sampleAssessment('alpha').replace('name: Sample assessment', 'name: Sample assessment\n"\\udfff": 1'));
  assert.ok(!key.ok);
  assert.equal(key.errors[0]!.path, '\udfff');
  const whole = parseAssessment(sampleAssessment('alpha').replace('prompt: What is 2 + 2?', 'prompt: "What is 2 + 2? \\ud83d\\ude42"'));
  assert.ok(whole.ok, JSON.stringify(!whole.ok && whole.errors));
  assert.match(whole.content.questions[0]!.prompt, /🙂$/);
});

describeEachStore('text that is not Unicode, through the API', (ctx) => {
  it('publishing YAML and importing QTI with half a pair are refused (400, naming the field) and publish nothing', async () => {
    const instance = await ctx().instance('surrogates');
    const yaml = await ctx().publish(instance, sampleAssessment('alpha').replace('name: Sample assessment', 'name: "Sample \\udfff"'));
    assert.equal(yaml.statusCode, 400, yaml.body);
    assert.deepEqual(
      yaml.json().errors.map((e: { name: string }) => e.name),
      ['name'],
    );
    const qti = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments/qti`,
      payload: { fileName: 'x.zip', content: qtiPackage('Pick &#xDFFF; A') },
    });
    assert.equal(qti.statusCode, 400, qti.body);
    assert.match(qti.json().detail, /questions\.0\.prompt holds half of a UTF-16 surrogate pair alone/);
    const { rows } = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessments a JOIN instances i ON i.id = a.instance_id WHERE i.name = $1', [instance]);
    assert.equal(rows[0]!.n, 0, 'nothing published');
    const whole = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments/qti`,
      payload: { fileName: 'x.zip', content: qtiPackage('Pick &#x1F642; A') },
    });
    assert.equal(whole.statusCode, 201, whole.body);
  });
});
