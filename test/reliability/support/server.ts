// Real server processes for the reliability suites: `node --import tsx src/server.ts` on a free
// port with the given environment (the bench: `node dist/server.js`, the compiled build `npm start`
// runs, after serveFromBuild()), ready when /readyz answers, stopped by a signal. Also a fresh
// PostgreSQL database, an API key through the admin API, and the FIGURE lines the runner collects.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { freePort } from '../../harness.js';

export { freePort, freshPostgresDatabase } from '../../harness.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
export const ADMIN_TOKEN = 'reliability-admin-token-0123456789';

/** Resident memory of a process in MB, from /proc. */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** CPU time a process has spent so far (user + system), in µs, from /proc. */
export function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / clockTicks();
}
let ticks: number | undefined;
const clockTicks = () => (ticks ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100);

/** Prints one measured result; the runner lists them all at the end. */
export function figure(text: string): void {
  process.stdout.write(`# FIGURE ${text}\n`);
}

export interface Node {
  port: number;
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  /** Sends a signal to the process, or with `npm` to its whole process group. */
  kill(signal: NodeJS.Signals): void;
  /** Sends a signal (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface StartOptions {
  /** Run `npm start` as the leader of its own process group, as systemd or a terminal does; a
   *  signal then goes to the whole group (npm and node) and `exited` resolves once every process
   *  of the group that holds the output has ended. */
  npm?: boolean;
  /** Node options before the script (e.g. --cpu-prof, which NODE_OPTIONS may not carry). */
  nodeArgs?: string[];
}

let entry = ['--import', 'tsx', 'src/server.ts'];

/**
 * From now on nodes run the compiled build (dist/server.js, as `npm start` does) with plain node:
 * the bench measures what is deployed. `npm run bench` builds first.
 */
export function serveFromBuild(): void {
  entry = ['dist/server.js'];
}

/**
 * Starts a server process. `env` is added to a default environment: PostgreSQL at `databaseUrl`,
 * the admin token above, no demo seed, quiet logs, a budget high enough not to throttle load, and
 * a short SHUTDOWN_DELAY_MS (no load balancer to wait for).
 */
export async function startNode(databaseUrl: string, env: Record<string, string> = {}, options: StartOptions = {}): Promise<Node> {
  const port = await freePort();
  const [command, args] = options.npm ? ['npm', ['start', '--silent']] : [process.execPath, [...(options.nodeArgs ?? []), ...entry]];
  const child = spawn(command, args, {
    cwd: ROOT,
    detached: options.npm === true,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'ac-node-')),
      ADMIN_TOKEN,
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000',
      SHUTDOWN_DELAY_MS: '300',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  // With npm, 'close' waits for the output pipes, which node holds too: npm may end before it.
  // A server that ends without being told to is a finding in itself: its last output goes to
  // stderr, whatever the test then asserts.
  let told = false;
  const exited = new Promise<number | string>((resolve) =>
    child.on(options.npm ? 'close' : 'exit', (code, signal) => {
      if (!told) process.stderr.write(`\nserver on port ${port} exited by itself (${code ?? signal}); its last output:\n${output.slice(-8000)}\n`);
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const kill = (signal: NodeJS.Signals) => {
    told = true;
    return options.npm ? process.kill(-child.pid!, signal) : child.kill(signal);
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) })).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      kill('SIGKILL');
      throw new Error(`server not ready within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    url,
    child,
    output: () => output,
    exited,
    kill,
    async stop(signal = 'SIGTERM') {
      if (options.npm) {
        try {
          kill(signal);
        } catch {
          // the group has ended
        }
      } else if (child.exitCode === null && child.signalCode === null) kill(signal);
      return exited;
    },
  };
}

/** Calls the admin API of a node. */
export async function admin(node: Node, method: string, pathname: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${node.url}/admin/v1${pathname}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/** Makes an instance with a published sample assessment pair and a key for it. */
export async function tenant(node: Node, name: string, assessmentYaml: (id: string) => string): Promise<{ instance: string; key: string; keyId: string; assessments: string[] }> {
  const created = await admin(node, 'POST', '/instances', { name });
  if (created.status !== 201) throw new Error(`instance: ${JSON.stringify(created.json)}`);
  const assessments = ['alpha', 'beta'];
  for (const id of assessments) {
    const response = await fetch(`${node.url}/admin/v1/instances/${name}/assessments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' },
      body: assessmentYaml(id),
    });
    if (response.status !== 201) throw new Error(`assessment: ${await response.text()}`);
  }
  const key = await admin(node, 'POST', '/keys', { instances: [name] });
  const { id, key: secret } = key.json as { id: string; key: string };
  return { instance: name, key: secret, keyId: id, assessments };
}
