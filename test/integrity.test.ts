// Integrity evidence: answers alike across candidates of the same question (winnowed
// fingerprints, stored when an attempt completes) shown on the report side by side.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, type TestContext } from './harness.js';

export const INTEGRITY_ASSESSMENT = `id: integrity
name: Integrity check
description: One coding question and one free-text question.
durationMinutes: 30
passScore: 70
lowPassScore: 40
categories:
  - id: code
    name: Programming
  - id: words
    name: Writing
questions:
  - id: sum
    type: coding
    category: code
    prompt: Write \`total(xs)\`, the sum of a list of numbers.
    languages: [javascript, python]
    entry: total
    starterCode:
      javascript: "function total(xs) {\\n}\\n"
    tests:
      - args: [[1, 2, 3]]
        expected: 6
  - id: story
    type: free-text
    category: words
    prompt: Tell us about a hard customer.
`;

const COPIED = `function total(xs) {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) {
    sum += xs[i];
  }
  return sum;
}`;
const RENAMED = `function total(values) {
  // my own work <b>honest</b>
  let acc = 0;
  for (let idx = 0; idx < values.length; idx++) {
    acc += values[idx];
  }
  return acc;
}`;
const DIFFERENT = `function total(xs) {
  return xs.reduce((a, b) => a + b, 0);
}`;

async function take(ctx: TestContext, instance: string, key: string, who: { email: string; first: string; last: string }, answers: Record<string, unknown>) {
  const [invite] = (
    await ctx.request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': key, instance },
      payload: { email: who.email, firstName: who.first, lastName: who.last, assessments: ['integrity'] },
    })
  ).json();
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: invite.link.split('sessionToken=')[1] } });
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const csrf = /name="csrf-token" content="([^"]+)"/.exec((await ctx.request({ method: 'GET', url: '/portal/a/integrity', headers: { cookie } })).body)![1]!;
  const form = (url: string) =>
    ctx.request({ method: 'POST', url, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams([['_csrf', csrf]]).toString() });
  assert.equal((await form('/portal/a/integrity/start')).statusCode, 303);
  for (const [question, value] of Object.entries(answers)) {
    const put = await ctx.request({ method: 'PUT', url: `/portal/api/a/integrity/answers/${question}`, headers: { cookie, 'x-csrf-token': csrf }, payload: { value } });
    assert.equal(put.statusCode, 204, put.body);
  }
  assert.equal((await form('/portal/a/integrity/submit')).statusCode, 303);
  return { candidateId: invite.candidateId as string, cookie, csrf };
}

async function reportOf(ctx: TestContext, key: string, candidateId: string): Promise<string> {
  const candidate = (await ctx.request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json();
  const url = new URL(candidate.invitations[0].reportUrl);
  const report = await ctx.request({ method: 'GET', url: url.pathname + url.search });
  assert.equal(report.statusCode, 200);
  return report.body;
}

describeEachStore('integrity: similar answers', (ctx) => {
  it('shows two candidates with the same program (variables renamed) as a similar pair, and not a different solution', async () => {
    const instance = await ctx().instance('integrity');
    assert.equal((await ctx().publish(instance, INTEGRITY_ASSESSMENT)).statusCode, 201);
    const key = await ctx().key([instance]);
    const story = 'First I listened to the customer until they had said everything, then I repeated the problem back and promised a call by noon.';
    const ann = await take(ctx(), instance, key, { email: 'ann@x.co', first: 'Ann', last: 'Able' }, { sum: { language: 'javascript', source: COPIED }, story });
    const bob = await take(ctx(), instance, key, { email: 'bob@x.co', first: 'Bob', last: 'Baker' }, { sum: { language: 'javascript', source: RENAMED } });
    const cy = await take(
      ctx(),
      instance,
      key,
      { email: 'cy@x.co', first: 'Cy', last: 'Cole' },
      { sum: { language: 'javascript', source: DIFFERENT }, story: story.toUpperCase() },
    );

    // The fingerprints are stored per answer, by the completion.
    const { rows } = await ctx().db.query<{ n: number }>('SELECT count(DISTINCT attempt_id)::int AS n FROM fingerprinted_answers');
    assert.equal(rows[0]!.n, 3);

    const annReport = await reportOf(ctx(), key, ann.candidateId);
    assert.match(annReport, /<h3>Similar answers<\/h3>/);
    const section = annReport.slice(annReport.indexOf('<h3>Similar answers</h3>'), annReport.indexOf('<h3>Proctoring timeline</h3>'));
    assert.match(section, new RegExp(`100 % alike \\(\\d+ shared fingerprints\\) with <a href="/console/candidates/${bob.candidateId}\\?instance=${instance}">Bob Baker</a>`));
    assert.ok(
      !section.includes(
        `/console/candidates/${cy.candidateId}?instance=${instance}">Cy Cole</a></p>\n<div class="side-by-side">\n<figure><figcaption>This candidate</figcaption><pre class="answer-text">function`,
      ),
      'the different program is not paired',
    );
    // The free text: Cy's is Ann's in capitals, alike; the program pairs only with Bob's.
    const pairs = section.split('<li class="similar-pair">').slice(1);
    assert.equal(pairs.length, 2, section);
    const program = pairs.find((p) => p.includes('total(xs)'))!;
    assert.match(program, /Bob Baker/);
    assert.doesNotMatch(program, /Cy Cole/);
    assert.match(
      pairs.find((p) => p.includes('hard customer'))!,
      /Cy Cole/,
    );
    // Side by side, the shared parts marked, the candidate's text escaped.
    assert.match(program, /<mark>[^<]*let acc = 0;/);
    assert.match(program, /\/\/ my own work &lt;b&gt;honest&lt;\/b&gt;/);

    const bobReport = await reportOf(ctx(), key, bob.candidateId);
    assert.match(bobReport, new RegExp(`with <a href="/console/candidates/${ann.candidateId}\\?instance=${instance}">Ann Able</a>`));
    const cyReport = await reportOf(ctx(), key, cy.candidateId);
    const cySection = cyReport.slice(cyReport.indexOf('<h3>Similar answers</h3>'));
    assert.doesNotMatch(cySection.split('<h3>Proctoring timeline</h3>')[0]!, /Bob Baker/);

    // Another instance's candidates are never compared.
    const other = await ctx().instance('integrity-other');
    assert.equal((await ctx().publish(other, INTEGRITY_ASSESSMENT)).statusCode, 201);
    const otherKey = await ctx().key([other]);
    const dan = await take(ctx(), other, otherKey, { email: 'dan@x.co', first: 'Dan', last: 'Dale' }, { sum: { language: 'javascript', source: COPIED } });
    assert.doesNotMatch(await reportOf(ctx(), otherKey, dan.candidateId), /Similar answers/);
    assert.doesNotMatch(await reportOf(ctx(), key, ann.candidateId), /Dan Dale/);

    // Erasing a candidate erases their fingerprints.
    const erased = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: bob.candidateId } });
    assert.equal(erased.statusCode, 200, erased.body);
    const left = await ctx().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM answer_fingerprints f JOIN attempts a ON a.id = f.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1',
      [bob.candidateId],
    );
    assert.equal(left.rows[0]!.n, 0);
    assert.doesNotMatch(await reportOf(ctx(), key, ann.candidateId), /Bob Baker/);
  });
});
