import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../app.js';
import { freshPostgresDatabase, storeKinds } from '../../test/harness.js';
import { openMigratedPglite } from '../../test/support/templates.js';
import { openDatabase } from './database.js';
import { loadMigrations, migrate } from './migrate.js';

describe('migrations', () => {
  it('are numbered files applied in order', () => {
    const migrations = loadMigrations();
    assert.ok(migrations.length >= 1);
    assert.deepEqual(
      migrations.map((m) => m.version),
      [...migrations.map((m) => m.version)].sort((a, b) => a - b),
    );
    assert.equal(new Set(migrations.map((m) => m.version)).size, migrations.length);
  });

  it('apply once on PGlite, and again is a no-op', async () => {
    const db = await openDatabase({});
    try {
      assert.deepEqual(
        await migrate(db),
        loadMigrations().map((m) => m.name),
      );
      assert.deepEqual(await migrate(db), []);
    } finally {
      await db.close();
    }
  });

  it('a failing migration leaves nothing half-applied', async () => {
    // On a migrated store (no initdb to wait for): the next migration fails half-way.
    const db = await openMigratedPglite();
    try {
      await assert.rejects(
        migrate(db, [{ version: 9999, name: '9999-bad.sql', sql: 'CREATE TABLE half (id int); SELECT * FROM no_such_table;' }]),
        /migration 9999-bad.sql failed/,
      );
      const { rows } = await db.query(`SELECT to_regclass('half') AS t, (SELECT count(*)::int FROM schema_migrations) AS n`);
      assert.deepEqual(rows, [{ t: null, n: loadMigrations().length }]);
    } finally {
      await db.close();
    }
  });

  if (storeKinds().some((k) => k.name === 'postgres')) {
    it('several nodes starting together on PostgreSQL apply each migration once', async () => {
      const fresh = await freshPostgresDatabase({ migrated: false });
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

describe('prepared reads', () => {
  for (const kind of storeKinds()) {
    it(`run with their values, keep their plan, and never see another caller's open transaction [${kind.name}]`, async () => {
      const { db, drop } = await kind.open();
      try {
        await db.query('CREATE TABLE prepared_probe (id bigint PRIMARY KEY, tags uuid[], note text)');
        await db.query(`INSERT INTO prepared_probe VALUES (1, ARRAY['9d7e6c95-b46b-46da-979a-dca23f37f114']::uuid[], 'one'), (2, '{}', NULL)`);
        const read = (id: string | number) =>
          db.prepared!<{ id: string; tags: string[]; note: string | null }>('probe', 'SELECT id, tags, note FROM prepared_probe WHERE id = $1::bigint', [id]);
        assert.deepEqual((await read('1')).rows, [{ id: '1', tags: ['9d7e6c95-b46b-46da-979a-dca23f37f114'], note: 'one' }]);
        assert.deepEqual((await read(2)).rows, [{ id: '2', tags: [], note: null }], 'the same statement, other values');
        // A list parameter (a read by several candidates): serialized as an array literal, quotes and commas escaped.
        const listed = await db.prepared!<{ tags: string[]; notes: string[] }>('probe-list', 'SELECT $1::uuid[] AS tags, $2::text[] AS notes', [
          ['9d7e6c95-b46b-46da-979a-dca23f37f114', '0b6f3c52-8e1d-4a7b-9c2e-5f4d3a2b1c0e'],
          ['a,b', 'c"d'],
        ]);
        assert.deepEqual(listed.rows, [{ tags: ['9d7e6c95-b46b-46da-979a-dca23f37f114', '0b6f3c52-8e1d-4a7b-9c2e-5f4d3a2b1c0e'], notes: ['a,b', 'c"d'] }]);
        await assert.rejects(read('not a number'), /invalid input syntax/);
        assert.equal((await read('1')).rows.length, 1, 'usable after an error');

        // A row written in a transaction that has not committed is not read, however the calls interleave.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let inserted!: () => void;
        const written = new Promise<void>((resolve) => (inserted = resolve));
        const tx = db.transaction(async (t) => {
          await t.query(`INSERT INTO prepared_probe VALUES (3, '{}', 'uncommitted')`);
          inserted();
          await held;
          throw new Error('rolled back');
        });
        await written;
        const during = read(3);
        release();
        await assert.rejects(tx, /rolled back/);
        assert.deepEqual((await during).rows, []);
      } finally {
        await drop();
      }
    });
  }
});
