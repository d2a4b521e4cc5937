// Several nodes on one PostgreSQL: real server processes started together share the database
// with no difference a client can see.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { figure, freshPostgresDatabase, startNode, type Node } from './support/server.js';

describe('two nodes on one PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  const nodes: Node[] = [];

  before(async () => {
    database = await freshPostgresDatabase();
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await database.drop();
  });

  it('apply each migration once when they start together on an empty database', async () => {
    const began = Date.now();
    nodes.push(...(await Promise.all([startNode(database.url), startNode(database.url)])));
    figure(`two nodes started together on an empty database, both ready in ${Date.now() - began} ms`);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number; n: string }>('SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version');
      assert.ok(rows.length >= 3);
      assert.ok(rows.every((r) => r.n === '1'), JSON.stringify(rows));
      figure(`migrations applied once each across two nodes: ${rows.length} versions, ${rows.length} rows`);
    } finally {
      await client.end();
    }
  });
});
