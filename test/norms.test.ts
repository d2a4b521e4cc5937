// Percentiles against a norm group: the instance's own candidates of the same version once there
// are 20 of them (before that, how many more are needed), or the published norms an assessment
// cites (read from the normal distribution). The group is named next to every percentile on the
// report, in the PDF's figures and in GET /v1/candidates/{id}; the score record is unchanged.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { assessmentReports } from '../src/modules/attempts/report.js';
import { MIN_NORM_GROUP, publishedPercentile } from '../src/modules/scores/norms.js';
import { describeEachStore, type TestContext } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { invite } from './support/portal.js';
import { takeWithLink } from './support/take.js';

const NORMED = (id: string, norms = '') => `id: ${id}
name: Norm check
description: Two questions in two categories.
durationMinutes: 10
passScore: 50
lowPassScore: 25
categories:
  - id: numbers
    name: Numbers
  - id: words
    name: Words
questions:
  - id: q1
    type: single-choice
    category: numbers
    prompt: What is 2 + 2?
    options:
      - text: "3"
      - text: "4"
        correct: true
  - id: q2
    type: single-choice
    category: words
    prompt: Which is a noun?
    options:
      - text: run
      - text: table
        correct: true
${norms}`;

const PUBLISHED = `norms:
  group: Test sample of 1,000 adults (2026)
  source: Example, A. (2026). Norms for the norm check. Journal of Tests, 1, 1-10.
  total:
    mean: 50
    sd: 10
  categories:
    numbers:
      mean: 50
      sd: 25
`;

/** Invites a candidate and takes the assessment through the portal with these answers (option indexes of q1 and q2). */
async function take(ctx: TestContext, instance: string, key: string, assessment: string, email: string, answers: [number, number]): Promise<string> {
  const invited = await invite(ctx, { instance, key }, { email, firstName: 'N', lastName: 'Orm' }, [assessment]);
  await takeWithLink(
    ctx,
    invited.link,
    undefined,
    [
      ['q1', answers[0]],
      ['q2', answers[1]],
    ],
    { slug: assessment },
  );
  return invited.candidateId;
}

describe('published percentiles', () => {
  it('are read from the normal distribution with the group mean and standard deviation', () => {
    assert.equal(publishedPercentile(50, { mean: 50, sd: 10 }), 50);
    assert.equal(publishedPercentile(60, { mean: 50, sd: 10 }), 84.1);
    assert.equal(publishedPercentile(30, { mean: 50, sd: 10 }), 2.3);
    assert.equal(publishedPercentile(100, { mean: 50, sd: 25 }), 97.7);
  });
});

describeEachStore('norms', (ctx) => {
  let instance: string;
  let key: string;
  let owner: Awaited<ReturnType<typeof consoleAs>>;
  before(async () => {
    instance = await ctx().instance('norms');
    key = await ctx().key([instance]);
    assert.equal((await ctx().publish(instance, NORMED('own'))).statusCode, 201);
    assert.equal((await ctx().publish(instance, NORMED('cited', PUBLISHED))).statusCode, 201);
    const made = await consoleUser(ctx(), `owner-${instance}@norms.example`, 'owner');
    owner = await consoleAs(ctx(), `owner-${instance}@norms.example`, made.password);
  });

  const candidateNorm = async (candidateId: string, assessment: string) => {
    const view = await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key, instance } });
    assert.equal(view.statusCode, 200, view.body);
    return (view.json().invitations as { assessmentId: string; norm?: Record<string, unknown> }[]).find((i) => i.assessmentId === assessment)!.norm;
  };

  it("the instance's own norm only from 20 completed attempts of the version, named, with category percentiles; the score record unchanged", async () => {
    // Scores 0, 50 or 100: every third candidate answers both right, every third one, the rest none.
    const ids: string[] = [];
    for (let i = 0; i < MIN_NORM_GROUP - 1; i++) ids.push(await take(ctx(), instance, key, 'own', `own${i}@norms.example`, i % 3 === 0 ? [1, 1] : i % 3 === 1 ? [1, 0] : [0, 0]));
    const early = await candidateNorm(ids[0]!, 'own');
    assert.deepEqual(early, { kind: 'none', group: 'none yet', source: null, size: MIN_NORM_GROUP - 1, totalPercentile: null, categoryPercentiles: {}, needed: 1 });
    const earlyReport = await owner.get(`/console/candidates/${ids[0]}?instance=${instance}`);
    assert.match(earlyReport.body, /not yet<span class="tile-note">: 19 completed this version, 1 more needed<\/span>/);

    const last = await take(ctx(), instance, key, 'own', 'last@norms.example', [1, 1]);
    const norm = await candidateNorm(last, 'own');
    assert.equal(norm!.kind, 'instance');
    assert.equal(norm!.group, "this instance's 20 candidates who completed version 1");
    assert.equal(norm!.size, 20);
    // 20 candidates: 8 at 100 (7 earlier and this one), 6 at 50, 6 at 0. Against the 19 others: 12 below, 7 tied (half each).
    assert.equal(norm!.totalPercentile, Math.round(((12 + 7 / 2) / 19) * 1000) / 10);
    assert.deepEqual(Object.keys(norm!.categoryPercentiles as object).sort(), ['Numbers', 'Words']);
    const report = await owner.get(`/console/candidates/${last}?instance=${instance}`);
    assert.match(report.body, /Percentile<\/dt><dd>81\.6 \(norm group: this instance&#39;s 20 candidates who completed version 1\)/);
    assert.match(report.body, /Category percentiles<\/dt><dd>Numbers \d+(\.\d)?; Words \d+(\.\d)?/);
    // The report's category averages (the chart's markers) come from the same 20 attempts: 14 of
    // them answered the number right (100, else 0), 8 the word.
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [instance]);
    const [own] = await assessmentReports(ctx().db, [rows[0]!.id], last);
    assert.equal(own!.cohort, 20);
    assert.deepEqual(own!.categoryAverages, { Numbers: 70, Words: 40 });

    const scores = await ctx().request({ method: 'GET', url: '/v1/score?assessmentIds=own', headers: { 'x-api-key': key, instance } });
    assert.equal(scores.statusCode, 200, scores.body);
    const keys = [...new Set((scores.json() as Record<string, unknown>[]).flatMap((record) => Object.keys(record)))].sort();
    assert.deepEqual(keys, [
      'assessmentId',
      'assessmentName',
      'assessmentStatus',
      'candidateId',
      'categoryScores',
      'completion',
      'finished',
      'redFlag',
      'scoreStatus',
      'started',
      'totalScore',
      'typingSpeed',
    ]);
  });

  it('published norms: percentiles read against the cited sample, named with their source, from the first candidate', async () => {
    const id = await take(ctx(), instance, key, 'cited', 'cited@norms.example', [1, 0]);
    const norm = await candidateNorm(id, 'cited');
    assert.deepEqual(norm, {
      kind: 'published',
      group: 'Test sample of 1,000 adults (2026)',
      source: 'Example, A. (2026). Norms for the norm check. Journal of Tests, 1, 1-10.',
      size: 1,
      totalPercentile: 50,
      categoryPercentiles: { Numbers: 97.7 },
      needed: 0,
    });
    const report = await owner.get(`/console/candidates/${id}?instance=${instance}`);
    assert.match(report.body, /Percentile<\/dt><dd>50 \(norm group: Test sample of 1,000 adults \(2026\)\)/);
    assert.match(report.body, /Category percentiles<\/dt><dd>Numbers 97\.7 <span class="hint">\(Example, A\. \(2026\)/);
  });

  it('refuses norms that name no figure, an unknown category or no spread, at their line', async () => {
    const cases: [string, RegExp][] = [
      ['norms:\n  group: G\n  source: S\n', /line \d+: norms must give the total, categories, or both/],
      ['norms:\n  group: G\n  source: S\n  categories:\n    nope:\n      mean: 50\n      sd: 10\n', /"nope" is not a category of this assessment/],
      ['norms:\n  group: G\n  source: S\n  total:\n    mean: 50\n    sd: 0\n', /norms\.total\.sd must be > 0/],
    ];
    for (const [norms, message] of cases) {
      const refused = await ctx().publish(instance, NORMED('bad', norms));
      assert.equal(refused.statusCode, 400, refused.body);
      assert.match(refused.json().detail, message);
    }
    const list = await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key, instance } });
    assert.doesNotMatch(list.body, /"bad"/);
  });
});
