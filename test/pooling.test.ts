// The service with DATABASE_URL through a real PgBouncer (Debian's 1.18, which has no support for
// prepared statements) in transaction mode: each transaction, and each statement outside one, may
// get another server connection. So no named prepared statement (DATABASE_PREPARED_STATEMENTS is
// off by default), no session-level lock or setting: migrations and the statistics pass lock by
// transaction. Runs the API's scenario (invite, score reads in a burst, a portal take) that way,
// with the score reads on the streaming replica of TEST_REPLICA_URL when it is set (.ci/run sets it).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.js';
import { loadMigrations, migrate } from '../src/db/migrate.js';
import { keepStatistics } from '../src/jobs/statistics.js';
import { ADMIN_TOKEN, createTestContext, freshPostgresDatabase, sampleAssessment, type TestContext } from './harness.js';
import { pgbouncerSkip, startPgBouncer, type Bouncer } from './support/pgbouncer.js';
import { holdReplica } from './support/replica-lock.js';
import { invite } from './support/portal.js';
import { takeAssessment } from './support/take.js';

const SUITE = 'PostgreSQL through PgBouncer in transaction mode';
const skip = pgbouncerSkip(SUITE);

describe(SUITE, { skip }, () => {
  let bouncer: Bouncer;
  let fresh: { url: string; drop(): Promise<void> };
  let nodes: Database[] = [];
  let readDb: Database | undefined;
  let freeReplica: (() => void) | undefined;
  let ctx: TestContext & { close(): Promise<void> };

  before(async () => {
    // Fewer server connections (5) than the nodes' clients (2 × 20): the pooler reassigns them.
    bouncer = await startPgBouncer({ poolSize: 5 });
    fresh = await freshPostgresDatabase({ migrated: false });
    nodes = [await openDatabase({ databaseUrl: bouncer.through(fresh.url), poolSize: 20 }), await openDatabase({ databaseUrl: bouncer.through(fresh.url), poolSize: 20 })];
    if (process.env.TEST_REPLICA_URL) {
      freeReplica = await holdReplica();
      const replica = new URL(process.env.TEST_REPLICA_URL);
      replica.pathname = new URL(fresh.url).pathname;
      readDb = await openDatabase({ databaseUrl: replica.toString(), poolSize: 10 });
    }
  });
  after(async () => {
    try {
      await ctx?.close();
      await readDb?.close();
      for (const db of nodes) await db.close();
      await fresh?.drop();
      await bouncer?.stop();
    } finally {
      freeReplica?.();
    }
  });

  it('names no prepared statement by default', () => {
    assert.equal(nodes[0]!.prepared, undefined);
  });

  it('two nodes starting together apply each migration once, through the pooler', async () => {
    const [one, two] = await Promise.all(nodes.map((db) => migrate(db)));
    const all = loadMigrations().map((m) => m.name);
    assert.deepEqual([...one!, ...two!].sort(), all.sort(), 'every file applied by exactly one of the two');
    const { rows } = await nodes[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    assert.equal(rows[0]!.n, all.length);
    assert.deepEqual(await migrate(nodes[1]!), [], 'a third start applies nothing');
  });

  it('runs the statistics pass under a lock that holds through the pooler: one node at a time', async () => {
    // A lock taken in a transaction of this connection, to the server directly: the pass finds it taken.
    const direct = new pg.Client({ connectionString: fresh.url });
    await direct.connect();
    try {
      await direct.query('BEGIN');
      await direct.query('SELECT pg_advisory_xact_lock($1)', [0x61637374]);
      assert.deepEqual(await keepStatistics(nodes[0]!, { tables: ['candidates'] }), []);
      await direct.query('COMMIT');
      assert.ok((await keepStatistics(nodes[0]!, { tables: ['candidates'] })).some((w) => w.table === 'candidates'));
      // Nothing is left locked on any server connection once the pass is over.
      const { rows } = await direct.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      assert.equal(rows[0]!.n, 0);
    } finally {
      await direct.end();
    }
  });

  it('answers the API scenario: invitations, a burst of score reads, a portal take', async () => {
    ctx = await createTestContext({ name: 'postgres', open: () => Promise.reject(new Error('unused')) }, { db: nodes[0]!, readDb });
    await ctx.app.jobs.stop();
    const instance = await ctx.instance('pooled');
    assert.equal((await ctx.publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    const key = await ctx.key([instance]);
    // Another key reads: the inviting key's own reads go to the primary for a moment after its invites.
    const reader = await ctx.key([instance]);
    const candidates: string[] = [];
    for (let i = 0; i < 10; i++) candidates.push((await invite(ctx, { instance, key }, { email: `pooled${i}@example.com` }, ['alpha'])).candidateId);
    const onReplica = async (count: number) => {
      if (!readDb) return;
      for (let i = 0; i < 300; i++) {
        const { rows } = await readDb.query<{ n: number }>("SELECT count(*)::int AS n FROM candidates WHERE email LIKE 'pooled%'").catch(() => ({ rows: [{ n: -1 }] }));
        if (rows[0]!.n === count) return ctx.app.jobs.runOnce('read-replica');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`the replica does not have the ${count} candidates within 15 s`);
    };
    await onReplica(candidates.length);
    const replicaReads = async () =>
      Number(
        /^db_reads_total\{target="replica"\} (\S+)$/m.exec(
          (await ctx.request({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).body,
        )?.[1] ?? 0,
      );
    const before = await replicaReads();

    // 400 score reads at once, as the run had them (73 of them failed on named statements).
    const reads = await Promise.all(
      Array.from({ length: 400 }, (_, i) => ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${candidates[i % candidates.length]}`, headers: { 'x-api-key': reader } })),
    );
    const failed = reads.filter((r) => r.statusCode !== 200);
    assert.equal(failed.length, 0, `${failed.length} of 400 reads failed: ${failed[0]?.body}`);
    reads.forEach((r, i) => assert.equal(r.json()[0].candidateId, candidates[i % candidates.length]));
    if (readDb) assert.equal((await replicaReads()) - before, 400, 'every read served by the replica');

    const taker = await takeAssessment(ctx, instance, key, { email: 'pooled-taker@example.com', firstName: 'Pia', lastName: 'Pool' });
    const record = (await ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${taker}`, headers: { 'x-api-key': key } })).json()[0];
    assert.equal(record.assessmentStatus, 'COMPLETED');
    await onReplica(candidates.length + 1);
    const exported = await ctx.request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': reader } });
    assert.equal(exported.statusCode, 200);
    assert.equal(exported.json().length, candidates.length + 1);
  });
});
