// Seeds a PostgreSQL database for the benchmark: instance `bench` with four assessments published
// through the real admin API, N candidates each invited to three of them (a third completed with
// scores, so that records have their full weight) and one assessment with exactly 100
// invitations. Built with generate_series in a few statements; a database already seeded to the
// same size is reused. The embedded store (PGlite) is seeded with the same SQL.
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import fastJson from 'fast-json-stringify';
import { sampleAssessment } from '../test/harness.js';
import { openDatabase } from '../src/db/database.js';
import { toScoreRecord } from '../src/modules/scores/format.js';
import { scorePage } from '../src/modules/scores/repository.js';
import { ScoreRecord } from '../src/modules/scores/schema.js';
import { ADMIN_TOKEN, admin, startNode, type Node } from '../test/reliability/support/server.js';

export interface Seeded {
  url: string;
  candidates: number;
  invitations: number;
  seconds: number;
  reused: boolean;
}

/** The bulk rows, the same SQL on PostgreSQL and on PGlite. */
export async function seedRows(db: { query(text: string, params?: unknown[]): Promise<unknown> }, candidates: number): Promise<void> {
  await db.query(
    `INSERT INTO candidates (instance_id, email, first_name, last_name)
     SELECT i.id, 'candidate' || g || '@bench.example', 'First' || g, 'Last' || g FROM instances i, generate_series(1, $1::int) g WHERE i.name = 'bench'`,
    [candidates],
  );
  await db.query(
    `INSERT INTO invitations (instance_id, candidate_id, assessment_id, assessment_status, score_status, completion, total_score, typing_wpm, category_scores, red_flag, started_at, finished_at)
     SELECT c.instance_id, c.id, a.id,
            CASE WHEN done THEN 'COMPLETED' ELSE 'INVITED' END,
            CASE WHEN done THEN 'PASS' ELSE 'PENDING' END,
            CASE WHEN done THEN 100 ELSE 0 END, CASE WHEN done THEN 82.5 ELSE 0 END, CASE WHEN done THEN 41.2 ELSE 0 END,
            CASE WHEN done THEN '[{"name":"Reasoning","score":"80"},{"name":"Writing","score":"87.5"},{"name":"Typing","score":"82"}]'::jsonb ELSE '[]'::jsonb END,
            false,
            CASE WHEN done THEN now() - interval '2 hours' END, CASE WHEN done THEN now() - interval '1 hour' END
       FROM candidates c
       CROSS JOIN assessments a
       CROSS JOIN LATERAL (SELECT (hashtext(c.email || a.slug) % 3) = 0 AS done) d
      WHERE a.slug IN ('alpha', 'beta', 'gamma')`,
  );
  await db.query(
    `INSERT INTO invitations (instance_id, candidate_id, assessment_id)
     SELECT c.instance_id, c.id, a.id FROM (SELECT * FROM candidates ORDER BY email LIMIT 100) c, assessments a WHERE a.slug = 'hundred'`,
  );
  await db.query('CREATE TABLE bench_meta (candidates integer NOT NULL)');
  await db.query('INSERT INTO bench_meta VALUES ($1)', [candidates]);
  await db.query('ANALYZE');
}

/** Creates the bench instance and publishes its four assessments through a running node's admin API. */
export async function publish(node: Node): Promise<void> {
  if ((await admin(node, 'POST', '/instances', { name: 'bench' })).status !== 201) throw new Error('could not create the bench instance');
  for (const id of ['alpha', 'beta', 'gamma', 'hundred']) {
    const response = await fetch(`${node.url}/admin/v1/instances/bench/assessments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' },
      body: sampleAssessment(id, { typing: true }),
    });
    if (response.status !== 201) throw new Error(`could not publish ${id}: ${await response.text()}`);
  }
}

/** An embedded store under dataDir seeded the same way (PGlite: one process at a time). */
export async function seedPglite(dataDir: string, candidates: number): Promise<void> {
  const node = await startNode('', { LOG_LEVEL: 'error', DATA_DIR: dataDir });
  try {
    await publish(node);
  } finally {
    await node.stop();
  }
  const db = await openDatabase({ dataDir });
  try {
    await seedRows(db, candidates);
  } finally {
    await db.close();
  }
}

export async function seed(baseUrl: string, candidates: number): Promise<Seeded> {
  const name = `bench_${candidates}`;
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const server = new pg.Client({ connectionString: baseUrl });
  await server.connect();
  const exists = (await server.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
  if (exists) {
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    const ready = await db.query<{ candidates: number }>('SELECT candidates FROM bench_meta').catch(() => ({ rows: [] as { candidates: number }[] }));
    const reusable = ready.rows[0]?.candidates === candidates;
    if (reusable) {
      // Candidates invited by earlier runs' invite scenarios (and their invitations, attempts and
      // deliveries, by cascade) go, so that the data is the seeded size again.
      const extra = await db.query(`DELETE FROM candidates WHERE email LIKE '%@load.example'`);
      if (extra.rowCount) await db.query('VACUUM ANALYZE candidates, invitations');
    }
    await db.end();
    if (reusable) {
      await server.end();
      await buildReadyTable(url.toString());
      return { url: url.toString(), candidates, invitations: candidates * 3 + 100, seconds: 0, reused: true };
    }
    await server.query(`DROP DATABASE ${name} WITH (FORCE)`);
  }
  await server.query(`CREATE DATABASE ${name}`);
  await server.end();

  const began = Date.now();
  // The service applies its migrations; the admin API creates the instance and the content.
  const node = await startNode(url.toString(), { LOG_LEVEL: 'error' });
  try {
    await publish(node);
  } finally {
    await node.stop();
  }
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await seedRows(db, candidates);
  } finally {
    await db.end();
  }
  await buildReadyTable(url.toString());
  return { url: url.toString(), candidates, invitations: candidates * 3 + 100, seconds: Math.round((Date.now() - began) / 1000), reused: false };
}

/** Waits until the service has filled the read model (score records) of seeded rows. */
export async function recordsReady(url: string): Promise<void> {
  const started = Date.now();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM invitations WHERE record IS NULL');
      if (rows[0]!.n === 0) break;
      if (Date.now() - started > 900_000) throw new Error(`${rows[0]!.n} score records still missing after 15 min`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await client.end();
  }
  console.log(`# score records ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/**
 * An API key for the bench's instance on a running node, and a file of 20,000 random candidate
 * ids of its database, which the load generator reads a random one of per request.
 */
export async function readerOf(node: Node, url: string, idsFile: string): Promise<{ key: string; ids: string[]; idsFile: string; auth: Record<string, string> }> {
  const key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  let ids: string[];
  try {
    ids = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY random() LIMIT 20000')).rows.map((r) => r.id);
  } finally {
    await db.end();
  }
  writeFileSync(idsFile, JSON.stringify(ids));
  return { key, ids, idsFile, auth: { 'x-api-key': key, instance: 'bench' } };
}

/**
 * The ready-JSON baseline's table (bench/ready-baseline.ts): every seeded score record of the bench
 * instance, serialized once by the service's own code (the repository's query, toScoreRecord and
 * fast-json-stringify with the route's ScoreRecord schema, as GET /v1/score does), keyed by
 * candidate id and by assessment slug, in invitation order. Built once per seeded database; the
 * candidates the invite scenarios add are not in it (nor asked for). The baseline checks at start
 * that its answer for a candidate is byte for byte the service's.
 */
export async function buildReadyTable(url: string): Promise<{ built: boolean; records: number; seconds: number }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const exists = await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'bench_score_ready'`);
    if (exists.rowCount === 1) return { built: false, records: 0, seconds: 0 };
    const began = Date.now();
    const stringify = fastJson(ScoreRecord as object);
    const instance = (await db.query<{ id: string }>(`SELECT id FROM instances WHERE name = 'bench'`)).rows[0]!.id;
    await db.query('BEGIN');
    await db.query(`CREATE TABLE bench_score_ready (invitation_id bigint PRIMARY KEY, candidate_id uuid NOT NULL, assessment_slug text NOT NULL, record text NOT NULL)`);
    let after = '0';
    let records = 0;
    for (;;) {
      // The repository's own page query, 1,000 records at a time in invitation order.
      const rows = await scorePage(db as never, { instanceIds: [instance] }, after, 1000);
      if (rows.length === 0) break;
      await db.query(
        `INSERT INTO bench_score_ready (invitation_id, candidate_id, assessment_slug, record)
         SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::text[])`,
        [rows.map((r) => r.id), rows.map((r) => r.candidateId), rows.map((r) => r.assessmentId), rows.map((r) => stringify(toScoreRecord(r)))],
      );
      records += rows.length;
      after = rows[rows.length - 1]!.id;
    }
    await db.query('CREATE INDEX bench_score_ready_candidate ON bench_score_ready (candidate_id, invitation_id)');
    await db.query('CREATE INDEX bench_score_ready_assessment ON bench_score_ready (assessment_slug, invitation_id)');
    await db.query('COMMIT');
    await db.query('ANALYZE bench_score_ready');
    return { built: true, records, seconds: Math.round((Date.now() - began) / 1000) };
  } catch (error) {
    await db.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await db.end();
  }
}
