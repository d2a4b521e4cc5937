// A real PgBouncer (Debian's, 1.18) in transaction mode in front of the PostgreSQL of
// TEST_DATABASE_URL, on a free loopback port, for the suites that run the service through a
// pooler. Started per suite and stopped after it; every database name is passed through to the
// same name on the server (the suites' fresh databases included).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync, chmodSync, readFileSync, existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { announceSkip, freePort, onPath } from '../harness.js';

export interface Bouncer {
  /** `url` with its host and port replaced by the pooler's. */
  through(url: string): string;
  stop(): Promise<void>;
}

/**
 * Why a PgBouncer suite cannot run here (no TEST_DATABASE_URL, no pgbouncer program), or undefined.
 * With REQUIRE_PGBOUNCER=1 (as .ci/run sets it) either is a failure instead of a skip.
 */
export function pgbouncerSkip(suite: string): string | undefined {
  const reason = !process.env.TEST_DATABASE_URL ? 'TEST_DATABASE_URL is not set' : !onPath('pgbouncer') ? 'pgbouncer is not installed (apt-get install pgbouncer)' : undefined;
  if (reason === undefined) return undefined;
  if (process.env.REQUIRE_PGBOUNCER === '1') throw new Error(`REQUIRE_PGBOUNCER=1 but ${reason}: the suite "${suite}" would be skipped`);
  return announceSkip(suite, reason);
}

/** Starts PgBouncer with pool_mode = transaction; PgBouncer refuses to run as root, so as postgres then. */
export async function startPgBouncer(options: { poolSize?: number } = {}): Promise<Bouncer> {
  const server = new URL(process.env.TEST_DATABASE_URL!);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-pgbouncer-'));
  const user = decodeURIComponent(server.username || 'postgres');
  writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir =`,
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${options.poolSize ?? 10}`,
      'max_client_conn = 500',
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const ids = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {};
  if (ids.uid !== undefined) {
    chmodSync(dir, 0o755);
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) chownSync(path.join(dir, file), ids.uid, ids.gid!);
  }
  const child: ChildProcess = spawn('pgbouncer', [path.join(dir, 'pgbouncer.ini')], { ...ids, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr!.on('data', (d) => (errors += d));
  const log = () => errors + (existsSync(path.join(dir, 'pgbouncer.log')) ? readFileSync(path.join(dir, 'pgbouncer.log'), 'utf8') : '');
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited ${child.exitCode}: ${log()}`);
    if (await listening(port)) break;
    if (i > 100) throw new Error(`pgbouncer did not listen on ${port} within 10 s: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    through(url) {
      const pooled = new URL(url);
      pooled.hostname = '127.0.0.1';
      pooled.port = String(port);
      return pooled.toString();
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
