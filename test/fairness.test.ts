// Fair to every candidate, hard to copy: shuffled questions and options and question pools fixed
// per attempt (a reload shows the same, a retake draws anew), scores over the questions drawn, the
// report in the candidate's order, the practice question before the clock, and the feedback after
// submitting (once, validated, shown per assessment, exported and erased with the candidate).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { describeEachStore, type TestContext } from './harness.js';
import { cookieOf, passwordChosen, signIn } from './support/console.js';
import { invite as inviteThroughApi } from './support/portal.js';
import { assessmentReports } from '../src/modules/attempts/report.js';

const FORM = 'application/x-www-form-urlencoded';

const FAIR = `id: fair
name: Fair test
description: Shuffled, pooled, with a practice question.
durationMinutes: 30
passScore: 60
lowPassScore: 40
shuffleQuestions: true
shuffleOptions: true
pools:
  - category: pick
    draw: 3
practice:
  type: single-choice
  prompt: Which is a colour?
  options:
    - text: Table
    - text: Green
      correct: true
    - text: Seven
  explanation: Green is a colour.
categories:
  - id: pick
    name: Picked
  - id: fixed
    name: Fixed
questions:
${[1, 2, 3, 4, 5, 6]
  .map(
    (n) => `  - id: p${n}
    category: pick
    type: single-choice
    prompt: Pool question ${n}
    options:
      - text: Right ${n}
        correct: true
      - text: Wrong ${n}a
      - text: Wrong ${n}b
      - text: Wrong ${n}c
`,
  )
  .join('')}  - id: f1
    category: fixed
    type: multiple-choice
    prompt: Fixed question one
    options:
      - text: Yes A
        correct: true
      - text: No B
      - text: Yes C
        correct: true
      - text: No D
  - id: f2
    category: fixed
    type: likert
    prompt: Fixed question two
    scale: agreement-5
`;

/** A candidate in the portal: their cookie, CSRF token, GET and form POST. */
async function candidate(ctx: TestContext, link: string) {
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: link.split('sessionToken=')[1] } });
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const intro = await ctx.request({ method: 'GET', url: '/portal/a/fair', headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(intro.body)![1]!;
  return {
    cookie,
    csrf,
    intro,
    get: (url: string) => ctx.request({ method: 'GET', url, headers: { cookie } }),
    post: (url: string, fields: Record<string, string | string[]> = {}, token = csrf) => {
      const body = new URLSearchParams({ _csrf: token });
      for (const [name, value] of Object.entries(fields)) for (const v of ([] as string[]).concat(value)) body.append(name, v);
      return ctx.request({ method: 'POST', url, headers: { cookie, 'content-type': FORM }, payload: body.toString() });
    },
    put: (questionId: string, value: unknown) =>
      ctx.request({ method: 'PUT', url: `/portal/api/a/fair/answers/${questionId}`, headers: { cookie, 'x-csrf-token': csrf }, payload: { value } }),
  };
}

const questionOf = (page: LightMyRequestResponse) => /data-question="([^"]+)"/.exec(page.body)?.[1];
const optionTexts = (page: LightMyRequestResponse) => [...page.body.matchAll(/<label for="o\d+">([^<]+)<\/label>/g)].map((m) => m[1]!);
const optionValues = (page: LightMyRequestResponse) => [...page.body.matchAll(/name="value" value="(\d+)"/g)].map((m) => Number(m[1]));

describeEachStore('fairness: shuffling, pools, practice and feedback', (ctx) => {
  let instance: string;
  let key: string;
  const invite = (email: string) => inviteThroughApi(ctx(), { instance, key }, { email, firstName: 'Fay', lastName: 'Ayre' }, ['fair']);
  const attemptRow = async (candidateId: string) =>
    (
      await ctx().db.query<{ id: string; seed: number; layout: { questions: string[]; options: Record<string, number[]> } }>(
        `SELECT t.id, t.seed, t.layout FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 AND t.superseded_at IS NULL`,
        [candidateId],
      )
    ).rows[0]!;

  it('fixes the draw and the orders at start: the portal shows them, a reload shows the same, answers are by option, the score is over the drawn questions', async () => {
    instance = await ctx().instance('fair');
    const published = await ctx().publish(instance, FAIR);
    assert.equal(published.statusCode, 201, published.body);
    key = await ctx().key([instance]);
    const listed = (await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key, instance } })).json();
    assert.equal(listed.find((a: { id: string }) => a.id === 'fair').questionCount, 5, 'the API counts what each candidate is given');
    const c = await invite('fay.ayre@example.com');
    const p = await candidate(ctx(), c.link);
    assert.match(p.intro.body, /5 questions\./, 'three drawn from the pool of six, and the two fixed ones');
    assert.equal((await p.post('/portal/a/fair/start')).statusCode, 303);
    const { seed, layout } = await attemptRow(c.candidateId);
    assert.equal(typeof seed, 'number');
    assert.equal(layout.questions.length, 5);
    assert.equal(layout.questions.filter((id) => id.startsWith('p')).length, 3);
    assert.ok(layout.questions.includes('f1') && layout.questions.includes('f2'));
    assert.deepEqual(Object.keys(layout.options).sort(), [...layout.questions.filter((id) => id !== 'f2')].sort(), 'every choice question, never the Likert item');

    // Each position shows this attempt's question, its options in this attempt's order; a reload the same.
    for (const [index, id] of layout.questions.entries()) {
      const page = await p.get(`/portal/a/fair?q=${index + 1}`);
      assert.equal(questionOf(page), id, `position ${index + 1}`);
      if (layout.options[id]) assert.deepEqual(optionValues(page), layout.options[id], 'options in the attempt order, each valued by its own index');
      const again = await p.get(`/portal/a/fair?q=${index + 1}`);
      assert.equal(again.body.replace(/data-now="[^"]+"|data-deadline="[^"]+"|\d+ min/g, ''), page.body.replace(/data-now="[^"]+"|data-deadline="[^"]+"|\d+ min/g, ''));
      assert.deepEqual(optionTexts(again), optionTexts(page));
    }
    // The progress links follow the attempt's order too.
    const nav = await p.get('/portal/a/fair?q=1');
    assert.match(nav.body, /href="\/portal\/a\/fair\?q=5"/);
    assert.doesNotMatch(nav.body, /href="\/portal\/a\/fair\?q=6"/, 'five questions, no sixth');
    assert.equal((await p.get('/portal/a/fair?q=6')).statusCode, 303, 'past the end: back to the attempt');

    // A question not drawn cannot be answered; nothing is stored.
    const notDrawn = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].find((id) => !layout.questions.includes(id))!;
    assert.equal((await p.put(notDrawn, 0)).statusCode, 404);
    assert.equal((await ctx().db.query('SELECT 1 FROM answers WHERE question_id = $1', [notDrawn])).rows.length, 0);

    // Answer by form post at each position: the right option of each pool question, whatever its place.
    for (const [index, id] of layout.questions.entries()) {
      const value = id === 'f1' ? ['0', '2'] : id === 'f2' ? '3' : '0';
      const saved = await p.post(`/portal/a/fair/q/${index + 1}`, { value, go: 'next' });
      assert.equal(saved.statusCode, 303, saved.body);
    }
    const stored = await ctx().db.query<{ questionId: string }>('SELECT question_id AS "questionId" FROM answers a JOIN attempts t ON t.id = a.attempt_id WHERE t.id = $1', [
      (await attemptRow(c.candidateId)).id,
    ]);
    assert.deepEqual(stored.rows.map((r) => r.questionId).sort(), [...layout.questions].sort());
    assert.equal((await p.post('/portal/a/fair/submit')).statusCode, 303);
    const score = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}`, headers: { 'x-api-key': key } })).json()[0];
    assert.equal(score.completion, '100', 'every question given was answered: the three not drawn do not count');
    assert.deepEqual(score.categoryScores, [
      { name: 'Picked', score: '100' },
      { name: 'Fixed', score: '87.5' },
    ]);

    // The report: the questions this candidate saw, in their order, options in their order, and how.
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [instance]);
    const [report] = await assessmentReports(ctx().db, [rows[0]!.id], c.candidateId);
    assert.deepEqual(
      report!.questions.map((q) => q.id),
      layout.questions,
    );
    const first = report!.questions.find((q) => q.id === layout.questions.find((id) => id.startsWith('p')))!;
    const firstOrder = layout.options[first.id]!;
    assert.deepEqual(
      first.options.map((o) => o.text),
      firstOrder.map((i) => (i === 0 ? `Right ${first.id.slice(1)}` : `Wrong ${first.id.slice(1)}${'abc'[i - 1]}`)),
    );
    assert.deepEqual(report!.layoutNotes, [
      '3 of the 6 questions of Picked were drawn at random for this attempt',
      'the questions were shown in an order shuffled for this attempt (as listed)',
      'the options of choice questions were shown in an order shuffled for this attempt (as listed)',
    ]);
  });

  it('gives a retake a draw of its own, and each candidate their own seed', async () => {
    const seeds = new Set<number>();
    for (const n of [1, 2, 3]) {
      const c = await invite(`seed${n}@example.com`);
      const p = await candidate(ctx(), c.link);
      await p.post('/portal/a/fair/start');
      seeds.add((await attemptRow(c.candidateId)).seed);
      if (n === 1) {
        await p.post('/portal/a/fair/submit');
        const first = await attemptRow(c.candidateId);
        const granted = await ctx().request({
          method: 'POST',
          url: `/admin/v1/instances/${instance}/candidates/${c.candidateId}/invitations/fair/retake`,
          payload: { email: false },
        });
        assert.equal(granted.statusCode, 200, granted.body);
        const again = await candidate(ctx(), granted.json().link);
        assert.equal((await again.post('/portal/a/fair/start')).statusCode, 303);
        const second = await attemptRow(c.candidateId);
        assert.notEqual(second.id, first.id);
        assert.notEqual(second.seed, first.seed, 'a new seed, so a new draw and new orders');
        assert.equal(second.layout.questions.length, 5);
      }
    }
    assert.equal(seeds.size, 3);
  });

  it('offers the practice question before the clock: checked with feedback, never stored, gone once started', async () => {
    const c = await invite('practice@example.com');
    const p = await candidate(ctx(), c.link);
    assert.match(p.intro.body, /href="\/portal\/a\/fair\/practice"/);
    const page = await p.get('/portal/a/fair/practice');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Which is a colour\?/);
    assert.match(page.body, /not timed, not scored/);
    assert.doesNotMatch(page.body, /id="timer"/, 'no clock');

    const wrong = await p.post('/portal/a/fair/practice', { value: '0' });
    assert.equal(wrong.statusCode, 200);
    assert.match(wrong.body, /The answer we expected was “Green”\./);
    assert.match(wrong.body, /Green is a colour\./);
    assert.match(wrong.body, /id="o0" name="value" value="0" checked/, 'the answer given stays chosen');
    const right = await p.post('/portal/a/fair/practice', { value: '1' });
    assert.match(right.body, /That is the answer we expected\./);
    const none = await p.post('/portal/a/fair/practice', {});
    assert.match(none.body, /Give an answer first/);
    for (const bad of ['9', 'x', '-1']) assert.match((await p.post('/portal/a/fair/practice', { value: bad })).body, /Give an answer first/, bad);
    assert.equal((await p.post('/portal/a/fair/practice', { value: '1' }, 'not-the-token')).statusCode, 403, 'CSRF-protected');

    // Nothing was stored: no attempt, no answer, the invitation not started.
    const state = await ctx().db.query<{ status: string; attempts: number }>(
      `SELECT i.assessment_status AS status, (SELECT count(*)::int FROM attempts t WHERE t.invitation_id = i.id) AS attempts FROM invitations i WHERE i.candidate_id = $1`,
      [c.candidateId],
    );
    assert.deepEqual(state.rows[0], { status: 'INVITED', attempts: 0 });

    assert.equal((await p.post('/portal/a/fair/start')).statusCode, 303);
    assert.equal((await p.get('/portal/a/fair/practice')).statusCode, 303, 'once started, the practice is over');
    assert.equal((await p.post('/portal/a/fair/practice', { value: '1' })).statusCode, 303);
  });

  it('takes one feedback per attempt after submitting: validated, CSRF-protected, shown per assessment, exported and erased', async () => {
    const c = await invite('feedback@example.com');
    const p = await candidate(ctx(), c.link);
    await p.post('/portal/a/fair/start');
    assert.equal((await p.post('/portal/a/fair/feedback', { rating: '4' })).statusCode, 409, 'not before submitting');
    await p.post('/portal/a/fair/submit');
    const done = await p.get('/portal/a/fair');
    assert.match(done.body, /How was this assessment\?/);
    assert.match(done.body, /name="rating" value="5"/);

    const count = async () =>
      (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM attempt_feedback WHERE attempt_id = $1', [(await attemptRow(c.candidateId)).id])).rows[0]!.n;
    for (const bad of [
      {} as Record<string, string | string[]>,
      { rating: '0' },
      { rating: '6' },
      { rating: 'x' },
      { rating: '4.5' },
      { rating: ['4', '5'] },
      { rating: '3', comment: 'x'.repeat(1001) },
      { rating: '3', comment: 'a\u0000b' },
    ]) {
      const refused = await p.post('/portal/a/fair/feedback', bad);
      assert.equal(refused.statusCode, 400, JSON.stringify(bad));
      assert.equal(await count(), 0, `nothing stored for ${JSON.stringify(bad)}`);
    }
    assert.match((await p.post('/portal/a/fair/feedback', {})).body, /Choose a rating from 1 to 5. A comment is optional and may have up to 1,000 characters./);
    assert.equal((await p.post('/portal/a/fair/feedback', { rating: '4' }, 'forged')).statusCode, 403);
    assert.equal(await count(), 0);

    const sent = await p.post('/portal/a/fair/feedback', { rating: '4', comment: '  Clear questions, <b>fair</b> time.  ' });
    assert.equal(sent.statusCode, 303);
    assert.match((await p.get('/portal/a/fair')).body, /Thank you for your feedback\./);
    const second = await p.post('/portal/a/fair/feedback', { rating: '1', comment: 'changed my mind' });
    assert.equal(second.statusCode, 409);
    assert.match(second.body, /already sent your feedback/);
    const stored = await ctx().db.query<{ rating: number; comment: string }>('SELECT rating, comment FROM attempt_feedback WHERE attempt_id = $1', [
      (await attemptRow(c.candidateId)).id,
    ]);
    assert.deepEqual(stored.rows, [{ rating: 4, comment: 'Clear questions, <b>fair</b> time.' }], 'trimmed; the second changed nothing');

    // The console: per assessment, average, count, distribution and the latest comments.
    const created = await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email: `fb-${instance}@example.com`, role: 'manager', instances: [instance] } });
    const { password } = created.json();
    await passwordChosen(ctx(), `fb-${instance}@example.com`);
    const signedIn = await signIn(ctx(), `fb-${instance}@example.com`, password);
    const consoleCookie = cookieOf(signedIn, 'ac_console')!;
    const assessments = await ctx().request({ method: 'GET', url: `/console/assessments?instance=${instance}`, headers: { cookie: consoleCookie } });
    assert.equal(assessments.statusCode, 200);
    assert.match(assessments.body, /Average rating<\/dt><dd>4 of 5/);
    assert.match(assessments.body, /Ratings<\/dt><dd>1</);
    assert.match(assessments.body, /Clear questions, &lt;b&gt;fair&lt;\/b&gt; time\./, 'escaped');
    assert.match(assessments.body, new RegExp(`href="/console/candidates/${c.candidateId}\\?instance=${instance}">Fay Ayre</a>`));

    // The preview says how each attempt is put together, and shows the practice question.
    const preview = await ctx().request({ method: 'GET', url: `/console/assessments/fair/preview?instance=${instance}`, headers: { cookie: consoleCookie } });
    assert.equal(preview.statusCode, 200);
    assert.match(preview.body, /For each attempt: 3 of the 6 questions of Picked were drawn at random;/);
    assert.match(preview.body, /Practice question \(before the clock starts; never scored\)/);
    assert.match(preview.body, /id="practice-prompt"[^>]*>[\s\S]*Which is a colour\?/);

    // Exported with the candidate's data, erased with them.
    const exported = (await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/export`, payload: { candidateId: c.candidateId } })).json();
    assert.deepEqual(
      exported.attempts.map((a: { feedback: { rating: number; comment: string } | null }) => a.feedback && { rating: a.feedback.rating, comment: a.feedback.comment }),
      [{ rating: 4, comment: 'Clear questions, <b>fair</b> time.' }],
    );
    assert.equal((await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: c.candidateId } })).statusCode, 200);
    assert.equal(await count(), 0, 'erased');
    const after = await ctx().request({ method: 'GET', url: `/console/assessments?instance=${instance}`, headers: { cookie: consoleCookie } });
    assert.doesNotMatch(after.body, /Clear questions/);
  });
});
