// Coding questions end to end: content with a coding question imports (and bad ones are refused
// with a path), a candidate writes a program in the portal, submits, and the attempt is scored by
// the share of the hidden tests' points the program passes, run in the real sandbox.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { gradeCodingAnswers } from '../src/modules/attempts/coding-grades.js';
import { describeEachStore, type TestContext } from './harness.js';
import { movingClock } from './support/clock.js';
import { candidate } from './support/portal.js';

const CODING = readFileSync(path.join(import.meta.dirname, 'fixtures', 'coding.yaml'), 'utf8');

async function takeAssessment(ctx: TestContext, instance: string, key: string, email: string, answer: unknown) {
  const c = await candidate(ctx, { instance, key }, { email, firstName: 'Ada', lastName: 'Byron' }, ['coding']);
  assert.equal((await c.form('/portal/a/coding/start')).statusCode, 303);
  return { ...c, answer };
}

async function scoreOf(ctx: TestContext, key: string, candidateId: string) {
  const [record] = (await ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json();
  return record as { scoreStatus: string; totalScore: string; categoryScores: { name: string; score: string }[] };
}

it('content: a coding question is checked as a whole, with paths to its mistakes', () => {
  assert.equal(parseAssessment(CODING).ok, true);
  const bad = parseAssessment(
    CODING.replace('    entry: total\n', '').replace('languages: [javascript, python]', 'languages: [javascript, ruby]').replace('  - id: even\n', '  - id: even\n    points: 1\n'),
  );
  assert.equal(bad.ok, false);
  const paths = (bad as { errors: { path: string; message: string }[] }).errors.map((e) => e.path);
  assert.ok(
    paths.some((p) => p.startsWith('questions.0.languages')),
    JSON.stringify(paths),
  );
  const noEntry = parseAssessment(CODING.replace('    entry: total\n', ''));
  assert.equal(noEntry.ok, false);
  const messages = (noEntry as { errors: { path: string; message: string }[] }).errors;
  assert.ok(
    messages.some((e) => e.path === 'questions.0.tests.0' && /expectedStdout/.test(e.message)),
    JSON.stringify(messages),
  );
  const practice = parseAssessment(CODING.replace('questions:\n', 'practice:\n  type: coding\n  prompt: x\n  languages: [python]\n  tests: [{expectedStdout: "1"}]\nquestions:\n'));
  assert.equal(practice.ok, false);
});

// The app's clock runs a month ahead of the wall clock, so a grade stamped by the wall clock shows.
const clock = movingClock();
clock.offset = 30 * 24 * 3600_000;

describeEachStore(
  'coding questions',
  (ctx) => {
    it('imports, shows an editor with the starter code, and scores a submitted program by the share of hidden test points it passes', async () => {
      const instance = await ctx().instance();
      assert.equal((await ctx().publish(instance, CODING)).statusCode, 201);
      const key = await ctx().key([instance]);

      // JavaScript, wrong for the [-1, 1] case (2 points of 5): 3 of 5 points, 60 % of Programming.
      // The test grades explicitly rather than waiting for the grading that submit starts.
      const js = await takeAssessment(ctx(), instance, key, 'js@x.co', null);
      const page = (await js.get('/portal/a/coding?q=1')).body;
      assert.match(page, /<select id="language" name="language"><option value="javascript" selected>JavaScript<\/option><option value="python">Python<\/option><\/select>/);
      assert.match(page, /<textarea id="answer" name="value" class="code"[^>]*>function total\(xs\) \{\n\}\n<\/textarea>/);
      for (const refused of [{ language: 'ruby', source: 'x' }, { language: 'javascript' }, 'function total() {}', { language: 'javascript', source: 'x', extra: 1 }]) {
        assert.equal((await js.save('sum', refused)).statusCode, 400, JSON.stringify(refused));
      }
      assert.match(page, /<ol class="examples"><li><pre><code>total\(\[1,2\]\) → 3<\/code><\/pre><\/li><\/ol>/);
      assert.match(page, /<button type="button" class="run-examples" id="run-examples" hidden/);

      // Run examples: the program against the visible examples, nothing saved; 10 runs a minute per address.
      const runs = await Promise.all(
        Array.from({ length: 11 }, (_, i) =>
          js.post('/portal/api/a/coding/run/sum', {
            value: { language: 'javascript', source: i === 0 ? 'function total(xs) { return 0; }' : 'function total(xs) { return xs.reduce((a, b) => a + b, 0); }' },
          }),
        ),
      );
      assert.deepEqual(runs.map((r) => r.statusCode).sort(), [...Array(10).fill(200), 429].sort());
      const ran = runs.filter((r) => r.statusCode === 200).map((r) => r.json() as { examples: { passed: boolean; actual: unknown; expected: unknown }[] });
      assert.ok(ran.every((r) => r.examples.length === 1 && r.examples[0]!.expected === 3));
      assert.ok(ran.some((r) => r.examples[0]!.passed && r.examples[0]!.actual === 3));
      assert.equal((await js.post('/portal/api/a/coding/run/even', { value: { language: 'javascript', source: 'x' } })).statusCode, 404);

      const wrong = 'function total(xs) { return Math.abs(xs.reduce((a, b) => a + b, 0)) + (xs.some((x) => x < 0) ? 1 : 0); }';
      assert.equal((await js.save('sum', { language: 'javascript', source: wrong })).statusCode, 204);
      assert.equal((await js.save('even', 1)).statusCode, 204);
      assert.equal((await js.form('/portal/a/coding/submit')).statusCode, 303);
      await gradeCodingAnswers(ctx().db, { now: clock.now() });
      let record = await scoreOf(ctx(), key, js.candidateId);
      assert.deepEqual(record.categoryScores, [
        { name: 'Programming', score: '60' },
        { name: 'Basics', score: '100' },
      ]);
      assert.equal(record.totalScore, '80');
      assert.equal(record.scoreStatus, 'PASS');

      // Python, through the plain form (no JavaScript in the browser), right on every test.
      const py = await takeAssessment(ctx(), instance, key, 'py@x.co', null);
      const posted = await py.form('/portal/a/coding/q/1', [
        ['language', 'python'],
        ['value', 'def total(xs):\n    return sum(xs)\n'],
        ['go', 'next'],
      ]);
      assert.equal(posted.statusCode, 303);
      assert.match((await py.get('/portal/a/coding?q=1')).body, /<option value="python" selected>Python<\/option>/);
      assert.equal((await py.form('/portal/a/coding/submit')).statusCode, 303);
      // Until graded the score waits, as it would for a free-text review; the portal grades it
      // after answering the submit, by the app's clock.
      let gradedAt: Date | undefined;
      for (let i = 0; i < 300 && !gradedAt; i++) {
        const { rows } = await ctx().db.query<{ reviewedAt: Date | null }>(
          `SELECT an.reviewed_at AS "reviewedAt" FROM answers an JOIN attempts a ON a.id = an.attempt_id JOIN invitations i ON i.id = a.invitation_id
          WHERE i.candidate_id = $1 AND an.question_id = 'sum'`,
          [py.candidateId],
        );
        gradedAt = rows[0]?.reviewedAt ?? undefined;
        if (!gradedAt) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(gradedAt, 'the portal graded the submitted program');
      assert.ok(Math.abs(new Date(gradedAt).getTime() - clock.now().getTime()) < 10 * 60_000, `graded by the app's clock (${new Date(gradedAt).toISOString()})`);
      record = await scoreOf(ctx(), key, py.candidateId);
      assert.equal(record.scoreStatus, 'LOW_PASS');
      assert.deepEqual(record.categoryScores, [
        { name: 'Programming', score: '100' },
        { name: 'Basics', score: '0' },
      ]);
      assert.equal(record.totalScore, '50');
      // Grading again finds nothing left.
      assert.equal(await gradeCodingAnswers(ctx().db, { now: clock.now() }), 0);
    });
  },
  { now: clock.now },
);
