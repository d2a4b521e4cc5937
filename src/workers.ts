// One process per core (WORKERS=auto or N): the primary applies migrations and the demo seed
// once, then forks the workers, which share the listening port (Node's cluster module hands
// connections out round-robin). It restarts a worker that dies, forwards SIGTERM/SIGINT so that
// every worker drains (each keeps the port open SHUTDOWN_DELAY_MS first, and ignores the copy of
// the signal it gets when the whole process group was signalled), and exits when they all have. Only on PostgreSQL: the embedded store
// belongs to one process.
import cluster from 'node:cluster';
import type { Config } from './config.js';
import { openDatabase } from './db/database.js';
import { migrate } from './db/migrate.js';
import { seedDemo } from './seed.js';
import { systemClock } from './domain/clock.js';

const RESTART_DELAY_MS = 1000;

export async function runPrimary(config: Config): Promise<void> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    await migrate(db);
    if (config.seedDemo) await seedDemo(db, systemClock());
  } finally {
    await db.close();
  }

  let stopping = false;
  const fork = (first: boolean) => cluster.fork({ ASSESSMENT_CONNECT_BANNER: first ? '1' : '0' });
  for (let i = 0; i < config.workers; i++) fork(i === 0);
  console.log(`assessment-connect: ${config.workers} workers on port ${config.port} (primary pid ${process.pid})`);

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    console.error(`assessment-connect: worker ${worker.process.pid} exited (${signal ?? code}); starting another`);
    setTimeout(() => fork(false), RESTART_DELAY_MS).unref();
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // Each worker exits within its own bound (the delay plus 10 s); this is the primary's backstop.
    setTimeout(() => process.exit(1), config.shutdownDelayMs + 15_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** True in the process that should fork instead of serving. */
export const isClusterPrimary = (config: Config) => config.workers > 1 && cluster.isPrimary;

/** Whether this process prints the start-up banner (one of the workers, or the only process). */
export const printsBanner = () => cluster.isPrimary || process.env.ASSESSMENT_CONNECT_BANNER === '1';
