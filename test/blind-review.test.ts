// Blind review is a role of the page, not a setting of one screen: in an instance with blind
// review, a reviewer meets candidates only as the review queue shows them (an opaque label per
// answer). Section by section: the navigation, the candidates list and its search, the CSV,
// compare, saved searches, invitations, the assessments' feedback comments, a candidate's page
// (refused until the reviewer's own reviews of that candidate are in, then with other candidates
// unnamed in the similar answers), while owners and managers see everything. On both stores.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { answerLabel } from '../src/modules/reviews/blind.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { invite as inviteThroughApi } from './support/portal.js';
import { takeWithLink } from './support/take.js';

const ANSWER =
  'I listened to the customer without interrupting, apologised once for the late parcel, checked the courier tracking while we spoke, ' +
  'offered a replacement by express delivery at no cost, and called back the next morning to confirm that it had arrived safely.';

describeEachStore('blind review across the console', (ctx) => {
  let instance: string;
  let zelda: { candidateId: string; attemptId: string };
  let yuri: { candidateId: string; attemptId: string };
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  /** Anything that names either candidate. */
  const NAMES = /Zelda|Quux|zelda\.|Yuri|Orlov|yuri\./i;

  before(async () => {
    instance = await ctx().instance('blind');
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    const patched = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { blindReview: true } });
    assert.equal(patched.statusCode, 200, patched.body);
    const key = await ctx().key([instance]);
    const take = async (firstName: string, lastName: string) => {
      const invite = await inviteThroughApi(ctx(), { instance, key }, { email: `${firstName.toLowerCase()}.${lastName.toLowerCase()}@example.com`, firstName, lastName }, [
        'alpha',
      ]);
      await takeWithLink(
        ctx(),
        invite.link,
        undefined,
        [
          ['q1', 1],
          ['q4', ANSWER],
        ],
        { feedback: { rating: '4', comment: `Fair questions, says ${firstName}` } },
      );
      const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/candidates/${invite.candidateId}/attempts` })).json() as {
        attemptId: string;
      }[];
      return { candidateId: invite.candidateId, attemptId: attempts[0]!.attemptId };
    };
    zelda = await take('Zelda', 'Quux');
    yuri = await take('Yuri', 'Orlov');
    const made = await consoleUser(ctx(), `rev-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `rev-${instance}@example.com`, made.password);
    const boss = await consoleUser(ctx(), `boss-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `boss-${instance}@example.com`, boss.password);
  });

  const refusedBlind = (response: LightMyRequestResponse, what: string) => {
    assert.equal(response.statusCode, 403, `${what}: ${response.statusCode}`);
    assert.doesNotMatch(response.body, NAMES, `${what} names no candidate`);
    assert.match(response.body, /blind review/i, `${what} says why`);
  };

  it('the navigation leaves out the sections that name candidates, and the overview names none', async () => {
    const overview = await reviewer.get(`/console/?instance=${instance}`);
    assert.equal(overview.statusCode, 200);
    assert.doesNotMatch(overview.body, NAMES);
    assert.doesNotMatch(overview.body, /href="\/console\/candidates|href="\/console\/invitations/);
    assert.match(overview.body, /href="\/console\/reviews/);
    const managers = await manager.get(`/console/?instance=${instance}`);
    assert.match(managers.body, /href="\/console\/candidates\?instance=/, 'a manager keeps the section');
  });

  it('the review queue shows an opaque label per answer, never a name', async () => {
    const queue = await reviewer.get(`/console/reviews?instance=${instance}`);
    assert.equal(queue.statusCode, 200);
    assert.doesNotMatch(queue.body, NAMES);
    const labels = [zelda, yuri].map((c) => answerLabel({ attemptId: c.attemptId, questionId: 'q4' }));
    assert.ok(
      labels.some((l) => queue.body.includes(l)),
      'the current answer carries its label',
    );
    assert.notEqual(labels[0], labels[1]);
    assert.match(labels[0]!, /^Answer [0-9A-F]{6}$/);
  });

  it('the candidates list, its search and its CSV are refused; a manager gets them', async () => {
    refusedBlind(await reviewer.get(`/console/candidates?instance=${instance}`), 'the list');
    refusedBlind(await reviewer.get(`/console/candidates?instance=${instance}&q=Zelda`), 'a search by name');
    refusedBlind(await reviewer.get(`/console/candidates?q=Zelda`), 'a search without an instance');
    refusedBlind(await reviewer.get(`/console/candidates.csv?instance=${instance}`), 'the CSV');
    const list = await manager.get(`/console/candidates?instance=${instance}&q=Zelda`);
    assert.equal(list.statusCode, 200);
    assert.match(list.body, /Zelda/);
    const csv = await manager.get(`/console/candidates.csv?instance=${instance}`);
    assert.match(csv.body, /zelda\.quux@example\.com/);
  });

  it('compare, saved searches and invitations are refused', async () => {
    refusedBlind(await reviewer.get(`/console/compare?instance=${instance}&ids=${zelda.candidateId},${yuri.candidateId}`), 'compare');
    refusedBlind(await reviewer.post('/console/searches', { instance, name: 'Zeldas', q: 'Zelda' }), 'saving a search');
    refusedBlind(await reviewer.get(`/console/invitations?instance=${instance}`), 'invitations');
    assert.equal((await manager.get(`/console/invitations?instance=${instance}`)).statusCode, 200);
  });

  it("the assessments' feedback comments name no candidate for a reviewer, and do for a manager", async () => {
    const page = await reviewer.get(`/console/assessments?instance=${instance}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Fair questions, says/);
    assert.doesNotMatch(page.body, /href="\/console\/candidates\//);
    assert.match((await manager.get(`/console/assessments?instance=${instance}`)).body, /href="\/console\/candidates\/[^"]+">Zelda Quux</);
  });

  it("a candidate's page opens only once the reviewer's own reviews of them are in, and then names no other candidate", async () => {
    const page = `/console/candidates/${zelda.candidateId}?instance=${instance}`;
    refusedBlind(await reviewer.get(page), "a candidate's page before any review");
    refusedBlind(await reviewer.get(`/console/candidates/${zelda.candidateId}/pdf/alpha?instance=${instance}`), 'its PDF before any review');
    refusedBlind(await reviewer.get(`/console/candidates/not-a-uuid?instance=${instance}`), 'a malformed id');
    const saved = await reviewer.post('/console/reviews', { instance, attemptId: zelda.attemptId, questionId: 'q4', score: '80', next: 'queue' });
    assert.equal(saved.statusCode, 303, saved.body);
    // Yuri's answer still waits in the reviewer's queue: Yuri's page stays shut, Zelda's opens.
    refusedBlind(await reviewer.get(`/console/candidates/${yuri.candidateId}?instance=${instance}`), 'the page of a candidate still to review');
    const opened = await reviewer.get(page);
    assert.equal(opened.statusCode, 200, opened.body);
    assert.match(opened.body, /Zelda Quux/);
    assert.match(opened.body, /Similar answers/);
    assert.match(opened.body, /another candidate/);
    assert.doesNotMatch(opened.body, /Yuri|Orlov|yuri\./i, 'the other candidate of the similar answers stays unnamed');
    const pdf = await reviewer.get(`/console/candidates/${zelda.candidateId}/pdf/alpha?instance=${instance}`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    // A manager sees the other candidate by name.
    assert.match((await manager.get(page)).body, /Yuri Orlov/);
  });
});
