// Flat cost as data grows: the hot queries, exactly as the code runs them (recorded through the
// real repository and service functions), are EXPLAINed on PostgreSQL with 20,000 candidates and
// 60,000 invitations and fresh statistics. A sequential scan of a big table, or reading more rows
// of one than a page holds, fails the test: its cost would grow with the data.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database, type Queryable } from '../src/db/database.js';
import { findKeyByHash } from '../src/modules/keys/repository.js';
import { generateToken, sha256 } from '../src/modules/keys/secret.js';
import { invite } from '../src/modules/invitations/service.js';
import { openSession } from '../src/modules/invitations/repository/portal-sessions.js';
import { assessmentReports } from '../src/modules/attempts/report.js';
import { searchCandidates } from '../src/modules/candidates/repository.js';
import { firstPageStored, recordTextPage, scorePage } from '../src/modules/scores/repository.js';
import { fillScoreRecords } from '../src/modules/invitations/score-records.js';
import { claimDue } from '../src/modules/webhooks/repository.js';
import { freshPostgresDatabase, sampleAssessment } from './harness.js';
import { completeExpired } from '../src/modules/attempts/completion.js';
import { parseAssessment } from '../src/modules/assessments/content.js';

const BIG = new Set(['candidates', 'invitations', 'attempts', 'invite_links', 'answers', 'deliveries', 'outbox_events', 'webhook_deliveries']);

// A page is 1,000 records. Reading a few pages' worth of rows for one is a fair plan (an
// assessment that a third of the invitations belong to: ~3 rows read per row returned, whatever
// the size); reading more than that means rows are skipped in proportion to the data.
const MOST_ROWS_READ = 5000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** The plan's sequential scans of big tables, and its reads of more rows than a page from one. */
function problems(node: PlanNode): string[] {
  const table = node['Relation Name'] ?? '';
  const own: string[] = [];
  if (BIG.has(table)) {
    if (node['Node Type'] === 'Seq Scan') own.push(`Seq Scan on ${table}`);
    const read = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1);
    if (read > MOST_ROWS_READ) own.push(`${node['Node Type']} on ${table} read ${read} rows`);
  }
  return [...own, ...(node.Plans ?? []).flatMap(problems)];
}

/** A Queryable that runs every statement and remembers it, so that the test can EXPLAIN it. */
function recording(db: Database, seen: { text: string; params?: unknown[]; generic?: boolean }[]): Database {
  const record = (q: Queryable): Queryable => ({
    query: (text, params) => {
      seen.push({ text, params });
      return q.query(text, params);
    },
  });
  return {
    ...db,
    query: record(db).query,
    transaction: (fn) => db.transaction((tx) => fn(record(tx))),
    ...(db.prepared && {
      prepared: (name: string, text: string, params: unknown[]) => {
        seen.push({ text, params, generic: true });
        return db.prepared!(name, text, params);
      },
    }),
  } as Database;
}

describe('query plans at scale [postgres]', { skip: process.env.TEST_DATABASE_URL ? false : 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  let fresh: { url: string; drop(): Promise<void> };
  let db: Database;
  let instanceId: string;
  let candidateId: string;

  before(async () => {
    fresh = await freshPostgresDatabase();
    db = await openDatabase({ databaseUrl: fresh.url, poolSize: 4 });
    const { rows } = await db.query<{ id: string }>(`INSERT INTO instances (name) VALUES ('scale') RETURNING id`);
    instanceId = rows[0]!.id;
    // Three assessments (content is irrelevant to the plans, but versions must exist).
    await db
      .query(
        `WITH a AS (INSERT INTO assessments (instance_id, slug, name, description, duration_minutes, categories, typing_test, current_version, question_count, pass_score, low_pass_score)
                  SELECT $1, s, 'Assessment ' || s, 'd', 20, ARRAY['Reasoning'], false, 1, 10, 70, 50 FROM unnest(ARRAY['alpha','beta','gamma','rare']) s RETURNING id)
       INSERT INTO assessment_versions (assessment_id, version, content, content_hash) SELECT id, 1, '{}'::jsonb, 'h' FROM a`,
        [instanceId],
      )
      .catch(async (error: Error) => {
        throw new Error(`seeding assessments failed (schema changed?): ${error.message}`);
      });
    await db.query(
      `INSERT INTO candidates (instance_id, email, first_name, last_name, search_name, search_last)
       SELECT $1, 'c' || g || '@scale.example', 'F', 'L' || g, 'f l' || g, 'l' || g FROM generate_series(1, 20000) g`,
      [instanceId],
    );
    await db.query(`INSERT INTO invitations (instance_id, candidate_id, assessment_id) SELECT c.instance_id, c.id, a.id FROM candidates c, assessments a WHERE a.slug <> 'rare'`);
    // An assessment few were invited to, their invitations among the newest.
    await db.query(
      `INSERT INTO invitations (instance_id, candidate_id, assessment_id) SELECT c.instance_id, c.id, a.id FROM (SELECT * FROM candidates ORDER BY email DESC LIMIT 50) c, assessments a WHERE a.slug = 'rare'`,
    );
    await db.query(
      `INSERT INTO invite_links (instance_id, candidate_id, token_hash, assessment_ids, expires_at)
       SELECT c.instance_id, c.id, sha256(c.id::text::bytea), ARRAY[(SELECT id FROM assessments LIMIT 1)], now() + interval '1 day' FROM candidates c`,
    );
    // Attempts of everyone but the candidate whose report is opened (their content is empty here).
    await db.query(
      `INSERT INTO attempts (invitation_id, assessment_id, version, deadline_at)
       SELECT i.id, i.assessment_id, 1, now() + interval '1 hour' FROM invitations i JOIN assessments a ON a.id = i.assessment_id
        WHERE a.slug = 'gamma' AND i.candidate_id <> (SELECT id FROM candidates ORDER BY email LIMIT 1 OFFSET 777)`,
    );
    await db.query('ANALYZE');
    candidateId = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY email LIMIT 1 OFFSET 777')).rows[0]!.id;
  });
  after(async () => {
    await db?.close();
    await fresh?.drop();
  });

  async function plans(run: (db: Database) => Promise<unknown>): Promise<{ text: string; scans: string[] }[]> {
    const seen: { text: string; params?: unknown[]; generic?: boolean }[] = [];
    await run(recording(db, seen));
    const out = [];
    for (const statement of seen) {
      if (/^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(statement.text)) continue;
      // Reads are run (ANALYZE) to count the rows they touch; writes are only planned. A prepared
      // statement is explained with the plan it runs with: the generic one, made without its values.
      const analyze = /^\s*SELECT/i.test(statement.text) ? 'ANALYZE, ' : '';
      const { rows } = await db.session(async (conn) => {
        await conn.exec(`SET plan_cache_mode = ${statement.generic ? 'force_generic_plan' : 'auto'}`);
        return conn.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (${analyze}FORMAT JSON) ${statement.text}`, statement.params);
      });
      out.push({ text: statement.text.replace(/\s+/g, ' ').slice(0, 120), scans: problems(rows[0]!['QUERY PLAN'][0].Plan) });
    }
    return out;
  }

  const noSeqScans = (found: { text: string; scans: string[] }[]) => {
    assert.ok(found.length > 0, 'statements were recorded');
    assert.deepEqual(
      found.filter((f) => f.scans.length > 0),
      [],
    );
  };

  it('reads scores by candidate, by assessment and as an export page without scanning a big table', async () => {
    noSeqScans(await plans((d) => scorePage(d, { instanceIds: [instanceId], candidateIds: [candidateId] }, '0')));
    noSeqScans(await plans((d) => scorePage(d, { instanceIds: [instanceId], assessmentIds: ['beta'] }, '0')));
    noSeqScans(await plans((d) => scorePage(d, { instanceIds: [instanceId], assessmentIds: ['rare'] }, '0')));
    noSeqScans(await plans((d) => scorePage(d, { instanceIds: [instanceId], assessmentIds: ['rare', 'alpha'] }, '0')));
    noSeqScans(await plans((d) => scorePage(d, { instanceIds: [instanceId] }, '30000')));
  });

  it('fills the read model from the rows missing a record, and reads it as the route does, without scanning a big table', async () => {
    // The first fill after seeding takes every row in batches; then a few cleared rows are found
    // through the partial index of missing records, not by reading the table.
    while ((await fillScoreRecords(db, new Date())) > 0);
    await db.query(`UPDATE invitations SET record = NULL WHERE id IN (SELECT id FROM invitations ORDER BY id DESC LIMIT 10)`);
    await db.query('ANALYZE invitations');
    noSeqScans(await plans((d) => fillScoreRecords(d, new Date())));
    noSeqScans(await plans((d) => recordTextPage(d, { instanceIds: [instanceId], candidateIds: [candidateId] }, '0')));
    noSeqScans(await plans((d) => recordTextPage(d, { instanceIds: [instanceId], assessmentIds: ['beta'] }, '0')));
    noSeqScans(await plans((d) => recordTextPage(d, { instanceIds: [instanceId], assessmentIds: ['rare'] }, '0')));
    noSeqScans(await plans((d) => recordTextPage(d, { instanceIds: [instanceId] }, '30000')));
    noSeqScans(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId], candidateIds: [candidateId] })));
    noSeqScans(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId], assessmentIds: ['beta'] })));
    noSeqScans(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId], assessmentIds: ['rare'] })));
    noSeqScans(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId] })));
  });

  it('claims due webhook deliveries from an outbox of 1,000,000 delivered messages without scanning it', async () => {
    await db.query(`INSERT INTO webhook_endpoints (id, instance_id, url, secret) VALUES ('ep_0123456789abcdef', $1, 'https://ats.example.com/hooks', 'whsec_x')`, [instanceId]);
    // In ten statements of 100,000 rows: one statement of a million can outlast the pool's query
    // timeout (15 s) on a busy machine, and the breaker would then fail the tests after this one.
    for (let from = 1; from <= 1_000_000; from += 100_000) {
      await db.query(
        `INSERT INTO outbox_events (message_id, instance_id, type, body, created_at)
         SELECT 'msg_' || lpad(g::text, 24, '0'), $1, 'score.finalized', '{}', now() - interval '1 day' FROM generate_series($2::int, $2::int + 99999) g`,
        [instanceId, from],
      );
      await db.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
         SELECT id, 'ep_0123456789abcdef', CASE WHEN id % 50000 = 0 THEN 'pending' ELSE 'succeeded' END, 1,
                CASE WHEN id % 50000 = 0 THEN now() - interval '1 minute' END, created_at
           FROM outbox_events WHERE id >= (SELECT coalesce(max(event_id), 0) + 1 FROM webhook_deliveries)`,
      );
    }
    await db.query('ANALYZE outbox_events');
    await db.query('ANALYZE webhook_deliveries');
    const found = await plans((d) => claimDue(d, new Date(), 32, 30_000));
    noSeqScans(found);
    const claimed = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE locked_until IS NOT NULL`);
    assert.equal(claimed.rows[0]!.n, 20, 'the 20 due deliveries were claimed');
  });

  it('completes a batch of due attempts among 20,000 open ones without scanning a big table', async () => {
    const parsed = parseAssessment(sampleAssessment('gamma'));
    assert.ok(parsed.ok);
    await db.query(`UPDATE assessment_versions SET content = $1 WHERE assessment_id = (SELECT id FROM assessments WHERE slug = 'gamma')`, [JSON.stringify(parsed.content)]);
    const { rows: due } = await db.query<{ id: string }>(
      `WITH d AS (SELECT id, invitation_id FROM attempts ORDER BY id LIMIT 30),
            i AS (UPDATE invitations SET assessment_status = 'IN_PROGRESS', started_at = now() - interval '1 hour' WHERE id IN (SELECT invitation_id FROM d))
       UPDATE attempts a SET deadline_at = now() - interval '1 minute' FROM d WHERE a.id = d.id RETURNING a.id`,
    );
    // Every attempt has answers (two each: 40,000 rows), as in a campaign's last minutes.
    await db.query(`INSERT INTO answers (attempt_id, question_id, value) SELECT a.id, q, '1'::jsonb FROM attempts a, unnest(ARRAY['q1', 'q3']) q`);
    await db.query('ANALYZE attempts');
    await db.query('ANALYZE answers');
    const failed: unknown[] = [];
    noSeqScans(await plans(async (d) => assert.equal(await completeExpired(d, new Date(), 50, (_id, error) => failed.push(error)), 30)));
    assert.deepEqual(failed, []);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM attempts WHERE id = ANY($1::uuid[]) AND finished_at IS NOT NULL', [due.map((r) => r.id)]);
    assert.equal(rows[0]!.n, 30, 'the batch was completed');
  });

  it('looks up API keys and link tokens by their hashes', async () => {
    noSeqScans(await plans((d) => findKeyByHash(d, sha256('ack_unknown'))));
    noSeqScans(await plans((d) => openSession(d, generateToken().token, new Date())));
  });

  it('invites an existing candidate again without scanning a big table', async () => {
    noSeqScans(
      await plans((d) =>
        invite({ db: d, publicUrl: 'http://x' }, instanceId, { email: 'C778@scale.example', firstName: 'F', lastName: 'L', assessments: ['alpha', 'gamma'] }, false, {
          actor: { kind: 'api-key', id: 'explain' },
          requestId: 'explain',
          now: new Date(),
        }),
      ),
    );
  });

  it("finds candidates for the console by prefix and filter, page after page, and opens one's report", async () => {
    const search = (extra: Partial<Parameters<typeof searchCandidates>[1]>) => (d: Database) => searchCandidates(d, { instanceId, limit: 51, ...extra });
    noSeqScans(await plans(search({})));
    const middle = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY id OFFSET 15000 LIMIT 1')).rows[0]!.id;
    noSeqScans(await plans(search({ after: middle })));
    noSeqScans(await plans(search({ query: 'c1234' })));
    noSeqScans(await plans(search({ query: 'L1234' })));
    noSeqScans(await plans(search({ query: 'f l1234' })));
    noSeqScans(await plans(search({ assessmentId: 'beta' })));
    noSeqScans(await plans((d) => assessmentReports(d, [instanceId], candidateId)));
  });
});
