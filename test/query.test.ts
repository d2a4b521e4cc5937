// Strict query strings on /v1: an unknown parameter is a 400 problem naming it (with a
// suggestion when a declared one is close), and the request does nothing.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { before, it } from 'node:test';
import { suggest } from '../src/http/strict-query.js';
import { describeEachStore, sampleAssessment } from './harness.js';

interface FieldError {
  in: string;
  name: string;
  detail: string;
}

describeEachStore('unknown query parameters on /v1', (ctx) => {
  let instance: string;
  let key: string;
  before(async () => {
    instance = await ctx().instance('query');
    assert.equal((await ctx().publish(instance, sampleAssessment('strict'))).statusCode, 201);
    key = await ctx().key([instance]);
  });

  it('refuses sendinvite=true (wrong case) with a suggestion, and invites and e-mails nobody', async () => {
    const mailBefore = readdirSync(ctx().mailDir).length;
    const response = await ctx().request({
      method: 'POST',
      url: '/v1/invite?sendinvite=true',
      headers: { 'x-api-key': key, instance },
      payload: { email: 'typo@example.com', firstName: 'Ty', lastName: 'Po', assessments: ['strict'] },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    const errors = response.json().errors as FieldError[];
    assert.deepEqual(
      errors.map((e) => [e.in, e.name]),
      [['query', 'sendinvite']],
    );
    assert.match(errors[0]!.detail, /did you mean `sendInvite`\?/);
    const { rows } = await ctx().db.query<{ n: number }>(`SELECT count(*)::int AS n FROM candidates WHERE email = 'typo@example.com'`);
    assert.equal(rows[0]!.n, 0, 'nothing written');
    assert.equal(readdirSync(ctx().mailDir).length, mailBefore, 'nothing sent');
  });

  it('refuses candidateIds[]=… instead of answering every record', async () => {
    const response = await ctx().request({ method: 'GET', url: '/v1/score?candidateIds[]=00000000-0000-0000-0000-000000000000', headers: { 'x-api-key': key } });
    assert.equal(response.statusCode, 400, response.body);
    const errors = response.json().errors as FieldError[];
    assert.deepEqual(
      errors.map((e) => [e.in, e.name]),
      [['query', 'candidateIds[]']],
    );
    assert.match(errors[0]!.detail, /did you mean `candidateIds`\?/);
  });

  it('names every unknown parameter on every /v1 route, and keeps accepting the declared ones', async () => {
    const cases: [string, string, string[]][] = [
      ['GET', '/v1/assessment?verbose=1', ['verbose']],
      ['GET', '/v1/score?limt=5&assessmentId=strict', ['limt', 'assessmentId']],
      ['GET', '/v1/score?limit=5&cursor=abc&extra=&other=1', ['extra', 'other']],
      ['POST', '/v1/invite?sendInvite=true&send=1', ['send']],
    ];
    for (const [method, url, names] of cases) {
      const response = await ctx().request({ method: method as 'GET', url, headers: { 'x-api-key': key, instance }, payload: method === 'POST' ? {} : undefined });
      assert.equal(response.statusCode, 400, url);
      assert.deepEqual(
        (response.json().errors as FieldError[]).map((e) => e.name),
        names,
        url,
      );
    }
    const scores = await ctx().request({ method: 'GET', url: '/v1/score?limit=5&assessmentIds=strict', headers: { 'x-api-key': key } });
    assert.equal(scores.statusCode, 200);
    const assessments = await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } });
    assert.equal(assessments.statusCode, 200);
  });

  it('checks the key first: an unknown parameter with a bad key is 401', async () => {
    const response = await ctx().request({ method: 'GET', url: '/v1/score?nonsense=1', headers: { 'x-api-key': 'ack_wrong' } });
    assert.equal(response.statusCode, 401);
  });

  it('says so in the OpenAPI description of every /v1 operation', async () => {
    const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { description?: string }>> };
    const v1 = Object.entries(doc.paths).filter(([path]) => path.startsWith('/v1/'));
    assert.ok(v1.length >= 3);
    for (const [path, operations] of v1)
      for (const [method, op] of Object.entries(operations)) assert.match(op.description ?? '', /Query parameters are strict/, `${method} ${path}`);
  });
});

it('suggests the close declared parameter, and nothing for a far one', () => {
  assert.equal(suggest('sendinvite', ['sendInvite']), 'sendInvite');
  assert.equal(suggest('candidateIds[]', ['candidateIds', 'assessmentIds']), 'candidateIds');
  assert.equal(suggest('candidateId', ['candidateIds', 'assessmentIds']), 'candidateIds');
  assert.equal(suggest('limt', ['limit', 'cursor']), 'limit');
  assert.equal(suggest('foo', ['limit', 'cursor']), undefined);
  assert.equal(suggest('x', []), undefined);
});
