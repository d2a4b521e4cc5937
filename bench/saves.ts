// Answer saves against an independent baseline (`npm run bench -- --saves`): on a fresh PostgreSQL
// database, the service started as `npm start` starts it (bench/fresh.ts startService) and the
// bare upsert of bench/save-baseline.ts under the same node flags; N candidates (default 200)
// invited through POST /v1/invite and started through the portal as a browser does (the link's
// token for a session cookie, the list, the intro page for its CSRF token, start); then, after a
// warm-up of 2 s per side (not counted), in three
// rounds that alternate which side goes first, a closed loop of 32 connections for 5 s on each:
// the service's PUT /portal/api/a/alpha/answers/{q} (cookie and CSRF header, as portal.js sends
// it) and the baseline's PUT /answer/{candidate}/{assessment}/{q}, the same answers in the same
// order (four questions in turn, the free text growing). Each side's saves/s, p50/p99, the CPU of
// its node per save and, on PostgreSQL, its backends' CPU per save, WAL bytes, transactions and
// rows touched per save (bench/pg-phase.ts). `--saves-pglite`: the same on the embedded store,
// each side on its own PGlite (node CPU then includes the database).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { admin, freePort, type Node } from '../test/reliability/support/server.js';
import { startNodeOptions, startService, type Service } from './fresh.js';
import { publish } from './seed.js';
import type { PgFigures } from './pg-phase.js';
import type { ClosedFigures } from './campaign.js';

const ROOT = path.resolve(import.meta.dirname, '..');

type Phase = ClosedFigures;

interface Driven {
  setup: { candidates: number; failed: number; seconds: number };
  service: Phase[];
  baseline: Phase[];
  failures: string[];
}

export interface SavesOptions {
  baseUrl: string;
  candidates: number;
  rounds: number;
  seconds: number;
  connections: number;
  pglite: boolean;
}

function drive(job: Record<string, unknown>): Promise<Driven> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'campaign.ts'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Driven) : reject(new Error(`saves driver exited ${code}`))));
  });
}

/** Starts the bare upsert (bench/save-baseline.ts) under the start script's node flags. */
export async function startSaveBaseline(env: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...startNodeOptions(), ...profileArgs(), '--import', 'tsx', path.join(ROOT, 'bench', 'save-baseline.ts')], {
    env: { ...process.env, ...env, PORT: String(port), PGAPPNAME: 'bench-save-baseline' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('baseline ready') && resolve());
    child.on('exit', (code) => reject(new Error(`save baseline exited ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** BENCH_PROFILE_DIR: the service writes a CPU profile there (node --cpu-prof) when it stops. */
const profileArgs = () => (process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []);

/** The baseline's rows are keyed by a uuid, as the service's: this one stands for the assessment. */
export const SAVE_BASELINE_ASSESSMENT = '00000000-0000-4000-8000-00000000a1fa';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;

function rowsText(f?: PgFigures): string {
  if (!f) return '';
  return Object.entries(f.rows)
    .map(([table, t]) => `${table} ${[t.ins && `${t.ins} ins`, t.upd && `${t.upd} upd (${t.hot} HOT)`, t.del && `${t.del} del`].filter(Boolean).join(', ')}`)
    .join('; ');
}

/** One side's figures as the median of its rounds. */
function side(phases: Phase[]) {
  const pgOf = phases.map((p) => p.pg).filter((p): p is PgFigures => p !== undefined);
  return {
    perSecond: median(phases.map((p) => p.perSecond)),
    p50: median(phases.map((p) => p.p50)),
    p99: median(phases.map((p) => p.p99)),
    nodeUs: median(phases.map((p) => p.cpuUsPerSave)),
    pgUs: pgOf.length ? median(pgOf.map((p) => p.cpuUsPerSave)) : undefined,
    wal: pgOf.length ? median(pgOf.map((p) => p.walBytesPerSave)) : undefined,
    commits: pgOf.length ? median(pgOf.map((p) => p.commitsPerSave)) : undefined,
    bad: phases.reduce((n, p) => n + p.non2xx + p.errors, 0),
    saves: phases.reduce((n, p) => n + p.saves, 0),
    rows: rowsText(pgOf[pgOf.length - 1]),
    statements: pgOf[pgOf.length - 1]?.statements,
  };
}

/** A side's server, the service's key and instance, while a scenario runs (see withSides). */
export interface Sides {
  service: Service;
  baseline: Service;
  key: string;
  /** The database both sides share (PostgreSQL); undefined on PGlite. */
  databaseUrl?: string;
}

/**
 * Runs `work` with the service (as `npm start` starts it, with `serviceEnv`) and the bare baseline
 * of bench/save-baseline.ts (with `baselineEnv`) on a fresh PostgreSQL database of their own, or
 * each on its own PGlite; the bench instance published (alpha, beta, gamma, hundred) and an API key
 * for it. Everything is stopped and dropped afterwards.
 */
export async function withSides<T>(
  o: { baseUrl: string; pglite: boolean; prefix: string; serviceEnv?: Record<string, string>; baselineEnv?: Record<string, string> },
  work: (sides: Sides) => Promise<T>,
): Promise<T> {
  const name = `${o.prefix}_${process.pid}`;
  const dataDirs: string[] = [];
  let databaseUrl: string | undefined;
  let adminClient: pg.Client | undefined;
  let service: Service | undefined;
  let baseline: Service | undefined;
  try {
    if (o.pglite) {
      dataDirs.push(mkdtempSync(path.join(tmpdir(), `${o.prefix}-service-`)), mkdtempSync(path.join(tmpdir(), `${o.prefix}-baseline-`)));
      service = await startService({ ...o.serviceEnv, DATA_DIR: dataDirs[0]!, DATABASE_URL: '' }, profileArgs());
      baseline = await startSaveBaseline({ ...o.baselineEnv, DATA_DIR: dataDirs[1]!, DATABASE_URL: '' });
    } else {
      adminClient = new pg.Client({ connectionString: o.baseUrl });
      await adminClient.connect();
      await adminClient.query(`CREATE DATABASE ${name}`);
      const url = new URL(o.baseUrl);
      url.pathname = `/${name}`;
      databaseUrl = url.toString();
      service = await startService({ ...o.serviceEnv, DATABASE_URL: databaseUrl }, profileArgs());
      baseline = await startSaveBaseline({ ...o.baselineEnv, DATABASE_URL: databaseUrl });
    }
    const node = { url: service.url } as Node;
    await publish(node);
    const key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
    return await work({ service, baseline, key, databaseUrl });
  } finally {
    await service?.stop();
    await baseline?.stop();
    if (adminClient) {
      await adminClient.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await adminClient.end();
    }
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}

export async function savesScenario(o: SavesOptions): Promise<{ text: string; ratio: number; failures: string[] }> {
  return withSides({ baseUrl: o.baseUrl, pglite: o.pglite, prefix: 'bench_saves' }, async ({ service, baseline, key, databaseUrl }) => {
    const assessments = (await (await fetch(`${service.url}/v1/assessment`, { headers: { 'x-api-key': key, instance: 'bench' } })).json()) as { id: string }[];
    const alpha = assessments.find((a) => a.id === 'alpha');
    if (!alpha) throw new Error('the bench instance has no assessment alpha');
    const result = await drive({
      mode: 'saves',
      url: service.url,
      baselineUrl: baseline.url,
      key,
      n: o.candidates,
      seconds: o.seconds,
      rounds: o.rounds,
      connections: o.connections,
      servicePid: service.pid,
      baselinePid: baseline.pid,
      assessmentId: SAVE_BASELINE_ASSESSMENT,
      databaseUrl,
    });
    const s = side(result.service);
    const b = side(result.baseline);
    const ratios = result.service.map((p, i) => p.perSecond / Math.max(1, result.baseline[i]!.perSecond));
    const ratio = r2(median(ratios));
    const store = o.pglite ? 'PGlite (each side its own, in its node)' : 'PostgreSQL';
    const lines = [
      `Answer saves on ${store}: ${result.setup.candidates} candidates started through the portal (${result.setup.failed} failed), ${o.rounds} alternated rounds of a closed loop of ${o.connections} connections for ${o.seconds} s per side.`,
      '',
      '| side | saves/s | p50 / p99 ms | node CPU µs/save | PostgreSQL CPU µs/save | WAL bytes/save | commits/save | errors |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      `| service (PUT /portal/api/a/alpha/answers/{q}) | ${r1(s.perSecond)} | ${s.p50} / ${s.p99} | ${s.nodeUs} | ${s.pgUs ?? 'in node'} | ${s.wal ?? '–'} | ${s.commits ?? '–'} | ${s.bad} of ${s.saves} |`,
      `| bare upsert baseline (bench/save-baseline.ts) | ${r1(b.perSecond)} | ${b.p50} / ${b.p99} | ${b.nodeUs} | ${b.pgUs ?? 'in node'} | ${b.wal ?? '–'} | ${b.commits ?? '–'} | ${b.bad} of ${b.saves} |`,
      '',
      `Service/baseline saves per second by round: ${ratios.map(r2).join(', ')} (median **${ratio}×**); p99 ratio ${r2(s.p99 / Math.max(0.1, b.p99))}.`,
    ];
    if (s.rows) lines.push('', `Rows per save, service: ${s.rows}.`, `Rows per save, baseline: ${b.rows}.`);
    if (s.statements) lines.push('', 'Statements per save, service (pg_stat_statements, last round):', '', ...s.statements.map((st) => `- ${st.calls} × \`${st.query}\``));
    return { text: lines.join('\n'), ratio, failures: result.failures };
  });
}
