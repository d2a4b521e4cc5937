// Cross-cutting HTTP behaviour: the problem envelope, request ids, probes, the OpenAPI document.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore } from './harness.js';
import { DEMO_INSTANCE } from '../src/seed.js';

describeEachStore('HTTP envelope', (ctx) => {
  it('answers unknown routes with a 404 problem and the request id', async () => {
    const response = await ctx().request({ method: 'GET', url: '/v2/score' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    const problem = response.json();
    assert.deepEqual(Object.keys(problem).sort(), ['detail', 'requestId', 'status', 'title', 'type']);
    assert.equal(problem.requestId, response.headers['x-request-id']);
  });

  it('keeps a sane client request id and replaces an unsafe one', async () => {
    const kept = await ctx().request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-abc.123' } });
    assert.equal(kept.headers['x-request-id'], 'client-abc.123');
    const replaced = await ctx().request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'evil\u0000id<script>' } });
    assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('serves the probes', async () => {
    assert.deepEqual((await ctx().request({ method: 'GET', url: '/healthz' })).json(), { status: 'ok' });
    assert.deepEqual((await ctx().request({ method: 'GET', url: '/readyz' })).json(), { status: 'ok' });
  });

  it('pre-fills the interactive docs with the demo instance that a fresh start makes, so that Try it out works as shipped', async () => {
    const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { name: string; schema?: { examples?: unknown[] }; example?: unknown }[] }>>;
    };
    const examples = Object.values(doc.paths).flatMap((path) =>
      Object.values(path).flatMap((operation) =>
        (operation.parameters ?? []).filter((p) => p.name === 'instance').flatMap((p) => [...(p.example === undefined ? [] : [p.example]), ...(p.schema?.examples ?? [])]),
      ),
    );
    assert.ok(examples.length > 10, 'the instance header and path parameters have examples');
    assert.deepEqual([...new Set(examples)], [DEMO_INSTANCE], 'the examples name the instance a fresh start makes');
  });

  it('publishes an OpenAPI 3.1 document covering the three operations, and the docs page', async () => {
    const response = await ctx().request({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const doc = response.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0');
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'X-API-Key',
      description: doc.components.securitySchemes.apiKey.description,
    });
    const score = doc.paths['/v1/score'].get;
    assert.deepEqual(score.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`).sort(), [
      'header:instance',
      'query:assessmentIds',
      'query:candidateIds',
      'query:cursor',
      'query:limit',
    ]);
    const record = score.responses['200'].content['application/json'].schema.items;
    const resolved = record.$ref ? doc.components.schemas[record.$ref.split('/').pop()] : record;
    assert.equal(resolved.additionalProperties, false);
    assert.equal(resolved.required.length, 12);
    const invite = doc.paths['/v1/invite'].post;
    assert.ok(invite.requestBody.content['application/json'].schema);
    assert.ok(invite.parameters.some((p: { name: string; in: string; required?: boolean }) => p.name === 'instance' && p.in === 'header' && p.required));
    assert.ok(invite.responses['415']);
    assert.ok(doc.paths['/v1/assessment'].get.responses['200']);
    const docs = await ctx().request({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger/i);
  });

  it('shows no internals when something unexpected fails', async () => {
    // A query against a dropped table stands in for any unexpected failure.
    const instance = await ctx().instance();
    const key = await ctx().key([instance]);
    await ctx().db.query('ALTER TABLE invitations RENAME TO invitations_away');
    try {
      const response = await ctx().request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': key } });
      assert.equal(response.statusCode, 500);
      const problem = response.json();
      assert.equal(problem.type, 'urn:assessment-connect:problem:internal');
      assert.ok(!/invitations|relation|stack|at /.test(response.body), response.body);
    } finally {
      await ctx().db.query('ALTER TABLE invitations_away RENAME TO invitations');
    }
  });
});
