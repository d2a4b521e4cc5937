// Score reads by one candidate that arrive in one turn of the event loop are read by one statement
// (src/modules/scores/candidate-reads.ts). What each read answers must not depend on what it was
// read with: its own instance only, its own records in order, a missing record found as when read
// alone, a failure failing only the reads the statement held.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Database, Queryable } from '../src/db/database.js';
import { MOST_READS_PER_STATEMENT, ScoreReads } from '../src/modules/scores/candidate-reads.js';
import { candidatePages, firstPageStored } from '../src/modules/scores/repository.js';
import { ADMIN_TOKEN, describeEachStore, sampleAssessment } from './harness.js';
import { invite as inviteThroughApi } from './support/portal.js';

/** The score reads' statements run through `db`, by their name (`/* score_… *\/`), recorded in `names`. */
function counting(db: Database, names: string[]): Queryable {
  const named = (text: string) => {
    const name = /^\/\* (score_\w+) \*\//.exec(text)?.[1];
    if (name) names.push(name);
  };
  return {
    query: (text, params) => {
      named(text);
      return db.query(text, params);
    },
    prepared: (name: string, text: string, params: unknown[]) => {
      named(text);
      return db.prepared!(name, text, params);
    },
  } as Queryable;
}

describeEachStore('score reads gathered per turn', (ctx) => {
  let a: { name: string; id: string; key: string };
  let b: { name: string; id: string; key: string };
  /** Candidates of instance a (three invitations each) and of instance b (one each). */
  const ofA: string[] = [];
  const ofB: string[] = [];

  const instanceId = async (name: string) => (await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [name])).rows[0]!.id;
  const invite = async (instance: { name: string; key: string }, email: string, assessments: string[]) =>
    (await inviteThroughApi(ctx(), { instance: instance.name, key: instance.key }, { email, firstName: 'Ada', lastName: 'Together' }, assessments)).candidateId;
  /** What a read answers alone, by the statement a lone read runs. */
  const alone = async (instance: string, candidateId: string) => (await candidatePages(ctx().db, [{ instanceId: instance, candidateId }]))[0];

  before(async () => {
    await ctx().app.jobs.stop();
    const made = [];
    for (const prefix of ['together-a', 'together-b']) {
      const name = await ctx().instance(prefix);
      for (const slug of ['alpha', 'beta', 'gamma']) assert.equal((await ctx().publish(name, sampleAssessment(slug))).statusCode, 201);
      made.push({ name, id: await instanceId(name), key: await ctx().key([name]) });
    }
    [a, b] = made as [typeof a, typeof b];
    for (let i = 0; i < 6; i++) ofA.push(await invite(a, `a${i}@together.example`, ['alpha', 'beta', 'gamma']));
    for (let i = 0; i < 4; i++) ofB.push(await invite(b, `b${i}@together.example`, ['beta']));
    await ctx().app.jobs.runOnce('score-records');
  });

  it('reads a turn’s reads by one statement, each answered as when read alone, in its own instance only', async () => {
    const names: string[] = [];
    const reads = new ScoreReads(counting(ctx().db, names));
    const asked = [
      ...ofA.map((candidateId) => ({ instanceId: a.id, candidateId })),
      ...ofB.map((candidateId) => ({ instanceId: b.id, candidateId })),
      // Another instance's candidate, and a candidate asked for twice in one turn.
      { instanceId: b.id, candidateId: ofA[0]! },
      { instanceId: a.id, candidateId: ofB[0]! },
      { instanceId: a.id, candidateId: ofA[1]! },
      { instanceId: a.id, candidateId: '00000000-0000-4000-8000-000000000000' },
    ];
    const pages = await Promise.all(asked.map(({ instanceId, candidateId }) => reads.firstPage({ instanceIds: [instanceId], candidateIds: [candidateId] })));
    assert.deepEqual(names, ['score_by_candidate_batch']);
    for (const [i, { instanceId, candidateId }] of asked.entries()) {
      assert.deepEqual(pages[i], await alone(instanceId, candidateId), `read ${i}`);
    }
    // What those are: three records of a's candidates in invitation order, one of b's, none across instances.
    for (const page of pages.slice(0, 6)) {
      assert.equal(page!.count, 3);
      assert.deepEqual(page!.texts.map((t) => JSON.parse(t).assessmentId).sort(), ['alpha', 'beta', 'gamma']);
    }
    for (const page of pages.slice(6, 10)) assert.deepEqual([page!.count, JSON.parse(page!.texts[0]!).assessmentId], [1, 'beta']);
    assert.deepEqual(
      pages.slice(10, 12).map((p) => p!.count),
      [0, 0],
    );
    assert.deepEqual(pages[12], pages[1]);
    assert.deepEqual(pages[13], { count: 0, lastId: null, texts: [] });
  });

  it('reads a lone read by the one candidate’s statement, other reads at once, and a long turn by several statements', async () => {
    const names: string[] = [];
    const reads = new ScoreReads(counting(ctx().db, names));
    assert.deepEqual(await reads.firstPage({ instanceIds: [a.id], candidateIds: [ofA[2]!] }), await alone(a.id, ofA[2]!));
    assert.deepEqual(names, ['score_by_candidate']);
    names.length = 0;
    // Two candidates, two instances, or an assessment: not gathered.
    await Promise.all([
      reads.firstPage({ instanceIds: [a.id], candidateIds: [ofA[2]!, ofA[3]!] }),
      reads.firstPage({ instanceIds: [a.id, b.id], candidateIds: [ofA[2]!] }),
      reads.firstPage({ instanceIds: [a.id], candidateIds: [ofA[2]!], assessmentIds: ['beta'] }),
    ]);
    assert.deepEqual(names.sort(), ['score_by_assessment', 'score_by_candidate', 'score_by_candidate']);
    assert.deepEqual(
      await reads.firstPage({ instanceIds: [a.id, b.id], candidateIds: [ofA[2]!] }),
      await firstPageStored(ctx().db, { instanceIds: [a.id, b.id], candidateIds: [ofA[2]!] }),
    );
    names.length = 0;
    const many = Array.from({ length: MOST_READS_PER_STATEMENT + 20 }, (_, i) => ofA[i % ofA.length]!);
    const pages = await Promise.all(many.map((candidateId) => reads.firstPage({ instanceIds: [a.id], candidateIds: [candidateId] })));
    assert.deepEqual(names, ['score_by_candidate_batch', 'score_by_candidate_batch']);
    for (const [i, candidateId] of many.entries()) assert.deepEqual(pages[i], await alone(a.id, candidateId));
  });

  it('answers a read whose record is missing with nothing stored, as alone, and the others as usual', async () => {
    const [changed, other] = [ofA[4]!, ofA[5]!];
    // A change to what a record is made of clears its stored text until the job refills it.
    await ctx().db.query(
      `UPDATE invitations SET completion = 10 WHERE candidate_id = $1 AND assessment_id = (SELECT id FROM assessments WHERE slug = 'beta' AND instance_id = $2)`,
      [changed, a.id],
    );
    const reads = new ScoreReads(ctx().db);
    const [missing, fine] = await Promise.all([changed, other].map((candidateId) => reads.firstPage({ instanceIds: [a.id], candidateIds: [candidateId] })));
    assert.equal(missing, undefined);
    assert.equal(await alone(a.id, changed), undefined);
    assert.equal(fine!.count, 3);
    // Through the API the read is formatted instead, with the change.
    const read = await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${changed}`, headers: { 'x-api-key': a.key, instance: a.name } });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(
      read
        .json()
        .map((r: { assessmentId: string; completion: number }) => `${r.assessmentId} ${r.completion}`)
        .sort(),
      ['alpha 0', 'beta 10', 'gamma 0'],
    );
    await ctx().app.jobs.runOnce('score-records');
  });

  it('puts each read’s records in invitation order whatever order the server hands the rows in', async () => {
    const reversed = {
      query: (text: string, params?: unknown[]) => ctx().db.query(text, params),
      prepared: async (name: string, text: string, params: unknown[]) => ({ rows: (await ctx().db.prepared!(name, text, params)).rows.reverse() }),
    } as Queryable;
    const asked = ofA.slice(0, 3).map((candidateId) => ({ instanceId: a.id, candidateId }));
    const pages = await candidatePages(reversed, asked);
    for (const [i, read] of asked.entries()) assert.deepEqual(pages[i], await alone(read.instanceId, read.candidateId));
  });

  it('fails the reads a failed statement held, and only those', async () => {
    let fail = true;
    const failing = {
      query: (text: string, params?: unknown[]) => (fail ? Promise.reject(new Error('connection lost')) : ctx().db.query(text, params)),
      prepared: (name: string, text: string, params: unknown[]) => (fail ? Promise.reject(new Error('connection lost')) : ctx().db.prepared!(name, text, params)),
    } as Queryable;
    const reads = new ScoreReads(failing);
    const held = ofA.slice(0, 3).map((candidateId) => reads.firstPage({ instanceIds: [a.id], candidateIds: [candidateId] }));
    const settled = await Promise.allSettled(held);
    assert.deepEqual(
      settled.map((s) => s.status === 'rejected' && (s.reason as Error).message),
      ['connection lost', 'connection lost', 'connection lost'],
    );
    fail = false;
    assert.deepEqual(await reads.firstPage({ instanceIds: [a.id], candidateIds: [ofA[0]!] }), await alone(a.id, ofA[0]!));
  });

  it('answers concurrent API reads of two instances each with its own records, and names the statement in /metrics', async () => {
    const asked = [...ofA.map((candidateId) => ({ instance: a, candidateId })), ...ofB.map((candidateId) => ({ instance: b, candidateId })), { instance: b, candidateId: ofA[0]! }];
    // The key of each is verified (and kept) first, so that the reads below reach the handler in one turn.
    for (const instance of [a, b]) await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${ofA[0]}`, headers: { 'x-api-key': instance.key, instance: instance.name } });
    const answers = await Promise.all(
      asked.map(({ instance, candidateId }) =>
        ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': instance.key, instance: instance.name } }),
      ),
    );
    for (const [i, { instance, candidateId }] of asked.entries()) {
      assert.equal(answers[i]!.statusCode, 200, answers[i]!.body);
      const expected = (await alone(instance.id, candidateId))!;
      assert.ok(expected, `read ${i}: ${candidateId} of ${instance.name} has a missing record`);
      assert.equal(answers[i]!.body, `[${expected.texts.join(',')}]`, `read ${i}`);
    }
    assert.equal(answers.at(-1)!.body, '[]');
    const metrics = (await ctx().request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    assert.match(metrics, /db_query_duration_seconds_count\{query="score_by_candidate_batch"\} [1-9]/);
  });
});
