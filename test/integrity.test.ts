// Integrity evidence: answers alike across candidates of the same question (winnowed
// fingerprints, stored when an attempt completes) shown on the report side by side.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { describeEachStore, type TestContext } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate } from './support/portal.js';

const INTEGRITY_ASSESSMENT = readFileSync(path.join(import.meta.dirname, 'fixtures', 'integrity.yaml'), 'utf8');

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

async function take(
  ctx: TestContext,
  instance: string,
  key: string,
  who: { email: string; first: string; last: string },
  answers: Record<string, unknown>,
  options: { agent?: string; before?: (page: Page) => Promise<void> } = {},
) {
  const agent = { 'user-agent': options.agent ?? 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };
  const c = await candidate(ctx, { instance, key }, { email: who.email, firstName: who.first, lastName: who.last }, ['integrity'], { headers: agent });
  assert.equal((await c.form('/portal/a/integrity/start')).statusCode, 303);
  assert.equal((await c.get('/portal/a/integrity')).statusCode, 200);
  for (const [question, value] of Object.entries(answers)) {
    const put = await c.save(question, value, agent);
    assert.equal(put.statusCode, 204, put.body);
  }
  const page: Page = {
    candidateId: c.candidateId,
    signal: (payload) => c.post('/portal/api/a/integrity/signals', payload, agent),
  };
  await options.before?.(page);
  assert.equal((await c.form('/portal/a/integrity/submit')).statusCode, 303);
  return { candidateId: c.candidateId, cookie: c.cookie, csrf: c.csrf };
}

interface Page {
  candidateId: string;
  signal(payload: Record<string, unknown>): Promise<{ statusCode: number; body: string }>;
}

/** The report a recruiter opens from a report link (the API's reportUrl). */
async function linkedReportOf(ctx: TestContext, key: string, candidateId: string): Promise<string> {
  const candidate = (await ctx.request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json();
  const url = new URL(candidate.invitations[0].reportUrl);
  const report = await ctx.request({ method: 'GET', url: url.pathname + url.search });
  assert.equal(report.statusCode, 200);
  return report.body;
}

const reviewers = new WeakMap<TestContext, ReturnType<typeof consoleAs>>();
/** A signed-in owner of the console, one per store. */
function reviewer(ctx: TestContext): ReturnType<typeof consoleAs> {
  let signedIn = reviewers.get(ctx);
  if (!signedIn) {
    const email = `reviewer-${ctx.store}@integrity.example`;
    signedIn = consoleUser(ctx, email, 'owner').then((made) => consoleAs(ctx, email, made.password));
    reviewers.set(ctx, signedIn);
  }
  return signedIn;
}

/** The report a reviewer reads in the console. */
async function reportOf(ctx: TestContext, instance: string, candidateId: string): Promise<string> {
  const report = await (await reviewer(ctx)).get(`/console/candidates/${candidateId}?instance=${instance}`);
  assert.equal(report.statusCode, 200, report.body);
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

    const annReport = await reportOf(ctx(), instance, ann.candidateId);
    assert.match(annReport, /<h3>Similar answers<\/h3>/);
    const section = annReport.slice(annReport.indexOf('<h3>Similar answers</h3>'), annReport.indexOf('<h3>Proctoring timeline'));
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

    // A report link (a recruiter's) says that answers are alike, not whose.
    const linked = await linkedReportOf(ctx(), key, ann.candidateId);
    assert.match(linked, /<h3>Similar answers<\/h3>\n<p>2 answers are alike to other candidates' \(up to 100 %\); reviewers compare them side by side in the console.<\/p>/);
    assert.doesNotMatch(linked, /Bob Baker|Cy Cole|let acc = 0/);

    const bobReport = await reportOf(ctx(), instance, bob.candidateId);
    assert.match(bobReport, new RegExp(`with <a href="/console/candidates/${ann.candidateId}\\?instance=${instance}">Ann Able</a>`));
    const cyReport = await reportOf(ctx(), instance, cy.candidateId);
    const cySection = cyReport.slice(cyReport.indexOf('<h3>Similar answers</h3>'));
    assert.doesNotMatch(cySection.split('<h3>Proctoring timeline')[0]!, /Bob Baker/);

    // Another instance's candidates are never compared.
    const other = await ctx().instance('integrity-other');
    assert.equal((await ctx().publish(other, INTEGRITY_ASSESSMENT)).statusCode, 201);
    const otherKey = await ctx().key([other]);
    const dan = await take(ctx(), other, otherKey, { email: 'dan@x.co', first: 'Dan', last: 'Dale' }, { sum: { language: 'javascript', source: COPIED } });
    assert.doesNotMatch(await reportOf(ctx(), other, dan.candidateId), /Similar answers/);
    assert.doesNotMatch(await reportOf(ctx(), instance, ann.candidateId), /Dan Dale/);

    // Erasing a candidate erases their fingerprints.
    const erased = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: bob.candidateId } });
    assert.equal(erased.statusCode, 200, erased.body);
    const left = await ctx().db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM answer_fingerprints f JOIN attempts a ON a.id = f.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1',
      [bob.candidateId],
    );
    assert.equal(left.rows[0]!.n, 0);
    assert.doesNotMatch(await reportOf(ctx(), instance, ann.candidateId), /Bob Baker/);
  });
});

describeEachStore('integrity: provenance, automation and the risk level', (ctx) => {
  const signalsOf = async (candidateId: string) =>
    (
      await ctx().db.query<{ kind: string; detail: string; source: string }>(
        'SELECT s.kind, s.detail, s.source FROM proctor_signals s JOIN attempts a ON a.id = s.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1 ORDER BY s.id',
        [candidateId],
      )
    ).rows;
  const scoreOf = async (key: string, candidateId: string) =>
    (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json()[0] as Record<string, unknown>;

  it('records the size and question of a paste and an answer that appeared without typing; refuses bad reports; medium and high risk', async () => {
    const instance = await ctx().instance('provenance');
    assert.equal((await ctx().publish(instance, INTEGRITY_ASSESSMENT)).statusCode, 201);
    const key = await ctx().key([instance]);

    const untyped = await take(
      ctx(),
      instance,
      key,
      { email: 'u@x.co', first: 'Una', last: 'Typed' },
      { story: 'x'.repeat(300) },
      {
        before: async (page) => {
          // Bad reports are refused and change nothing.
          for (const bad of [
            { kind: 'untyped-answer', chars: -1, keystrokes: 0, question: 'story' },
            { kind: 'untyped-answer', chars: 2_000_000, keystrokes: 0, question: 'story' },
            { kind: 'untyped-answer', chars: 1.5, keystrokes: 0, question: 'story' },
            { kind: 'untyped-answer', chars: 300, keystrokes: 0, question: 'nope' },
            { kind: 'untyped-answer', question: 'story' },
            { kind: 'paste', chars: 'many' },
            { kind: 'no-such-kind' },
            { kind: 'machine-pace' },
          ]) {
            const refused = await page.signal(bad);
            assert.equal(refused.statusCode, 400, `${JSON.stringify(bad)}: ${refused.body}`);
          }
          assert.deepEqual(await signalsOf(page.candidateId), []);
          for (let i = 0; i < 2; i++) assert.equal((await page.signal({ kind: 'untyped-answer', chars: 300, keystrokes: 2, question: 'story' })).statusCode, 204);
        },
      },
    );
    assert.deepEqual(await signalsOf(untyped.candidateId), [
      { kind: 'untyped-answer', detail: 'grew by 300 characters with 2 keystrokes and nothing pasted in question story (free text)', source: 'browser' },
    ]);
    assert.equal((await scoreOf(key, untyped.candidateId)).redFlag, false, 'an answer without typing is medium risk, no red flag');
    assert.match(await reportOf(ctx(), instance, untyped.candidateId), /<dt>Risk<\/dt><dd><span class="risk risk-medium">medium<\/span>: an answer appeared without typing<\/dd>/);

    const pasted = await take(
      ctx(),
      instance,
      key,
      { email: 'p@x.co', first: 'Pat', last: 'Paste' },
      {},
      {
        before: async (page) => {
          assert.equal((await page.signal({ kind: 'paste', detail: '120 characters', chars: 120, question: 'sum' })).statusCode, 204);
        },
      },
    );
    assert.deepEqual(await signalsOf(pasted.candidateId), [{ kind: 'paste', detail: '120 characters pasted in question sum (code)', source: 'browser' }]);
    assert.equal((await scoreOf(key, pasted.candidateId)).redFlag, true);
    const report = await reportOf(ctx(), instance, pasted.candidateId);
    assert.match(report, /<dt>Risk<\/dt><dd><span class="risk risk-high">high<\/span>: pasted 1 time<\/dd>/);
    assert.match(report, /<td>paste<\/td><td>120 characters pasted in question sum \(code\)<\/td>/);

    const calm = await take(ctx(), instance, key, { email: 'c@x.co', first: 'Cal', last: 'Calm' }, { story: 'A short honest answer.' });
    assert.equal((await scoreOf(key, calm.candidateId)).redFlag, false);
    assert.match(await reportOf(ctx(), instance, calm.candidateId), /<dt>Risk<\/dt><dd><span class="risk risk-low">low<\/span><\/dd>/);
  });

  it('flags automation (navigator.webdriver, a headless user agent) as high risk, and a dismissal brings it down', async () => {
    const instance = await ctx().instance('automation');
    assert.equal((await ctx().publish(instance, INTEGRITY_ASSESSMENT)).statusCode, 201);
    const key = await ctx().key([instance]);
    const headless = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36';
    const bot = await take(
      ctx(),
      instance,
      key,
      { email: 'bot@x.co', first: 'Bo', last: 'Bot' },
      {},
      {
        agent: headless,
        before: async (page) => {
          for (let i = 0; i < 3; i++) assert.equal((await page.signal({ kind: 'automation', detail: 'navigator.webdriver' })).statusCode, 204);
        },
      },
    );
    assert.deepEqual(await signalsOf(bot.candidateId), [
      { kind: 'automation', detail: 'headless browser (HeadlessChrome in the user agent)', source: 'server' },
      { kind: 'automation', detail: 'navigator.webdriver is true', source: 'browser' },
    ]);
    assert.equal((await scoreOf(key, bot.candidateId)).redFlag, true);
    const reason = 'the browser was controlled by automation software';
    assert.ok((await reportOf(ctx(), instance, bot.candidateId)).includes(`<span class="risk risk-high">high</span>: ${reason}</dd>`));

    // Dismissing every automation signal (an accessibility tool, say) judges the risk again.
    const owner = await reviewer(ctx());
    const { rows } = await ctx().db.query<{ id: string }>('SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1', [bot.candidateId]);
    const dismissed = await owner.post('/console/signals/dismiss', { instance, attemptId: rows[0]!.id, kind: 'automation', reason: 'A screen reader driving the browser' });
    assert.equal(dismissed.statusCode, 303, dismissed.body);
    assert.equal((await scoreOf(key, bot.candidateId)).redFlag, false);
    assert.match(await reportOf(ctx(), instance, bot.candidateId), /<dt>Risk<\/dt><dd><span class="risk risk-low">low<\/span><\/dd>/);
  });

  it('flags answers saved at a near-constant pace faster than a person reads, by the server’s clock', async () => {
    const instance = await ctx().instance('pace');
    const five = INTEGRITY_ASSESSMENT.replace('id: integrity', 'id: pace').concat(
      [1, 2, 3, 4].map((n) => `  - id: s${n}\n    type: short-answer\n    category: words\n    prompt: Word ${n}?\n    accept: [yes]\n`).join(''),
    );
    assert.equal((await ctx().publish(instance, five.replaceAll('integrity', 'pace'))).statusCode, 201);
    const key = await ctx().key([instance]);
    const invite = await candidate(ctx(), { instance, key }, { email: 'm@x.co', firstName: 'Ma', lastName: 'Chine' }, ['pace']);
    const { form } = invite;
    assert.equal((await form('/portal/a/pace/start')).statusCode, 303);
    for (const q of ['s1', 's2', 's3', 's4', 'story']) assert.equal((await invite.save(q, 'yes')).statusCode, 204);
    // The answers' times (the app's clock, which this suite does not move) set as a script
    // answering every 800 ms would have left them.
    await ctx().db.query(
      `UPDATE answers SET answered_at = now() - make_interval(secs => 0.8 * array_position(ARRAY['s4', 's3', 's2', 's1'], question_id)) FROM attempts a JOIN invitations i ON i.id = a.invitation_id
        WHERE answers.attempt_id = a.id AND i.candidate_id = $1 AND question_id IN ('s1', 's2', 's3', 's4')`,
      [invite.candidateId],
    );
    assert.equal((await form('/portal/a/pace/submit')).statusCode, 303);
    assert.deepEqual(
      (await signalsOf(invite.candidateId)).map((s) => [s.kind, s.source]),
      [['machine-pace', 'server']],
    );
    assert.match((await signalsOf(invite.candidateId))[0]!.detail, /^5 answers every 0\.8 s \(median\), variation 0\.\d\d$/);
    assert.equal((await scoreOf(key, invite.candidateId)).redFlag, false);
    assert.match(await reportOf(ctx(), instance, invite.candidateId), /risk-medium">medium<\/span>: answers came at a near-constant pace faster than a person reads/);
  });
});
