// One budget across nodes: two server processes sharing PostgreSQL and Redis count a key's
// requests together, so the key gets at most its budget in a window, whichever node it asks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sampleAssessment } from '../harness.js';
import { admin, figure, freshPostgresDatabase, startNode, tenant, type Node } from './support/server.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUDGET = 40;
const REQUESTS = 120;

describe('a request budget shared by two nodes through Redis', () => {
  let database: { url: string; drop(): Promise<void> };
  const nodes: Node[] = [];

  before(async () => {
    database = await freshPostgresDatabase();
    nodes.push(await startNode(database.url, { REDIS_URL }));
    nodes.push(await startNode(database.url, { REDIS_URL }));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await database.drop();
  });

  it(`gives a key with a budget of ${BUDGET}/min at most ${BUDGET} successes across both nodes`, async () => {
    const { instance, keyId } = await tenant(nodes[0]!, 'budget', (id) => sampleAssessment(id));
    // A key of its own with the budget under test (the tenant's key has the service default).
    const created = await admin(nodes[0]!, 'POST', '/keys', { instances: [instance], rateLimit: BUDGET });
    assert.equal(created.status, 201);
    const key = (created.json as { key: string }).key;
    assert.notEqual((created.json as { id: string }).id, keyId);

    const results: { node: number; status: number; retryAfter: string | null; remaining: string | null }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < REQUESTS) {
          const i = next++;
          const node = i % 2;
          const response = await fetch(`${nodes[node]!.url}/v1/score`, { headers: { 'x-api-key': key } });
          await response.arrayBuffer();
          results.push({ node, status: response.status, retryAfter: response.headers.get('retry-after'), remaining: response.headers.get('ratelimit') });
        }
      }),
    );
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    figure(
      `budget ${BUDGET}/min over 2 nodes: ${REQUESTS} requests -> ${ok.length} x 200 (node 1: ${ok.filter((r) => r.node === 0).length}, node 2: ${ok.filter((r) => r.node === 1).length}), ${limited.length} x 429`,
    );
    assert.equal(ok.length + limited.length, REQUESTS, 'only 200 and 429');
    assert.equal(ok.length, BUDGET, 'exactly the budget succeeded, counted across both nodes');
    assert.ok(ok.some((r) => r.node === 0) && ok.some((r) => r.node === 1), 'both nodes served');
    assert.ok(
      limited.every((r) => r.retryAfter !== null && /^\d+$/.test(r.retryAfter)),
      'every 429 says when to retry',
    );
    assert.ok(
      results.every((r) => r.remaining !== null && /^"default";r=\d+;t=\d+$/.test(r.remaining)),
      'every answer carries the RateLimit field',
    );
  });
});
