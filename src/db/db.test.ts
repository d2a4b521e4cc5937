import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../app.js';
import { freshPostgresDatabase, storeKinds } from '../../test/harness.js';
import { openDatabase } from './database.js';
import { loadMigrations, migrate } from './migrate.js';

describe('migrations', () => {
  it('are numbered files applied in order', () => {
    const migrations = loadMigrations();
    assert.ok(migrations.length >= 1);
    assert.deepEqual(migrations.map((m) => m.version), [...migrations.map((m) => m.version)].sort((a, b) => a - b));
    assert.equal(new Set(migrations.map((m) => m.version)).size, migrations.length);
  });

  it('apply once on PGlite, and again is a no-op', async () => {
    const db = await openDatabase({});
    try {
      assert.deepEqual(await migrate(db), loadMigrations().map((m) => m.name));
      assert.deepEqual(await migrate(db), []);
    } finally {
      await db.close();
    }
  });

  it('a failing migration leaves nothing half-applied', async () => {
    const db = await openDatabase({});
    try {
      await assert.rejects(
        migrate(db, [{ version: 1, name: '0001-bad.sql', sql: 'CREATE TABLE half (id int); SELECT * FROM no_such_table;' }]),
        /migration 0001-bad.sql failed/,
      );
      const { rows } = await db.query(`SELECT to_regclass('half') AS t, (SELECT count(*)::int FROM schema_migrations) AS n`);
      assert.deepEqual(rows, [{ t: null, n: 0 }]);
    } finally {
      await db.close();
    }
  });

  if (storeKinds().some((k) => k.name === 'postgres')) {
    it('several nodes starting together on PostgreSQL apply each migration once', async () => {
      const fresh = await freshPostgresDatabase();
      const nodes = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ databaseUrl: fresh.url, poolSize: 2 })));
      try {
        const applied = await Promise.all(nodes.map((db) => migrate(db)));
        assert.equal(applied.flat().length, loadMigrations().length, `applied: ${JSON.stringify(applied)}`);
        const { rows } = await nodes[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
        assert.equal(rows[0]!.n, loadMigrations().length);
      } finally {
        await Promise.all(nodes.map((db) => db.close()));
        await fresh.drop();
      }
    });

    it('answers 503 with Retry-After, quickly, when PostgreSQL cannot be reached', async () => {
      // Nothing listens on port 1: every connection is refused at once.
      const db = await openDatabase({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', poolSize: 1 });
      const app = await buildApp({
        config: { publicUrl: 'http://x', adminToken: 'admin-token-admin-token', keyCacheMs: 0 },
        db,
        mailer: { description: '', send: async () => ({ status: 'FAILED', detail: '' }), close() {} },
      });
      try {
        const started = Date.now();
        const score = await app.inject({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': `ack_${'a'.repeat(43)}` } });
        assert.equal(score.statusCode, 503);
        assert.equal(score.headers['retry-after'], '5');
        assert.equal(score.json().type, 'urn:assessment-connect:problem:unavailable');
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 503);
        assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
        assert.ok(Date.now() - started < 5000, 'no hanging');
      } finally {
        await app.close();
        await db.close();
      }
    });
  }
});
