// Score reads from a real streaming replica (DATABASE_READ_URL; .ci/run makes one with
// scripts/ci-replica.sh and sets TEST_REPLICA_URL): read there, a key's own invite read from the
// primary at once while the replica's replay is paused (and a candidate's completion by every key
// of the instance), others' reads catching up within seconds
// of the replay resuming, a replica behind by more than the bound left for the primary, and a
// stopped replica leaving the reads to the primary. REQUIRE_REPLICA=1 makes a skip a failure.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.js';
import { ADMIN_TOKEN, announceSkip, createTestContext, freshPostgresDatabase, sampleAssessment, type TestContext } from './harness.js';
import { frozenClock } from './support/clock.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate, invite } from './support/portal.js';
import { holdReplica } from './support/replica-lock.js';

const SUITE = 'reads from a streaming replica';
const MAX_LAG_MS = 2000;

function skipReason(): string | undefined {
  const reason = !process.env.TEST_DATABASE_URL
    ? 'TEST_DATABASE_URL is not set'
    : !process.env.TEST_REPLICA_URL
      ? 'TEST_REPLICA_URL is not set (scripts/ci-replica.sh makes a replica and prints it)'
      : undefined;
  if (reason === undefined) return undefined;
  if (process.env.REQUIRE_REPLICA === '1') throw new Error(`REQUIRE_REPLICA=1 but ${reason}: the suite "${SUITE}" would be skipped`);
  return announceSkip(SUITE, reason);
}

/** The Debian cluster ("15 replica") that listens on the replica's port. */
function replicaCluster(): [string, string] {
  const port = new URL(process.env.TEST_REPLICA_URL!).port || '5432';
  const line = execFileSync('pg_lsclusters', ['-h'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find((fields) => fields[2] === port);
  assert.ok(line, `no cluster listens on port ${port} (pg_lsclusters)`);
  return [line[0]!, line[1]!];
}

const until = async (what: string, test: () => Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const skip = skipReason();

describe(SUITE, { skip }, () => {
  const clock = frozenClock();
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  let fresh: { url: string; drop(): Promise<void> };
  let primary: Database;
  let readDb: Database;
  let ctx: TestContext & { close(): Promise<void> };
  let replicaSql: (text: string) => Promise<unknown>;
  let instance: string;
  let keyA: string;
  let keyB: string;
  let freeReplica: (() => void) | undefined;

  const cluster = (action: 'start' | 'stop') => execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', ...replicaCluster(), action], { stdio: 'pipe' });
  const scores = async (key: string, candidateId: string) => {
    const response = await ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { candidateId: string }[];
  };
  const metric = async (name: string) => {
    const text = (await ctx.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body;
    return Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
  };
  const replicaAnswers = () =>
    readDb.query('SELECT 1').then(
      () => true,
      () => false,
    );
  /** Waits until the replica has replayed everything the primary has written so far. */
  const caughtUp = async () => {
    const { rows } = await primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await until('the replica replays the primary', async () => {
      const replayed = await readDb.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [rows[0]!.lsn]).catch(() => ({ rows: [{ ok: false }] }));
      return replayed.rows[0]!.ok;
    });
  };

  before(async () => {
    freeReplica = await holdReplica();
    fresh = await freshPostgresDatabase();
    primary = await openDatabase({ databaseUrl: fresh.url, poolSize: 10 });
    const replicaUrl = new URL(process.env.TEST_REPLICA_URL!);
    replicaUrl.pathname = new URL(fresh.url).pathname;
    readDb = await openDatabase({ databaseUrl: replicaUrl.toString(), poolSize: 5 });
    // The new database reaches the replica by replay.
    await until('the fresh database on the replica', replicaAnswers);
    replicaSql = async (text) => {
      const client = new pg.Client({ connectionString: process.env.TEST_REPLICA_URL });
      await client.connect();
      try {
        return (await client.query(text)).rows;
      } finally {
        await client.end();
      }
    };
    ctx = await createTestContext(
      { name: 'postgres', open: () => Promise.reject(new Error('unused')) },
      { db: primary, readDb, now: clock.now, logStream, replicaMaxLagMs: MAX_LAG_MS },
    );
    await ctx.app.jobs.stop();
    instance = await ctx.instance('replica');
    assert.equal((await ctx.publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    keyA = await ctx.key([instance]);
    keyB = await ctx.key([instance]);
  });
  after(async () => {
    try {
      // Whatever a test left: the replica running and replaying, for the next run.
      await replicaSql?.('SELECT pg_wal_replay_resume()').catch(() => {});
      await ctx?.close();
      await readDb?.close();
      await primary?.close();
      await fresh?.drop();
    } finally {
      freeReplica?.();
    }
  });

  it('reads scores on the replica once a check finds it caught up', async () => {
    const { candidateId } = await invite(ctx, { instance, key: keyA }, { email: 'first@replica.example' }, ['alpha']);
    await caughtUp();
    await ctx.app.jobs.runOnce('read-replica');
    assert.equal(await metric('db_replica_up{state="up"}'), 1);
    const before = await metric('db_reads_total{target="replica"}');
    assert.equal((await scores(keyB, candidateId)).length, 1);
    assert.equal(await metric('db_reads_total{target="replica"}'), before + 1);
  });

  it('with the replay paused, a key reads its own invite at once; another key sees it within seconds of the replay resuming', async (t) => {
    await replicaSql('SELECT pg_wal_replay_pause()');
    try {
      await until('the replay paused', async () => ((await replicaSql("SELECT pg_get_wal_replay_pause_state() = 'paused' AS p")) as { p: boolean }[])[0]!.p);
      const { candidateId } = await invite(ctx, { instance, key: keyA }, { email: 'paused@replica.example' }, ['alpha']);
      const sticky = await metric('db_reads_total{target="sticky"}');
      assert.equal((await scores(keyA, candidateId)).length, 1, 'the inviting key reads its invite from the primary');
      assert.equal(await metric('db_reads_total{target="sticky"}'), sticky + 1);
      assert.deepEqual(await scores(keyB, candidateId), [], 'another key reads the replica, which has not replayed the invite');
      await replicaSql('SELECT pg_wal_replay_resume()');
      const resumed = Date.now();
      await until('another key sees the invite', async () => (await scores(keyB, candidateId)).length === 1, 10_000);
      t.diagnostic(`another key read the invite ${Date.now() - resumed} ms after the replay resumed`);
      // Past the sticky window the inviting key reads the replica too.
      clock.move(MAX_LAG_MS + 2 * 500 + 1);
      const before = await metric('db_reads_total{target="replica"}');
      assert.equal((await scores(keyA, candidateId)).length, 1);
      assert.equal(await metric('db_reads_total{target="replica"}'), before + 1);
    } finally {
      await replicaSql('SELECT pg_wal_replay_resume()');
    }
  });

  it("with the replay paused, every key of the instance reads a candidate's completion at once, scores and the candidate alike", async () => {
    const c = await candidate(ctx, { instance, key: keyA }, { email: 'completed@replica.example' }, ['alpha']);
    assert.equal((await c.form('/portal/a/alpha/start')).statusCode, 303);
    assert.equal((await c.save('q1', 1)).statusCode, 204);
    // Past the inviting key's sticky window, with the replica caught up: both keys read the replica.
    await caughtUp();
    clock.move(MAX_LAG_MS + 2 * 500 + 1);
    await ctx.app.jobs.runOnce('read-replica');
    const status = async (key: string) => (await scores(key, c.candidateId)).map((r) => (r as unknown as { assessmentStatus: string }).assessmentStatus);
    assert.deepEqual(await status(keyB), ['IN_PROGRESS'], 'read on the replica before the submission');
    await replicaSql('SELECT pg_wal_replay_pause()');
    try {
      await until('the replay paused', async () => ((await replicaSql("SELECT pg_get_wal_replay_pause_state() = 'paused' AS p")) as { p: boolean }[])[0]!.p);
      const submitted = await c.form('/portal/a/alpha/submit');
      assert.equal(submitted.statusCode, 303, submitted.body);
      const sticky = await metric('db_reads_total{target="sticky"}');
      for (const key of [keyA, keyB]) assert.deepEqual(await status(key), ['COMPLETED'], 'the completion read from the primary, the replica not having it');
      assert.equal(await metric('db_reads_total{target="sticky"}'), sticky + 2);
      // The candidate's own read (GET /v1/candidates/{id}) reads the primary always.
      const read = await ctx.request({ method: 'GET', url: `/v1/candidates/${c.candidateId}`, headers: { 'x-api-key': keyB } });
      assert.equal(read.statusCode, 200, read.body);
      assert.deepEqual(
        read.json().invitations.map((i: { status: string }) => i.status),
        ['COMPLETED'],
      );
      // Another instance's keys are not sent to the primary by it.
      const other = await ctx.instance('replica-other');
      const otherKey = await ctx.key([other]);
      const onReplica = await metric('db_reads_total{target="replica"}');
      assert.deepEqual(await scores(otherKey, c.candidateId), []);
      assert.equal(await metric('db_reads_total{target="replica"}'), onReplica + 1);
      // Past the window, the instance's keys read the replica again.
      clock.move(MAX_LAG_MS + 2 * 500 + 1);
      const again = await metric('db_reads_total{target="replica"}');
      assert.deepEqual(await status(keyB), ['IN_PROGRESS'], 'the replica, paused, still has the attempt in progress');
      assert.equal(await metric('db_reads_total{target="replica"}'), again + 1);
    } finally {
      await replicaSql('SELECT pg_wal_replay_resume()');
    }
  });

  it('leaves a replica behind by more than the bound for the primary until it catches up, with a metric and a log line', async () => {
    await caughtUp();
    await ctx.app.jobs.runOnce('read-replica');
    await replicaSql('SELECT pg_wal_replay_pause()');
    try {
      await until('the replay paused', async () => ((await replicaSql("SELECT pg_get_wal_replay_pause_state() = 'paused' AS p")) as { p: boolean }[])[0]!.p);
      const { candidateId } = await invite(ctx, { instance, key: keyA }, { email: 'behind@replica.example' }, ['alpha']);
      clock.move(MAX_LAG_MS + 1);
      await ctx.app.jobs.runOnce('read-replica');
      assert.equal(await metric('db_replica_up{state="behind"}'), 1);
      assert.ok((await metric('db_replica_lag_seconds')) > MAX_LAG_MS / 1000);
      assert.ok(lines.some((l) => l.includes('read replica behind')));
      assert.equal((await scores(keyB, candidateId)).length, 1, 'read on the primary while the replica is behind');
    } finally {
      await replicaSql('SELECT pg_wal_replay_resume()');
    }
    await caughtUp();
    await ctx.app.jobs.runOnce('read-replica');
    assert.equal(await metric('db_replica_up{state="up"}'), 1);
  });

  it("reads the console's candidates list on the replica, and from the primary right after the user's own change", async () => {
    await caughtUp();
    await ctx.app.jobs.runOnce('read-replica');
    const user = await consoleUser(ctx, 'lists@replica.example', 'manager', [instance]);
    const browser = await consoleAs(ctx, 'lists@replica.example', user.password);
    await replicaSql('SELECT pg_wal_replay_pause()');
    try {
      await until('the replay paused', async () => ((await replicaSql("SELECT pg_get_wal_replay_pause_state() = 'paused' AS p")) as { p: boolean }[])[0]!.p);
      await invite(ctx, { instance, key: keyA }, { email: 'listed@replica.example' }, ['alpha']);
      const list = () => browser.get(`/console/candidates?instance=${instance}&q=listed`);
      const replicaReads = await metric('db_reads_total{target="replica"}');
      assert.doesNotMatch((await list()).body, /listed@replica\.example/, 'the list reads the paused replica');
      assert.equal(await metric('db_reads_total{target="replica"}'), replicaReads + 1);
      const saved = await browser.post('/console/searches', { instance, name: 'Listed', q: 'listed' });
      assert.equal(saved.statusCode, 303, saved.body);
      assert.match((await list()).body, /listed@replica\.example/, "after the user's own change, from the primary");
    } finally {
      await replicaSql('SELECT pg_wal_replay_resume()');
    }
  });

  it('answers reads with the replica stopped, and reads it again once it is back', async () => {
    const { candidateId } = await invite(ctx, { instance, key: keyA }, { email: 'stopped@replica.example' }, ['alpha']);
    await caughtUp();
    clock.move(MAX_LAG_MS + 2 * 500 + 1);
    cluster('stop');
    try {
      assert.equal((await scores(keyB, candidateId)).length, 1, 'answered by the primary');
      assert.equal((await ctx.request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': keyB } })).statusCode, 200);
      assert.equal(await metric('db_replica_up{state="down"}'), 1);
      assert.ok(lines.some((l) => l.includes('read replica unreachable')));
      await ctx.app.jobs.runOnce('read-replica');
      assert.equal(await metric('db_replica_up{state="down"}'), 1, 'still down while it is stopped');
    } finally {
      cluster('start');
    }
    await until('the replica answers again', replicaAnswers);
    await caughtUp();
    await ctx.app.jobs.runOnce('read-replica');
    assert.equal(await metric('db_replica_up{state="up"}'), 1);
  });
});
