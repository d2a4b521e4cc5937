// `npm run bench`: seeds PostgreSQL to a chosen size, starts the service and the bare baseline
// (bench/baseline.ts) on the same data, and measures each scenario on both, alternating them
// round by round (the machines are shared and noisy), reporting medians, the service's ratio
// to the baseline (the median of the rounds' ratios) and the CPU time each server spent per request. Writes the table to docs/performance.md.
//
//   npm run bench                          100,000 candidates, 5 rounds of 6 s per scenario
//   npm run bench -- --quick               1 round of 3 s (a smoke run)
//   npm run bench -- --candidates 10000 --rounds 5 --seconds 5 --connections 10
//   npm run bench -- --workers 2           also the service with WORKERS=2 on score-by-candidate
//   npm run bench -- --pglite              also the service on the embedded store (PGlite), same data
//   npm run bench -- --scale 10000,100000,1000000   score-by-candidate and invite at each size
//   npm run bench -- --export-candidates 333300     the export on its own data (default: 333,300
//                                          candidates = 1,000,000 records; with --quick, --candidates)
//   npm run bench -- --no-write            print only
//   npm run bench -- --candidates-online 1000   the campaign: N candidates through the portal's API,
//                                          each saving an answer every 5 s (with --quick: 50 for 10 s)
//   npm run bench -- --candidates-online 1000 --campaign-search 8000   then N = 2×, 4×, … up to
//                                          8000 until a save's p99 reaches 100 ms or errors appear
//   npm run bench -- --sweep               100,000 open attempts, 10,000 of them due in one minute
//   npm run bench -- --only sweep          that scenario alone, printed (nothing written)
//   npm run bench -- --only costs          logging's and metrics' cost alone, printed
//   npm run bench -- --cost-rounds 21 --cost-seconds 2   rounds of those costs (the defaults)
//   npm run bench -- --fresh 3            only this: 3 runs on fresh databases, 2,000 candidates × 2
//                                          invitations seeded through the API, score by candidate
//                                          read at once without ANALYZE, then after (bench/fresh.ts)
//   npm run bench -- --pglite-scale 1000,10000,100000   only this: score reads by candidate on
//                                          PGlite at each number of invitations, no outside ANALYZE
//   npm run bench -- --webhooks 10000      N attempts completed within a minute, delivered to a
//                                          local receiver (--webhook-wait: seconds to wait after)
//   npm run bench -- --saves              only this: answer saves through the portal's API against a
//                                          bare upsert (bench/saves.ts), 200 candidates, a 2 s warm-up, 3 rounds of
//                                          32 connections × 5 s; --saves-pglite: on the embedded store
//   npm run bench -- --paths              only this: score reads and invites straight to PostgreSQL (named
//                                          statements or not), through PgBouncer in transaction mode (started
//                                          here), and with DATABASE_READ_URL on BENCH_REPLICA_URL's replica
//   npm run bench -- --submits            only this: 1,000 started candidates submit within 60 s
//                                          (--submits-candidates, --submit-seconds), service then a
//                                          bare scorer and sender (bench/submits.ts): time to the last
//                                          score and the last webhook; --submits-pglite: on the embedded store
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { admin, cpuUs, freePort, rssMb, serveFromBuild, startNode, type Node } from '../test/reliability/support/server.js';
import { buildReadyTable, publish, readerOf, recordsReady, sameRecords, seed, seedPglite, type Seeded } from './seed.js';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { openDatabase } from '../src/db/database.js';
import { fillScoreRecords } from '../src/modules/invitations/score-records.js';
import { freshScenario, pgliteScale } from './fresh.js';
import { SAVE_BASELINE_ASSESSMENT, savesScenario, startSaveBaseline } from './saves.js';
import { startReceiver, submitsScenario } from './submits.js';
import { startPgBouncer } from '../test/support/pgbouncer.js';

const ROOT = path.resolve(import.meta.dirname, '..');
// The service's nodes run the compiled build, as `npm start` does (`npm run bench` builds it first).
serveFromBuild();
const { values: options } = parseArgs({
  options: {
    candidates: { type: 'string', default: '100000' },
    rounds: { type: 'string' },
    seconds: { type: 'string' },
    connections: { type: 'string', default: '10' },
    quick: { type: 'boolean', default: false },
    workers: { type: 'string' },
    pglite: { type: 'boolean', default: false },
    scale: { type: 'string' },
    'export-candidates': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    'candidates-online': { type: 'string' },
    'campaign-seconds': { type: 'string' },
    'campaign-search': { type: 'string' },
    sweep: { type: 'boolean', default: false },
    'sweep-attempts': { type: 'string', default: '100000' },
    'sweep-due': { type: 'string', default: '10000' },
    webhooks: { type: 'string' },
    'webhook-wait': { type: 'string', default: '120' },
    only: { type: 'string' },
    'cost-rounds': { type: 'string' },
    'cost-seconds': { type: 'string' },
    fresh: { type: 'string' },
    'fresh-candidates': { type: 'string', default: '2000' },
    'pglite-scale': { type: 'string' },
    saves: { type: 'boolean', default: false },
    'saves-pglite': { type: 'boolean', default: false },
    'saves-candidates': { type: 'string', default: '200' },
    'saves-connections': { type: 'string', default: '32' },
    submits: { type: 'boolean', default: false },
    'submits-pglite': { type: 'boolean', default: false },
    'submits-candidates': { type: 'string', default: '1000' },
    'submit-seconds': { type: 'string', default: '60' },
    'submit-wait': { type: 'string', default: '120' },
    paths: { type: 'boolean' },
  },
});
const candidates = Number(options.candidates);
const rounds = Number(options.rounds ?? (options.quick ? 1 : 5));
const seconds = Number(options.seconds ?? (options.quick ? 3 : 6));
const connections = Number(options.connections);
/** 333,300 candidates × 3 invitations + 100 = 1,000,000 records, the issue's export size. */
const exportCandidates = Number(options['export-candidates'] ?? (options.quick ? candidates : 333_300));
const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Figures {
  rps: number;
  /** CPU time (user + system) the server process spent per request, in µs; 0 when not measured. */
  cpuUs: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

function load(scenario: Record<string, unknown>): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), JSON.stringify({ seconds, connections, ...scenario })], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load generator exited ${code}`))));
  });
}

async function startBaseline(url: string, script = 'baseline.ts', env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', script)], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('baseline ready') && resolve());
    child.on('exit', (code) => reject(new Error(`baseline exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Medians over the rounds of one scenario on one server. */
async function measure(scenario: Record<string, unknown>): Promise<Figures> {
  const list: Figures[] = [];
  for (let round = 0; round < rounds; round++) list.push(await load(scenario));
  return summarize(list);
}

/** Medians of the rates and latencies of several rounds, sums of their counts. */
function summarize(list: Figures[]): Figures {
  return {
    rps: median(list.map((f) => f.rps)),
    cpuUs: median(list.map((f) => f.cpuUs ?? 0)),
    p50: median(list.map((f) => f.p50)),
    p99: median(list.map((f) => f.p99)),
    total: list.reduce((t, f) => t + f.total, 0),
    non2xx: list.reduce((t, f) => t + f.non2xx, 0),
    errors: list.reduce((t, f) => t + f.errors, 0),
  };
}

/** One load run against a server process, with the CPU time that process spent per request. */
async function loadOn(pid: number, scenario: Record<string, unknown>): Promise<Figures> {
  const before = cpuUs(pid);
  const figures = await load(scenario);
  return { ...figures, cpuUs: (cpuUs(pid) - before) / Math.max(1, figures.total) };
}

/** Reads the whole unfiltered export; time to first byte, MB/s and the server's RSS growth. */
async function exportOnce(node: Node, key: string): Promise<{ ttfbMs: number; mbps: number; mb: number; rssGrowthMb: number }> {
  const pid = node.child.pid!;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const began = performance.now();
  const response = await fetch(`${node.url}/v1/score`, { headers: { 'x-api-key': key } });
  let ttfb = 0;
  if (response.status !== 200) throw new Error(`the export answered ${response.status}`);
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (!ttfb) ttfb = performance.now() - began;
    bytes += chunk.byteLength;
  }
  const seconds = (performance.now() - began) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(pid));
  return { ttfbMs: ttfb, mbps: bytes / 1e6 / seconds, mb: bytes / 1e6, rssGrowthMb: peak - before };
}

/** The same rows as JSON straight out of PostgreSQL with psql \copy: the transfer-rate ceiling. */
function psqlExport(url: string): { mbps: number; mb: number } {
  const sql = `\\copy (SELECT row_to_json(t) FROM (SELECT i.id, i.candidate_id, a.slug, a.name, i.assessment_status, i.score_status, i.completion, i.total_score, i.typing_wpm, i.category_scores, i.red_flag, i.started_at, i.finished_at FROM invitations i JOIN assessments a ON a.id = i.assessment_id ORDER BY i.id) t) to '${path.join(tmpdir(), 'bench-export.json')}'`;
  const began = performance.now();
  execFileSync('psql', [url, '-q', '-c', sql]);
  const seconds = (performance.now() - began) / 1000;
  const mb = readFileSync(path.join(tmpdir(), 'bench-export.json')).byteLength / 1e6;
  return { mbps: mb / seconds, mb };
}

interface Row {
  name: string;
  s: Figures;
  b: Figures;
  /** Median of the rounds' service/baseline throughput ratios. */
  ratio: number;
  ratios: number[];
  target: { rps?: number; p99?: number };
  /** Against the ready-JSON baseline (bench/ready-baseline.ts), for the score reads. */
  ready?: { f: Figures; ratio: number; ratios: number[]; p99Ratio: number; target: { rps?: number; p99?: number } };
}

type ExportFigures = { records: number; ttfbMs: number; mbps: number; mb: number; rssGrowthMb: number; psqlMbps: number; psqlMb: number };

/**
 * The full export, on the main data or (the default) on a database of its own with
 * --export-candidates candidates, served by its own node: three exports and three psql \copy runs,
 * alternated, medians; the memory growth is the largest of the three.
 */
async function exportScenario(main: Seeded, mainNode: Node, mainKey: string): Promise<ExportFigures> {
  let seeded = main;
  let node = mainNode;
  let key = mainKey;
  if (exportCandidates !== main.candidates) {
    seeded = await seed(baseUrl, exportCandidates);
    console.log(
      `# export: ${seeded.reused ? 'reusing' : 'seeded'} ${seeded.url} (${seeded.invitations.toLocaleString('en')} records${seeded.reused ? '' : `, ${seeded.seconds} s`})`,
    );
    node = await startNode(seeded.url, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    await recordsReady(seeded.url);
    key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
  }
  try {
    // One small page first, as a client's first request would warm the route.
    await (await fetch(`${node.url}/v1/score?limit=1000`, { headers: { 'x-api-key': key } })).arrayBuffer();
    const exports = [];
    const psql = [];
    for (let round = 0; round < Math.max(1, Math.min(rounds, 3)); round++) {
      exports.push(await exportOnce(node, key));
      psql.push(psqlExport(seeded.url));
    }
    const exp = {
      records: seeded.invitations,
      ttfbMs: median(exports.map((e) => e.ttfbMs)),
      mbps: median(exports.map((e) => e.mbps)),
      mb: exports[0]!.mb,
      rssGrowthMb: Math.max(...exports.map((e) => e.rssGrowthMb)),
      psqlMbps: median(psql.map((p) => p.mbps)),
      psqlMb: psql[0]!.mb,
    };
    console.log(
      `export of ${exp.records.toLocaleString('en')} records: ${exp.mb.toFixed(1)} MB, first byte ${exp.ttfbMs.toFixed(0)} ms, ${exp.mbps.toFixed(1)} MB/s (psql \\copy ${exp.psqlMbps.toFixed(1)} MB/s), server RSS growth ${exports.map((e) => e.rssGrowthMb.toFixed(0)).join(' / ')} MB`,
    );
    return exp;
  } finally {
    if (node !== mainNode) await node.stop();
  }
}

/** The machine's 1-minute load average when the run began: shared machines make every figure move. */
const loadAtStart = loadavg()[0]!;

async function main() {
  if (options.fresh !== undefined || options['pglite-scale'] !== undefined) {
    // Printed, not written: these runs are short and their tables go into docs/performance.md by hand.
    const o = { rounds: Number(options.rounds ?? 3), seconds: Number(options.seconds ?? 5), connections };
    if (options.fresh !== undefined) console.log(`\n${await freshScenario({ ...o, baseUrl, runs: Number(options.fresh), candidates: Number(options['fresh-candidates']) })}`);
    if (options['pglite-scale'] !== undefined) console.log(`\n${await pgliteScale(options['pglite-scale'].split(',').map(Number), o)}`);
    return;
  }
  if (options.saves || options['saves-pglite'] || options.submits || options['submits-pglite']) {
    // Printed, not written: the figures go into docs/performance.md by hand. Each scenario on the
    // stores asked for (PostgreSQL, PGlite), saves first.
    const stores = (postgres: boolean | undefined, pglite: boolean | undefined) => [...(postgres ? [false] : []), ...(pglite ? [true] : [])];
    const report = (name: string, { text, failures }: { text: string; failures: string[] }) => {
      console.log(`\n${text}`);
      for (const failure of failures) console.log(`${name} failure: ${failure}`);
      if (failures.length > 0) process.exitCode = 1;
    };
    const saves = {
      baseUrl,
      candidates: Number(options.quick ? 20 : options['saves-candidates']),
      rounds: Number(options.rounds ?? (options.quick ? 1 : 3)),
      seconds: Number(options.seconds ?? (options.quick ? 2 : 5)),
      connections: Number(options['saves-connections']),
    };
    for (const pglite of stores(options.saves, options['saves-pglite'])) report('saves', await savesScenario({ ...saves, pglite }));
    const submits = {
      baseUrl,
      candidates: Number(options.quick ? 20 : options['submits-candidates']),
      seconds: Number(options.quick ? 2 : options['submit-seconds']),
      waitSeconds: Number(options['submit-wait']),
    };
    for (const pglite of stores(options.submits, options['submits-pglite'])) report('submits', await submitsScenario({ ...submits, pglite }));
    return;
  }
  if (options.only === 'sweep') {
    console.log(`\n${await sweepScenario()}`);
    return;
  }
  if (options.paths) {
    console.log(`\n${await pathsScenario()}`);
    return;
  }
  if (options.only !== undefined && options.only !== 'costs') throw new Error(`--only knows two scenarios: sweep, costs (not ${options.only})`);
  console.log(`# seeding ${candidates.toLocaleString('en')} candidates × 3 invitations`);
  const seeded = await seed(baseUrl, candidates);
  console.log(`# ${seeded.reused ? 'reusing' : 'seeded'} ${seeded.url} (${seeded.invitations.toLocaleString('en')} invitations${seeded.reused ? '' : `, ${seeded.seconds} s`})`);

  // Webhooks to the bench's local receiver need private addresses allowed; no endpoint exists
  // before the webhook scenario, so the setting changes nothing else. (A second node with the
  // default setting, on the same database, would claim half the deliveries and refuse them.)
  // Straight to PostgreSQL: named prepared statements on, as a deployment without a pooler sets them.
  const service = await startNode(seeded.url, { NODE_ENV: 'production', LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', DATABASE_PREPARED_STATEMENTS: 'true' });
  await recordsReady(seeded.url);
  await buildReadyTable(seeded.url);
  const baseline = await startBaseline(seeded.url);
  const readyBaseline = await startBaseline(seeded.url, 'ready-baseline.ts');
  const { key, ids, idsFile, auth } = await readerOf(service, seeded.url, path.join(tmpdir(), `bench-ids-${process.pid}.json`));
  if (options.only === 'costs') {
    try {
      await loggingCost(seeded.url, { path: '/v1/score?candidateIds=', idsFile, headers: auth });
      await metricsCost(seeded.url, { path: '/v1/score?candidateIds=', idsFile, headers: auth });
    } finally {
      for (const child of [baseline.child, readyBaseline.child]) child.kill();
      await service.stop();
    }
    return;
  }

  const scenarios = [
    { name: 'GET /healthz vs bare hello', service: { path: '/healthz' }, baseline: { path: '/hello' }, target: { rps: 0.9 } },
    {
      name: 'GET /v1/score?candidateIds=<one>',
      service: { path: '/v1/score?candidateIds=', idsFile, headers: auth },
      baseline: { path: '/score?candidateIds=', idsFile },
      target: { rps: 0.8, p99: 1.5 },
      ready: { spec: { path: '/score?candidateIds=', idsFile }, target: { rps: 0.7, p99: 1.5 } },
    },
    {
      name: 'GET /v1/score?assessmentIds=<one> (100 records)',
      service: { path: '/v1/score?assessmentIds=hundred', headers: auth },
      baseline: { path: '/score?assessmentIds=hundred' },
      target: {},
      ready: { spec: { path: '/score?assessmentIds=hundred' }, target: { rps: 0.7 } },
    },
    {
      name: 'POST /v1/invite (new candidate, 2 assessments)',
      service: { path: '/v1/invite', method: 'POST', invite: ['alpha', 'beta'], headers: auth },
      baseline: { path: '/invite', method: 'POST', invite: ['alpha', 'beta'] },
      target: { rps: 0.7 },
    },
  ];

  const rows: Row[] = [];
  try {
    // The ready-JSON baseline answers with the service's own bytes, or its ratio means nothing.
    for (const [query, spec] of [
      [`candidateIds=${ids[0]}`, 'a candidate'],
      ['assessmentIds=hundred', 'the 100-record assessment'],
    ] as const) {
      const fromService = await (await fetch(`${service.url}/v1/score?${query}`, { headers: auth })).text();
      const fromReady = await (await fetch(`${readyBaseline.url}/score?${query}`)).text();
      if (!sameRecords(fromService, fromReady))
        throw new Error(`the ready-JSON baseline's answer for ${spec} differs from the service's:\n${fromService.slice(0, 400)}\n${fromReady.slice(0, 400)}`);
      console.log(`# ready-JSON baseline: ${spec}, ${fromReady.length} bytes (the service's: ${fromService.length}), the same records`);
    }
    // One request of each scenario first: a harness that measures error answers measures nothing.
    for (const scenario of scenarios) {
      for (const [server, spec] of [
        [service.url, scenario.service],
        [baseline.url, scenario.baseline],
        ...(scenario.ready ? ([[readyBaseline.url, scenario.ready.spec]] as const) : []),
      ] as const) {
        const withId = 'idsFile' in spec && spec.idsFile ? `${spec.path}${ids[0]}` : spec.path;
        const response = await fetch(`${server}${withId}`, {
          method: 'method' in spec ? spec.method : 'GET',
          headers: { 'content-type': 'application/json', ...('headers' in spec ? spec.headers : {}) },
          body:
            'invite' in spec ? JSON.stringify({ email: `check-${Date.now()}-${Math.random()}@load.example`, firstName: 'C', lastName: 'K', assessments: spec.invite }) : undefined,
        });
        if (response.status !== 200) throw new Error(`${scenario.name} answered ${response.status} on ${server}: ${(await response.text()).slice(0, 300)}`);
        await response.arrayBuffer();
      }
    }
    for (const scenario of scenarios) {
      const s: Figures[] = [];
      const b: Figures[] = [];
      const r: Figures[] = [];
      for (let round = 0; round < rounds; round++) {
        // Rotate which server goes first, so that none always runs on a warmer machine.
        const runs = [
          async () => s.push(await loadOn(service.child.pid!, { url: service.url, ...scenario.service })),
          async () => b.push(await loadOn(baseline.child.pid!, { url: baseline.url, ...scenario.baseline })),
        ];
        const ready = scenario.ready;
        if (ready) runs.push(async () => r.push(await loadOn(readyBaseline.child.pid!, { url: readyBaseline.url, ...ready.spec })));
        const order = [...runs.slice(round % runs.length), ...runs.slice(0, round % runs.length)];
        for (const run of order) await run();
      }
      // Each round's runs are back to back: the ratio within a round is less exposed to the
      // machine's drift than the ratio of two medians.
      const ratios = s.map((f, i) => f.rps / b[i]!.rps);
      const row: Row = { name: scenario.name, s: summarize(s), b: summarize(b), ratio: median(ratios), ratios, target: scenario.target };
      if (scenario.ready) {
        const readyRatios = s.map((f, i) => f.rps / r[i]!.rps);
        const f = summarize(r);
        row.ready = { f, ratio: median(readyRatios), ratios: readyRatios, p99Ratio: row.s.p99 / Math.max(0.01, f.p99), target: scenario.ready.target };
      }
      rows.push(row);
      console.log(
        `${row.name}: service ${row.s.rps.toFixed(0)} req/s p99 ${row.s.p99} ms ${row.s.cpuUs.toFixed(0)} µs CPU/req; baseline ${row.b.rps.toFixed(0)} req/s p99 ${row.b.p99} ms ${row.b.cpuUs.toFixed(0)} µs CPU/req; ratios by round ${ratios.map((r) => r.toFixed(2)).join(' ')}; non-2xx ${row.s.non2xx}/${row.b.non2xx}`,
      );
      if (row.ready) {
        console.log(
          `${row.name}: ready-JSON baseline ${row.ready.f.rps.toFixed(0)} req/s p99 ${row.ready.f.p99} ms ${row.ready.f.cpuUs.toFixed(0)} µs CPU/req; service/ready ratios by round ${row.ready.ratios.map((x) => x.toFixed(2)).join(' ')} (median ${row.ready.ratio.toFixed(2)}), p99 ratio ${row.ready.p99Ratio.toFixed(2)}; non-2xx ${row.ready.f.non2xx}`,
        );
      }
    }

    const exp = await exportScenario(seeded, service, key);

    let workers: { one: number; two: number } | undefined;
    if (options.workers) {
      const multi = await startNode(seeded.url, { NODE_ENV: 'production', LOG_LEVEL: 'warn', WORKERS: options.workers });
      const many: number[] = [];
      for (let round = 0; round < rounds; round++) many.push((await load({ url: multi.url, path: '/v1/score?candidateIds=', idsFile, headers: auth })).rps);
      await multi.stop();
      workers = { one: rows[1]!.s.rps, two: median(many) };
      console.log(`WORKERS=${options.workers}: ${workers.two.toFixed(0)} req/s vs ${workers.one.toFixed(0)} with one process`);
    }

    const logging = await loggingCost(seeded.url, { path: '/v1/score?candidateIds=', idsFile, headers: auth });
    const metrics = await metricsCost(seeded.url, { path: '/v1/score?candidateIds=', idsFile, headers: auth });

    const extra: string[] = [];
    let pgliteRatio: number | undefined;
    if (options.pglite) {
      const pglite = await embedded(rows);
      extra.push(pglite.text);
      pgliteRatio = pglite.scoreRatio;
    }
    if (options.scale) extra.push(await scale(options.scale.split(',').map(Number)));
    const online = options['candidates-online'] ? Number(options['candidates-online']) : options.quick ? 50 : undefined;
    if (online) extra.push(await campaign(service, seeded.url, key, online));
    if (options.sweep) extra.push(await sweepScenario());
    if (options.webhooks) extra.push(await webhookScenario(seeded.url, service, Number(options.webhooks)));

    const report = [render(seeded, rows, exp, workers), roundTwo(rows, exp, logging, metrics, pgliteRatio), ...extra].join('\n\n');
    // A benchmark of error answers measures nothing: the run fails when the service gave any.
    const failed = rows.filter((row) => row.s.non2xx > 0 || row.s.errors > 0);
    if (failed.length > 0) {
      process.exitCode = 1;
      for (const row of failed) console.error(`${row.name}: the service answered ${row.s.non2xx} non-2xx and had ${row.s.errors} errors or timeouts`);
    }
    console.log(`\n${report}`);
    if (!options['no-write']) {
      const file = path.join(ROOT, 'docs', 'performance.md');
      const current = readFileSync(file, 'utf8');
      const marker = '<!-- bench:latest -->';
      const [head, rest] = current.split(marker);
      const tail = rest?.split('<!-- bench:end -->')[1] ?? '';
      writeFileSync(file, `${head}${marker}\n${report}\n<!-- bench:end -->${tail}`);
      console.log(`# written to docs/performance.md`);
    }
  } finally {
    await service.stop();
    baseline.child.kill('SIGTERM');
    readyBaseline.child.kill('SIGTERM');
  }
}

/** The same scenarios on the embedded store (PGlite), the service only, beside PostgreSQL's. */
async function embedded(pgRows: { name: string; s: Figures }[]): Promise<{ text: string; scoreRatio: number }> {
  const dataDir = path.join(tmpdir(), `ac-bench-pglite-${candidates}`);
  if (!existsSync(path.join(dataDir, 'seeded'))) {
    console.log(`# seeding the embedded store with ${candidates.toLocaleString('en')} candidates`);
    // A store left half-seeded by an interrupted run is started again from nothing.
    rmSync(dataDir, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
    await seedPglite(dataDir, candidates);
    writeFileSync(path.join(dataDir, 'seeded'), String(candidates));
  }
  const store = await openDatabase({ dataDir });
  // Back to the seeded size: earlier runs' invite scenarios added candidates.
  await store.query(`DELETE FROM candidates WHERE email LIKE '%@load.example'`);
  const ids = (await store.query<{ id: string }>('SELECT id FROM candidates ORDER BY random() LIMIT 20000')).rows.map((r) => r.id);
  // The read model, filled here as the service's job would (the embedded store has one process).
  while ((await fillScoreRecords(store, new Date())) > 0);
  await store.close();
  const idsFile = path.join(tmpdir(), `bench-ids-pglite-${process.pid}.json`);
  writeFileSync(idsFile, JSON.stringify(ids));
  const node = await startNode('', { NODE_ENV: 'production', LOG_LEVEL: 'warn', DATA_DIR: dataDir });
  try {
    const key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
    const auth = { 'x-api-key': key, instance: 'bench' };
    const specs = [
      { path: '/healthz' },
      { path: '/v1/score?candidateIds=', idsFile, headers: auth },
      { path: '/v1/score?assessmentIds=hundred', headers: auth },
      { path: '/v1/invite', method: 'POST', invite: ['alpha', 'beta'], headers: auth },
    ];
    const lines = [
      `Embedded store (PGlite in the server process, on a thread of its own) with the same ${candidates.toLocaleString('en')} candidates, the service on each store (PostgreSQL's figures are the service's from the table above, measured earlier in the run):`,
      '',
      '| scenario | PGlite req/s | PostgreSQL req/s | ratio PGlite / PostgreSQL | PGlite p50 / p99 ms | PostgreSQL p50 / p99 ms | target |',
      '|---|---:|---:|---:|---:|---:|---|',
    ];
    let scoreRatio = 0;
    for (const [i, spec] of specs.entries()) {
      const f = await measure({ url: node.url, ...spec });
      const pgf = pgRows[i]!.s;
      const ratio = f.rps / pgf.rps;
      // The target of this round: score by candidate on PGlite at least half of PostgreSQL's.
      const target = i === 1 ? `${ratio >= 0.5 ? 'met' : 'NOT met'}: ≥ 0.5×` : '—';
      if (i === 1) scoreRatio = ratio;
      console.log(`PGlite ${pgRows[i]!.name}: ${f.rps.toFixed(0)} req/s p99 ${f.p99} ms; ${ratio.toFixed(2)}× PostgreSQL's; non-2xx ${f.non2xx}`);
      lines.push(`| ${pgRows[i]!.name} | ${f.rps.toFixed(0)} | ${pgf.rps.toFixed(0)} | ${ratio.toFixed(2)} | ${f.p50} / ${f.p99} | ${pgf.p50} / ${pgf.p99} | ${target} |`);
    }
    // The export on the embedded store comes in keyset pages of 1,000 rows, one query each.
    const exp = await exportOnce(node, key);
    console.log(`PGlite export: ${exp.mb.toFixed(1)} MB, first byte ${exp.ttfbMs.toFixed(0)} ms, ${exp.mbps.toFixed(1)} MB/s, RSS growth ${exp.rssGrowthMb.toFixed(0)} MB`);
    lines.push(
      '',
      `Full export on PGlite (${(candidates * 3 + 100).toLocaleString('en')} records, ${exp.mb.toFixed(1)} MB): first byte after ${exp.ttfbMs.toFixed(0)} ms, ${exp.mbps.toFixed(1)} MB/s, server memory growth ${exp.rssGrowthMb.toFixed(0)} MB.`,
    );
    return { text: lines.join('\n'), scoreRatio };
  } finally {
    await node.stop();
  }
}

/** Score-by-candidate and invite at several data sizes: does the cost stay flat? */
async function scale(sizes: number[]): Promise<string> {
  const results: { size: number; score: Figures; invite: Figures }[] = [];
  for (const size of sizes) {
    console.log(`# scale: ${size.toLocaleString('en')} candidates`);
    const seeded = await seed(baseUrl, size);
    const node = await startNode(seeded.url, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
    try {
      const { idsFile, auth } = await readerOf(node, seeded.url, path.join(tmpdir(), `bench-ids-scale-${size}.json`));
      const score = await measure({ url: node.url, path: '/v1/score?candidateIds=', idsFile, headers: auth });
      const invite = await measure({ url: node.url, path: '/v1/invite', method: 'POST', invite: ['alpha', 'beta'], headers: auth });
      console.log(
        `scale ${size}: score ${score.rps.toFixed(0)} req/s p50 ${score.p50} p99 ${score.p99}; invite ${invite.rps.toFixed(0)} req/s p50 ${invite.p50} p99 ${invite.p99}`,
      );
      results.push({ size, score, invite });
    } finally {
      await node.stop();
    }
  }
  const first = results[0]!;
  const lines = [
    'Flat cost as data grows (the service on PostgreSQL; latency ratio against the smallest size):',
    '',
    '| candidates | score by candidate req/s | p50 / p99 ms | ratio p50 / p99 | invite req/s | p50 / p99 ms | ratio p50 / p99 |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const r = (a: number, b: number) => (a / Math.max(0.01, b)).toFixed(2);
  for (const x of results) {
    lines.push(
      `| ${x.size.toLocaleString('en')} | ${x.score.rps.toFixed(0)} | ${x.score.p50} / ${x.score.p99} | ${r(x.score.p50, first.score.p50)} / ${r(x.score.p99, first.score.p99)} | ${x.invite.rps.toFixed(0)} | ${x.invite.p50} / ${x.invite.p99} | ${r(x.invite.p50, first.invite.p50)} / ${r(x.invite.p99, first.invite.p99)} |`,
    );
  }
  return lines.join('\n');
}

interface Pair {
  on: Figures;
  off: Figures;
  /** Median of the rounds' on/off throughput ratios. */
  ratio: number;
  ratios: number[];
  /** The rounds' on/off ratios of server CPU time per request. */
  cpuRatios: number[];
}

/**
 * Rounds of one scenario on two servers, alternating which goes first; medians and the ratio a/b.
 * A cost of a few per cent is smaller than the noise of one round of several seconds on a shared
 * machine (rounds of 5 s gave 0.75 to 1.12 for two identical settings' worth of difference), so
 * the cost pairs run many short rounds back to back, each pair of runs close in time: 21 of 2 s
 * by default (one round of --seconds in a quick run), and report the middle half of the ratios.
 */
const COST_ROUNDS = Number(options['cost-rounds'] ?? (options.quick ? rounds : 21));
const COST_SECONDS = Number(options['cost-seconds'] ?? (options.quick ? seconds : 2));
if (!(Number.isInteger(COST_ROUNDS) && COST_ROUNDS >= 1 && COST_SECONDS >= 1)) throw new Error('--cost-rounds must be a whole number ≥ 1 and --cost-seconds ≥ 1');
async function pairOf(a: { pid: number; url: string }, b: { pid: number; url: string }, spec: Record<string, unknown>): Promise<Pair> {
  const on: Figures[] = [];
  const off: Figures[] = [];
  for (let round = 0; round < COST_ROUNDS; round++) {
    const runs = [
      async () => on.push(await loadOn(a.pid, { url: a.url, seconds: COST_SECONDS, ...spec })),
      async () => off.push(await loadOn(b.pid, { url: b.url, seconds: COST_SECONDS, ...spec })),
    ];
    if (round % 2) runs.reverse();
    for (const run of runs) await run();
  }
  const ratios = on.map((f, i) => f.rps / off[i]!.rps);
  const cpuRatios = on.map((f, i) => f.cpuUs! / off[i]!.cpuUs!);
  return { on: summarize(on), off: summarize(off), ratio: median(ratios), ratios, cpuRatios };
}

/** The lower and upper quartiles of the rounds' throughput ratios: their middle half. */
function middleHalf(pair: Pair): [number, number] {
  const sorted = [...pair.ratios].sort((x, y) => x - y);
  const at = (q: number) => sorted[Math.round(q * (sorted.length - 1))]!;
  return [at(0.25), at(0.75)];
}

/** The rounds' ratios as "median (middle half of n rounds of s: low–high)". */
function spread(pair: Pair): string {
  const [low, high] = middleHalf(pair);
  return `${pair.ratio.toFixed(2)}× (middle half of ${pair.ratios.length} rounds of ${COST_SECONDS} s: ${low.toFixed(2)}–${high.toFixed(2)})`;
}

/**
 * The cost of request logging: score-by-candidate on a node with LOG_LEVEL=info (the service's
 * default: one line when a request is answered) against one with LOG_LEVEL=warn (no request
 * lines), both started for this (the benchmark's own node has served the export and the other
 * scenarios, and its heap is not a fresh node's). The log goes to a pipe that this process reads
 * and drops, as a log collector reading the service's stdout would.
 */
async function loggingCost(url: string, spec: Record<string, unknown>): Promise<Pair> {
  const quiet = await startNode(url, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const logged = await startNode(url, { NODE_ENV: 'production', LOG_LEVEL: 'info' });
  // startNode keeps the output in memory: megabytes a second at info level. Read and drop it instead.
  logged.child.stdout!.removeAllListeners('data');
  logged.child.stdout!.on('data', () => {});
  try {
    const pair = await pairOf({ pid: logged.child.pid!, url: logged.url }, { pid: quiet.child.pid!, url: quiet.url }, spec);
    console.log(
      `logging: score by candidate with LOG_LEVEL=info ${pair.on.rps.toFixed(0)} req/s p99 ${pair.on.p99} ms ${pair.on.cpuUs.toFixed(0)} µs CPU/req; LOG_LEVEL=warn ${pair.off.rps.toFixed(0)} req/s p99 ${pair.off.p99} ms ${pair.off.cpuUs.toFixed(0)} µs CPU/req; ratio on/off by round ${pair.ratios.map((r) => r.toFixed(2)).join(' ')}; CPU/req on/off by round ${pair.cpuRatios.map((r) => r.toFixed(2)).join(' ')}; non-2xx ${pair.on.non2xx}/${pair.off.non2xx}`,
    );
    return pair;
  } finally {
    await logged.stop();
    await quiet.stop();
  }
}

/**
 * The cost of metrics: the benchmark's node (metrics on, the default: every answered request
 * observed in a histogram, the hot paths' statements timed, and prom-client's default
 * collectors with an event-loop monitor) against a node with METRICS=false, both started for this,
 * on /healthz and on score-by-candidate.
 */
async function metricsCost(url: string, spec: Record<string, unknown>): Promise<{ hello: Pair; score: Pair }> {
  const metered = await startNode(url, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const plain = await startNode(url, { NODE_ENV: 'production', LOG_LEVEL: 'warn', METRICS: 'false' });
  try {
    const a = { pid: metered.child.pid!, url: metered.url };
    const b = { pid: plain.child.pid!, url: plain.url };
    const hello = await pairOf(a, b, { path: '/healthz' });
    const score = await pairOf(a, b, spec);
    for (const [name, pair] of [
      ['/healthz', hello],
      ['score by candidate', score],
    ] as const) {
      console.log(
        `metrics, ${name}: on ${pair.on.rps.toFixed(0)} req/s ${pair.on.cpuUs.toFixed(0)} µs CPU/req; off (METRICS=false) ${pair.off.rps.toFixed(0)} req/s ${pair.off.cpuUs.toFixed(0)} µs CPU/req; ratio by round ${pair.ratios.map((r) => r.toFixed(2)).join(' ')}; CPU/req on/off by round ${pair.cpuRatios.map((r) => r.toFixed(2)).join(' ')}`,
      );
    }
    return { hello, score };
  } finally {
    await plain.stop();
    await metered.stop();
  }
}

interface SaveFigures {
  saves: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  cpuUsPerSave: number;
}
interface DriveResult {
  setup: { candidates: number; failed: number; seconds: number };
  service?: SaveFigures;
  baseline?: SaveFigures;
  finish?: { completed: number; failed: number; seconds: number };
  complete?: { completed: number; failed: number; seconds: number; firstAt: number; lastAt: number };
  failures: string[];
}

/** Runs the campaign driver (bench/campaign.ts) in a process of its own. */
function drive(job: Record<string, unknown>): Promise<DriveResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'campaign.ts'), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`campaign driver exited ${code}`))));
  });
}

const CAMPAIGN_ENV_NOTE =
  'The node runs with RATE_LIMIT_PER_MINUTE=1000000 (the load harness default of test/reliability/support/server.ts, as for every scenario here; the default 600 requests per minute per API key would refuse the invitations, which all come from one key). The portal itself limits only refused sign-in links and session cookies per address (AUTH_FAILURES_PER_MINUTE, default 20, unchanged): a valid session is not rate-limited, so the simulated candidates all coming from 127.0.0.1 needs no other change.';

const saveLine = (f: SaveFigures) =>
  `${f.saves} saves, ${f.perSecond}/s, p50 ${f.p50} ms, p99 ${f.p99} ms, max ${f.max} ms, non-2xx ${f.non2xx}, errors ${f.errors}, ${f.cpuUsPerSave} µs server CPU per save`;

/**
 * The campaign: N candidates online at once, each saving an answer every 5 s (N/5 saves a second),
 * on the service and then, on the same schedule, on the bare upsert baseline (bench/save-baseline.ts); then
 * the search for the largest N whose saves keep p99 under 100 ms without errors.
 */
async function campaign(service: Node, databaseUrl: string, key: string, n: number): Promise<string> {
  const campaignSeconds = Number(options['campaign-seconds'] ?? (options.quick ? 10 : 30));
  console.log(`# campaign: ${n} candidates, a save every 5 s each, ${campaignSeconds} s`);
  const baseline = await startSaveBaseline({ DATABASE_URL: databaseUrl });
  const result = await drive({
    mode: 'campaign',
    url: service.url,
    baselineUrl: baseline.url,
    key,
    n,
    seconds: campaignSeconds,
    servicePid: service.child.pid,
    baselinePid: baseline.pid,
    assessmentId: SAVE_BASELINE_ASSESSMENT,
  }).finally(() => baseline.stop());
  const s = result.service;
  const b = result.baseline;
  console.log(`campaign setup: ${result.setup.candidates} candidates ready in ${result.setup.seconds} s (${result.setup.failed} failed)`);
  if (s) console.log(`campaign service: ${saveLine(s)}`);
  if (b) console.log(`campaign baseline: ${saveLine(b)}`);
  if (result.finish) console.log(`campaign finish (typing test, submit): ${result.finish.completed} completed, ${result.finish.failed} failed, ${result.finish.seconds} s`);
  for (const failure of result.failures) console.log(`campaign failure: ${failure}`);
  const errors = result.setup.failed + (s ? s.non2xx + s.errors : 0) + (result.finish?.failed ?? 0);
  if (errors > 0) process.exitCode = 1;
  const expected = n / 5;
  const lines = [
    `Campaign: ${n.toLocaleString('en')} candidates online (invited through POST /v1/invite, then through the portal's own API as the browser: session from the link's token, the list, the intro page, start, then a save (PUT /portal/api/a/alpha/answers/…) every 5 s ± 20 % each for ${campaignSeconds} s, then the typing test and submission), node:http with one keep-alive agent of up to ${Math.min(n, 1000)} connections. Latency is from each save's scheduled time; server CPU per save is the node's CPU time over the phase divided by the saves, so at a few saves a second it is mostly the node's idle work (background jobs, metrics collectors). ${CAMPAIGN_ENV_NOTE}`,
    '',
    '| | saves | saves/s | p50 ms | p99 ms | max ms | non-2xx | errors | server CPU µs per save |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...(s ? [`| service | ${s.saves} | ${s.perSecond} | ${s.p50} | ${s.p99} | ${s.max} | ${s.non2xx} | ${s.errors} | ${s.cpuUsPerSave} |`] : []),
    ...(b
      ? [`| bare upsert baseline (bench/save-baseline.ts) | ${b.saves} | ${b.perSecond} | ${b.p50} | ${b.p99} | ${b.max} | ${b.non2xx} | ${b.errors} | ${b.cpuUsPerSave} |`]
      : []),
    '',
    `Setup: ${result.setup.candidates} of ${n} candidates ready in ${result.setup.seconds} s; finish: ${result.finish?.completed ?? 0} completed, ${result.finish?.failed ?? 0} failed.` +
      (s
        ? n >= 1000
          ? ` Target (1,000 online, 200 saves/s, p99 < 50 ms, no errors) at N = ${n}: ${s.perSecond >= expected * 0.95 && s.p99 < 50 && errors === 0 ? 'met' : 'NOT met'} (${s.perSecond} saves/s of ${expected} expected, p99 ${s.p99} ms, ${errors} errors).`
          : ` The target (1,000 online, 200 saves/s, p99 < 50 ms, no errors) is not evaluated at N = ${n} (${s.perSecond} saves/s, p99 ${s.p99} ms, ${errors} errors): run with --candidates-online 1000.`
        : ''),
  ];
  if (options['campaign-search']) {
    const max = Number(options['campaign-search']);
    const searchSeconds = Math.min(campaignSeconds, 20);
    const steps: { n: number; s?: SaveFigures; setupFailed: number; seconds: number }[] = [];
    for (let size = n * 2; size <= max; size *= 2) {
      console.log(`# campaign search: ${size} candidates, ${searchSeconds} s`);
      const step = await drive({ mode: 'campaign', url: service.url, key, n: size, seconds: searchSeconds, servicePid: service.child.pid, typing: false });
      steps.push({ n: size, s: step.service, setupFailed: step.setup.failed, seconds: step.setup.seconds });
      if (step.service) console.log(`campaign search ${size}: ${saveLine(step.service)}; setup ${step.setup.seconds} s, ${step.setup.failed} failed`);
      for (const failure of step.failures.slice(0, 5)) console.log(`campaign search failure: ${failure}`);
      if (!step.service || step.service.p99 >= 100 || step.service.non2xx + step.service.errors + step.setup.failed > 0) break;
    }
    const all = [{ n, s, setupFailed: result.setup.failed }, ...steps];
    const good = all.filter((x) => x.s && x.s.p99 < 100 && x.s.non2xx + x.s.errors + x.setupFailed === 0);
    const largest = good.length ? Math.max(...good.map((x) => x.n)) : 0;
    const stopped = all[all.length - 1]!;
    lines.push(
      '',
      `Search for the largest N with a save's p99 under 100 ms and no errors (N doubled from ${n}, ${searchSeconds} s each, service only, up to ${max.toLocaleString('en')}):`,
      '',
      '| candidates online | saves/s | p50 ms | p99 ms | non-2xx + errors | server CPU µs per save |',
      '|---:|---:|---:|---:|---:|---:|',
      ...all.map(
        (x) =>
          `| ${x.n.toLocaleString('en')} | ${x.s?.perSecond ?? '—'} | ${x.s?.p50 ?? '—'} | ${x.s?.p99 ?? '—'} | ${x.s ? x.s.non2xx + x.s.errors + x.setupFailed : '—'} | ${x.s?.cpuUsPerSave ?? '—'} |`,
      ),
      '',
      `Largest N with p99 < 100 ms and no errors: ${largest ? largest.toLocaleString('en') : 'none'}${stopped.s && stopped.s.p99 < 100 && stopped.n * 2 > max ? ` (the search stopped at its limit, ${max.toLocaleString('en')}, before p99 reached 100 ms)` : ''}.`,
    );
  }
  return lines.join('\n');
}

/**
 * The deadline sweep at scale, in a database of its own: `--sweep-attempts` open attempts (one
 * per candidate, 20-minute assessment, started) of which `--sweep-due` get deadlines spread over
 * one minute starting shortly after the node is up; the others are due in two hours. Score reads
 * by candidate before the minute and during it; completions are read back from the outbox (one
 * assessment.completed event per completion, stamped with the completing node's clock).
 */
async function sweepScenario(): Promise<string> {
  const total = Number(options['sweep-attempts']);
  const due = Number(options['sweep-due']);
  const name = 'bench_sweep';
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const server = new pg.Client({ connectionString: baseUrl });
  await server.connect();
  await server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await server.query(`CREATE DATABASE ${name}`);
  await server.end();
  console.log(`# sweep: seeding ${total.toLocaleString('en')} open attempts`);
  const began = Date.now();
  const migrator = await startNode(url.toString(), { LOG_LEVEL: 'error' });
  try {
    await publish(migrator);
  } finally {
    await migrator.stop();
  }
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query(
    `INSERT INTO candidates (instance_id, email, first_name, last_name)
     SELECT i.id, 'sweep' || g || '@bench.example', 'Sweep', 'Candidate' || g FROM instances i, generate_series(1, $1::int) g WHERE i.name = 'bench'`,
    [total],
  );
  await db.query(
    `INSERT INTO invitations (instance_id, candidate_id, assessment_id, assessment_status, started_at)
     SELECT c.instance_id, c.id, a.id, 'IN_PROGRESS', now() - interval '1 minute' FROM candidates c JOIN assessments a ON a.instance_id = c.instance_id AND a.slug = 'alpha'`,
  );
  await db.query(
    `INSERT INTO attempts (invitation_id, assessment_id, version, started_at, deadline_at, first_address, first_agent)
     SELECT i.id, i.assessment_id, a.current_version, i.started_at, now() + interval '2 hours', '127.0.0.1', 'bench'
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id`,
  );
  await db.query('CREATE TABLE bench_sweep_due (attempt_id uuid PRIMARY KEY, candidate_id uuid NOT NULL, deadline_at timestamptz)');
  await db.query(
    `INSERT INTO bench_sweep_due (attempt_id, candidate_id) SELECT t.id, i.candidate_id FROM attempts t JOIN invitations i ON i.id = t.invitation_id ORDER BY random() LIMIT $1`,
    [due],
  );
  await db.query('ANALYZE');
  console.log(`# sweep: seeded in ${Math.round((Date.now() - began) / 1000)} s`);
  const ids = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY random() LIMIT 20000')).rows.map((r) => r.id);
  const idsFile = path.join(tmpdir(), `bench-ids-sweep-${process.pid}.json`);
  writeFileSync(idsFile, JSON.stringify(ids));
  const node = await startNode(url.toString(), { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const everyMs = Number(process.env.SWEEP_EVERY_MS || 5000);
  try {
    const key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
    const spec = { url: node.url, path: '/v1/score?candidateIds=', idsFile, headers: { 'x-api-key': key, instance: 'bench' } };
    const beforeSeconds = options.quick ? 5 : 15;
    // The minute of deadlines starts once the reads before it are over.
    const { rows: start } = await db.query<{ t0: Date }>(
      `WITH t AS (SELECT now() + make_interval(secs => $1) AS t0),
            u AS (UPDATE bench_sweep_due d SET deadline_at = t.t0 + random() * interval '60 seconds' FROM t RETURNING d.attempt_id, d.deadline_at)
       UPDATE attempts a SET deadline_at = u.deadline_at FROM u WHERE a.id = u.attempt_id RETURNING (SELECT t0 FROM t) AS t0`,
      [beforeSeconds + 3],
    );
    const t0 = start[0]!.t0.getTime();
    const before = await load({ ...spec, seconds: beforeSeconds });
    await new Promise((r) => setTimeout(r, Math.max(0, t0 - Date.now())));
    // The reads during the minute of deadlines and two sweep intervals after it.
    const duringSeconds = 60 + Math.ceil((2 * everyMs) / 1000);
    const during = await load({ ...spec, seconds: duringSeconds });
    const ended = Date.now();
    const { rows: done } = await db.query<{ lag: number; n: number }>(
      `SELECT extract(epoch FROM o.created_at - d.deadline_at)::float8 * 1000 AS lag, count(*) OVER (PARTITION BY d.attempt_id)::int AS n
         FROM outbox_events o JOIN bench_sweep_due d ON d.candidate_id = (o.body::jsonb -> 'data' ->> 'candidateId')::uuid
        WHERE o.type = 'assessment.completed'`,
    );
    const { rows: state } = await db.query<{ dueDone: number; dueOpen: number; otherDone: number; events: number; distinct: number }>(
      `SELECT (SELECT count(*) FROM attempts a JOIN bench_sweep_due d ON d.attempt_id = a.id WHERE a.finished_at IS NOT NULL)::int AS "dueDone",
              (SELECT count(*) FROM attempts a JOIN bench_sweep_due d ON d.attempt_id = a.id WHERE a.finished_at IS NULL)::int AS "dueOpen",
              (SELECT count(*) FROM attempts a WHERE a.finished_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM bench_sweep_due d WHERE d.attempt_id = a.id))::int AS "otherDone",
              (SELECT count(*) FROM outbox_events WHERE type = 'assessment.completed')::int AS events,
              (SELECT count(DISTINCT body::jsonb -> 'data' ->> 'candidateId') FROM outbox_events WHERE type = 'assessment.completed')::int AS distinct`,
    );
    const st = state[0]!;
    // Capacity: as many again due at one instant (a deployment back from an outage finds such a
    // backlog), with no reads beside them: how fast the sweep works a backlog off.
    await db.query('CREATE TABLE bench_sweep_backlog (attempt_id uuid PRIMARY KEY, candidate_id uuid NOT NULL)');
    const backlogAt = new Date();
    await db.query(
      `WITH b AS (INSERT INTO bench_sweep_backlog (attempt_id, candidate_id)
                  SELECT a.id, i.candidate_id FROM attempts a JOIN invitations i ON i.id = a.invitation_id
                   WHERE a.finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM bench_sweep_due d WHERE d.attempt_id = a.id) LIMIT $1 RETURNING attempt_id)
       UPDATE attempts a SET deadline_at = $2 FROM b WHERE a.id = b.attempt_id`,
      [due, backlogAt],
    );
    const backlogOpen = async () =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM attempts a JOIN bench_sweep_backlog b ON b.attempt_id = a.id WHERE a.finished_at IS NULL')).rows[0]!.n;
    for (const until = Date.now() + 180_000; Date.now() < until && (await backlogOpen()) > 0;) await new Promise((r) => setTimeout(r, 250));
    const { rows: backlogRows } = await db.query<{ n: number; firstMs: number; lastMs: number }>(
      `SELECT count(*)::int AS n, extract(epoch FROM min(o.created_at) - $1::timestamptz)::float8 * 1000 AS "firstMs",
              extract(epoch FROM max(o.created_at) - $1::timestamptz)::float8 * 1000 AS "lastMs"
         FROM outbox_events o JOIN bench_sweep_backlog b ON b.candidate_id = (o.body::jsonb -> 'data' ->> 'candidateId')::uuid
        WHERE o.type = 'assessment.completed'`,
      [backlogAt],
    );
    const backlog = backlogRows[0]!;
    const backlogRate = backlog.n > 1 ? (backlog.n - 1) / ((backlog.lastMs - backlog.firstMs) / 1000) : NaN;
    const lags = done.map((r) => r.lag).sort((a, b) => a - b);
    const pct = (p: number) => (lags.length ? lags[Math.min(lags.length - 1, Math.ceil((p / 100) * lags.length) - 1)]! : NaN);
    const withinInterval = lags.filter((l) => l <= everyMs).length;
    const watched = (ended - t0) / 1000;
    const rate = st.dueDone / watched;
    const remainingMin = rate > 0 ? st.dueOpen / rate / 60 : Infinity;
    const duplicates = st.events - st.distinct;
    console.log(
      `sweep: ${st.dueDone} of ${due} due attempts completed in ${watched.toFixed(0)} s from the first deadline (${rate.toFixed(1)}/s; ${st.dueOpen} still open, about ${remainingMin.toFixed(0)} more minutes at that rate); ${withinInterval} within one sweep interval (${everyMs} ms) of their deadline; lag p50 ${(pct(50) / 1000).toFixed(1)} s p99 ${(pct(99) / 1000).toFixed(1)} s; completed twice: ${duplicates}; completed before their deadline: ${st.otherDone}; score read p99 before ${before.p99} ms (${before.rps.toFixed(0)} req/s), during ${during.p99} ms (${during.rps.toFixed(0)} req/s); non-2xx ${before.non2xx + during.non2xx}; backlog of ${backlog.n}: ${backlogRate.toFixed(0)} completions/s`,
    );
    return [
      `Deadline sweep at scale (a database of its own): ${total.toLocaleString('en')} open attempts, ${due.toLocaleString('en')} of them due within one minute, the others in two hours; one node, SWEEP_EVERY_MS=${everyMs} (the default; each run completes due attempts in batches of up to 50, four batches at a time, each batch one transaction, for up to 1 s, runs again at once while a backlog lasts, and otherwise sleeps until the next open deadline when that comes within the interval, at least 200 ms: src/modules/attempts/sweeper.ts). Watched for ${watched.toFixed(0)} s from the first deadline, while reading scores by candidate with ${connections} connections. Then, as a measure of capacity, ${due.toLocaleString('en')} of the others are made due at one instant, and the time from then to their first and last completion is read from their events.`,
      '',
      '| | figure | target |',
      '|---|---:|---|',
      `| due attempts completed by the end | ${st.dueDone.toLocaleString('en')} of ${due.toLocaleString('en')} (${rate.toFixed(1)}/s; the ${st.dueOpen.toLocaleString('en')} left take about ${Number.isFinite(remainingMin) ? remainingMin.toFixed(0) : '∞'} more minutes at that rate) | all |`,
      `| completed within one sweep interval (${everyMs / 1000} s) of the deadline | ${withinInterval.toLocaleString('en')} of ${due.toLocaleString('en')} | all: ${withinInterval === due ? 'met' : 'NOT met'} |`,
      `| lag from deadline to completion of those completed, p50 / p99 / max | ${(pct(50) / 1000).toFixed(1)} / ${(pct(99) / 1000).toFixed(1)} / ${(lags[lags.length - 1]! / 1000).toFixed(1)} s | ≤ ${everyMs / 1000} s |`,
      `| completed more than once (assessment.completed events minus attempts) | ${duplicates} | 0: ${duplicates === 0 ? 'met' : 'NOT met'} |`,
      `| attempts completed that were not due | ${st.otherDone} | 0: ${st.otherDone === 0 ? 'met' : 'NOT met'} |`,
      `| score by candidate before the minute: req/s, p50 / p99 ms | ${before.rps.toFixed(0)}, ${before.p50} / ${before.p99} | |`,
      `| score by candidate during it: req/s, p50 / p99 ms | ${during.rps.toFixed(0)}, ${during.p50} / ${during.p99} (p99 ${(during.p99 / Math.max(0.01, before.p99)).toFixed(2)}× before) | |`,
      `| capacity: ${due.toLocaleString('en')} more due at one instant, no reads beside: completed, first and last after | ${backlog.n.toLocaleString('en')}, ${(backlog.firstMs / 1000).toFixed(1)} / ${(backlog.lastMs / 1000).toFixed(1)} s: **${backlogRate.toFixed(0)} completions/s** (the minute's arrival rate: ${(due / 60).toFixed(0)}/s) | |`,
    ].join('\n');
  } finally {
    await node.stop();
    await db.end();
    const cleanup = new pg.Client({ connectionString: baseUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await cleanup.end();
  }
}

/**
 * Webhook lag: a local receiver registered for assessment.completed, N attempts completed through
 * the portal within a minute (the campaign driver in `complete` mode), then up to --webhook-wait
 * seconds for the deliveries. Received, lost, duplicates (by webhook-id) and the delay from the
 * event's timestamp (the completing node's clock, the same machine's) to its arrival.
 */
async function webhookScenario(url: string, node: Node, n: number): Promise<string> {
  const waitSeconds = Number(options['webhook-wait']);
  const received = new Map<string, number>();
  let arrivals = 0;
  let badSignatures = 0;
  const delays: number[] = [];
  let secret = '';
  const receiver = await startReceiver((request, body, at) => {
    const id = String(request.headers['webhook-id']);
    arrivals++;
    received.set(id, (received.get(id) ?? 0) + 1);
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${id}.${request.headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    if (!String(request.headers['webhook-signature']).split(' ').includes(`v1,${expected}`)) badSignatures++;
    if (received.get(id) === 1) delays.push(at - Date.parse((JSON.parse(body) as { timestamp: string }).timestamp));
  });
  const port = receiver.port;
  let endpointId = '';
  try {
    const key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
    const made = await admin(node, 'POST', '/instances/bench/webhooks', { url: `http://127.0.0.1:${port}/hooks`, events: ['assessment.completed'], description: 'bench' });
    if (made.status !== 201) throw new Error(`could not register the webhook endpoint: ${JSON.stringify(made.json)}`);
    ({ id: endpointId, secret } = made.json as { id: string; secret: string });
    console.log(`# webhooks: ${n} attempts to complete within a minute`);
    const result = await drive({ mode: 'complete', url: node.url, key, n, seconds: 60 });
    for (const failure of result.failures) console.log(`webhooks failure: ${failure}`);
    const completed = result.complete?.completed ?? 0;
    console.log(`webhooks: setup ${result.setup.seconds} s; ${completed} completed in ${result.complete?.seconds} s; waiting up to ${waitSeconds} s for the deliveries`);
    const deadline = Date.now() + waitSeconds * 1000;
    while (received.size < completed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    const lastCompletion = result.complete?.lastAt ?? Date.now();
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status', [
      endpointId,
    ]);
    // What the attempts ended as: a delivery still pending after a failed attempt waits for its retry.
    const { rows: outcomes } = await db.query<{ outcome: string; n: number }>(
      `SELECT coalesce(a.status_code::text, left(a.response, 80)) AS outcome, count(*)::int AS n
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1 GROUP BY 1 ORDER BY 2 DESC LIMIT 5`,
      [endpointId],
    );
    const { rows: untried } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending' AND attempts = 0`, [
      endpointId,
    ]);
    await db.end();
    console.log(`webhooks: attempts by outcome ${outcomes.map((o) => `${o.outcome} × ${o.n}`).join(', ') || 'none'}; pending never tried ${untried[0]?.n ?? 0}`);
    const byStatus = Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>;
    const lost = completed - received.size;
    const duplicates = arrivals - received.size;
    const sorted = delays.sort((a, b) => a - b);
    const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! / 1000 : NaN);
    const firstAt = result.complete?.firstAt ?? Date.now();
    const rate = received.size / Math.max(1, (Date.now() - firstAt) / 1000);
    console.log(
      `webhooks: ${completed} completed, ${received.size} received (${arrivals} arrivals, ${duplicates} duplicates, ${badSignatures} bad signatures), not received ${lost} (pending in the outbox ${byStatus.pending ?? 0}, failed ${byStatus.failed ?? 0}); delay p50 ${pct(50).toFixed(1)} s p99 ${pct(99).toFixed(1)} s; ${rate.toFixed(1)} deliveries/s`,
    );
    return [
      `Webhook lag: a local receiver registered for assessment.completed (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the node), ${n.toLocaleString('en')} candidates invited and their attempts started through the portal, then submitted through the portal spread over 60 s (${completed.toLocaleString('en')} completed in ${result.complete?.seconds ?? 0} s, ${result.complete?.failed ?? n} failed, setup ${result.setup.seconds} s); deliveries awaited up to ${waitSeconds} s after that (${((Date.now() - lastCompletion) / 1000).toFixed(0)} s waited).`,
      '',
      '| events expected | received (distinct webhook-id) | not received by the end | of those pending in the outbox / failed | duplicates | bad signatures | delay completion → delivery p50 / p99 / max | deliveries/s |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      `| ${completed.toLocaleString('en')} | ${received.size.toLocaleString('en')} | ${lost.toLocaleString('en')} | ${(byStatus.pending ?? 0).toLocaleString('en')} / ${byStatus.failed ?? 0} | ${duplicates} | ${badSignatures} | ${pct(50).toFixed(1)} / ${pct(99).toFixed(1)} / ${((sorted[sorted.length - 1] ?? NaN) / 1000).toFixed(1)} s | ${rate.toFixed(1)} |`,
      '',
      `One endpoint; the worker (src/modules/webhooks/worker.ts) looks for due deliveries every second (20 ms after a run that found some or while deliveries are in flight) and sends at most 8 at once per endpoint${(byStatus.pending ?? 0) > 0 ? `: the ${(byStatus.pending ?? 0).toLocaleString('en')} still pending would take about ${((byStatus.pending ?? 0) / Math.max(0.1, rate)).toFixed(0)} s more at the rate measured, late rather than lost` : ''}.`,
    ].join('\n');
  } finally {
    if (endpointId) await admin(node, 'DELETE', `/instances/bench/webhooks/${endpointId}`).catch(() => undefined);
    receiver.close();
  }
}

/** The targets of this round, each against its own reference, in one place. */
function roundTwo(rows: Row[], exp: ExportFigures, logging: Pair, metrics: { hello: Pair; score: Pair }, pgliteRatio?: number): string {
  const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const lines = [
    'Against the ready-JSON baseline (bench/ready-baseline.ts: Fastify with logger: false and a pg pool of 10 answering from its own table (candidate_id text, assessment_id text, record jsonb) of the service’s records, indexed and analyzed, with `JSON.stringify(rows.map(r => r.record))`; its answers were checked to hold the same records as the service’s at the start of the run), measured in the same rounds as the table above:',
    '',
    '| scenario | service req/s | ready-JSON req/s | ratio (by round) | service p50 / p99 ms | ready-JSON p50 / p99 ms | p99 ratio | CPU µs/request service / ready-JSON | target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    if (!row.ready) continue;
    const r = row.ready;
    const target = [r.target.rps ? `${met(r.ratio >= r.target.rps)}: ≥ ${r.target.rps}×` : '', r.target.p99 ? `p99 ${met(r.p99Ratio <= r.target.p99)}: ≤ ${r.target.p99}×` : '']
      .filter(Boolean)
      .join('; ');
    lines.push(
      `| ${row.name} | ${row.s.rps.toFixed(0)} | ${r.f.rps.toFixed(0)} | ${r.ratio.toFixed(2)} (${r.ratios.map((x) => x.toFixed(2)).join(', ')}) | ${row.s.p50} / ${row.s.p99} | ${r.f.p50} / ${r.f.p99} | ${r.p99Ratio.toFixed(2)} | ${row.s.cpuUs.toFixed(0)} / ${r.f.cpuUs.toFixed(0)} | ${target || '—'} |`,
    );
  }
  const exportRatio = exp.mbps / exp.psqlMbps;
  const cpuDelta = (p: Pair) =>
    `${p.on.cpuUs >= p.off.cpuUs ? '+' : '−'}${Math.abs(p.on.cpuUs - p.off.cpuUs).toFixed(0)} µs (${p.on.cpuUs.toFixed(0)} against ${p.off.cpuUs.toFixed(0)})`;
  lines.push(
    '',
    `Against the bare baseline of the same SQL, each ratio is in the table above; latencies are each 2xx answer's, to the microsecond (bench/load.ts).`,
    '',
    `Export against \`psql \\copy\` of the same records: ${exportRatio.toFixed(2)}× (${exp.mbps.toFixed(1)} against ${exp.psqlMbps.toFixed(1)} MB/s; target of this round ≥ 0.8×: ${met(exportRatio >= 0.8)}).`,
    '',
    `Request logging: score by candidate with LOG_LEVEL=info (the default, one line per answered request written asynchronously, to a pipe read and dropped) gives ${spread(logging)} the throughput of LOG_LEVEL=warn (no request lines; the benchmark's setting) (${logging.on.rps.toFixed(0)} against ${logging.off.rps.toFixed(0)} req/s, p99 ${logging.on.p99} against ${logging.off.p99} ms); it costs ${cpuDelta(logging)} of server CPU per request (two nodes started for the comparison, alternating rounds).`,
    '',
    `Metrics (target: < 5 % of throughput): the service with its metrics on (the default) against a node with METRICS=false, both started for the comparison, alternating rounds: /healthz ${spread(metrics.hello)} (${metrics.hello.on.rps.toFixed(0)} against ${metrics.hello.off.rps.toFixed(0)} req/s, CPU per request ${cpuDelta(metrics.hello)}), score by candidate ${spread(metrics.score)} (${metrics.score.on.rps.toFixed(0)} against ${metrics.score.off.rps.toFixed(0)} req/s, ${cpuDelta(metrics.score)}): ${metrics.score.ratio >= 0.95 ? 'met' : 'NOT met'}${metrics.score.ratio < 0.95 && middleHalf(metrics.score)[1] >= 0.95 ? " by the median, inside the rounds' middle half (`npm run bench:profile` counts what metrics take of the node's CPU)" : ''}.`,
  );
  if (pgliteRatio !== undefined)
    lines.push('', `PGlite against PostgreSQL, score by candidate: ${pgliteRatio.toFixed(2)}× (target ≥ 0.5×: ${met(pgliteRatio >= 0.5)}; table below).`);
  else lines.push('', 'PGlite against PostgreSQL (target ≥ 0.5× on score by candidate): not measured in this run (`--pglite`).');
  return lines.join('\n');
}

function render(seeded: { candidates: number; invitations: number }, rows: Row[], exp: ExportFigures, workers?: { one: number; two: number }): string {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const lines = [
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, PostgreSQL on the same machine, load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (the machine is shared: over 2 means others were using its cores); ${seeded.candidates.toLocaleString('en')} candidates, ${seeded.invitations.toLocaleString('en')} invitations; ${rounds} round(s) of ${seconds} s per server and scenario, ${connections} connections; medians, and the ratio is the median of the rounds' ratios (each round runs the two servers back to back).`,
    '',
    '| scenario | service req/s | baseline req/s | ratio (by round) | service p50 / p99 ms | baseline p50 / p99 ms | p99 ratio | CPU µs/request service / baseline | target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const ratio = row.ratio;
    const p99 = row.s.p99 / Math.max(0.01, row.b.p99);
    const met = [
      row.target.rps ? `${ratio >= row.target.rps ? 'met' : 'NOT met'}: ≥ ${row.target.rps}×` : '',
      row.target.p99 ? `p99 ${p99 <= row.target.p99 ? 'met' : 'NOT met'}: ≤ ${row.target.p99}×` : '',
    ]
      .filter(Boolean)
      .join('; ');
    lines.push(
      `| ${row.name} | ${row.s.rps.toFixed(0)} | ${row.b.rps.toFixed(0)} | ${ratio.toFixed(2)} (${row.ratios.map((r) => r.toFixed(2)).join(', ')}) | ${row.s.p50} / ${row.s.p99} | ${row.b.p50} / ${row.b.p99} | ${row.b.p99 === 0 && row.s.p99 === 0 ? '—' : p99.toFixed(2)} | ${row.s.cpuUs.toFixed(0)} / ${row.b.cpuUs.toFixed(0)} | ${met || '—'} |`,
    );
  }
  lines.push(
    '',
    `Full export (no filter, ${exp.records.toLocaleString('en')} records${exp.records !== seeded.invitations ? ' in a database of their own' : ''}, ${exp.mb.toFixed(1)} MB of JSON): first byte after ${exp.ttfbMs.toFixed(0)} ms (target ≤ 300 ms: ${exp.ttfbMs <= 300 ? 'met' : 'NOT met'}), ${exp.mbps.toFixed(1)} MB/s; \`psql \\copy\` of the same rows as JSON: ${exp.psqlMbps.toFixed(1)} MB/s (${exp.psqlMb.toFixed(1)} MB), ratio ${(exp.mbps / exp.psqlMbps).toFixed(2)} (target ≥ 0.5: ${exp.mbps / exp.psqlMbps >= 0.5 ? 'met' : 'NOT met'}); server memory growth during the export ${exp.rssGrowthMb.toFixed(0)} MB (target < 100 MB: ${exp.rssGrowthMb < 100 ? 'met' : 'NOT met'}).`,
  );
  if (workers)
    lines.push(
      '',
      `WORKERS=${options.workers} on score-by-candidate: ${workers.two.toFixed(0)} req/s against ${workers.one.toFixed(0)} with one process (${(workers.two / workers.one).toFixed(2)}×).`,
    );
  return lines.join('\n');
}

await main();

/**
 * `--paths`: score reads by candidate and invites on the ways to reach PostgreSQL: straight with
 * named prepared statements, straight without, through PgBouncer in transaction mode (started
 * here, in front of BENCH_DATABASE_URL's server), and with score reads on the replica of
 * BENCH_REPLICA_URL (scripts/ci-replica.sh makes one). Printed, not written.
 */
async function pathsScenario(): Promise<string> {
  console.log(`# seeding ${candidates.toLocaleString('en')} candidates × 3 invitations`);
  const seeded = await seed(baseUrl, candidates);
  process.env.TEST_DATABASE_URL = baseUrl;
  const bouncer = await startPgBouncer({ poolSize: 10 });
  const replica = process.env.BENCH_REPLICA_URL ? new URL(process.env.BENCH_REPLICA_URL) : undefined;
  if (replica) replica.pathname = new URL(seeded.url).pathname;
  const paths: [string, string, Record<string, string>][] = [
    ['PostgreSQL, named prepared statements', seeded.url, { DATABASE_PREPARED_STATEMENTS: 'true' }],
    ['PostgreSQL, unnamed statements (the default)', seeded.url, {}],
    ['PgBouncer 1.18, transaction mode', bouncer.through(seeded.url), {}],
    ...(replica ? [['PostgreSQL + score reads on the replica', seeded.url, { DATABASE_READ_URL: replica.toString() }] as [string, string, Record<string, string>]] : []),
  ];
  const rows: string[] = [];
  try {
    for (const [name, url, env] of paths) {
      const node = await startNode(url, { LOG_LEVEL: 'warn', ...env });
      try {
        await recordsReady(seeded.url);
        const { idsFile, auth } = await readerOf(node, seeded.url, path.join(tmpdir(), `bench-ids-paths-${process.pid}.json`));
        const pid = node.child.pid!;
        const reads = await loadOn(pid, { url: node.url, path: '/v1/score?candidateIds=', idsFile, headers: auth });
        const invites = await loadOn(pid, { url: node.url, path: '/v1/invite', method: 'POST', invite: ['alpha', 'beta'], headers: auth });
        const failed = reads.non2xx + reads.errors + invites.non2xx + invites.errors;
        rows.push(
          `| ${name} | ${Math.round(reads.rps)} | ${reads.p99.toFixed(2)} | ${Math.round(reads.cpuUs)} | ${Math.round(invites.rps)} | ${invites.p99.toFixed(2)} | ${failed} |`,
        );
        console.log(rows.at(-1));
      } finally {
        await node.stop();
      }
    }
  } finally {
    await bouncer.stop();
  }
  return [
    `Score reads by candidate and invites, ${connections} connections × ${seconds} s (one round each), ${seeded.invitations.toLocaleString('en')} invitations:`,
    '',
    '| path | reads/s | read p99 ms | node CPU µs/read | invites/s | invite p99 ms | non-2xx |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
