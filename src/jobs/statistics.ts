// The planner's statistics, kept by the service itself. PostgreSQL's autovacuum analyzes a table
// once enough of it changed; the embedded store (PGlite, one single-user session) has no
// autovacuum, and a server may run with it off. A table never analyzed is planned on default
// estimates (any equality: 0.5% of the rows), which took the wrong index for hot reads (a score
// read by candidate combined two indexes and read the whole instance; an export page read its
// whole scope and sorted it). So this job applies autovacuum's own rules where autovacuum does not
// run: ANALYZE a table once
//   n_mod_since_analyze > autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × reltuples
// (pg_stat_user_tables, pg_class), or at once when it holds rows but was never analyzed
// (reltuples = -1: this needs no counters, which a server flushes up to seconds late); and on the
// embedded store VACUUM it too by the vacuum rules (dead rows, or rows inserted since the last
// vacuum), since nothing else will. PGlite keeps these counters (measured: n_mod_since_analyze
// and n_ins_since_vacuum count its inserts once flushed; the pass flushes them first). Where autovacuum runs, the job leaves alone every table it serves
// (all but those with autovacuum_enabled = false). One node at a time: the pass holds a
// transaction-level advisory lock, and another node finding it taken skips its turn.
import type { Database } from '../db/database.js';
import type { Job } from './runner.js';

// Any constant shared by all nodes; "acst" in hex.
const LOCK_KEY = 0x61637374;

export interface TableWork {
  table: string;
  analyzed: boolean;
  vacuumed: boolean;
  ms: number;
}

export interface StatisticsOptions {
  /** Also VACUUM by autovacuum's vacuum rules (default: on the embedded store only). */
  vacuum?: boolean;
  /** Tables to ANALYZE whatever their counters say (after a bulk load, whose counts may not be flushed yet). */
  tables?: string[];
}

const DUE = `
  SELECT format('%I.%I', s.schemaname, s.relname) AS name, s.relname AS "table",
         (c.reltuples < 0 AND pg_relation_size(c.oid) > 0)
           OR s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
                                      + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0)
           OR s.relname = ANY($3::text[]) AS analyze,
         $2::boolean AND (
           s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
                          + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
           OR s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
                                     + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0)) AS vacuum
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   WHERE s.schemaname = ANY(current_schemas(false))
     AND (NOT $1::boolean OR coalesce(c.reloptions, '{}') @> ARRAY['autovacuum_enabled=false'])
   ORDER BY s.relname`;

/** Whether PostgreSQL's autovacuum is at work here (never on the embedded store, whatever its setting says). */
async function autovacuumRuns(db: Database): Promise<boolean> {
  if (db.kind === 'pglite') return false;
  const { rows } = await db.query<{ runs: boolean }>(
    `SELECT current_setting('autovacuum') = 'on' AND current_setting('track_counts') = 'on'
            AND EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'autovacuum launcher') AS runs`,
  );
  return rows[0]!.runs;
}

type Due = { name: string; table: string; analyze: boolean; vacuum: boolean };

/**
 * One pass: ANALYZE (and VACUUM, see StatisticsOptions) the tables due by autovacuum's rules, and
 * those named. Returns what it did; an empty list when another node holds the pass.
 * Call it after a bulk operation (a seed, an import) with the tables it filled.
 */
export async function keepStatistics(db: Database, options: StatisticsOptions = {}): Promise<TableWork[]> {
  const vacuum = options.vacuum ?? db.kind === 'pglite';
  const autovacuum = await autovacuumRuns(db);
  const done: TableWork[] = [];
  const analyze = async (row: Due, run: (sql: string) => Promise<unknown>) => {
    if (row.analyze && !row.vacuum) done.push({ table: row.table, analyzed: true, vacuumed: false, ms: await timed(() => run(`ANALYZE ${row.name}`)) });
  };
  let due: Due[];
  if (db.kind === 'pglite') {
    // The embedded store's counters wait for the next flush (at most once a second, and only at
    // a statement's end): measured, a pass right after a bulk insert saw n_ins_since_vacuum = 0.
    await db.query('SELECT pg_stat_force_next_flush()');
    // One process per data directory, so no other node to keep out, and no transaction held open
    // across calls: on PGlite's one connection every other caller's statements would run inside
    // it (and a ROLLBACK of theirs end it). Each ANALYZE is a statement of its own.
    due = (await db.query<Due>(DUE, [autovacuum, vacuum, options.tables ?? []])).rows;
    for (const row of due) await analyze(row, (sql) => db.session((conn) => conn.exec(sql)));
  } else {
    // A server's other connections flush their counters within seconds; this pass sees them next
    // time. The pass runs in one transaction holding a transaction-level advisory lock: it ends
    // with the transaction, so it holds through a pooler in transaction mode (PgBouncer), where a
    // session's lock could be taken on one server connection and released on another. ANALYZE
    // runs inside it; VACUUM cannot run in a transaction, so the tables due for one are vacuumed
    // after the commit (a second node meanwhile finds them vacuumed, or vacuums them again: harmless).
    due = await db.session(async (conn) => {
      await conn.exec('BEGIN');
      try {
        const { rows: lock } = await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [LOCK_KEY]);
        const rows = lock[0]!.ok ? (await conn.query<Due>(DUE, [autovacuum, vacuum, options.tables ?? []])).rows : [];
        for (const row of rows) await analyze(row, (sql) => conn.exec(sql));
        await conn.exec('COMMIT');
        return rows;
      } catch (error) {
        await conn.exec('ROLLBACK').catch(() => {});
        throw error;
      }
    });
  }
  for (const row of due) {
    if (row.vacuum) done.push({ table: row.table, analyzed: true, vacuumed: true, ms: await timed(() => db.session((conn) => conn.exec(`VACUUM (ANALYZE) ${row.name}`))) });
  }
  return done.sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return Math.round((performance.now() - started) * 10) / 10;
}

/** The background pass: first soon after start (tables never analyzed), then every `everyMs`. */
export function statisticsJob(db: Database, everyMs: number, firstMs = 1000): Job {
  return {
    name: 'table-statistics',
    everyMs,
    firstMs,
    run: async () => (await keepStatistics(db)).length,
  };
}
