import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cachedSerializers } from './serialization.js';
import { validatorCompiler } from './validation.js';

const route = (schema: unknown) => ({ schema, method: 'GET', url: '/x', httpStatus: '200' });

describe('schema compilers, compiled once per schema text', () => {
  it('serializers: the same schema text, even as another object, gives the same function; another text or other shared schemas another', () => {
    const shared = { Name: { $id: 'Name', type: 'string' } };
    const compile = cachedSerializers()(shared, {});
    const schema = () => ({ type: 'object', properties: { name: { $ref: 'Name#' }, n: { type: 'integer' } } });
    const first = compile(route(schema()));
    assert.equal(compile(route(schema())), first, 'a second object of the same text');
    assert.equal(cachedSerializers()(structuredClone(shared), {})(route(schema())), first, 'another app with the same shared schemas');
    assert.equal(first({ name: 'Ada', n: 3, extra: true }), '{"name":"Ada","n":3}');

    const other = compile(route({ type: 'object', properties: { n: { type: 'string' } } }));
    assert.notEqual(other, first);
    assert.equal(other({ n: 3 }), '{"n":"3"}');
    const otherShared = cachedSerializers()({ Name: { $id: 'Name', type: 'integer' } }, {})(route(schema()));
    assert.notEqual(otherShared, first, 'the shared schemas are part of what is compiled');
    assert.equal(otherShared({ name: 7, n: 1 }), '{"name":7,"n":1}');
  });

  it('validators: one per request part and schema text, shared by every compiler; text parts keep the decimal-integer rule', () => {
    const schema = () => ({ type: 'object', properties: { limit: { type: 'integer' } } });
    const query = validatorCompiler()({ schema: schema(), httpPart: 'querystring', method: 'GET', url: '/x' }) as ((data: unknown) => boolean) & { errors?: unknown };
    assert.equal(validatorCompiler()({ schema: schema(), httpPart: 'querystring', method: 'GET', url: '/y' }), query);
    const body = validatorCompiler()({ schema: schema(), httpPart: 'body', method: 'POST', url: '/x' }) as (data: unknown) => boolean;
    assert.notEqual(body, query, 'a body is never coerced, so it has a validator of its own');

    const parsed = { limit: '10' };
    assert.equal(query(parsed), true);
    assert.deepEqual(parsed, { limit: 10 }, 'coerced from text');
    assert.equal(query({ limit: '1e3' }), false, 'only decimal digits');
    assert.equal(body({ limit: '10' }), false, 'a body is not coerced');
    assert.equal(body({ limit: 10 }), true);
  });
});
