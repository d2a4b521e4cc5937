// The read model of GET /v1/score: every change to what a record is made of clears the stored
// text in the same statement (a trigger), a read formats a cleared record itself, and the job
// refills it with the same bytes. Checked in every state an invitation passes through.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { RECORD_COLUMNS } from '../src/modules/scores/repository.js';
import { recordJson } from '../src/modules/scores/schema.js';
import type { InvitationRow } from '../src/modules/scores/format.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { takeAssessment } from './support/take.js';
import { invite as inviteThroughApi } from './support/portal.js';

describeEachStore('score records kept ready', (ctx) => {
  let instance: string;
  let key: string;
  let candidateId: string;

  const stored = async () => (await ctx().db.query<{ record: string | null }>('SELECT record FROM invitations WHERE candidate_id = $1', [candidateId])).rows.map((r) => r.record);
  const read = async () => (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).body;
  const formatted = async () =>
    (
      await ctx().db.query<InvitationRow & { id: string }>(
        `SELECT ${RECORD_COLUMNS} FROM invitations i JOIN assessments a ON a.id = i.assessment_id WHERE i.candidate_id = $1 ORDER BY i.id`,
        [candidateId],
      )
    ).rows.map((row) => recordJson(row));

  /** Invites a person to alpha; their candidate id. */
  const invite = async (email: string, firstName: string, lastName: string): Promise<string> =>
    (await inviteThroughApi(ctx(), { instance, key }, { email, firstName, lastName }, ['alpha'])).candidateId;

  /** After a change: the record was cleared, the read is the formatter's, and the refilled text is the same bytes. */
  async function check(state: string) {
    assert.deepEqual(await stored(), [null], `${state}: the change cleared the stored record`);
    const before = await read();
    assert.equal(before, `[${(await formatted()).join(',')}]`, `${state}: a cleared record is formatted on read`);
    await ctx().app.jobs.runOnce('score-records');
    assert.deepEqual(await stored(), await formatted(), `${state}: the stored text is the formatter's`);
    assert.equal(await read(), before, `${state}: the same bytes from the read model`);
  }

  it('keeps the record ready through invite, start, answers, completion, review, retake and a renamed assessment', async () => {
    // The job runs here by hand only, so that a check never races the background run.
    await ctx().app.jobs.stop();
    instance = await ctx().instance('ready');
    await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha' }));
    key = await ctx().key([instance]);
    candidateId = await invite('ready@example.com', 'Ada', 'Ready');
    await check('invited');
    await ctx().app.jobs.runOnce('score-records');
    const untouched = await stored();
    await invite('ready@example.com', 'Ada', 'Ready');
    assert.deepEqual(await stored(), untouched, 'a change to nothing in the record keeps it');

    await takeAssessment(ctx(), instance, key, { email: 'ready@example.com', firstName: 'Ada', lastName: 'Ready' });
    await check('completed, a free-text answer waiting');
    const record = JSON.parse(await read())[0];
    assert.deepEqual([record.assessmentStatus, record.scoreStatus], ['COMPLETED', 'PENDING']);

    const { rows } = await ctx().db.query<{ id: string }>(`SELECT t.id FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1`, [candidateId]);
    const reviewed = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/reviews`, payload: { attemptId: rows[0]!.id, questionId: 'q4', score: 90 } });
    assert.equal(reviewed.statusCode, 200, reviewed.body);
    await check('reviewed');
    assert.notEqual(JSON.parse(await read())[0].scoreStatus, 'PENDING');

    await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha, second edition' }));
    await check('assessment renamed');
    assert.equal(JSON.parse(await read())[0].assessmentName, 'Alpha, second edition');

    const retake = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/${candidateId}/invitations/alpha/retake`, payload: { email: false } });
    assert.equal(retake.statusCode, 200, retake.body);
    await check('retake');
    assert.equal(JSON.parse(await read())[0].assessmentStatus, 'INVITED');
  });

  it('pages and the whole list read the same texts, stored or not', async () => {
    // A page, the whole list, and reads by assessment and by candidate (whose first page is read as
    // stored when every record of it is, and row by row, formatted where missing, otherwise).
    const urls = ['/v1/score?limit=1', '/v1/score', '/v1/score?assessmentIds=alpha', '/v1/score?assessmentIds=alpha,nothing', `/v1/score?candidateIds=${candidateId}`];
    const readAll = () => Promise.all(urls.map((url) => ctx().request({ method: 'GET', url, headers: { 'x-api-key': key, instance } })));
    await ctx().db.query('UPDATE invitations SET record = NULL WHERE instance_id = (SELECT id FROM instances WHERE name = $1)', [instance]);
    const cold = await readAll();
    await ctx().app.jobs.runOnce('score-records');
    const warm = await readAll();
    for (const [i, url] of urls.entries()) {
      assert.equal(warm[i]!.body, cold[i]!.body, url);
      assert.equal(JSON.parse(warm[i]!.body).length, 1, url);
      assert.equal(warm[i]!.headers['content-type'], 'application/json; charset=utf-8');
    }
  });

  it('reads a few candidates a row per record and a long list joined, the same texts either way, one record missing or none', async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `many-${i}@example.com`);
    const ids: string[] = [];
    for (const email of emails) ids.push(await invite(email, 'Many', 'Candidates'));
    await ctx().app.jobs.runOnce('score-records');
    // One candidate, two (a row per record) and all twelve (more than a few: joined by PostgreSQL).
    const lists = [ids.slice(0, 1), ids.slice(0, 2), ids];
    const readAll = () =>
      Promise.all(lists.map((list) => ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${list.join(',')}`, headers: { 'x-api-key': key, instance } })));
    const warm = await readAll();
    for (const [i, list] of lists.entries()) {
      assert.equal(warm[i]!.statusCode, 200, warm[i]!.body);
      assert.deepEqual(
        JSON.parse(warm[i]!.body).map((r: { candidateId: string }) => r.candidateId),
        list,
        'every candidate once, in the order they were invited',
      );
    }
    // The first candidate's record cleared (just changed): each read formats it and returns the same bytes.
    await ctx().db.query('UPDATE invitations SET record = NULL WHERE candidate_id = $1', [ids[0]]);
    const cold = await readAll();
    for (const [i] of lists.entries()) assert.equal(cold[i]!.body, warm[i]!.body, `list ${i + 1}`);
  });
  it('reads one id as a list of one, trimmed, a repeated id once, and refuses an empty element wherever it is', async () => {
    const [first, second] = [await invite('list-a@example.com', 'List', 'A'), await invite('list-b@example.com', 'List', 'B')];
    const get = (query: string) => ctx().request({ method: 'GET', url: `/v1/score?${query}`, headers: { 'x-api-key': key, instance } });
    const candidates = async (query: string) => {
      const response = await get(query);
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      return JSON.parse(response.body).map((r: { candidateId: string }) => r.candidateId);
    };
    assert.deepEqual(await candidates(`candidateIds=${first}`), [first]);
    assert.deepEqual(await candidates(`candidateIds=%20${first}%20`), [first], 'one id, padded');
    assert.deepEqual(await candidates(`candidateIds=${second},${first},${second}`), [first, second], 'each candidate once, in the order invited');
    assert.deepEqual(await candidates('candidateIds=not-a-uuid'), [], 'an unknown id matches nothing');
    for (const [query, detail] of [
      ['candidateIds=', 'element 1 is empty'],
      ['candidateIds=%20', 'element 1 is empty'],
      [`candidateIds=${first},`, 'element 2 is empty'],
      [`candidateIds=${first},%20,${second}`, 'element 2 is empty'],
      ['assessmentIds=', 'element 1 is empty'],
    ]) {
      const response = await get(query!);
      assert.equal(response.statusCode, 400, query);
      assert.deepEqual(
        response.json().errors.map((e: { name: string; detail: string }) => [e.name, e.detail]),
        [[query!.split('=')[0], detail]],
        query,
      );
    }
  });
});
