// Score reads on a fresh database, with and without statistics (`npm run bench -- --fresh 3`):
// each run creates an empty PostgreSQL database, starts the service as `npm start` does (its
// default settings: no NODE_ENV or LOG_LEVEL of the bench's), seeds 2,000 candidates × 2
// invitations through the API, and reads scores by candidate at once, with no ANALYZE from
// outside, against the ready-JSON baseline (bench/ready-baseline.ts); then runs ANALYZE and reads
// again. Rounds alternate the two servers; each side's req/s, p99 and the CPU per request of its
// node process and of its PostgreSQL backends (pg_stat_activity by application name, /proc).
//
// `npm run bench -- --pglite-scale 1000,10000,100000`: score reads by candidate on the embedded
// store (PGlite) with that many invitations in one instance (seeded in SQL, no ANALYZE from
// outside), one service process per size, in alternating rounds; per-read CPU and rate by size.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_TOKEN, admin, cpuUs, freePort, type Node } from '../test/reliability/support/server.js';
import { openDatabase } from '../src/db/database.js';
import { fillScoreRecords } from '../src/modules/invitations/score-records.js';
import { buildReadyTable, publish, sameRecords, seedPglite } from './seed.js';

const ROOT = path.resolve(import.meta.dirname, '..');

export interface Service {
  url: string;
  /** The node process serving HTTP. */
  pid: number;
  stop(): Promise<void>;
}

/** package.json's start script, as `npm start` runs it. */
const startScript = (): string => (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

/**
 * Starts the service as `npm start` does: the start script of package.json, run by a shell that
 * execs it (so that the process is node's own, whose CPU is measured), with the environment the
 * bench was given minus NODE_ENV and LOG_LEVEL, and only what a deployment must say (where the
 * database is, the port, the admin token) plus a request budget that does not throttle the load.
 * The one place that says how the service runs: if `npm start` becomes `node dist/server.js`,
 * this follows the script (after `npm run build`, if there is one).
 */
export async function startService(env: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const script = nodeArgs.length ? startScript().replace(/^(exec\s+)?node\s/, `$1node ${nodeArgs.join(' ')} `) : startScript();
  const port = await freePort();
  const inherited = { ...process.env };
  delete inherited.NODE_ENV;
  delete inherited.LOG_LEVEL;
  const child = spawn('sh', ['-c', script.startsWith('exec ') ? script : `exec ${script}`], {
    cwd: ROOT,
    // Straight to PostgreSQL (no pooler between): named prepared statements are safe, and on.
    env: {
      ...inherited,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN,
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...(env.DATABASE_URL ? { DATABASE_PREPARED_STATEMENTS: 'true' } : {}),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (d) => (errors = (errors + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited ${child.exitCode}: ${errors}`);
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) })).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the service was not ready within 60 s: ${errors}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, stop: () => stopChild(child) };
}

/**
 * The options the start script gives node (`exec node --flag … dist/server.js`): the baseline runs
 * with them too, so that a setting of the service's runtime is one both sides get.
 */
export function startNodeOptions(): string[] {
  const words = startScript()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (words[0] !== 'node') return [];
  return words.slice(1).filter((word) => word.startsWith('--'));
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Starts the ready-JSON baseline (bench/ready-baseline.ts) on the database; `nodeArgs` go to its node (a profiler's, say). */
export async function startReadyBaseline(databaseUrl: string, nodeArgs: string[] = []): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...startNodeOptions(), ...nodeArgs, '--import', 'tsx', path.join(ROOT, 'bench', 'ready-baseline.ts')], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), PGAPPNAME: 'bench-ready-baseline' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('baseline ready') && resolve());
    child.on('exit', (code) => reject(new Error(`baseline exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => stopChild(child) };
}

interface Figures {
  rps: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
  nodeUs: number;
  pgUs: number;
}

function load(scenario: Record<string, unknown>): Promise<Omit<Figures, 'nodeUs' | 'pgUs'>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), JSON.stringify(scenario)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load generator exited ${code}`))));
  });
}

const cpuOr0 = (pid: number) => {
  try {
    return cpuUs(pid);
  } catch {
    return 0;
  }
};

/** CPU (µs) of each PostgreSQL backend of a database and application, now. */
async function backendCpu(client: pg.Client, database: string, application: string): Promise<Map<number, number>> {
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [database, application]);
  return new Map(rows.map((r) => [r.pid, cpuOr0(r.pid)]));
}

/** One load run on a server, with its node's and its PostgreSQL backends' CPU per request. */
async function measured(server: Service, pgSide: { client: pg.Client; database: string; application: string } | undefined, scenario: Record<string, unknown>): Promise<Figures> {
  const node0 = cpuOr0(server.pid);
  const pg0 = pgSide ? await backendCpu(pgSide.client, pgSide.database, pgSide.application) : new Map<number, number>();
  const f = await load(scenario);
  const node1 = cpuOr0(server.pid);
  const pg1 = pgSide ? await backendCpu(pgSide.client, pgSide.database, pgSide.application) : new Map<number, number>();
  let pgSpent = 0;
  for (const [pid, cpu] of pg1) pgSpent += cpu - (pg0.get(pid) ?? 0);
  const n = Math.max(1, f.total);
  return { ...f, nodeUs: (node1 - node0) / n, pgUs: pgSpent / n };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const summary = (list: Figures[]) => ({
  rps: median(list.map((f) => f.rps)),
  p99: median(list.map((f) => f.p99)),
  nodeUs: median(list.map((f) => f.nodeUs)),
  pgUs: median(list.map((f) => f.pgUs)),
  bad: list.reduce((t, f) => t + f.non2xx + f.errors, 0),
});

/** Invites `candidates` new candidates to two assessments each through the API, `parallel` at a time. */
async function seedThroughApi(url: string, key: string, candidates: number, parallel = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= candidates) return;
      const response = await fetch(`${url}/v1/invite`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, instance: 'bench' },
        body: JSON.stringify({ email: `fresh${i}@bench.example`, firstName: 'Fresh', lastName: `Candidate${i}`, assessments: ['alpha', 'beta'] }),
      });
      if (response.status !== 200) throw new Error(`invite answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

interface PhaseResult {
  run: number;
  phase: 'no ANALYZE' | 'after ANALYZE';
  service: ReturnType<typeof summary>;
  baseline: ReturnType<typeof summary>;
  ratio: number;
  ratios: number[];
  p99Ratio: number;
  /** Whether invitations had statistics (from anyone) when the phase ended, and when it began. */
  statistics: string;
  /** Score reads the service answered per score statement it ran (it gathers reads that arrive together). */
  readsPerStatement: number;
}

/**
 * The service's score reads answered and score statements run so far, from its /metrics: reads by
 * one candidate that reach a node in one turn of its event loop are read by one statement.
 */
async function scoreCounts(url: string): Promise<{ reads: number; statements: number }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  const sum = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((n, m) => n + Number(m[1]), 0);
  return {
    reads: sum(/^http_request_duration_seconds_count\{[^}]*route="\/v1\/score"[^}]*\} (\d+)/gm),
    statements: sum(/^db_query_duration_seconds_count\{query="score_by_candidate(?:_batch)?"\} (\d+)/gm),
  };
}

export interface FreshOptions {
  baseUrl: string;
  runs: number;
  candidates: number;
  rounds: number;
  seconds: number;
  connections: number;
}

/** The fresh-database scenario; returns its Markdown report. */
export async function freshScenario(o: FreshOptions): Promise<string> {
  const results: PhaseResult[] = [];
  for (let run = 1; run <= o.runs; run++) {
    const name = `bench_fresh_${process.pid}_${run}`;
    const url = new URL(o.baseUrl);
    url.pathname = `/${name}`;
    const server = new pg.Client({ connectionString: o.baseUrl });
    await server.connect();
    await server.query(`CREATE DATABASE ${name}`);
    const client = new pg.Client({ connectionString: url.toString() });
    let service: Service | undefined;
    let baseline: Service | undefined;
    const idsFile = path.join(tmpdir(), `bench-fresh-ids-${process.pid}.json`);
    try {
      const began = Date.now();
      service = await startService({ DATABASE_URL: url.toString() });
      // The service's first statistics pass (a second after start) finds the tables empty: the reads
      // then meet invitations never analyzed until its next pass, a minute later (the worst case;
      // seeding during that first pass would give it statistics of the first few dozen rows).
      await new Promise((r) => setTimeout(r, 2500));
      await publish({ url: service.url } as Node);
      const key = ((await admin({ url: service.url } as Node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
      await seedThroughApi(service.url, key, o.candidates);
      const seeded = Date.now();
      await client.connect();
      // The records are the service's read model, filled by its own job within a second.
      for (;;) {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM invitations WHERE record IS NULL');
        if (rows[0]!.n === 0) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      await buildReadyTable(url.toString());
      baseline = await startReadyBaseline(url.toString());
      const ids = (await client.query<{ id: string }>('SELECT id FROM candidates ORDER BY random()')).rows.map((r) => r.id);
      writeFileSync(idsFile, JSON.stringify(ids));
      const auth = { 'x-api-key': key, instance: 'bench' };
      for (const id of ids.slice(0, 3)) {
        const a = await (await fetch(`${service.url}/v1/score?candidateIds=${id}`, { headers: auth })).text();
        const b = await (await fetch(`${baseline.url}/score?candidateIds=${id}`)).text();
        if (!sameRecords(a, b)) throw new Error(`the baseline's answer differs from the service's:\n${a.slice(0, 300)}\n${b.slice(0, 300)}`);
      }
      console.log(
        `# fresh run ${run}: ${o.candidates} candidates × 2 invitations through the API in ${((seeded - began) / 1000).toFixed(1)} s (from start), reading at ${((Date.now() - began) / 1000).toFixed(1)} s`,
      );
      const stats = async () => {
        const { rows } = await client.query<{ reltuples: number; analyzed: boolean }>(
          `SELECT c.reltuples::float8 AS reltuples, (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL) AS analyzed
             FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'invitations'`,
        );
        return rows[0]!.analyzed ? `analyzed (reltuples ${rows[0]!.reltuples})` : `never analyzed (reltuples ${rows[0]!.reltuples})`;
      };
      // Both routes warmed (2 s each, not counted) before the first round: the first reads of a
      // process include V8's compilation of the route, not the plan's cost.
      await load({ url: service.url, path: '/v1/score?candidateIds=', idsFile, headers: auth, seconds: 2, connections: o.connections });
      await load({ url: baseline.url, path: '/score?candidateIds=', idsFile, seconds: 2, connections: o.connections });
      for (const phase of ['no ANALYZE', 'after ANALYZE'] as const) {
        if (phase === 'after ANALYZE') await client.query('ANALYZE');
        const before = await stats();
        const countsBefore = await scoreCounts(service.url);
        const s: Figures[] = [];
        const b: Figures[] = [];
        for (let round = 0; round < o.rounds; round++) {
          const sides = [
            async () =>
              s.push(
                await measured(
                  service!,
                  { client, database: name, application: 'assessment-connect' },
                  { url: service!.url, path: '/v1/score?candidateIds=', idsFile, headers: auth, seconds: o.seconds, connections: o.connections },
                ),
              ),
            async () =>
              b.push(
                await measured(
                  baseline!,
                  { client, database: name, application: 'bench-ready-baseline' },
                  { url: baseline!.url, path: '/score?candidateIds=', idsFile, seconds: o.seconds, connections: o.connections },
                ),
              ),
          ];
          for (const side of round % 2 ? sides.reverse() : sides) await side();
        }
        const ratios = s.map((f, i) => f.rps / b[i]!.rps);
        const countsAfter = await scoreCounts(service.url);
        const result: PhaseResult = {
          run,
          phase,
          service: summary(s),
          baseline: summary(b),
          ratio: median(ratios),
          ratios,
          p99Ratio: median(s.map((f) => f.p99)) / Math.max(0.01, median(b.map((f) => f.p99))),
          statistics: `${before} → ${await stats()}`,
          readsPerStatement: (countsAfter.reads - countsBefore.reads) / Math.max(1, countsAfter.statements - countsBefore.statements),
        };
        results.push(result);
        console.log(
          `# run ${run}, ${phase}: service ${result.service.rps.toFixed(0)} req/s p99 ${result.service.p99} ms node ${result.service.nodeUs.toFixed(0)} µs PG ${result.service.pgUs.toFixed(0)} µs; ` +
            `baseline ${result.baseline.rps.toFixed(0)} req/s p99 ${result.baseline.p99} ms node ${result.baseline.nodeUs.toFixed(0)} µs PG ${result.baseline.pgUs.toFixed(0)} µs; ` +
            `ratios ${ratios.map((r) => r.toFixed(2)).join(' ')}; p99 ratio ${result.p99Ratio.toFixed(2)}; service reads per statement ${result.readsPerStatement.toFixed(2)}; invitations ${result.statistics}; non-2xx/errors ${result.service.bad}/${result.baseline.bad}`,
        );
      }
    } finally {
      await baseline?.stop();
      await service?.stop();
      await client.end().catch(() => {});
      await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await server.end();
      rmSync(idsFile, { force: true });
    }
  }
  const lines = [
    `Fresh database, ${o.candidates.toLocaleString('en')} candidates × 2 invitations seeded through the API, score by candidate read at once (${o.rounds} alternating rounds of ${o.seconds} s, ${o.connections} connections; medians; CPU per request of the node process and of its PostgreSQL backends):`,
    '',
    '| run | statistics | side | req/s | p99 ms | node CPU µs/req | PostgreSQL CPU µs/req | service/baseline (rounds) | p99 ratio | CPU ratio |',
    '|---:|---|---|---:|---:|---:|---:|---|---:|---:|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.run} | ${r.phase} | service | ${r.service.rps.toFixed(0)} | ${r.service.p99} | ${r.service.nodeUs.toFixed(0)} | ${r.service.pgUs.toFixed(0)} | **${r.ratio.toFixed(2)}×** (${r.ratios.map((x) => x.toFixed(2)).join(', ')}) | ${r.p99Ratio.toFixed(2)} | ${((r.baseline.nodeUs + r.baseline.pgUs) / (r.service.nodeUs + r.service.pgUs)).toFixed(2)} |`,
      `| ${r.run} | ${r.phase} | ready-JSON baseline | ${r.baseline.rps.toFixed(0)} | ${r.baseline.p99} | ${r.baseline.nodeUs.toFixed(0)} | ${r.baseline.pgUs.toFixed(0)} | | | |`,
    );
  }
  lines.push(
    '',
    "CPU ratio: the baseline's CPU per request (node + PostgreSQL) over the service's, the throughput ratio the two would have on a machine whose cores they had to themselves.",
  );
  lines.push(
    '',
    `What each side did per read: the baseline ran one statement (its pool's query); the service gathered the reads that reached its node in one turn of the event loop into one statement, ${results.map((r) => `${r.readsPerStatement.toFixed(2)}`).join(', ')} reads per statement in the phases above.`,
  );
  lines.push('', `Invitations' statistics during each phase: ${results.map((r) => `run ${r.run} ${r.phase}: ${r.statistics}`).join('; ')}.`);
  return lines.join('\n');
}

/** Score reads by candidate on PGlite at each size (invitations in one instance), no ANALYZE from outside. */
export async function pgliteScale(sizes: number[], o: { rounds: number; seconds: number; connections: number }): Promise<string> {
  const nodes: { invitations: number; service: Service; dir: string; idsFile: string; auth: Record<string, string> }[] = [];
  try {
    for (const invitations of sizes) {
      const dir = mkdtempSync(path.join(tmpdir(), 'bench-pglite-scale-'));
      // seedRows invites each candidate to three assessments, plus 100 to a fourth.
      const candidates = Math.max(1, Math.round((invitations - 100) / 3));
      await seedPglite(dir, candidates, false);
      // The read model filled as the service's job would, so that reads start with every record ready.
      const db = await openDatabase({ dataDir: dir });
      try {
        while ((await fillScoreRecords(db, new Date(), 5000)) > 0);
      } finally {
        await db.close();
      }
      const service = await startService({ DATA_DIR: dir, DATABASE_URL: '' });
      const key = ((await admin({ url: service.url } as Node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
      const auth = { 'x-api-key': key, instance: 'bench' };
      // The candidates' ids, from the service's own export (the store belongs to its process).
      const ids: string[] = [];
      const page = (await (await fetch(`${service.url}/v1/score?limit=1000`, { headers: auth })).json()) as { candidateId: string }[] | { records?: { candidateId: string }[] };
      for (const r of Array.isArray(page) ? page : (page.records ?? [])) ids.push(r.candidateId);
      if (ids.length === 0) throw new Error(`no candidate ids from the export at ${invitations}`);
      const idsFile = path.join(dir, 'ids.json');
      writeFileSync(idsFile, JSON.stringify([...new Set(ids)]));
      nodes.push({ invitations: candidates * 3 + 100, service, dir, idsFile, auth });
      console.log(`# PGlite: ${(candidates * 3 + 100).toLocaleString('en')} invitations seeded, service on ${dir}`);
    }
    // Give each service's statistics pass (a second after start) time to finish, and warm each
    // node's route (2 s of the same load, not counted) before measuring.
    await new Promise((r) => setTimeout(r, 3000));
    for (const n of nodes) await load({ url: n.service.url, path: '/v1/score?candidateIds=', idsFile: n.idsFile, headers: n.auth, seconds: 2, connections: o.connections });
    const figures = nodes.map(() => [] as Figures[]);
    for (let round = 0; round < o.rounds; round++) {
      const order = nodes.map((_, i) => (i + round) % nodes.length);
      for (const i of order) {
        const n = nodes[i]!;
        figures[i]!.push(
          await measured(n.service, undefined, {
            url: n.service.url,
            path: '/v1/score?candidateIds=',
            idsFile: n.idsFile,
            headers: n.auth,
            seconds: o.seconds,
            connections: o.connections,
          }),
        );
      }
    }
    const base = summary(figures[0]!);
    const lines = [
      `PGlite, score by candidate at each size (one instance; seeded in SQL without ANALYZE, the service's own statistics job the only ANALYZE; ${o.rounds} rounds of ${o.seconds} s, sizes alternated; medians; CPU of the node process, which includes PGlite's thread):`,
      '',
      '| invitations | req/s | p99 ms | CPU µs/read | CPU per read vs smallest | non-2xx/errors |',
      '|---:|---:|---:|---:|---:|---:|',
    ];
    nodes.forEach((n, i) => {
      const s = summary(figures[i]!);
      lines.push(`| ${n.invitations.toLocaleString('en')} | ${s.rps.toFixed(0)} | ${s.p99} | ${s.nodeUs.toFixed(0)} | ${(s.nodeUs / base.nodeUs).toFixed(2)}× | ${s.bad} |`);
    });
    return lines.join('\n');
  } finally {
    for (const n of nodes) {
      await n.service.stop();
      rmSync(n.dir, { recursive: true, force: true });
    }
  }
}
