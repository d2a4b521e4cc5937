// Nesting depth of JSON bodies: bounded for every route (400 problem naming the limit, nothing
// written), and the idempotency fingerprint's canonical JSON never recurses.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { MAX_JSON_DEPTH, jsonDepth, loneSurrogateAt } from '../src/http/json-body.js';
import { canonicalJson } from '../src/modules/invitations/idempotency.js';
import { describeEachStore, sampleAssessment } from './harness.js';

/** A value nested `levels` deep in arrays and objects, counting the outermost as level 1. */
function nested(levels: number): unknown {
  let value: unknown = 'core';
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { k: value };
  return value;
}

describe('JSON nesting depth', () => {
  it('counts levels without parsing, ignoring brackets inside strings', () => {
    assert.equal(jsonDepth('1'), 0);
    assert.equal(jsonDepth('{}'), 1);
    assert.equal(jsonDepth('[[{"a":[1]}]]'), 4);
    assert.equal(jsonDepth('{"a":"[[[[{{{{\\"]]"}'), 1);
    assert.equal(jsonDepth(JSON.stringify(nested(100))), 100);
    assert.equal(jsonDepth('"\\\\"[['), 2, 'an escaped backslash ends before the quote');
  });

  it('finds half a surrogate pair alone in any string, key or value, and names where', () => {
    assert.equal(loneSurrogateAt({ a: ['ok', 'Smile \ud83d\ude42', { b: 1 }] }), null);
    assert.equal(loneSurrogateAt('\udfff'), '#');
    assert.equal(loneSurrogateAt({ a: [1, { 'x/y~': 'ends \ud83d' }] }), '#/a/1/x~1y~0');
    assert.equal(loneSurrogateAt({ ok: 1, ['\ude42']: 2 }), '#/\ude42');
    assert.equal(loneSurrogateAt({ first: '\udc00', second: '\udc00' }), '#/first', 'the first in document order');
  });

  it('writes canonical JSON of 100,000 levels without overflowing the stack, as JSON.stringify does for sorted keys', () => {
    const levels = 100_000;
    let expected = '"core"';
    for (let i = 0; i < levels; i++) expected = i % 2 ? `[${expected}]` : `{"k":${expected}}`;
    assert.equal(canonicalJson(nested(levels)), expected);
    assert.equal(canonicalJson({ b: [undefined, 1, { d: 1, c: [] }], a: {} }), '{"a":{},"b":[null,1,{"c":[],"d":1}]}');
  });
});

describeEachStore('JSON bodies nested too deep', (ctx) => {
  let instance: string;
  let key: string;
  before(async () => {
    instance = await ctx().instance('deep');
    assert.equal((await ctx().publish(instance, sampleAssessment('deep'))).statusCode, 201);
    key = await ctx().key([instance]);
  });
  const invite = (extra: unknown | string, email: string) =>
    ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': key, instance, 'idempotency-key': `deep-${email}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ email, firstName: 'Dee', lastName: 'Pest', assessments: ['deep'], extra: 0 }).replace(
        '"extra":0',
        `"extra":${typeof extra === 'string' ? extra : JSON.stringify(extra)}`,
      ),
    });
  const candidates = async (email: string) => (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates WHERE email = $1', [email])).rows[0]!.n;

  it(`answers an invite with an Idempotency-Key nested 5,000 levels deep with a 400 problem, and writes nothing`, async () => {
    const email = `deep5000-${ctx().store}@example.com`;
    const response = await invite('['.repeat(5000) + ']'.repeat(5000), email);
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = response.json();
    assert.equal(problem.type, 'urn:assessment-connect:problem:validation-failed');
    assert.equal(response.headers.connection, 'close', 'the unread rest of the body cannot be followed by another request');
    assert.match(problem.detail, new RegExp(`nested more than ${MAX_JSON_DEPTH} levels`));
    assert.deepEqual(
      problem.errors.map((e: { in: string; name: string }) => [e.in, e.name]),
      [['body', '(body)']],
    );
    assert.equal(await candidates(email), 0);
    const { rows } = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency_keys WHERE idempotency_key = $1', [`deep-${email}`]);
    assert.equal(rows[0]!.n, 0, 'no idempotency record');
  });

  it(`accepts exactly ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}`, async () => {
    const ok = `deep-ok-${ctx().store}@example.com`;
    // The body object is level 1; `extra` adds its own levels below it.
    const accepted = await invite(nested(MAX_JSON_DEPTH - 1), ok);
    assert.equal(accepted.statusCode, 200, accepted.body);
    assert.equal(await candidates(ok), 1);
    const tooDeep = `deep-no-${ctx().store}@example.com`;
    assert.equal((await invite(nested(MAX_JSON_DEPTH), tooDeep)).statusCode, 400);
    assert.equal(await candidates(tooDeep), 0);
  });

  it('bounds every JSON body: admin and portal API too', async () => {
    const deep = JSON.stringify({ name: 'x', n: nested(200) });
    for (const url of ['/admin/v1/instances', '/portal/api/session']) {
      const response = await ctx().request({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: deep });
      assert.equal(response.statusCode, 400, `${url} ${response.body}`);
      assert.match(response.json().detail, /nested more than/);
    }
  });

  it('refuses text with half a surrogate pair escaped alone (400, naming the field) and writes nothing', async () => {
    const email = `surrogate-${ctx().store}@example.com`;
    const response = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
      payload: `{"email":"${email}","firstName":"Zo\\udfff","lastName":"Pest","assessments":["deep"]}`,
    });
    assert.equal(response.statusCode, 400, response.body);
    const problem = response.json();
    assert.match(problem.detail, /not Unicode/);
    assert.deepEqual(
      problem.errors.map((e: { in: string; name: string; pointer: string }) => [e.in, e.name, e.pointer]),
      [['body', 'firstName', '#/firstName']],
    );
    assert.equal(await candidates(email), 0);
    const whole = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
      payload: `{"email":"${email}","firstName":"Zo\\u00eb \\ud83d\\ude42","lastName":"Pest","assessments":["deep"]}`,
    });
    assert.equal(whole.statusCode, 200, whole.body);
    const { rows } = await ctx().db.query<{ first: string }>('SELECT first_name AS first FROM candidates WHERE email = $1', [email]);
    assert.deepEqual(rows, [{ first: 'Zoë 🙂' }]);
  });

  it('says so in the OpenAPI description of every operation with a body', async () => {
    const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { description?: string; requestBody?: unknown }>> };
    const withBody = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .filter((op) => op.requestBody !== undefined);
    assert.ok(withBody.length >= 3);
    for (const op of withBody) assert.match(op.description ?? '', new RegExp(`at most ${MAX_JSON_DEPTH} levels deep`));
  });
});
