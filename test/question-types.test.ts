// Likert and ranking questions over HTTP: a candidate takes the demo work-style assessment in the
// portal (as plain forms and as portal.js saves), the server scores it by the documented rules
// (docs/question-types.md), and the console report shows each answer beside its key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { CATALOGUE_DIR } from '../src/seed.js';
import { describeEachStore, type TestContext } from './harness.js';
import { cookieOf, passwordChosen, signIn } from './support/console.js';
import { candidate as portalCandidate } from './support/portal.js';

const WORK_STYLE = readFileSync(path.join(CATALOGUE_DIR, 'work-style.yaml'), 'utf8');

const candidate = (ctx: TestContext, instance: string, key: string, assessment: string) =>
  portalCandidate(ctx, { instance, key }, { email: `${assessment}@x.co`, firstName: 'Kim', lastName: 'Lee' }, [assessment]);

/** The option texts of a ranking page, in the order shown. */
const shownOrder = (page: LightMyRequestResponse) => [...page.body.matchAll(/<span class="rank-text">([^<]+)<\/span>/g)].map((m) => m[1]);

describeEachStore('Likert and ranking questions', (ctx) => {
  it('a candidate takes the work-style assessment: scored by the keys, reverse-keyed items reversed, partial credit for a ranking', async () => {
    const instance = await ctx().instance();
    assert.equal((await ctx().publish(instance, WORK_STYLE)).statusCode, 201);
    const key = await ctx().key([instance]);
    const c = await candidate(ctx(), instance, key, 'work-style');
    assert.equal((await c.form('/portal/a/work-style/start')).statusCode, 303);

    // A Likert item is a radio group named by its prompt, its legend saying the scale's ends.
    const first = await c.get('/portal/a/work-style?q=1');
    assert.match(
      first.body,
      /<fieldset class="likert" aria-labelledby="prompt how"><legend id="how" class="hint">Choose one point of the scale, from “Strongly disagree” to “Strongly agree”<\/legend>/,
    );
    assert.equal([...first.body.matchAll(/<input type="radio"[^>]* name="value"/g)].length, 5);
    assert.match(first.body, /<div class="prompt" id="prompt"><p>I plan my work for the day before I start on it.<\/p>/);

    // Plain form posts (no JavaScript) and portal.js's saves take the same values.
    assert.equal(
      (
        await c.form('/portal/a/work-style/q/1', [
          ['value', '4'],
          ['go', 'next'],
        ])
      ).headers.location,
      '/portal/a/work-style?q=2',
    ); // Strongly agree: 5
    assert.equal((await c.save('ws-02', 1)).statusCode, 204); // reverse-keyed Disagree: 6 − 2 = 4
    assert.equal((await c.save('ws-03', 2)).statusCode, 204); // Sometimes: 3
    assert.equal((await c.save('ws-04', 3)).statusCode, 204); // Agree: 4
    assert.equal(
      (
        await c.form('/portal/a/work-style/q/5', [
          ['value', '0'],
          ['go', 'next'],
        ])
      ).statusCode,
      303,
    ); // reverse-keyed Strongly disagree: 5
    // ws-06 is left unanswered: it counts as the lowest keyed score, 1.
    assert.equal((await c.form('/portal/a/work-style/q/6', [['go', 'next']])).headers.location, '/portal/a/work-style?q=7');
    assert.match((await c.get('/portal/a/work-style?q=2')).body, /value="1" checked/, 'a saved point is shown again');

    for (const [question, value] of [
      ['ws-01', 5],
      ['ws-01', -1],
      ['ws-01', [4]],
      ['ws-01', '4'],
      ['ws-07', [0, 1, 2]],
      ['ws-07', [0, 1, 2, 2]],
      ['ws-07', [0, 1, 2, 4]],
      ['ws-07', 2],
    ] as const) {
      const refused = await c.save(question, value);
      assert.equal(refused.statusCode, 400, `${question} ${JSON.stringify(value)}: ${refused.body}`);
    }

    // A ranking: Markdown prompt, options in the written order, Move up / Move down named by option.
    let ranking = await c.get('/portal/a/work-style?q=7');
    assert.match(ranking.body, /<ul>\n<li>a customer has called twice about a <strong>wrong delivery<\/strong>/);
    assert.deepEqual(shownOrder(ranking), [
      'Work through the unread messages',
      'Review your colleague&#39;s document',
      'Call the customer back',
      'Finish the weekly figures for your manager',
    ]);
    assert.match(
      ranking.body,
      /<button type="submit" class="rank-move" name="move" value="2:up" data-direction="up">Move up<span class="visually-hidden"> Call the customer back<\/span><\/button>/,
    );
    assert.match(ranking.body, /value="0:up" data-direction="up" aria-disabled="true">/, 'the first cannot move up');
    // Without JavaScript each button posts the form; the server moves the option and saves the order.
    const order = () => [...ranking.body.matchAll(/<input type="hidden" name="value" value="(\d)">/g)].map((m) => ['value', m[1]!] as [string, string]);
    for (const move of ['2:up', '2:up', '3:up', '3:up']) {
      const moved = await c.form('/portal/a/work-style/q/7', [...order(), ['move', move]]);
      assert.equal(moved.headers.location, '/portal/a/work-style?q=7', 'the same question again');
      ranking = await c.get('/portal/a/work-style?q=7');
    }
    // Customer, figures, inbox, review against the key customer, figures, review, inbox: footrule 2 of 8.
    assert.deepEqual(shownOrder(ranking), [
      'Call the customer back',
      'Finish the weekly figures for your manager',
      'Work through the unread messages',
      'Review your colleague&#39;s document',
    ]);
    assert.equal((await c.form('/portal/a/work-style/q/7', [...order(), ['go', 'next']])).headers.location, '/portal/a/work-style?q=8');
    // The second ranking as portal.js saves it: the key's order, talk, plan, escalate, complain, ignore.
    assert.equal((await c.save('ws-08', [3, 4, 2, 1, 0])).statusCode, 204);

    assert.equal((await c.form('/portal/a/work-style/submit')).statusCode, 303);
    const [record] = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${c.candidateId}`, headers: { 'x-api-key': key } })).json();
    assert.equal(record.assessmentStatus, 'COMPLETED');
    assert.equal(record.completion, '87.5', '7 of 8 answered');
    assert.deepEqual(record.categoryScores, [
      // (5 + 4 + 3 − 3) / (15 − 3)
      { name: 'Planning & organisation', score: '75' },
      // (4 + 5 + 1 − 3) / (15 − 3)
      { name: 'Collaboration', score: '58.33' },
      // 2 points × (1 − 2/8) and 2 points × 1, of 4
      { name: 'Situational judgement', score: '87.5' },
    ]);
    // (35 × 75 + 35 × 58.33… + 30 × 87.5) / 100
    assert.equal(record.totalScore, '72.92');
    assert.equal(record.scoreStatus, 'PASS');

    // The console report: each answer beside its key.
    const email = `owner.${instance}@example.com`;
    const owner = (await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email, role: 'owner' } })).json();
    await passwordChosen(ctx(), email);
    const signedIn = await signIn(ctx(), email, owner.password);
    const cookie = cookieOf(signedIn, 'ac_console')!;
    const report = await ctx().request({ method: 'GET', url: `/console/candidates/${c.candidateId}?instance=${instance}`, headers: { cookie } });
    assert.equal(report.statusCode, 200, report.body);
    const body = report.body;
    assert.match(body, /☑ Disagree <span class="hint">\(scores 4\)<\/span> <strong>chosen<\/strong>/, 'the reverse-keyed answer and its score');
    assert.match(body, /Reverse-keyed: “Strongly disagree” scores 5, “Strongly agree” scores 1 \(score = 6 − point\)\. Keyed score 4 of 5\./);
    assert.match(body, /Keyed: “Never” scores 1, “Always” scores 5\. Keyed score 3 of 5\./);
    assert.match(body, /<em>Not answered<\/em> \(scores as the lowest point of the key\)/);
    assert.match(
      body,
      /<tr><th scope="row" class="num">3<\/th><td>Work through the unread messages<\/td><td>Review your colleague&#39;s document<\/td><td class="num">1<\/td><\/tr>/,
    );
    assert.match(body, /Footrule distance 2 of at most 8: credit = 1 − 2 \/ 8\./);
    assert.match(body, /75 % credit/);
    assert.match(body, /<div class="prompt"><p>It is 4 pm\./, 'the prompt is Markdown in the report too');
  });

  it('a prompt’s raw HTML and script links reach no page as markup', async () => {
    const instance = await ctx().instance();
    const source = `id: hostile
name: Hostile
description: d
durationMinutes: 5
passScore: 50
lowPassScore: 40
categories:
  - id: a
    name: A
questions:
  - id: q1
    category: a
    type: likert
    scale: agreement-5
    prompt: |
      <script>alert(1)</script> <img src=x onerror="alert(2)">
      [click](javascript:alert(3)) and [help](https://example.com/help)
`;
    assert.equal((await ctx().publish(instance, source)).statusCode, 201);
    const c = await candidate(ctx(), instance, await ctx().key([instance]), 'hostile');
    await c.form('/portal/a/hostile/start');
    const page = (await c.get('/portal/a/hostile?q=1')).body;
    assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &lt;img src=x onerror=&quot;alert\(2\)&quot;&gt;/);
    assert.doesNotMatch(page, /<script>alert|<img|href="javascript/i);
    assert.match(page, /\[click\]\(javascript:alert\(3\)\)/);
    assert.match(page, /<a href="https:\/\/example.com\/help" target="_blank" rel="noopener noreferrer">help<\/a>/);
  });
});
