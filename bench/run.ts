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
// BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) names the server.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { admin, freePort, rssMb, startNode, type Node } from '../test/reliability/support/server.js';
import { seed, seedPglite, type Seeded } from './seed.js';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { openDatabase } from '../src/db/database.js';

const ROOT = path.resolve(import.meta.dirname, '..');
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
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), JSON.stringify({ seconds, connections, ...scenario })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`load generator exited ${code}`))));
  });
}

async function startBaseline(url: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'baseline.ts')], {
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), NODE_ENV: 'production' },
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

/** CPU time of a process so far (user + system), in µs. */
const cpuTime = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
};
const CLOCK_TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** One load run against a server process, with the CPU time that process spent per request. */
async function loadOn(pid: number, scenario: Record<string, unknown>): Promise<Figures> {
  const before = cpuTime(pid);
  const figures = await load(scenario);
  return { ...figures, cpuUs: (cpuTime(pid) - before) / Math.max(1, figures.total) };
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
    console.log(`# export: ${seeded.reused ? 'reusing' : 'seeded'} ${seeded.url} (${seeded.invitations.toLocaleString('en')} records${seeded.reused ? '' : `, ${seeded.seconds} s`})`);
    node = await startNode(seeded.url, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
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

async function main() {
  console.log(`# seeding ${candidates.toLocaleString('en')} candidates × 3 invitations`);
  const seeded = await seed(baseUrl, candidates);
  console.log(`# ${seeded.reused ? 'reusing' : 'seeded'} ${seeded.url} (${seeded.invitations.toLocaleString('en')} invitations${seeded.reused ? '' : `, ${seeded.seconds} s`})`);

  const service = await startNode(seeded.url, { NODE_ENV: 'production', LOG_LEVEL: 'warn' });
  const baseline = await startBaseline(seeded.url);
  const key = ((await admin(service, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
  const db = new pg.Client({ connectionString: seeded.url });
  await db.connect();
  const ids = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY random() LIMIT 20000')).rows.map((r) => r.id);
  await db.end();
  const idsFile = path.join(tmpdir(), `bench-ids-${process.pid}.json`);
  writeFileSync(idsFile, JSON.stringify(ids));
  const auth = { 'x-api-key': key, instance: 'bench' };

  const scenarios = [
    { name: 'GET /healthz vs bare hello', service: { path: '/healthz' }, baseline: { path: '/hello' }, target: { rps: 0.9 } },
    { name: 'GET /v1/score?candidateIds=<one>', service: { path: '/v1/score?candidateIds=', idsFile, headers: auth }, baseline: { path: '/score?candidateIds=', idsFile }, target: { rps: 0.8, p99: 1.5 } },
    { name: 'GET /v1/score?assessmentIds=<one> (100 records)', service: { path: '/v1/score?assessmentIds=hundred', headers: auth }, baseline: { path: '/score?assessmentIds=hundred' }, target: {} },
    { name: 'POST /v1/invite (new candidate, 2 assessments)', service: { path: '/v1/invite', method: 'POST', invite: ['alpha', 'beta'], headers: auth }, baseline: { path: '/invite', method: 'POST', invite: ['alpha', 'beta'] }, target: { rps: 0.7 } },
  ];

  const rows: Row[] = [];
  try {
    // One request of each scenario first: a harness that measures error answers measures nothing.
    for (const scenario of scenarios) {
      for (const [server, spec] of [
        [service.url, scenario.service],
        [baseline.url, scenario.baseline],
      ] as const) {
        const withId = 'idsFile' in spec && spec.idsFile ? `${spec.path}${ids[0]}` : spec.path;
        const response = await fetch(`${server}${withId}`, {
          method: 'method' in spec ? spec.method : 'GET',
          headers: { 'content-type': 'application/json', ...('headers' in spec ? spec.headers : {}) },
          body: 'invite' in spec ? JSON.stringify({ email: `check-${Date.now()}-${Math.random()}@load.example`, firstName: 'C', lastName: 'K', assessments: spec.invite }) : undefined,
        });
        if (response.status !== 200) throw new Error(`${scenario.name} answered ${response.status} on ${server}: ${(await response.text()).slice(0, 300)}`);
        await response.arrayBuffer();
      }
    }
    for (const scenario of scenarios) {
      const s: Figures[] = [];
      const b: Figures[] = [];
      for (let round = 0; round < rounds; round++) {
        // Alternate which server goes first, so that neither always runs on a warmer machine.
        const pair = [
          async () => s.push(await loadOn(service.child.pid!, { url: service.url, ...scenario.service })),
          async () => b.push(await loadOn(baseline.child.pid!, { url: baseline.url, ...scenario.baseline })),
        ];
        if (round % 2) pair.reverse();
        for (const run of pair) await run();
      }
      // Each round's two runs are back to back: the ratio within a round is less exposed to the
      // machine's drift than the ratio of two medians.
      const ratios = s.map((f, i) => f.rps / b[i]!.rps);
      const row = { name: scenario.name, s: summarize(s), b: summarize(b), ratio: median(ratios), ratios, target: scenario.target };
      rows.push(row);
      console.log(
        `${row.name}: service ${row.s.rps.toFixed(0)} req/s p99 ${row.s.p99} ms ${row.s.cpuUs.toFixed(0)} µs CPU/req; baseline ${row.b.rps.toFixed(0)} req/s p99 ${row.b.p99} ms ${row.b.cpuUs.toFixed(0)} µs CPU/req; ratios by round ${ratios.map((r) => r.toFixed(2)).join(' ')}; non-2xx ${row.s.non2xx}/${row.b.non2xx}`,
      );
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

    const extra: string[] = [];
    if (options.pglite) extra.push(await embedded(rows));
    if (options.scale) extra.push(await scale(options.scale.split(',').map(Number)));

    const report = [render(seeded, rows, exp, workers), ...extra].join('\n\n');
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
  }
}

/** The same scenarios on the embedded store (PGlite), the service only, beside PostgreSQL's. */
async function embedded(pgRows: { name: string; s: Figures }[]): Promise<string> {
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
      `Embedded store (PGlite in one process) with the same ${candidates.toLocaleString('en')} candidates, the service on each store:`,
      '',
      '| scenario | PGlite req/s | PostgreSQL req/s | PGlite p50 / p99 ms | PostgreSQL p50 / p99 ms |',
      '|---|---:|---:|---:|---:|',
    ];
    for (const [i, spec] of specs.entries()) {
      const f = await measure({ url: node.url, ...spec });
      const pgf = pgRows[i]!.s;
      console.log(`PGlite ${pgRows[i]!.name}: ${f.rps.toFixed(0)} req/s p99 ${f.p99} ms; non-2xx ${f.non2xx}`);
      lines.push(`| ${pgRows[i]!.name} | ${f.rps.toFixed(0)} | ${pgf.rps.toFixed(0)} | ${f.p50} / ${f.p99} | ${pgf.p50} / ${pgf.p99} |`);
    }
    // The export on the embedded store comes in keyset pages of 1,000 rows, one query each.
    const exp = await exportOnce(node, key);
    console.log(`PGlite export: ${exp.mb.toFixed(1)} MB, first byte ${exp.ttfbMs.toFixed(0)} ms, ${exp.mbps.toFixed(1)} MB/s, RSS growth ${exp.rssGrowthMb.toFixed(0)} MB`);
    lines.push(
      '',
      `Full export on PGlite (${(candidates * 3 + 100).toLocaleString('en')} records, ${exp.mb.toFixed(1)} MB): first byte after ${exp.ttfbMs.toFixed(0)} ms, ${exp.mbps.toFixed(1)} MB/s, server memory growth ${exp.rssGrowthMb.toFixed(0)} MB.`,
    );
    return lines.join('\n');
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
      const key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
      const db = new pg.Client({ connectionString: seeded.url });
      await db.connect();
      const ids = (await db.query<{ id: string }>('SELECT id FROM candidates ORDER BY random() LIMIT 20000')).rows.map((r) => r.id);
      await db.end();
      const idsFile = path.join(tmpdir(), `bench-ids-scale-${size}.json`);
      writeFileSync(idsFile, JSON.stringify(ids));
      const auth = { 'x-api-key': key, instance: 'bench' };
      const score = await measure({ url: node.url, path: '/v1/score?candidateIds=', idsFile, headers: auth });
      const invite = await measure({ url: node.url, path: '/v1/invite', method: 'POST', invite: ['alpha', 'beta'], headers: auth });
      console.log(`scale ${size}: score ${score.rps.toFixed(0)} req/s p50 ${score.p50} p99 ${score.p99}; invite ${invite.rps.toFixed(0)} req/s p50 ${invite.p50} p99 ${invite.p99}`);
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
  const r = (a: number, b: number) => (a / Math.max(1, b)).toFixed(2);
  for (const x of results) {
    lines.push(
      `| ${x.size.toLocaleString('en')} | ${x.score.rps.toFixed(0)} | ${x.score.p50} / ${x.score.p99} | ${r(x.score.p50, first.score.p50)} / ${r(x.score.p99, first.score.p99)} | ${x.invite.rps.toFixed(0)} | ${x.invite.p50} / ${x.invite.p99} | ${r(x.invite.p50, first.invite.p50)} / ${r(x.invite.p99, first.invite.p99)} |`,
    );
  }
  return lines.join('\n');
}

function render(
  seeded: { candidates: number; invitations: number },
  rows: Row[],
  exp: ExportFigures,
  workers?: { one: number; two: number },
): string {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  const lines = [
    `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, PostgreSQL on the same machine; ${seeded.candidates.toLocaleString('en')} candidates, ${seeded.invitations.toLocaleString('en')} invitations; ${rounds} round(s) of ${seconds} s per server and scenario, ${connections} connections; medians, and the ratio is the median of the rounds' ratios (each round runs the two servers back to back).`,
    '',
    '| scenario | service req/s | baseline req/s | ratio (by round) | service p50 / p99 ms | baseline p50 / p99 ms | p99 ratio | CPU µs/request service / baseline | target |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const ratio = row.ratio;
    const p99 = row.s.p99 / Math.max(1, row.b.p99);
    const met = [row.target.rps ? `${ratio >= row.target.rps ? 'met' : 'NOT met'}: ≥ ${row.target.rps}×` : '', row.target.p99 ? `p99 ${p99 <= row.target.p99 ? 'met' : 'NOT met'}: ≤ ${row.target.p99}×` : '']
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
  if (workers) lines.push('', `WORKERS=${options.workers} on score-by-candidate: ${workers.two.toFixed(0)} req/s against ${workers.one.toFixed(0)} with one process (${(workers.two / workers.one).toFixed(2)}×).`);
  return lines.join('\n');
}

await main();
