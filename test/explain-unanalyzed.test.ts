// Plans that hold without statistics: the hot statements, recorded as the code runs them, are
// EXPLAINed on tables that were never analyzed (reltuples = -1), on both stores. PGlite has no
// autovacuum and a PostgreSQL server may run without it, so the service's first reads after a
// bulk load (a seed, an import, a campaign's invitations) are planned on default estimates: 0.5%
// for any equality. A plan is wrong here when it reads rows in proportion to the data, scans a big
// table, or combines indexes in a BitmapAnd (each condition's index read in full, then
// intersected: the score read by candidate once read every invitation of its instance so).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database, Queryable } from '../src/db/database.js';
import { candidatePages, firstPageStored, recordTextPage, scorePage } from '../src/modules/scores/repository.js';
import { fillScoreRecords } from '../src/modules/invitations/score-records.js';
import { claimDue } from '../src/modules/webhooks/repository.js';
import { completeExpired } from '../src/modules/attempts/completion.js';
import { openedInvitations, invitationLanguages } from '../src/modules/invitations/repository/portal.js';
import { openSession } from '../src/modules/invitations/repository/portal-sessions.js';
import { expiryJob, reminderJob } from '../src/modules/invitations/lifecycle.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { generateToken } from '../src/modules/keys/secret.js';
import { sampleAssessment, storeKinds } from './harness.js';

const BIG = new Set(['candidates', 'invitations', 'attempts', 'invite_links', 'answers', 'outbox_events', 'webhook_deliveries']);
const CANDIDATES = 10_000;
/** A page (1,000 rows) and some: more than this read from one table grows with the data. */
const MOST_ROWS_READ = 2500;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** What is wrong with a plan: sequential scans of big tables, BitmapAnds, forbidden indexes, too many rows read. */
function problems(node: PlanNode, forbidden: string[], mostRows = MOST_ROWS_READ): string[] {
  const own: string[] = [];
  const table = node['Relation Name'] ?? '';
  const index = node['Index Name'] ?? '';
  if (node['Node Type'] === 'BitmapAnd') own.push('BitmapAnd');
  if (forbidden.includes(index)) own.push(`${node['Node Type']} on ${index}`);
  if (BIG.has(table) && node['Node Type'] === 'Seq Scan') own.push(`Seq Scan on ${table}`);
  if (BIG.has(table) || index !== '') {
    const read = ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * (node['Actual Loops'] ?? 1);
    if (read > mostRows) own.push(`${node['Node Type']} on ${table || index} read ${read} rows`);
  }
  return [...own, ...(node.Plans ?? []).flatMap((n) => problems(n, forbidden, mostRows))];
}

type Seen = { text: string; params?: unknown[]; generic?: boolean };

/** A Database that runs every statement and remembers it, so that the test can EXPLAIN it. */
function recording(db: Database, seen: Seen[]): Database {
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

for (const store of storeKinds()) {
  describe(`query plans on tables never analyzed [${store.name}]`, () => {
    let opened: { db: Database; drop(): Promise<void> };
    let db: Database;
    let instanceId: string;
    let candidateId: string;

    before(async () => {
      opened = await store.open();
      db = opened.db;
      // Whatever the server's settings, nothing analyzes these tables behind the test's back.
      for (const table of BIG) await db.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
      const { rows } = await db.query<{ id: string }>(`INSERT INTO instances (name, reminder_days) VALUES ('unanalyzed', 2) RETURNING id`);
      instanceId = rows[0]!.id;
      const parsed = parseAssessment(sampleAssessment('gamma'));
      assert.ok(parsed.ok);
      await db.query(
        `WITH a AS (INSERT INTO assessments (instance_id, slug, name, description, duration_minutes, categories, typing_test, current_version, question_count, pass_score, low_pass_score)
                    SELECT $1, s, 'Assessment ' || s, 'd', 20, ARRAY['Reasoning'], false, 1, 10, 70, 50 FROM unnest(ARRAY['alpha','beta','gamma','rare']) s RETURNING id)
         INSERT INTO assessment_versions (assessment_id, version, content, content_hash) SELECT id, 1, $2::jsonb, 'h' FROM a`,
        [instanceId, JSON.stringify(parsed.content)],
      );
      await db.query(
        `INSERT INTO candidates (instance_id, email, first_name, last_name, search_name, search_last)
         SELECT $1, 'c' || g || '@unanalyzed.example', 'F', 'L' || g, 'f l' || g, 'l' || g FROM generate_series(1, $2::int) g`,
        [instanceId, CANDIDATES],
      );
      // Invitations expire over the next weeks (some due for a reminder, a few expired).
      await db.query(
        `INSERT INTO invitations (instance_id, candidate_id, assessment_id, expires_at, language)
         SELECT c.instance_id, c.id, a.id, now() + make_interval(mins => (hashtext(c.email || a.slug) % 40000)), 'en'
           FROM candidates c, assessments a WHERE a.slug <> 'rare'`,
      );
      await db.query(
        `INSERT INTO invitations (instance_id, candidate_id, assessment_id) SELECT c.instance_id, c.id, a.id FROM (SELECT * FROM candidates ORDER BY email DESC LIMIT 50) c, assessments a WHERE a.slug = 'rare'`,
      );
      await db.query(
        `INSERT INTO invite_links (instance_id, candidate_id, token_hash, assessment_ids, expires_at)
         SELECT c.instance_id, c.id, sha256(c.id::text::bytea), ARRAY(SELECT id FROM assessments WHERE slug IN ('alpha', 'beta')), now() + interval '1 day' FROM candidates c`,
      );
      // Open attempts on gamma, 30 of them past their deadline, two answers each.
      await db.query(
        `WITH s AS (UPDATE invitations i SET assessment_status = 'IN_PROGRESS', started_at = now() - interval '10 minutes'
                     FROM assessments a WHERE a.id = i.assessment_id AND a.slug = 'gamma' RETURNING i.id, i.assessment_id)
         INSERT INTO attempts (invitation_id, assessment_id, version, deadline_at)
         SELECT s.id, s.assessment_id, 1, CASE WHEN row_number() OVER (ORDER BY s.id) <= 30 THEN now() - interval '1 minute' ELSE now() + interval '1 hour' END FROM s`,
      );
      await db.query(`INSERT INTO answers (attempt_id, question_id, value) SELECT a.id, q, '1'::jsonb FROM attempts a, unnest(ARRAY['q1', 'q3']) q`);
      // An outbox of 30,000 delivered messages and 20 due ones.
      await db.query(`INSERT INTO webhook_endpoints (id, instance_id, url, secret) VALUES ('ep_0123456789abcdef', $1, 'https://ats.example.com/hooks', 'whsec_x')`, [instanceId]);
      await db.query(
        `INSERT INTO outbox_events (message_id, instance_id, type, body, created_at)
         SELECT 'msg_' || lpad(g::text, 24, '0'), $1, 'score.finalized', '{}', now() - interval '1 day' FROM generate_series(1, 30000) g`,
        [instanceId],
      );
      await db.query(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
         SELECT id, 'ep_0123456789abcdef', CASE WHEN id % 1500 = 0 THEN 'pending' ELSE 'succeeded' END, 1,
                CASE WHEN id % 1500 = 0 THEN now() - interval '1 minute' END, created_at FROM outbox_events`,
      );
      candidateId = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY email LIMIT 1 OFFSET 777')).rows[0]!.id;
    });
    after(async () => {
      await opened?.drop();
    });

    async function plans(run: (db: Database) => Promise<unknown>, forbidden: string[] = [], mostRows = MOST_ROWS_READ): Promise<{ text: string; found: string[] }[]> {
      const seen: Seen[] = [];
      await run(recording(db, seen));
      const out = [];
      for (const statement of seen) {
        if (/^\s*(BEGIN|COMMIT|ROLLBACK|SET|SELECT pg_)/i.test(statement.text)) continue;
        const analyze = /^\s*(\/\*[^*]*\*\/\s*)?(SELECT|WITH)/i.test(statement.text) && !/\b(UPDATE|INSERT|DELETE)\b/i.test(statement.text) ? 'ANALYZE, ' : '';
        const { rows } = await db.session(async (conn) => {
          await conn.exec(`SET plan_cache_mode = ${statement.generic ? 'force_generic_plan' : 'auto'}`);
          try {
            return await conn.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(`EXPLAIN (${analyze}FORMAT JSON) ${statement.text}`, statement.params);
          } finally {
            await conn.exec('RESET plan_cache_mode');
          }
        });
        const plan = rows[0]!['QUERY PLAN'];
        const parsed = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }];
        out.push({ text: statement.text.replace(/\s+/g, ' ').slice(0, 140), found: problems(parsed[0].Plan, forbidden, mostRows) });
      }
      return out;
    }

    const sound = (found: { text: string; found: string[] }[]) => {
      assert.ok(found.length > 0, 'statements were recorded');
      assert.deepEqual(
        found.filter((f) => f.found.length > 0),
        [],
      );
    };

    it('runs on tables that were never analyzed', async () => {
      const { rows } = await db.query<{ relname: string; reltuples: number }>(`SELECT relname, reltuples FROM pg_class WHERE relname = ANY($1::text[]) AND relkind = 'r'`, [
        [...BIG],
      ]);
      assert.equal(rows.length, BIG.size);
      for (const row of rows) assert.equal(Number(row.reltuples), -1, `${row.relname} has statistics`);
    });

    it('reads scores by candidate through the candidate index alone', async () => {
      const byCandidate = ['invitations_instance', 'invitations_assessment', 'invitations_pkey'];
      sound(await plans((d) => scorePage(d, { instanceIds: [instanceId], candidateIds: [candidateId] }, '0'), byCandidate));
      sound(await plans((d) => recordTextPage(d, { instanceIds: [instanceId], candidateIds: [candidateId] }, '0'), byCandidate));
      sound(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId], candidateIds: [candidateId] }), byCandidate));
      // Several reads by one candidate each, gathered in one statement (src/modules/scores/candidate-reads.ts).
      const others = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY email LIMIT 5 OFFSET 100')).rows.map((r) => r.id);
      const reads = [candidateId, ...others].map((id) => ({ instanceId, candidateId: id }));
      sound(await plans((d) => candidatePages(d, reads), byCandidate));
    });

    it('reads scores by assessment and as export pages without touching unrelated indexes', async () => {
      const byAssessment = ['invitations_instance', 'invitations_candidate_instance', 'invitations_pkey'];
      // Without statistics the planner expects 0.5% of the table for an assessment or an instance,
      // so it reads the scope's invitations through its index as a bitmap and sorts them rather
      // than walking the index in order up to the page's end: in proportion to the scope (an
      // assessment, an instance), through the scope's own index, never through another. The
      // statistics the service keeps (src/jobs/statistics.ts) bring back the ordered walk.
      for (const slugs of [['beta'], ['rare'], ['rare', 'alpha']]) {
        sound(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId], assessmentIds: slugs }), byAssessment, CANDIDATES + 50));
        sound(await plans((d) => recordTextPage(d, { instanceIds: [instanceId], assessmentIds: slugs }, '0'), byAssessment, CANDIDATES + 50));
      }
      const byInstance = ['invitations_assessment', 'invitations_candidate_instance'];
      // Every invitation is the instance's here; read once (dead versions of updated rows aside).
      const instanceSize = 2 * (3 * CANDIDATES + 50);
      sound(await plans(async (d) => firstPageStored(d, { instanceIds: [instanceId] }), byInstance, instanceSize));
      sound(await plans((d) => recordTextPage(d, { instanceIds: [instanceId] }, '20000'), byInstance, instanceSize));
    });

    it('fills missing score records through the partial index', async () => {
      await db.query(`UPDATE invitations SET record = '{}' WHERE record IS NULL AND id % 1000 <> 0`);
      sound(await plans((d) => fillScoreRecords(d, new Date())));
    });

    it("opens a candidate's portal: link, invitations and their languages", async () => {
      const forbidden = ['invitations_instance', 'invitations_assessment'];
      sound(await plans((d) => openSession(d, generateToken().token, new Date()), forbidden));
      const { rows } = await db.query<{ id: string }>(`SELECT id FROM assessments WHERE slug IN ('alpha', 'beta') ORDER BY slug`);
      const ids = rows.map((r) => r.id);
      sound(await plans((d) => openedInvitations(d, candidateId, ids, new Date()), forbidden));
      sound(await plans((d) => invitationLanguages(d, candidateId, ids), forbidden));
    });

    it('claims due webhook deliveries, reminders, expiries and due attempts without scanning', async () => {
      sound(await plans((d) => claimDue(d, new Date(), 32, 30_000)));
      const mailer = createFileMailer({ mailDir: '/tmp', timeoutMs: 1000 });
      const clock = () => new Date();
      sound(await plans((d) => reminderJob({ db: d, mailer, publicUrl: 'http://x', mailFrom: 'x@localhost', now: clock }, 60_000, clock).run(clock())));
      sound(await plans((d) => expiryJob(d, 60_000, clock).run(clock())));
      const failed: unknown[] = [];
      sound(await plans((d) => completeExpired(d, new Date(), 50, (_id, error) => failed.push(error))));
      assert.deepEqual(failed, []);
    });
  });
}
