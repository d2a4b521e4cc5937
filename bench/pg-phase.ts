// What PostgreSQL did during one phase of the save bench, per save: the CPU time of the backends
// of one application (by pg_stat_activity's application_name and /proc), the WAL written
// (pg_current_wal_insert_lsn, the whole server's), the rows inserted, updated (of which HOT) and
// deleted per table and the transactions committed in the database (the cumulative statistics,
// read after the backends' reports are in), and, where pg_stat_statements is loaded, the
// statements run (calls per save). Both sides of the bench share the database, one at a time.
import pg from 'pg';
import { cpuUs } from '../test/reliability/support/server.js';

export interface PgFigures {
  cpuUsPerSave: number;
  walBytesPerSave: number;
  commitsPerSave: number;
  /** Per table with changes: rows inserted / updated / HOT-updated / deleted per save. */
  rows: Record<string, { ins: number; upd: number; hot: number; del: number }>;
  /** Statements per save, most called first (pg_stat_statements loaded only). */
  statements?: { calls: number; query: string }[];
}

const cpuOr0 = (pid: number) => {
  try {
    return cpuUs(pid);
  } catch {
    return 0;
  }
};

interface Snapshot {
  cpu: Map<number, number>;
  lsn: string;
  commits: number;
  tables: Map<string, { ins: number; upd: number; hot: number; del: number }>;
}

const per = (n: number, saves: number) => Math.round((n / Math.max(1, saves)) * 100) / 100;

/** Starts measuring; `end(saves)` stops and gives the figures per save. */
export async function pgPhase(databaseUrl: string, application: string): Promise<{ end(saves: number): Promise<PgFigures> }> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'bench-stats' });
  await client.connect();
  const database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
  let statements = false;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    await client.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
    statements = true;
  } catch {
    // not loaded (shared_preload_libraries): no statement counts
  }
  const snapshot = async (): Promise<Snapshot> => {
    const backends = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [database, application]);
    const lsn = (await client.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]!.lsn;
    const commits = (await client.query<{ n: string }>('SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = $1', [database])).rows[0]!.n;
    const tables = await client.query<{ name: string; ins: string; upd: string; hot: string; del: string }>(
      'SELECT relname AS name, n_tup_ins::text AS ins, n_tup_upd::text AS upd, n_tup_hot_upd::text AS hot, n_tup_del::text AS del FROM pg_stat_user_tables',
    );
    return {
      cpu: new Map(backends.rows.map((r) => [r.pid, cpuOr0(r.pid)])),
      lsn,
      commits: Number(commits),
      tables: new Map(tables.rows.map((r) => [r.name, { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) }])),
    };
  };
  // Backends report their statistics when idle, at most once a second.
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  await settle();
  const before = await snapshot();
  return {
    async end(saves) {
      const cpuAfter = (await snapshot()).cpu;
      await settle();
      const after = await snapshot();
      let cpu = 0;
      for (const [pid, us] of cpuAfter) cpu += us - (before.cpu.get(pid) ?? 0);
      const wal = (await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::text AS bytes', [after.lsn, before.lsn])).rows[0]!.bytes;
      const rows: PgFigures['rows'] = {};
      for (const [name, t] of after.tables) {
        const b = before.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
        const d = { ins: per(t.ins - b.ins, saves), upd: per(t.upd - b.upd, saves), hot: per(t.hot - b.hot, saves), del: per(t.del - b.del, saves) };
        if (d.ins + d.upd + d.del > 0.005) rows[name] = d;
      }
      let top: PgFigures['statements'];
      if (statements) {
        const { rows: found } = await client.query<{ calls: string; query: string }>(
          `SELECT calls::text, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = $1 AND query NOT LIKE '%pg_stat%' AND query NOT LIKE '%pg_current_wal%' ORDER BY calls DESC LIMIT 12`,
          [database],
        );
        top = found.map((r) => ({ calls: per(Number(r.calls), saves), query: r.query })).filter((r) => r.calls >= 0.01);
      }
      await client.end();
      return {
        cpuUsPerSave: Math.round(cpu / Math.max(1, saves)),
        walBytesPerSave: Math.round(Number(wal) / Math.max(1, saves)),
        commitsPerSave: per(after.commits - before.commits, saves),
        rows,
        statements: top,
      };
    },
  };
}
