// The embedded store runs PGlite in a worker thread (src/db/embedded.ts): what crosses the
// thread must be what the caller would have had from PGlite in its own thread. Tests that need
// just a store open a copy of the tests' migrated template (no initdb: seconds quicker); the first
// opens an empty one, as the server does on its first start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runnable } from '../../test/support/runnable.js';
import { migratedPgliteFile, openMigratedPglite } from '../../test/support/templates.js';
import { isUnavailable, openDatabase } from './database.js';

describe('embedded store in its own thread', () => {
  it('hands back values of every kind as PGlite makes them, and errors with their PostgreSQL fields', async () => {
    const db = await openDatabase({});
    try {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT 9007199254740993::bigint AS big, 2.5::numeric AS num, 7 AS int, true AS yes, NULL::text AS nothing,
                '2026-11-23T10:00:00.123Z'::timestamptz AS at, '{"a":[1,"b"]}'::jsonb AS doc, '\\x00ff'::bytea AS bytes,
                ARRAY['x','y,z'] AS list, 'é ✓'::text AS text`,
      );
      const row = rows[0]!;
      assert.equal(row.big, '9007199254740993', 'int8 as text, as node-postgres gives it');
      assert.equal(row.num, '2.5');
      assert.equal(row.int, 7);
      assert.equal(row.yes, true);
      assert.equal(row.nothing, null);
      assert.ok(row.at instanceof Date && row.at.toISOString() === '2026-11-23T10:00:00.123Z');
      assert.deepEqual(row.doc, { a: [1, 'b'] });
      assert.deepEqual([...(row.bytes as Uint8Array)], [0, 255]);
      assert.deepEqual(row.list, ['x', 'y,z']);
      assert.equal(row.text, 'é ✓');
      // Values go in as they are, Dates and byte arrays included.
      const echoed = await db.query<{ at: Date; bytes: Uint8Array }>('SELECT $1::timestamptz AS at, $2::bytea AS bytes', [
        new Date('2026-01-02T03:04:05Z'),
        new Uint8Array([1, 2]),
      ]);
      assert.equal(echoed.rows[0]!.at.toISOString(), '2026-01-02T03:04:05.000Z');
      assert.deepEqual([...echoed.rows[0]!.bytes], [1, 2]);

      await db.query('CREATE TABLE thread_probe (id int PRIMARY KEY, email text CONSTRAINT thread_probe_email UNIQUE)');
      await db.query(`INSERT INTO thread_probe VALUES (1, 'a@example.com')`);
      const error = await db.query(`INSERT INTO thread_probe VALUES (2, 'a@example.com')`).then(
        () => assert.fail('a duplicate was written'),
        (e: unknown) => e as Error & Record<string, unknown>,
      );
      assert.ok(error instanceof Error);
      assert.match(error.message, /duplicate key value violates unique constraint "thread_probe_email"/);
      assert.equal(error.code, '23505');
      assert.equal(error.constraint, 'thread_probe_email');
      assert.equal(error.table, 'thread_probe');
      assert.match(String(error.detail), /Key \(email\)=\(a@example\.com\) already exists/);
      assert.equal(isUnavailable(error), false, 'a bad statement is not an outage');
    } finally {
      await db.close();
    }
  });

  it('commits a transaction whole, rolls one back whole, and serves on after a failed commit', async () => {
    const db = await openMigratedPglite();
    try {
      await db.query('CREATE TABLE tx_probe (id int PRIMARY KEY, n int CHECK (n >= 0))');
      await db.query('CREATE TABLE tx_later (id int PRIMARY KEY REFERENCES tx_probe (id) DEFERRABLE INITIALLY DEFERRED)');
      assert.equal(
        await db.transaction(async (tx) => {
          await tx.query('INSERT INTO tx_probe VALUES (1, 1), (2, 2)');
          return (await tx.query<{ n: number }>('SELECT sum(n)::int AS n FROM tx_probe')).rows[0]!.n;
        }),
        3,
      );
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO tx_probe VALUES (3, 3)');
          await tx.query('UPDATE tx_probe SET n = -1 WHERE id = 1');
        }),
        (e: Error & { code?: string }) => e.code === '23514',
      );
      // The deferred check fails at COMMIT: the caller gets that error, and nothing is written.
      await assert.rejects(
        db.transaction(async (tx) => {
          await tx.query('INSERT INTO tx_probe VALUES (4, 4)');
          await tx.query('INSERT INTO tx_later VALUES (99)');
        }),
        (e: Error & { code?: string }) => e.code === '23503',
      );
      assert.deepEqual((await db.query('SELECT id, n FROM tx_probe ORDER BY id')).rows, [
        { id: 1, n: 1 },
        { id: 2, n: 2 },
      ]);
      // Transactions asked for at once run one after the other, each seeing the one before.
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.transaction(async (tx) => {
            const n = (await tx.query<{ n: number }>('SELECT n FROM tx_probe WHERE id = 1')).rows[0]!.n;
            await tx.query('UPDATE tx_probe SET n = $1 WHERE id = 1', [n + 1]);
          }),
        ),
      );
      assert.deepEqual((await db.query('SELECT n FROM tx_probe WHERE id = 1')).rows, [{ n: 21 }]);
    } finally {
      await db.close();
    }
  });

  it('ends a transaction that fails before its first statement, or has none, and serves on', async () => {
    // Each asked for while another call holds the store: neither may leave PGlite's lock held.
    const db = await openMigratedPglite();
    try {
      await db.query('CREATE TABLE early_end (id int PRIMARY KEY)');
      const busy = db.query('SELECT pg_sleep(0.2)');
      await assert.rejects(
        db.transaction(async () => {
          throw new Error('refused before any statement');
        }),
        /refused before any statement/,
      );
      assert.equal(await db.transaction(async () => 'nothing to write'), 'nothing to write');
      await busy;
      const busyAgain = db.query('SELECT pg_sleep(0.2)');
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO early_end VALUES (1)');
      });
      await busyAgain;
      const answered = await Promise.race([
        db.query<{ n: number }>('SELECT count(*)::int AS n FROM early_end').then((r) => r.rows[0]!.n),
        new Promise((resolve) => setTimeout(resolve, 5_000, 'no answer within 5 s')),
      ]);
      assert.equal(answered, 1);
    } finally {
      await db.close();
    }
  });

  it('opens a copy of another store from its data directory as a tarball, rows and all, that goes its own way', async () => {
    const db = await openMigratedPglite();
    try {
      await db.query('CREATE TABLE copy_probe (id int PRIMARY KEY, note text)');
      await db.query(`INSERT INTO copy_probe VALUES (1, 'before the copy')`);
      const tarball = await db.dumpDataDir!();
      const copy = await openDatabase({ template: tarball });
      try {
        assert.deepEqual((await copy.query('SELECT id, note FROM copy_probe')).rows, [{ id: 1, note: 'before the copy' }]);
        await copy.query(`INSERT INTO copy_probe VALUES (2, 'in the copy')`);
        await db.query(`INSERT INTO copy_probe VALUES (3, 'in the original')`);
        assert.deepEqual((await copy.query('SELECT id FROM copy_probe ORDER BY id')).rows, [{ id: 1 }, { id: 2 }]);
        assert.deepEqual((await db.query('SELECT id FROM copy_probe ORDER BY id')).rows, [{ id: 1 }, { id: 3 }]);
      } finally {
        await copy.close();
      }
      await assert.rejects(openDatabase({ dataDir: '/nonexistent', template: tarball }), /only in memory/);
    } finally {
      await db.close();
    }
  });

  it('once closed, answers every call with an error that means unavailable (a 503), and closes once', async () => {
    const db = await openMigratedPglite();
    await db.close();
    const error = await db.query('SELECT 1').then(
      () => assert.fail('a closed store answered'),
      (e: unknown) => e,
    );
    assert.ok(isUnavailable(error), String(error));
    await db.close();
  });

  it('does not keep the process alive: a script that never closes its store still exits, whether it used it or not', async () => {
    const database = runnable(fileURLToPath(new URL('./database.ts', import.meta.url)));
    const template = await migratedPgliteFile();
    const prelude = `const { openDatabase } = await import(${JSON.stringify(database.file)});
      const { readFileSync } = await import('node:fs');
      const template = readFileSync(${JSON.stringify(template)});`;
    const run = (use: string) =>
      spawnSync(process.execPath, [...database.loader, '--input-type=module', '-e', `${prelude}\n${use}`], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const used = run(`const db = await openDatabase({ template });
      const { rows } = await db.query('SELECT 41 + 1 AS n');
      process.stdout.write(String(rows[0].n));`);
    assert.equal(used.error, undefined, 'exited before the timeout');
    assert.equal(used.status, 0, used.stderr);
    assert.equal(used.stdout, '42');
    // Opened and never asked anything: the thread's own listeners once held the process for good.
    const idle = run(`await openDatabase({ template }); process.stdout.write('open');`);
    assert.equal(idle.error, undefined, 'exited before the timeout');
    assert.equal(idle.status, 0, idle.stderr);
    assert.equal(idle.stdout, 'open');
  });
});
