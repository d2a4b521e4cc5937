// What a recruiter reads and decides on: a dismissed proctoring signal (the red flag judged again,
// clients told by score.updated, the audit log keeping both), reviewers' comments on the report and
// in the data export, a percentile only among enough people, the overview counting candidates, and
// candidate-facing text that states the candidate's own time limit and renders Markdown.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { describeEachStore } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { invite as inviteThroughApi, openPortal } from './support/portal.js';

const FLAGGED = `id: flagged
name: Flagged check
description: "**Two** questions. You have {minutes} minutes."
instructions: |
  Read each question *carefully*.

  - no calculators
durationMinutes: 20
passScore: 50
lowPassScore: 30
categories:
  - id: reasoning
    name: Reasoning
  - id: writing
    name: Writing
questions:
  - id: q1
    type: single-choice
    category: reasoning
    prompt: What is 2 + 2?
    options:
      - text: "3"
      - text: "4"
        correct: true
  - id: q2
    type: free-text
    category: writing
    prompt: Describe your week.
    guidance: "Look for **specific** examples."
`;

const LONG_CATEGORY = 'Numerical reasoning with tables, charts and currency conversion';

/** A prompt with a Markdown table, in a category whose name is 60 characters and more. */
const TABLED = `id: tabled
name: Tabled check
description: One question on a table.
durationMinutes: 10
passScore: 50
lowPassScore: 30
categories:
  - id: numbers
    name: ${LONG_CATEGORY}
questions:
  - id: q1
    type: single-choice
    category: numbers
    prompt: |
      Sales per team:

      | Team  |  Jan |  Feb |
      | :---- | ---: | ---: |
      | North |  420 |  380 |
      | South |  515 |  610 |

      Which team sold more in February?
    options:
      - text: North
      - text: South
        correct: true
`;

describeEachStore('the recruiter reads the report', (ctx) => {
  let instance: string;
  let key: string;
  let owner: Awaited<ReturnType<typeof consoleAs>>;

  const invite = (email: string, extra: Record<string, unknown> = {}) =>
    inviteThroughApi(ctx(), { instance, key }, { email, firstName: 'Re', lastName: 'Cruit', ...extra }, ['flagged']);

  /** A candidate who starts, leaves the page `away` times, answers both questions and submits. */
  const take = async (email: string, away: number) => {
    const made = await invite(email);
    const c = await openPortal(ctx(), made.link, 'flagged');
    assert.equal((await c.form('/portal/a/flagged/start')).statusCode, 303);
    for (let i = 0; i < away; i++) {
      const sent = await c.post('/portal/api/a/flagged/signals', { kind: 'focus-lost', detail: `${i}` });
      assert.equal(sent.statusCode, 204);
    }
    for (const [q, value] of [
      ['q1', 1],
      ['q2', 'A busy week.'],
    ] as const) {
      const saved = await c.save(q, value);
      assert.equal(saved.statusCode, 204, saved.body);
    }
    assert.equal((await c.form('/portal/a/flagged/submit')).statusCode, 303);
    return made.candidateId;
  };
  const attemptOf = async (candidateId: string) =>
    (await ctx().db.query<{ id: string }>('SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1', [candidateId])).rows[0]!.id;
  const score = async (candidateId: string) => (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json()[0];

  before(async () => {
    instance = await ctx().instance('recruit');
    assert.equal((await ctx().publish(instance, FLAGGED)).statusCode, 201);
    key = await ctx().key([instance], { rateLimit: 100000 });
    const made = await consoleUser(ctx(), `owner-${ctx().store}@recruit.example`, 'owner');
    owner = await consoleAs(ctx(), `owner-${ctx().store}@recruit.example`, made.password);
  });

  it('a reviewer scores with a comment, and the comment is on the report, in the PDF and in the data export', async () => {
    const candidateId = await take('commented@recruit.example', 0);
    const attemptId = await attemptOf(candidateId);
    const reviewed = await owner.post('/console/reviews', { instance, attemptId, questionId: 'q2', score: '80', comment: 'Concrete examples; a little short.' });
    assert.equal(reviewed.statusCode, 303, reviewed.body);
    const report = await owner.get(`/console/candidates/${candidateId}?instance=${instance}`);
    assert.match(report.body, /Reviewed: 80 \/ 100 on [^<]+ by owner-/);
    assert.match(report.body, /<blockquote class="review-comment"><p class="pre">Concrete examples; a little short\.<\/p><\/blockquote>/);
    // The guidance is Markdown, as prompts are.
    assert.match(report.body, /Look for <strong>specific<\/strong> examples\./);
    const exported = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/export`, payload: { candidateId } });
    assert.equal(exported.statusCode, 200, exported.body);
    assert.match(exported.body, /"reviewComment":\s*"Concrete examples; a little short\."/);
    const candidate = (await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json();
    const url = new URL(candidate.invitations[0].reportUrl);
    const pdf = await ctx().request({ method: 'GET', url: `${url.pathname.replace(/\/flagged$/, '/flagged.pdf')}${url.search}` });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
  });

  it('a dismissed signal: the red flag is judged again, clients see it (score.updated), the audit log keeps both, bad input changes nothing', async () => {
    const candidateId = await take('lid@recruit.example', 3);
    const attemptId = await attemptOf(candidateId);
    await owner.post('/console/reviews', { instance, attemptId, questionId: 'q2', score: '60' });
    assert.equal((await score(candidateId)).redFlag, true);
    assert.equal((await score(candidateId)).scoreStatus === 'PENDING', false);

    const before = await owner.get(`/console/candidates/${candidateId}?instance=${instance}`);
    assert.match(before.body, /Rules that raised the red flag: left the page 3 times/);
    const signalIds = [...before.body.matchAll(/name="signalId" value="(\d+)"/g)].map((m) => m[1]!);
    assert.equal(signalIds.length, 3);

    for (const fields of <Record<string, string>[]>[
      { signalId: signalIds[0]!, reason: '' },
      { signalId: signalIds[0]!, reason: 'x'.repeat(501) },
      { kind: 'nope', reason: 'why' },
      { signalId: '999999999', reason: 'why' },
    ]) {
      const refused = await owner.post('/console/signals/dismiss', { instance, attemptId, ...fields });
      assert.equal(refused.statusCode >= 400 && refused.statusCode < 500, true, JSON.stringify(fields));
    }
    assert.equal((await score(candidateId)).redFlag, true, 'nothing changed');

    const events = async () =>
      (await ctx().db.query<{ type: string }>(`SELECT type FROM outbox_events WHERE body LIKE $1 ORDER BY id`, [`%${candidateId}%`])).rows.map((r) => r.type);
    const updatesBefore = (await events()).filter((t) => t === 'score.updated').length;
    const one = await owner.post('/console/signals/dismiss', { instance, attemptId, signalId: signalIds[0]!, reason: 'Closed the laptop lid' });
    assert.equal(one.statusCode, 303, one.body);
    assert.equal((await score(candidateId)).redFlag, false, 'two times away is below the rule');
    assert.equal((await events()).filter((t) => t === 'score.updated').length, updatesBefore + 1, 'clients are told');

    const after = await owner.get(`/console/candidates/${candidateId}?instance=${instance}`);
    assert.match(after.body, /<tr class="dismissed">.*Closed the laptop lid/);
    assert.match(after.body, /No rule raises the red flag once the dismissed signals are left out/);
    const audit = await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=20' });
    assert.match(audit.body, /signal\.dismiss/);
    assert.match(audit.body, /Closed the laptop lid/);

    // Every signal of a kind at once; dismissing again is refused.
    const all = await owner.post('/console/signals/dismiss', { instance, attemptId, kind: 'focus-lost', reason: 'A flaky window manager' });
    assert.equal(all.statusCode, 303);
    const again = await owner.post('/console/signals/dismiss', { instance, attemptId, signalId: signalIds[1]!, reason: 'again' });
    assert.equal(again.statusCode, 404);
    const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/candidates/${candidateId}/attempts` })).json();
    assert.deepEqual(attempts[0].redFlagReasons, []);
  });

  it('a percentile only among at least 20; the overview counts candidates once', async () => {
    const candidateId = await take('percent@recruit.example', 0);
    await owner.post('/console/reviews', { instance, attemptId: await attemptOf(candidateId), questionId: 'q2', score: '50' });
    const report = await owner.get(`/console/candidates/${candidateId}?instance=${instance}`);
    assert.match(report.body, /Percentile<\/dt><dd>not yet<span class="tile-note">: \d+ completed this version, \d+ more needed<\/span>/);
    assert.doesNotMatch(report.body, /among \d+ who completed/);

    const other = await ctx().instance('overview');
    await ctx().publish(other, FLAGGED);
    await ctx().publish(other, FLAGGED.replace('id: flagged', 'id: second'));
    const otherKey = await ctx().key([other]);
    await inviteThroughApi(ctx(), { instance: other, key: otherKey }, { email: 'two@recruit.example', firstName: 'T', lastName: 'Wo' }, ['flagged', 'second']);
    const overview = await owner.get(`/console/?instance=${other}`);
    assert.match(overview.body, /1 candidate, 2 invitations/);
  });

  it("the PDF draws a Markdown table as a grid and a 60-character category name whole (read from the PDF's text); the page's chart does not cut it", async () => {
    assert.ok(LONG_CATEGORY.length >= 60);
    assert.equal((await ctx().publish(instance, TABLED)).statusCode, 201);
    const made = await inviteThroughApi(ctx(), { instance, key }, { email: 'tables@recruit.example', firstName: 'Ta', lastName: 'Ble' }, ['tabled']);
    const c = await openPortal(ctx(), made.link, 'tabled');
    assert.equal((await c.form('/portal/a/tabled/start')).statusCode, 303);
    assert.equal((await c.save('q1', 1)).statusCode, 204);
    assert.equal((await c.form('/portal/a/tabled/submit')).statusCode, 303);

    const candidate = (await ctx().request({ method: 'GET', url: `/v1/candidates/${made.candidateId}`, headers: { 'x-api-key': key } })).json();
    const url = new URL(candidate.invitations[0].reportUrl);
    const pdf = await ctx().request({ method: 'GET', url: `${url.pathname}.pdf${url.search}` });
    assert.equal(pdf.statusCode, 200);
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-pdf-'));
    try {
      const file = path.join(dir, 'report.pdf');
      writeFileSync(file, pdf.rawPayload);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      assert.doesNotMatch(text, /\|\s*Team|---:/, 'no raw Markdown table');
      assert.match(text, /Team\s+Jan\s+Feb/);
      assert.match(text, /North\s+420\s+380/);
      assert.match(text, /South\s+515\s+610/);
      // The name whole, in order (it may wrap in its column), and the bar's value beside it.
      const words = text.replace(/\s+/g, ' ');
      assert.ok(
        LONG_CATEGORY.split(' ').every((w) => words.includes(w)),
        words,
      );
      assert.match(words, /Numerical reasoning with tables, charts and currency conversion|Numerical reasoning with tables, charts and .*currency conversion/);
      assert.match(text, /100 %/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const page = await ctx().request({ method: 'GET', url: `${url.pathname}${url.search}` });
    assert.match(page.body, new RegExp(`class="chart-label">${LONG_CATEGORY}<title>`));
  });

  it("candidate-facing text states the candidate's own time limit and renders Markdown", async () => {
    const made = await invite('extra@recruit.example', { extraTimePercent: 50 });
    const intro = (await openPortal(ctx(), made.link, 'flagged')).intro.body;
    assert.match(intro, /<strong>Two<\/strong> questions\. You have 30 minutes\./);
    assert.match(intro, /Read each question <em>carefully<\/em>\./);
    assert.match(intro, /<li>no calculators<\/li>/);
    assert.doesNotMatch(intro, /\{minutes\}/);
  });
});
