// Seeds a PostgreSQL database for the benchmark: instance `bench` with four assessments published
// through the real admin API, N candidates each invited to three of them (a third completed with
// scores, so that records have their full weight) and one assessment with exactly 100
// invitations. Built with generate_series in a few statements; a database already seeded to the
// same size is reused. The embedded store (PGlite) is seeded with the same SQL.
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { sampleAssessment } from '../test/harness.js';
import { openDatabase } from '../src/db/database.js';
import { ADMIN_TOKEN, admin, startNode, type Node } from '../test/reliability/support/server.js';

export interface Seeded {
  url: string;
  candidates: number;
  invitations: number;
  seconds: number;
  reused: boolean;
}

/** The bulk rows, the same SQL on PostgreSQL and on PGlite. */
export async function seedRows(db: { query(text: string, params?: unknown[]): Promise<unknown> }, candidates: number, analyze = true): Promise<void> {
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
  if (analyze) await db.query('ANALYZE');
}

/** Creates the bench instance and publishes its four assessments through a running node's admin API. */
export async function publish(node: Node): Promise<void> {
  if ((await admin(node, 'POST', '/instances', { name: 'bench' })).status !== 201) throw new Error('could not create the bench instance');
  for (const id of ['alpha', 'beta', 'gamma', 'hundred']) await publishAssessment(node, sampleAssessment(id, { typing: true }));
}

/** Publishes one assessment (its YAML) in the bench instance through the admin API. */
export async function publishAssessment(node: Node, yaml: string): Promise<void> {
  const response = await fetch(`${node.url}/admin/v1/instances/bench/assessments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' },
    body: yaml,
  });
  if (response.status !== 201) throw new Error(`could not publish ${yaml.split('\n')[0]}: ${await response.text()}`);
}

/** An embedded store under dataDir seeded the same way (PGlite: one process at a time). */
export async function seedPglite(dataDir: string, candidates: number, analyze = true): Promise<void> {
  const node = await startNode('', { LOG_LEVEL: 'error', DATA_DIR: dataDir });
  try {
    await publish(node);
  } finally {
    await node.stop();
  }
  const db = await openDatabase({ dataDir });
  try {
    await seedRows(db, candidates, analyze);
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
 * The ready-JSON baseline's table (bench/ready-baseline.ts): bench_ready_json (candidate_id text,
 * assessment_id text, record jsonb), every score record of the bench instance as the service
 * keeps it (its read model, filled by the service: call this once the records are ready), in
 * invitation order, with an index for each lookup, then ANALYZE of this table only. Built once
 * per database; the candidates the invite scenarios add are not in it (nor asked for). The
 * baseline's answers are checked at start to hold the same records as the service's.
 */
export async function buildReadyTable(url: string): Promise<{ built: boolean; records: number }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const exists = await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'bench_ready_json'`);
    if (exists.rowCount === 1) return { built: false, records: 0 };
    await db.query('CREATE TABLE bench_ready_json (candidate_id text NOT NULL, assessment_id text NOT NULL, record jsonb NOT NULL)');
    const { rowCount } = await db.query(
      `INSERT INTO bench_ready_json (candidate_id, assessment_id, record)
       SELECT i.candidate_id::text, a.slug, i.record::jsonb FROM invitations i JOIN assessments a ON a.id = i.assessment_id JOIN instances n ON n.id = i.instance_id
        WHERE n.name = 'bench' AND i.record IS NOT NULL ORDER BY i.id`,
    );
    await db.query('CREATE INDEX bench_ready_json_candidate ON bench_ready_json (candidate_id)');
    await db.query('CREATE INDEX bench_ready_json_assessment ON bench_ready_json (assessment_id)');
    await db.query('ANALYZE bench_ready_json');
    return { built: true, records: rowCount ?? 0 };
  } finally {
    await db.end();
  }
}

/** Two score answers hold the same records (jsonb reorders keys, so compared as parsed values). */
export function sameRecords(a: string, b: string): boolean {
  // The same records, whatever the order of their keys (jsonb keeps its own) and of the records (the
  // baseline's table is read in whatever order its index gives them, as a bare server would).
  const canonical = (text: string) => {
    const parsed = JSON.parse(text) as unknown;
    const sortKeys = (value: unknown): unknown =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, v]) => [k, sortKeys(v)]),
          )
        : Array.isArray(value)
          ? value.map(sortKeys)
          : value;
    const records = Array.isArray(parsed) ? parsed.map((r) => JSON.stringify(sortKeys(r))).sort() : [JSON.stringify(sortKeys(parsed))];
    return records.join('\n');
  };
  return canonical(a) === canonical(b);
}
