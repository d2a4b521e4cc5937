// Reviewing together, on both stores: a rubric scores criterion by criterion; two reviewers score
// blind (the second sees neither the candidate's name nor the first's review before submitting);
// the mean of two reviews; agree-within with a disagreement that waits for a lead, who settles it
// (the score record, score.finalized, and score.updated when a lead changes it); answers assigned
// to one reviewer are refused to another; an overdue assignment's reviewer is reminded once as
// the clock passes the due time; and bad input changes nothing.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { describeEachStore } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { frozenClock } from './support/clock.js';
import { invite } from './support/portal.js';
import { takeWithLink } from './support/take.js';

const clock = frozenClock(Date.parse('2026-11-20T09:00:00Z'));

/** An assessment "alpha": one choice question, a free-text one, and (with a rubric) a free-text one scored by its rubric. */
const content = (rubric: boolean) => `id: alpha
name: Support writing
description: Writing for support, reviewed together.
durationMinutes: 20
passScore: 70
lowPassScore: 50
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
  - id: q4
    type: free-text
    category: writing
    prompt: Describe a time you helped a customer.
    guidance: Looks for a concrete remedy.
${
  rubric
    ? `  - id: q5
    type: free-text
    category: writing
    prompt: Reply to an angry customer.
    rubric:
      criteria:
        - id: empathy
          name: Empathy
          levels:
            - label: None
              points: 0
            - label: Some
              points: 1
            - label: Strong
              points: 3
              description: Names the frustration and apologises once
        - id: remedy
          name: Remedy
          levels:
            - label: Missing
              points: 0
            - label: Concrete
              points: 2
`
    : ''
}`;

describeEachStore(
  'reviewing together',
  (ctx) => {
    let n = 0;
    /** A fresh instance with these review settings, the assessment published, and a key. */
    async function setup(settings: Record<string, unknown>, rubric = false) {
      const instance = await ctx().instance(`rev${n++}`);
      const published = await ctx().publish(instance, content(rubric));
      assert.equal(published.statusCode, 201, published.body);
      const patched = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: settings });
      assert.equal(patched.statusCode, 200, patched.body);
      return { instance, key: await ctx().key([instance]) };
    }
    /** Invites a candidate and takes the assessment; returns the candidate and the attempt. */
    async function take(instance: string, key: string, name: string, answers: [string, string | number][], stop?: 'started') {
      const invited = await invite(ctx(), { instance, key }, { email: `${name.toLowerCase()}-${instance}@example.com`, firstName: name, lastName: 'Quux' }, ['alpha']);
      await takeWithLink(ctx(), invited.link, stop, answers);
      const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/candidates/${invited.candidateId}/attempts` })).json() as {
        attemptId: string;
      }[];
      return { candidateId: invited.candidateId, attemptId: attempts[0]!.attemptId };
    }
    const score = async (instance: string, key: string, candidateId: string) => {
      const record = (
        (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key, instance } })).json() as {
          scoreStatus: string;
          totalScore: number;
          categoryScores: { name: string; score: number }[];
        }[]
      )[0]!;
      // The API gives scores as decimal strings.
      return { ...record, categoryScores: record.categoryScores.map((c) => ({ name: c.name, score: Number(c.score) })) };
    };
    const review = (instance: string, payload: Record<string, unknown>) => ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/reviews`, payload });
    const reviewRows = async (attemptId: string) =>
      (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM answer_reviews WHERE attempt_id = $1', [attemptId])).rows[0]!.n;
    const events = async (instance: string) =>
      (
        await ctx().db.query<{ type: string }>(
          `SELECT o.type FROM outbox_events o JOIN instances i ON i.id = o.instance_id WHERE i.name = $1 AND o.type LIKE 'score.%' ORDER BY o.id`,
          [instance],
        )
      ).rows.map((r) => r.type);
    async function person(instance: string, name: string, role: string) {
      const made = await consoleUser(ctx(), `${name}-${instance}@example.com`, role, [instance]);
      return { id: made.id, as: await consoleAs(ctx(), `${name}-${instance}@example.com`, made.password) };
    }

    it('scores by the rubric, criterion by criterion; bad input is named and changes nothing', async () => {
      const { instance, key } = await setup({}, true);
      const { candidateId, attemptId } = await take(instance, key, 'Rubi', [
        ['q1', 1],
        ['q4', 'I refunded them.'],
        ['q5', 'I am sorry; here is a refund.'],
      ]);
      const refusals: [Record<string, unknown>, number, RegExp][] = [
        [{ attemptId, questionId: 'q4', score: 101 }, 400, /score/],
        [{ attemptId, questionId: 'q4', score: -1 }, 400, /score/],
        [{ attemptId, questionId: 'q4', rubric: { empathy: 'Strong' } }, 400, /has no rubric/],
        [{ attemptId, questionId: 'q5', score: 80 }, 400, /has a rubric: choose a level for each criterion \(empathy, remedy\)/],
        [{ attemptId, questionId: 'q5', rubric: { empathy: 'Strong', remedy: 'Concrete', tone: 'Warm' } }, 400, /"rubric\.tone".*is not a criterion/s],
        [{ attemptId, questionId: 'q5', rubric: { empathy: 'Superb', remedy: 'Concrete' } }, 400, /Superb.{0,2} is not a level of Empathy/],
        [{ attemptId, questionId: 'q5', rubric: { empathy: 'Strong' } }, 400, /rubric\.remedy.*needs a level/s],
        [{ attemptId, questionId: 'q5', rubric: { empathy: 'Strong', remedy: 'Concrete' }, score: 10 }, 400, /the levels chosen make 100/],
        [{ attemptId, questionId: 'q9', score: 50 }, 404, /No free-text question q9/],
        [{ attemptId: '00000000-0000-4000-8000-000000000000', questionId: 'q4', score: 50 }, 404, /No such attempt/],
      ];
      for (const [payload, status, detail] of refusals) {
        const refused = await review(instance, payload);
        assert.equal(refused.statusCode, status, `${JSON.stringify(payload)}: ${refused.body}`);
        assert.match(refused.body, detail);
      }
      assert.equal(await reviewRows(attemptId), 0, 'refused reviews leave nothing');
      assert.equal((await score(instance, key, candidateId)).scoreStatus, 'PENDING');
      // An attempt still in progress: 409, nothing stored.
      const open = await take(instance, key, 'Opal', [], 'started');
      const early = await review(instance, { attemptId: open.attemptId, questionId: 'q4', score: 50 });
      assert.equal(early.statusCode, 409);
      assert.match(early.body, /still in progress/);
      assert.equal(await reviewRows(open.attemptId), 0);

      // The operator scores q4 (no rubric) through the admin API.
      const q4 = await review(instance, { attemptId, questionId: 'q4', score: 100 });
      assert.equal(q4.statusCode, 200, q4.body);
      assert.deepEqual([q4.json().finalScore, q4.json().reviewState, q4.json().scoreStatus], [100, 'settled', 'PENDING']);
      // A reviewer's form for q5 is a radio group per criterion, each level with its points.
      const rev = await person(instance, 'rex', 'reviewer');
      const queue = await rev.as.get(`/console/reviews?instance=${instance}`);
      assert.match(queue.body, /<legend>Empathy<\/legend>/);
      assert.match(
        queue.body,
        /<input type="radio" id="queue-empathy-2" name="rubric\.empathy" value="Strong" required> Strong \(3 points\)<span class="hint"> — Names the frustration/,
      );
      assert.match(queue.body, /name="rubric\.remedy" value="Concrete"/);
      assert.doesNotMatch(queue.body, /name="score"/, 'no single score for a rubric question');
      const unknownLevel = await rev.as.post('/console/reviews', { instance, attemptId, questionId: 'q5', 'rubric.empathy': 'Superb', 'rubric.remedy': 'Concrete' });
      assert.equal(unknownLevel.statusCode, 400);
      assert.equal(await reviewRows(attemptId), 1, "only the operator's review of q4");
      // Strong (3 of 3) and Missing (0 of 2): 3 of 5 points, 60.
      const scored = await rev.as.post('/console/reviews', {
        instance,
        attemptId,
        questionId: 'q5',
        'rubric.empathy': 'Strong',
        'rubric.remedy': 'Missing',
        comment: 'No remedy offered',
        next: 'queue',
      });
      assert.equal(scored.statusCode, 303, scored.body);
      const record = await score(instance, key, candidateId);
      assert.notEqual(record.scoreStatus, 'PENDING');
      assert.equal(record.categoryScores.find((c) => c.name === 'Writing')?.score, 80, 'writing: (100 + 60) / 2');
      // The report shows the levels chosen with their points, and the comment.
      const page = await rev.as.get(`/console/candidates/${candidateId}?instance=${instance}`);
      assert.match(page.body, /Empathy: Strong \(3 points\)/);
      assert.match(page.body, /Remedy: Missing \(0 points\)/);
      assert.match(page.body, /No remedy offered/);
      // Nothing waits any more (the attempt in progress is not listed until it is completed).
      assert.deepEqual((await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/reviews` })).json(), []);
    });

    it('two reviewers score blind; under agree-within their disagreement waits for a lead, who settles it', async () => {
      const { instance, key } = await setup({ reviewersPerAnswer: 2, blindReview: true, reviewAgreement: 'agree-within', reviewAgreementPoints: 20 });
      const { candidateId, attemptId } = await take(instance, key, 'Zelda', [
        ['q1', 1],
        ['q4', 'I fixed the order & called back.'],
      ]);
      const first = await person(instance, 'ann', 'reviewer');
      const second = await person(instance, 'ben', 'reviewer');
      const lead = await person(instance, 'lea', 'manager');

      const firstQueue = await first.as.get(`/console/reviews?instance=${instance}`);
      assert.equal(firstQueue.statusCode, 200);
      assert.match(firstQueue.body, /I fixed the order &amp; called back\./);
      assert.doesNotMatch(firstQueue.body, /Zelda/, 'blind: no name');
      assert.doesNotMatch(firstQueue.body, /zelda-/i, 'blind: no e-mail');
      assert.doesNotMatch(firstQueue.body, /full report/);
      const saved = await first.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '90', comment: 'First opinion: excellent', next: 'queue' });
      assert.equal(saved.statusCode, 303, saved.body);

      const secondQueue = await second.as.get(`/console/reviews?instance=${instance}`);
      assert.match(secondQueue.body, /I fixed the order &amp; called back\./);
      assert.doesNotMatch(secondQueue.body, /Zelda|zelda-/i, 'the second reviewer does not see the name');
      assert.doesNotMatch(secondQueue.body, /First opinion|90 \/ 100/, "nor the first reviewer's score and comment");
      assert.match(secondQueue.body, /1 of 2 reviews in/);
      // The candidate's page hides the first review from them too, until they submit theirs.
      const before = await second.as.get(`/console/candidates/${candidateId}?instance=${instance}`);
      assert.doesNotMatch(before.body, /First opinion|90 \/ 100/);
      assert.equal(
        (await second.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '40', comment: 'Second opinion: thin', next: 'queue' })).statusCode,
        303,
      );
      const after = await second.as.get(`/console/candidates/${candidateId}?instance=${instance}`);
      assert.match(after.body, /First opinion: excellent/, 'after submitting, the other review shows');
      assert.match(after.body, /Second opinion: thin/);

      // 90 and 40 are 50 points apart: no final score; the record stays PENDING.
      assert.equal((await score(instance, key, candidateId)).scoreStatus, 'PENDING');
      const pending = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/reviews` })).json() as { attemptId: string; state: string; reviews: number }[];
      assert.deepEqual(
        pending.map((p) => [p.attemptId, p.state, p.reviews]),
        [[attemptId, 'disagreement', 2]],
      );
      // Blind: a submitted review stands; a reviewer may not settle; a third reviewer is not needed.
      const changed = await first.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '50' });
      assert.equal(changed.statusCode, 409);
      assert.match(changed.body, /stands once submitted/);
      const bySecond = await second.as.post('/console/reviews/settle', { instance, attemptId, questionId: 'q4', score: '60' });
      assert.equal(bySecond.statusCode, 403);
      assert.match(bySecond.body, /Only a lead settles/);
      assert.equal((await lead.as.post('/console/reviews/settle', { instance, attemptId, questionId: 'q4', score: '101' })).statusCode, 400);
      assert.equal((await score(instance, key, candidateId)).scoreStatus, 'PENDING', 'refusals change nothing');
      assert.deepEqual(await events(instance), []);

      const leadQueue = await lead.as.get(`/console/reviews?instance=${instance}`);
      assert.match(leadQueue.body, /Disagreements to settle \(1\)/);
      assert.match(leadQueue.body, /First opinion: excellent/);
      assert.match(leadQueue.body, /Second opinion: thin/);
      const settled = await lead.as.post('/console/reviews/settle', { instance, attemptId, questionId: 'q4', score: '70', comment: 'Good remedy, thin detail' });
      assert.equal(settled.statusCode, 303, settled.body);
      const record = await score(instance, key, candidateId);
      assert.equal(record.scoreStatus, 'PASS');
      assert.equal(record.categoryScores.find((c) => c.name === 'Writing')?.score, 70);
      assert.deepEqual(await events(instance), ['score.finalized'], 'the record is announced once it is final');
      // The lead changes the final score: score.updated, as a re-review always did.
      assert.equal((await lead.as.post('/console/reviews/settle', { instance, attemptId, questionId: 'q4', score: '40' })).statusCode, 303);
      assert.equal((await score(instance, key, candidateId)).categoryScores.find((c) => c.name === 'Writing')?.score, 40);
      assert.deepEqual(await events(instance), ['score.finalized', 'score.updated']);
      // Closed to reviews once settled; the report shows each review and the lead's final score.
      assert.equal((await second.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '40' })).statusCode, 409);
      const report = await lead.as.get(`/console/candidates/${candidateId}?instance=${instance}`);
      assert.match(report.body, /Final: 40 \/ 100, settled by lea-/);
      assert.match(report.body, /90 \/ 100<\/strong> by ann-/);
      const audit = (await ctx().db.query<{ action: string }>(`SELECT action FROM audit_log WHERE target LIKE $1 ORDER BY id`, [`${instance}/${attemptId}/q4`])).rows.map(
        (r) => r.action,
      );
      assert.deepEqual(audit, ['review.score', 'review.score', 'review.settle', 'review.settle']);

      // The candidate's data export carries the reviews; erasure takes them.
      const exported = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/export`, payload: { candidateId } });
      const kinds = (exported.json() as { reviews: { kind: string; comment: string | null }[] }).reviews.map((r) => r.kind);
      assert.deepEqual(kinds.sort(), ['review', 'review', 'settlement']);
      assert.equal((await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId } })).statusCode, 200);
      assert.equal(await reviewRows(attemptId), 0);
      const left = await ctx().db.query('SELECT 1 FROM review_settlements WHERE attempt_id = $1', [attemptId]);
      assert.equal(left.rows.length, 0);
    });

    it("the managers' board sorts by candidate, completion and state, in pages; under blind review not by candidate", async () => {
      const { instance, key } = await setup({ reviewersPerAnswer: 1 });
      for (const name of ['Cleo', 'Abe', 'Bea']) {
        await take(instance, key, name, [['q4', `${name}'s reply.`]]);
        clock.move(60_000);
      }
      const manager = await person(instance, 'mona', 'manager');
      const board = async (query: string) => {
        const page = await manager.as.get(`/console/reviews?instance=${instance}${query}`);
        assert.equal(page.statusCode, 200, page.body);
        const section = page.body.slice(page.body.indexOf('id="review-board"'));
        return { body: section, names: [...section.matchAll(/">(\w+) Quux<\/a><\/td>/g)].map((m) => m[1]) };
      };
      assert.deepEqual((await board('')).names, ['Cleo', 'Abe', 'Bea'], 'as read: oldest completion first');
      assert.deepEqual((await board('&sort=candidate')).names, ['Abe', 'Bea', 'Cleo']);
      assert.deepEqual((await board('&sort=candidate-desc')).names, ['Cleo', 'Bea', 'Abe']);
      assert.deepEqual((await board('&sort=completed-desc')).names, ['Bea', 'Abe', 'Cleo']);
      const sorted = await board('&sort=candidate');
      assert.match(sorted.body, /aria-sort="ascending"><a class="sort" href="[^"]*sort=candidate-desc#review-board">Candidate/);
      assert.match((await board('&page=2')).body, /This page is past the last one/);
      assert.equal((await manager.as.get(`/console/reviews?instance=${instance}&sort=score`)).statusCode, 400);

      const blind = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { blindReview: true } });
      assert.equal(blind.statusCode, 200, blind.body);
      const refused = await manager.as.get(`/console/reviews?instance=${instance}&sort=candidate`);
      assert.equal(refused.statusCode, 400, 'the order of names would say who is who');
      assert.match(refused.body, /sort.*must be one of read, completed, state/s);
      assert.doesNotMatch((await board('&sort=completed')).body, /sort=candidate/, 'no header link to it either');
    });

    it('the mean of two reviews is the final score', async () => {
      const { instance, key } = await setup({ reviewersPerAnswer: 2 });
      const { candidateId, attemptId } = await take(instance, key, 'Mia', [
        ['q1', 1],
        ['q4', 'A reply.'],
      ]);
      const rev = await person(instance, 'rita', 'reviewer');
      const one = await review(instance, { attemptId, questionId: 'q4', score: 60 });
      assert.deepEqual([one.json().reviewState, one.json().finalScore, one.json().scoreStatus], ['in-review', null, 'PENDING']);
      const queue = await rev.as.get(`/console/reviews?instance=${instance}`);
      assert.match(queue.body, /Mia Quux/, 'not blind: the name shows');
      assert.match(queue.body, /60 \/ 100<\/strong> by the operator/, 'and the review so far');
      assert.equal((await rev.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '81' })).statusCode, 303);
      const record = await score(instance, key, candidateId);
      assert.equal(record.categoryScores.find((c) => c.name === 'Writing')?.score, 70.5);
      const third = await person(instance, 'tom', 'reviewer');
      assert.equal((await third.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '10' })).statusCode, 409, 'two reviews are all it takes');
      assert.equal(await reviewRows(attemptId), 2);
    });

    it("assigned answers are their assignees' alone, and an overdue assignment is reminded once as the clock passes its due time", async () => {
      const { instance, key } = await setup({ reviewDueHours: 48 });
      const { candidateId, attemptId } = await take(instance, key, 'Ada', [
        ['q1', 1],
        ['q4', 'Another reply.'],
      ]);
      const manager = await person(instance, 'max', 'manager');
      const mine = await person(instance, 'amy', 'reviewer');
      const other = await person(instance, 'bob', 'reviewer');
      assert.equal((await other.as.post('/console/reviews/assign', { instance, attemptId, questionId: 'q4', userId: other.id })).statusCode, 403, 'reviewers do not assign');
      assert.equal((await manager.as.post('/console/reviews/assign', { instance, attemptId, questionId: 'q4', userId: 'nobody' })).statusCode, 400);
      const assigned = await manager.as.post('/console/reviews/assign', { instance, attemptId, questionId: 'q4', userId: mine.id, whole: '1' });
      assert.equal(assigned.statusCode, 303, assigned.body);
      const board = await manager.as.get(`/console/reviews?instance=${instance}`);
      assert.match(board.body, new RegExp(`amy-${instance}@example.com`));
      assert.match(board.body, /<span class="badge review-awaiting">awaiting<\/span>/);

      assert.doesNotMatch((await other.as.get(`/console/reviews?instance=${instance}`)).body, /Another reply/, "not in another reviewer's queue");
      assert.match((await mine.as.get(`/console/reviews?instance=${instance}`)).body, /Another reply/);
      const refused = await other.as.post('/console/reviews', { instance, attemptId, questionId: 'q4', score: '50' });
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /assigned to other reviewers/);
      assert.equal(await reviewRows(attemptId), 0);

      const reminders = () => readdirSync(ctx().mailDir).filter((f) => readFileSync(path.join(ctx().mailDir, f), 'utf8').includes(`A review waits for you in ${instance}`)).length;
      // The overview says what needs whom: Amy has one answer waiting; nothing is overdue yet.
      const needs = async (who: typeof manager, label: string) =>
        new RegExp(`${label}</span><span class="figure">(\\d+)<`).exec((await who.as.get(`/console/?instance=${instance}`)).body)?.[1];
      assert.equal(await needs(mine, 'Waiting for your review'), '1');
      assert.equal(await needs(other, 'Waiting for your review'), '0');
      assert.equal(await needs(manager, 'Reviews past their due time'), '0');
      assert.equal(await needs(mine, 'Reviews past their due time'), undefined, 'a reviewer is not shown the instance-wide count');
      await ctx().app.jobs.runOnce('review-reminders');
      assert.equal(reminders(), 0, 'not due yet');
      clock.move(47 * 3600_000);
      await ctx().app.jobs.runOnce('review-reminders');
      assert.equal(reminders(), 0, 'still not due');
      clock.move(2 * 3600_000);
      await ctx().app.jobs.runOnce('review-reminders');
      assert.equal(reminders(), 1, 'overdue: reminded');
      // (Two days on, the earlier sessions have ended: a manager signs in now.)
      assert.equal(await needs(await person(instance, 'meg', 'manager'), 'Reviews past their due time'), '1');
      clock.move(24 * 3600_000);
      await ctx().app.jobs.runOnce('review-reminders');
      assert.equal(reminders(), 1, 'once');
      const mail = readdirSync(ctx().mailDir)
        .map((f) => readFileSync(path.join(ctx().mailDir, f), 'utf8'))
        .find((text) => text.includes(`A review waits for you in ${instance}`))!;
      assert.match(mail, new RegExp(`amy-${instance}@example.com`));
      assert.doesNotMatch(mail, /Ada/, 'the reminder does not name the candidate');
      assert.ok(candidateId);
    });
  },
  { now: clock.now },
);
