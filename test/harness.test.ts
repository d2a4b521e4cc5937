// The harness's skip rules: a suite that needs Redis skips, visibly, without it, unless
// REQUIRE_REDIS=1 makes that a failure; skips are written where scripts/test.mjs reports them.
// And its fresh databases: copies of the migrated template, each its own, never analyzed.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loadMigrations } from '../src/db/migrate.js';
import { redisForSuite, storeKinds } from './harness.js';

describe('suites that need Redis', () => {
  const saved = { url: process.env.TEST_REDIS_URL, require: process.env.REQUIRE_REDIS, log: process.env.TEST_SKIP_LOG };
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'ac-skiplog-'));
    process.env.TEST_SKIP_LOG = path.join(dir, 'skipped.txt');
    delete process.env.REQUIRE_REDIS;
  });
  afterEach(() => {
    for (const [name, value] of [
      ['TEST_REDIS_URL', saved.url],
      ['REQUIRE_REDIS', saved.require],
      ['TEST_SKIP_LOG', saved.log],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const logged = () => readFileSync(process.env.TEST_SKIP_LOG!, 'utf8');

  it('skip, saying why, when TEST_REDIS_URL is unset', async () => {
    delete process.env.TEST_REDIS_URL;
    const redis = await redisForSuite('a redis suite');
    assert.equal(redis.url, undefined);
    assert.match(String(redis.skip), /TEST_REDIS_URL is not set/);
    assert.match(logged(), /^a redis suite: TEST_REDIS_URL is not set/);
  });

  it('skip when nothing answers at TEST_REDIS_URL', async () => {
    process.env.TEST_REDIS_URL = 'redis://127.0.0.1:1';
    const redis = await redisForSuite('a redis suite');
    assert.match(String(redis.skip), /does not answer/);
    assert.match(logged(), /a redis suite: Redis at TEST_REDIS_URL does not answer/);
  });

  it('fail instead with REQUIRE_REDIS=1', async () => {
    process.env.REQUIRE_REDIS = '1';
    delete process.env.TEST_REDIS_URL;
    await assert.rejects(redisForSuite('a redis suite'), /REQUIRE_REDIS=1 but TEST_REDIS_URL is not set/);
    process.env.TEST_REDIS_URL = 'redis://127.0.0.1:1';
    await assert.rejects(redisForSuite('a redis suite'), /REQUIRE_REDIS=1 but Redis at TEST_REDIS_URL does not answer/);
  });
});

for (const kind of storeKinds()) {
  describe(`fresh databases [${kind.name}]`, () => {
    it('hold every migration, no rows, and tables never analyzed; what one suite writes, another does not see', async () => {
      const one = await kind.open();
      const two = await kind.open();
      try {
        const applied = await one.db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
        assert.deepEqual(
          applied.rows.map((row) => row.name),
          loadMigrations().map((m) => m.name),
        );
        assert.deepEqual((await one.db.query('SELECT count(*)::int AS n FROM instances')).rows, [{ n: 0 }]);
        // As a newly migrated database: no table analyzed or vacuumed, no statistics, row counts unknown.
        const { rows } = await one.db.query<{ relname: string; reltuples: number; analyzed: boolean; columns: number }>(
          `SELECT s.relname, c.reltuples::float8 AS reltuples, (s.last_analyze IS NOT NULL OR s.last_vacuum IS NOT NULL) AS analyzed,
                  (SELECT count(*)::int FROM pg_statistic p WHERE p.starelid = c.oid) AS columns
             FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid`,
        );
        assert.ok(rows.length > 20, `tables: ${rows.length}`);
        assert.deepEqual(
          rows.filter((row) => row.reltuples !== -1 || row.analyzed || row.columns > 0),
          [],
        );
        await one.db.query(`INSERT INTO instances (name) VALUES ('only-in-one')`);
        assert.deepEqual((await two.db.query('SELECT count(*)::int AS n FROM instances')).rows, [{ n: 0 }]);
      } finally {
        for (const opened of [one, two]) await opened.drop();
      }
    });
  });
}
