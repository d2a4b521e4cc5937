// `npm run bench:threads`: the CPU a server's threads spend per score read, user and system time
// apart, read from /proc/PID/task/*/stat (Linux) before and after a load of reads by one
// candidate. The service runs as `npm start` runs it (request lines at info), the ready-JSON
// baseline as `npm run bench` runs it, one after the other in each round, on one database.
//
// With --rate the load is open-loop (that many requests a second, whatever the answers' pace):
// at one rate both servers batch their work alike (reads per wake-up, per system call), so their
// CPU per read compares. A closed loop at saturation lets the faster server batch more and spend
// less per read, which turns a small difference into a larger one.
//
//   npm run bench:threads                                  3 rounds, 3,000 reads/s for 6 s each
//   npm run bench:threads -- --rate 0                      closed loop (10 connections, flat out)
//   npm run bench:threads -- --rounds 5 --seconds 8 --candidates 10000
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serveFromBuild, startNode } from '../test/reliability/support/server.js';
import { startNodeOptions, startReadyBaseline } from './fresh.js';
import { buildReadyTable, readerOf, recordsReady, seed } from './seed.js';

const ROOT = path.resolve(import.meta.dirname, '..');
serveFromBuild();
const { values: options } = parseArgs({
  options: {
    rate: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '3' },
    candidates: { type: 'string', default: '2000' },
  },
});
const [rate, seconds, rounds] = [Number(options.rate), Number(options.seconds), Number(options.rounds)];
if (!(rate >= 0 && seconds >= 2 && seconds <= 600 && rounds >= 1 && rounds <= 50)) throw new Error('--rate ≥ 0, --seconds 2-600, --rounds 1-50');

/** Clock ticks a second in /proc's times (USER_HZ, 100 on Linux). */
const TICK_US = 10_000;

/** CPU (µs) of each thread of a process: user and system time. */
function threads(pid: number): Map<string, { user: number; system: number }> {
  const out = new Map<string, { user: number; system: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    out.set(tid, { user: Number(fields[11]) * TICK_US, system: Number(fields[12]) * TICK_US });
  }
  return out;
}

interface Measured {
  rps: number;
  p99: number;
  main: { user: number; system: number };
  others: number;
}

/** One load on a server: its main thread's user and system CPU per read, and its other threads' together. */
function measure(pid: number, spec: Record<string, unknown>): Measured {
  const before = threads(pid);
  const figures = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'load.ts'), JSON.stringify(spec)])
      .toString()
      .trim()
      .split('\n')
      .pop()!,
  ) as { rps: number; p99: number; total: number };
  const after = threads(pid);
  const n = Math.max(1, figures.total);
  const main = { user: 0, system: 0 };
  let others = 0;
  for (const [tid, spent] of after) {
    const was = before.get(tid) ?? { user: 0, system: 0 };
    if (tid === String(pid)) {
      main.user = (spent.user - was.user) / n;
      main.system = (spent.system - was.system) / n;
    } else {
      others += (spent.user + spent.system - was.user - was.system) / n;
    }
  }
  return { rps: figures.rps, p99: figures.p99, main, others };
}

const seeded = await seed(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', Number(options.candidates));
// The service as `npm start` runs it: its node options and the default log level.
const node = await startNode(seeded.url, { LOG_LEVEL: 'info' }, { nodeArgs: startNodeOptions() });
node.child.stdout!.removeAllListeners('data');
node.child.stdout!.on('data', () => {});
const dir = mkdtempSync(path.join(tmpdir(), 'ac-threads-'));
try {
  await recordsReady(seeded.url);
  const { idsFile, auth } = await readerOf(node, seeded.url, path.join(dir, 'ids.json'));
  await buildReadyTable(seeded.url);
  const baseline = await startReadyBaseline(seeded.url);
  try {
    const sides = [
      { name: 'service', pid: node.child.pid!, spec: { url: node.url, path: '/v1/score?candidateIds=', idsFile, headers: auth, connections: 10 } },
      { name: 'baseline', pid: baseline.pid, spec: { url: baseline.url, path: '/score?candidateIds=', idsFile, connections: 10 } },
    ];
    // Both warmed for 2 s (not counted): the first reads of a process include V8's compilation.
    for (const side of sides) measure(side.pid, { ...side.spec, seconds: 2 });
    console.log(`CPU per read, µs (${rate > 0 ? `open loop at ${rate} reads/s` : 'closed loop, 10 connections'}, ${seconds} s a side, ${options.candidates} candidates):`);
    console.log('| round | side | reads/s | p99 ms | main thread user | main thread system | other threads |');
    console.log('|---:|---|---:|---:|---:|---:|---:|');
    for (let round = 1; round <= rounds; round++) {
      for (const side of round % 2 ? sides : [...sides].reverse()) {
        const m = measure(side.pid, { ...side.spec, seconds, ...(rate > 0 ? { rate } : {}) });
        console.log(`| ${round} | ${side.name} | ${m.rps.toFixed(0)} | ${m.p99} | ${m.main.user.toFixed(1)} | ${m.main.system.toFixed(1)} | ${m.others.toFixed(1)} |`);
      }
    }
  } finally {
    await baseline.stop();
  }
} finally {
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
}
