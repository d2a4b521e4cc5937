// `npm run bench:profile`: where a node's CPU time goes under score reads by one candidate. Starts
// the service with V8's CPU profiler (--cpu-prof) on the bench's database (seeded as `npm run
// bench` does, or reused), loads it for --seconds with 10 connections, stops it and reads the
// profile: the node's busy time during the load, and the share spent in the code of metrics and of
// request logging, each sample counted for the first frame of the service's or a package's code
// above it (builtins and native frames are counted for the code that called them). An A/B of
// throughput cannot see a cost of 1–3 % on a shared machine (rounds differ by ±15 %); samples of
// one run can.
//
//   npm run bench:profile                      metrics on, LOG_LEVEL=warn, 15 s
//   npm run bench:profile -- --log-level info  with a request line per request
//   npm run bench:profile -- --candidates 10000 --seconds 10
//   npm run bench:profile -- --healthz         GET /healthz instead (the least work a request can be)
//   npm run bench:profile -- --assessment      score by one assessment (100 records) instead
//   npm run bench:profile -- --metrics off     a node with METRICS=false
//   npm run bench:profile -- --baseline        the ready-JSON baseline (bench/ready-baseline.ts) instead,
//                                              read by the same candidates: where the floor's time goes
//   npm run bench:profile -- --dump FILE       also write each function's µs per request as JSON,
//                                              to compare two runs function by function
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuUs, serveFromBuild, startNode } from '../test/reliability/support/server.js';
import { startReadyBaseline } from './fresh.js';
import { buildReadyTable, readerOf, recordsReady, seed } from './seed.js';

const ROOT = path.resolve(import.meta.dirname, '..');
// The service's nodes run the compiled build, as `npm start` does (`npm run bench` builds it first).
serveFromBuild();
const { values: options } = parseArgs({
  options: {
    candidates: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '15' },
    'log-level': { type: 'string', default: 'warn' },
    healthz: { type: 'boolean', default: false },
    assessment: { type: 'boolean', default: false },
    baseline: { type: 'boolean', default: false },
    metrics: { type: 'string', default: 'on' },
    dump: { type: 'string' },
  },
});
const seconds = Number(options.seconds);
if (options.metrics !== 'on' && options.metrics !== 'off') throw new Error('--metrics is on or off');
if (!(seconds >= 2 && seconds <= 600)) throw new Error('--seconds must be 2 to 600');

/** The groups whose share is reported, by the path of the frame's script. */
const GROUPS: [string, RegExp][] = [
  [
    'metrics (src/http/metrics.ts, fast-histogram.ts, src/db/timing.ts, prom-client)',
    /\/src\/http\/(metrics|fast-histogram)\.ts|\/src\/db\/timing\.ts|\/node_modules\/prom-client\//,
  ],
  ['request logging (src/http/logging.ts, pino)', /\/src\/http\/logging\.ts|\/node_modules\/(pino|pino-std-serializers|sonic-boom|fast-redact)\//],
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const baseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const seeded = await seed(baseUrl, Number(options.candidates));
const dir = mkdtempSync(path.join(tmpdir(), 'ac-profile-'));
const profiler = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
// With --baseline the service only names the candidates to read (and is not profiled).
const node = await startNode(
  seeded.url,
  { NODE_ENV: 'production', LOG_LEVEL: options['log-level']!, METRICS: options.metrics === 'off' ? 'false' : 'true' },
  { nodeArgs: options.baseline ? [] : profiler },
);
node.child.stdout!.removeAllListeners('data');
node.child.stdout!.on('data', () => {});
let loadEnded = 0;
let cpuMs = 0;
let figures = '';
let stopProfiled = async (): Promise<void> => {
  await node.stop();
};
try {
  // A read model still being filled (a database just seeded) sends reads to the slow path, and
  // the fill's own work would be counted: the profile is of the steady state.
  await recordsReady(seeded.url);
  const { idsFile, auth } = await readerOf(node, seeded.url, path.join(dir, 'ids.json'));
  let profiled = { url: node.url, pid: node.child.pid! };
  if (options.baseline) {
    await buildReadyTable(seeded.url);
    const baseline = await startReadyBaseline(seeded.url, profiler);
    profiled = baseline;
    stopProfiled = async () => {
      await baseline.stop();
      await node.stop();
    };
  }
  const spec = options.healthz
    ? { url: profiled.url, path: '/healthz', seconds, connections: 10 }
    : options.baseline
      ? {
          url: profiled.url,
          path: options.assessment ? '/score?assessmentIds=hundred' : '/score?candidateIds=',
          idsFile: options.assessment ? undefined : idsFile,
          seconds,
          connections: 10,
        }
      : options.assessment
        ? { url: profiled.url, path: '/v1/score?assessmentIds=hundred', headers: auth, seconds, connections: 10 }
        : { url: profiled.url, path: '/v1/score?candidateIds=', idsFile, headers: auth, seconds, connections: 10 };
  const cpuBefore = cpuUs(profiled.pid);
  figures = execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), JSON.stringify(spec)])
    .toString()
    .trim();
  cpuMs = (cpuUs(profiled.pid) - cpuBefore) / 1000;
  loadEnded = performance.now();
} finally {
  await stopProfiled();
}
const stoppedAfter = (performance.now() - loadEnded) * 1000;
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error('the node wrote no CPU profile');
const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
rmSync(dir, { recursive: true, force: true });

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
// The load's window: it ended `stoppedAfter` µs before the profile did (the node's stop), and ran
// `seconds` before that; half a second is left out at each end.
const to = profile.endTime - stoppedAfter - 0.5e6;
const from = to - (seconds - 1) * 1e6;
let busy = 0;
const shares = new Map<string, number>();
const top = new Map<string, number>();
const overall = new Map<string, number>();
let t = profile.startTime;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i] ?? 0;
  if (t < from || t > to) return;
  const dt = profile.timeDeltas[i] ?? 0;
  const leaf = byId.get(id)!;
  if (leaf.callFrame.functionName === '(idle)') return;
  busy += dt;
  // The garbage collector and V8's own work are frames of their own under the root: counted as such.
  if (leaf.callFrame.url === '' && parent.get(id) === profile.nodes[0]!.id) {
    const special = leaf.callFrame.functionName;
    overall.set(special, (overall.get(special) ?? 0) + dt);
    return;
  }
  for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) {
    const frame = byId.get(x)!.callFrame;
    if (frame.url === '' || frame.url.startsWith('node:')) continue;
    const fn = `${frame.functionName || '(anonymous)'} ${path.relative(ROOT, new URL(frame.url).pathname)}`;
    overall.set(fn, (overall.get(fn) ?? 0) + dt);
    const group = GROUPS.find(([, pattern]) => pattern.test(frame.url));
    if (group) {
      shares.set(group[0], (shares.get(group[0]) ?? 0) + dt);
      const where = `${fn}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`;
      top.set(where, (top.get(where) ?? 0) + dt);
    }
    break;
  }
});
const ms = (us: number) => (us / 1000).toFixed(0);
console.log(`load: ${figures}`);
// The profiler samples the thread's wall time: a sample taken while the thread waits for a core
// (PostgreSQL's processes and the load generator share the two) counts for the frame it stopped
// in. The node's CPU time over the load, scaled to the window, is the other denominator.
const cpuInWindow = (cpuMs * 1000 * (to - from)) / (seconds * 1e6);
console.log(
  `node busy ${ms(busy)} ms of ${ms(to - from)} ms, CPU ${ms(cpuInWindow)} ms (${options.baseline ? 'the ready-JSON baseline, ' : ''}${options.healthz ? 'GET /healthz' : options.assessment ? 'score by one assessment, 100 records' : 'score by one candidate'}, LOG_LEVEL=${options['log-level']}, ${Number(options.candidates).toLocaleString('en')} candidates)`,
);
for (const [name] of GROUPS) {
  const us = shares.get(name) ?? 0;
  console.log(`${name}: ${ms(us)} ms, ${((100 * us) / Math.max(1, busy)).toFixed(2)} % of busy time, ${((100 * us) / Math.max(1, cpuInWindow)).toFixed(2)} % of CPU time`);
}
console.log('largest overall, by the function a sample was counted for:');
for (const [where, us] of [...overall].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms(us)} ms  ${where}`);
console.log('largest of those, by the function a sample was counted for:');
for (const [where, us] of [...top].sort((a, b) => b[1] - a[1]).slice(0, 8)) console.log(`  ${ms(us)} ms  ${where}`);
// Per request of the load, the window's share of it: what two runs (metrics on and off, say) can be compared by.
if (options.dump) {
  const total = (JSON.parse(figures) as { total: number }).total;
  const window = (to - from) / (seconds * 1e6);
  const perRequest = Object.fromEntries([...overall].sort((a, b) => b[1] - a[1]).map(([k, us]) => [k, us / (total * window)]));
  writeFileSync(options.dump, JSON.stringify({ total, busyPerRequest: busy / (total * window), cpuPerRequest: (cpuMs * 1000) / total, perRequest }, null, 1));
}
