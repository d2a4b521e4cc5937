// A private PostgreSQL cluster for the suites that stop and start the database: initdb into a
// temporary directory on a free port, run as the postgres user (PostgreSQL refuses to run as
// root), stopped and started with pg_ctl, removed at the end. The machine's own cluster is
// never touched.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from '../../harness.js';

const BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface Cluster {
  url: string;
  start(): void;
  /** Stops with -m fast: connections are cut, as when a server goes away. */
  stop(): void;
  destroy(): void;
}

export async function privateCluster(): Promise<Cluster> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const run = (args: string[]) => {
    const [cmd, ...rest] = asRoot ? ['runuser', '-u', 'postgres', '--', ...args] : args;
    execFileSync(cmd!, rest, { stdio: 'pipe' });
  };
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  chmodSync(dir, 0o700);
  run([path.join(BIN, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const cluster: Cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => run([path.join(BIN, 'pg_ctl'), '-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', 'start']),
    stop: () => run([path.join(BIN, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']),
    destroy: () => {
      try {
        cluster.stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
