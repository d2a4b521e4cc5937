// The statistics the service keeps itself (src/jobs/statistics.ts): on a fresh database filled
// without ANALYZE, the job's pass analyzes what holds rows, the plans turn to what statistics
// give, later changes past autovacuum's threshold bring another pass, and nothing else does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../src/db/database.js';
import { JobRunner } from '../src/jobs/runner.js';
import { keepStatistics, statisticsJob } from '../src/jobs/statistics.js';
import { firstPageStored } from '../src/modules/scores/repository.js';
import { openDatabase } from '../src/db/database.js';
import { storeKinds } from './harness.js';
import { movingClock } from './support/clock.js';

const CANDIDATES = 5000;
const silent = { error: () => {}, debug: () => {} };

interface Stats {
  lastAnalyze: Date | null;
  lastVacuum: Date | null;
  reltuples: number;
}

async function statsOf(db: Database, table: string): Promise<Stats> {
  const { rows } = await db.query<Stats>(
    `SELECT s.last_analyze AS "lastAnalyze", s.last_vacuum AS "lastVacuum", c.reltuples::float8 AS reltuples
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = $1`,
    [table],
  );
  return rows[0]!;
}

/** Runs a write on one connection and has its counters flushed at once (a server flushes them up to seconds late). */
async function writeAndFlush(db: Database, sql: string, params: unknown[]): Promise<void> {
  await db.session(async (conn) => {
    await conn.query(sql, params);
    if (db.kind === 'postgres') {
      await conn.query('SELECT pg_stat_force_next_flush()');
      await conn.query('SELECT 1');
    }
  });
}

for (const store of storeKinds()) {
  describe(`statistics kept by the service [${store.name}]`, () => {
    let opened: { db: Database; drop(): Promise<void> };
    let db: Database;
    let instanceId: string;
    const runner = new JobRunner(silent, movingClock().now);

    before(async () => {
      opened = await store.open();
      db = opened.db;
      await db.query(`ALTER TABLE invitations SET (autovacuum_enabled = false)`);
      await db.query(`ALTER TABLE candidates SET (autovacuum_enabled = false)`);
      instanceId = (await db.query<{ id: string }>(`INSERT INTO instances (name) VALUES ('stats') RETURNING id`)).rows[0]!.id;
      await db.query(
        `INSERT INTO assessments (instance_id, slug, name, description, duration_minutes, categories, typing_test, current_version, question_count, pass_score, low_pass_score)
         SELECT $1, s, 'Assessment ' || s, 'd', 20, ARRAY['Reasoning'], false, 1, 10, 70, 50 FROM unnest(ARRAY['alpha','beta','gamma']) s`,
        [instanceId],
      );
      // Counters flushed at once: a server flushes a connection's counters up to seconds late, and
      // counts arriving after the first pass's ANALYZE would make the next pass analyze again.
      await writeAndFlush(
        db,
        `INSERT INTO candidates (instance_id, email, first_name, last_name) SELECT $1, 'c' || g || '@stats.example', 'F', 'L' FROM generate_series(1, $2::int) g`,
        [instanceId, CANDIDATES],
      );
      await writeAndFlush(
        db,
        `INSERT INTO invitations (instance_id, candidate_id, assessment_id, record) SELECT c.instance_id, c.id, a.id, '{}' FROM candidates c, assessments a`,
        [],
      );
      runner.add(statisticsJob(db, 60_000));
    });
    after(async () => {
      await runner.stop();
      await opened?.drop();
    });

    it('analyzes tables that hold rows but were never analyzed, and the export page is then read in index order', async () => {
      assert.equal((await statsOf(db, 'invitations')).reltuples, -1);
      const done = await runner.runOnce('table-statistics');
      assert.ok(typeof done === 'number' && done >= 2, `tables worked: ${done}`);
      const invitations = await statsOf(db, 'invitations');
      assert.ok(invitations.lastAnalyze, 'invitations analyzed');
      assert.equal(invitations.reltuples, 3 * CANDIDATES);
      assert.equal((await statsOf(db, 'candidates')).reltuples, CANDIDATES);
      // The embedded store is vacuumed too (rows inserted since the last vacuum, past the rule).
      if (db.kind === 'pglite') assert.ok(invitations.lastVacuum, 'invitations vacuumed');
      // The first export page: through invitations_instance in order, one page read, not the instance.
      const seen: { text: string; params?: unknown[] }[] = [];
      await firstPageStored({ ...db, query: (text, params) => (seen.push({ text, params }), db.query(text, params)) } as Database, { instanceIds: [instanceId] });
      const { rows } = await db.query<{ 'QUERY PLAN': string | [{ Plan: unknown }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${seen[0]!.text}`, seen[0]!.params);
      const plan = JSON.stringify(rows[0]!['QUERY PLAN']);
      // Every invitation is this instance's: PostgreSQL may walk the primary key or the instance's
      // index, in id order either way, stopping at the page's end.
      assert.doesNotMatch(plan, /Bitmap|"Sort"/);
      assert.match(plan, /"Node Type":"Index Scan"/);
      assert.ok(!/"Actual Rows":(\d{5,}|[2-9]\d{3})/.test(plan), `one page read: ${plan}`);
    });

    it('does nothing more until changes pass the threshold, then analyzes again', async () => {
      assert.deepEqual(await keepStatistics(db), []);
      const before = (await statsOf(db, 'invitations')).lastAnalyze!;
      // Below 50 + 10% of 15,000 rows: not yet.
      await writeAndFlush(db, `UPDATE invitations SET completion = 1 WHERE id IN (SELECT id FROM invitations ORDER BY id LIMIT 1000)`, []);
      assert.deepEqual(
        (await keepStatistics(db, { vacuum: false })).map((w) => w.table),
        [],
      );
      await writeAndFlush(db, `UPDATE invitations SET completion = 2 WHERE id IN (SELECT id FROM invitations ORDER BY id LIMIT 1000)`, []);
      const work = await keepStatistics(db, { vacuum: false });
      assert.deepEqual(
        work.map((w) => w.table),
        ['invitations'],
      );
      assert.ok((await statsOf(db, 'invitations')).lastAnalyze! > before);
    });

    it('analyzes the tables a bulk operation names, whatever the counters say', async () => {
      const work = await keepStatistics(db, { tables: ['candidates'], vacuum: false });
      assert.deepEqual(
        work.map((w) => w.table),
        ['candidates'],
      );
    });

    it('runs on one node at a time', { skip: store.name === 'pglite' ? 'one process owns the embedded store' : false }, async () => {
      // Another node's pass: a second pool holding the lock.
      await db.session(async (conn) => {
        const other = await openDatabase({ databaseUrl: await currentUrl(db), poolSize: 1 });
        try {
          await conn.query('SELECT pg_advisory_lock($1)', [0x61637374]);
          await writeAndFlush(db, `UPDATE invitations SET completion = 3 WHERE id IN (SELECT id FROM invitations ORDER BY id LIMIT 3000)`, []);
          assert.deepEqual(await keepStatistics(other, { vacuum: false }), []);
          await conn.query('SELECT pg_advisory_unlock($1)', [0x61637374]);
          assert.deepEqual(
            (await keepStatistics(other, { vacuum: false })).map((w) => w.table),
            ['invitations'],
          );
        } finally {
          await other.close();
        }
      });
    });

    it("leaves other callers' work their own while a pass runs: a write during it stays, another caller's failed transaction undoes only itself", async () => {
      await db.query('CREATE TABLE IF NOT EXISTS stats_probe (n int)');
      let running = true;
      const pass = keepStatistics(db, { tables: ['candidates', 'invitations', 'assessments', 'instances'] }).finally(() => {
        running = false;
      });
      let n = 0;
      while (running && n < 200) {
        n++;
        await db.query('INSERT INTO stats_probe VALUES ($1)', [n]);
        await db
          .transaction(async (tx) => {
            await tx.query('INSERT INTO stats_probe VALUES (-1)');
            throw new Error('refused');
          })
          .catch(() => undefined);
      }
      await pass;
      const { rows } = await db.query<{ kept: number; undone: number }>(
        'SELECT count(*) FILTER (WHERE n > 0)::int AS kept, count(*) FILTER (WHERE n < 0)::int AS undone FROM stats_probe',
      );
      assert.deepEqual(rows[0], { kept: n, undone: 0 });
      await db.query('DROP TABLE stats_probe');
    });
  });
}

/** The URL of the test's PostgreSQL database (the harness names a fresh one per suite). */
async function currentUrl(db: Database): Promise<string> {
  const { rows } = await db.query<{ name: string }>('SELECT current_database() AS name');
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${rows[0]!.name}`;
  return url.toString();
}
