// The process: settings, logger, store, migrations, listen, and an orderly close on a signal.
import './runtime.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/database.js';
import { DataDirInUse } from './db/data-dir-lock.js';
import { onStop, shutDown } from './http/drain.js';
import { logDestination } from './http/log-destination.js';
import { loggerOptions } from './http/logging.js';
import { migrate } from './db/migrate.js';
import { createMailer } from './modules/mail/mailer.js';
import { seedDemo } from './seed.js';
import { isClusterPrimary, printsBanner, runPrimary } from './workers.js';
import { monotonicMs, systemClock } from './domain/clock.js';
import { listRetention } from './modules/tenants/repository.js';

/** The admin token: ADMIN_TOKEN, or in embedded mode one generated once into $DATA_DIR/admin-token. */
function adminToken(config: Config): { token: string | undefined; source: string } {
  if (config.adminToken) return { token: config.adminToken, source: 'ADMIN_TOKEN' };
  if (config.databaseUrl) return { token: undefined, source: 'none' };
  const file = path.join(config.dataDir, 'admin-token');
  try {
    return { token: readFileSync(file, 'utf8').trim(), source: file };
  } catch {
    const token = randomBytes(32).toString('base64url');
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return { token, source: file };
  }
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`assessment-connect: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  if (isClusterPrimary(config)) return runPrimary(config);
  const started = monotonicMs();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
  // DATABASE_READ_URL: a replica, opened as the primary is (its pool, its breaker); reads only.
  const readDb = config.databaseReadUrl
    ? await openDatabase({ databaseUrl: config.databaseReadUrl, poolSize: config.databasePoolSize, preparedStatements: config.databasePreparedStatements })
    : undefined;
  const applied = await migrate(db);
  const seeded = config.seedDemo ? await seedDemo(db, systemClock()) : false;
  const admin = adminToken(config);
  const mailDir = path.join(config.dataDir, 'mail');
  const mailer = createMailer({ smtpUrl: config.smtpUrl, timeoutMs: config.mailTimeoutMs, mailDir });
  const app = await buildApp({
    config: {
      ...config,
      adminToken: admin.token,
      templatesDir: path.join(config.dataDir, 'templates'),
      devMailDir: config.smtpUrl ? undefined : mailDir,
      mailDir,
    },
    db,
    readDb,
    mailer,
    // Log lines leave asynchronously, gathered into writes of about 4 KiB (src/http/log-destination.ts).
    logger: loggerOptions(config.logLevel, logDestination()),
  });

  // An outage of PostgreSQL in two lines, whatever the traffic: requests meanwhile get 503 at
  // once, each in its request line (src/db/database.ts, the breaker).
  db.watchAvailability?.({
    down: (err) => app.log.error({ err }, 'database unreachable: requests are answered 503 until it is back'),
    up: ({ ms, failedFast }) => app.log.warn({ outageMs: ms, failedFast }, 'database reachable again'),
  });

  // A signal: /readyz says 503 at once, the listener stays open SHUTDOWN_DELAY_MS, then closes
  // and requests in progress finish (src/http/drain.ts). An uncaught error closes without delay.
  onStop(
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'closing after an error');
      else app.log.info({ signal, delayMs: config.shutdownDelayMs }, 'closing');
      await shutDown(app, err ? 0 : config.shutdownDelayMs);
      mailer.close();
      await readDb?.close();
      await db.close();
    },
    { backstopMs: config.shutdownDelayMs + 10_000, log: app.log },
  );

  const retention = { rows: await listRetention(db) };
  await app.listen({ port: config.port, host: config.host });
  const store = db.kind === 'postgres' ? 'PostgreSQL' : `embedded PGlite in ${path.join(config.dataDir, 'pgdata')}`;
  app.log.info({ store, migrationsApplied: applied, seededDemo: seeded, mail: mailer.description, ms: Math.round(monotonicMs() - started) }, 'ready');
  const lines = [
    '',
    `Assessment Connect is running on ${store}.`,
    `  API:       ${config.publicUrl}/v1/`,
    `  Docs:      ${config.publicUrl}/docs  (OpenAPI: ${config.publicUrl}/openapi.json)`,
    `  Console:   ${config.publicUrl}/console/  (the first owner: npx assessment-connect user create --email you@example.com --role owner)`,
    `  Mail:      ${mailer.description}${config.smtpUrl ? '' : ` (read them at ${config.publicUrl}/dev/mail, served only to requests from this machine that bear no proxy header: Forwarded, X-Forwarded-*, X-Real-IP, Via)`}`,
    `  Limits:    ${config.rateLimitPerMinute} requests per minute per API key unless the key says otherwise, counted ${config.redisUrl ? 'in Redis (in this process while it is unreachable)' : 'in this process (set REDIS_URL to share counts between nodes)'}`,
    retention.rows.length > 0
      ? `  Retention: candidates are erased this long after completing: ${retention.rows
          .slice(0, 10)
          .map((r) => `${r.name} ${r.days} days`)
          .join(', ')}${retention.rows.length > 10 ? ` and ${retention.rows.length - 10} more instances` : ''}; elsewhere off`
      : '  Retention: off in every instance (instance update <name> --retention-days N)',
    admin.token ? `  Admin:     token from ${admin.source}` : '  Admin:     off (set ADMIN_TOKEN to enable the admin API and the CLI)',
    seeded ? '  Seeded:    instance "demo" with the sample catalogue' : '',
    '',
    'Get an API key for the demo instance:',
    '  npx assessment-connect key create --instance demo',
    '',
  ];
  if (printsBanner()) process.stdout.write(lines.filter((line, i, all) => line !== '' || all[i - 1] !== '').join('\n') + '\n');
}

main().catch((error) => {
  // Another process has the embedded store's directory: said in one line, and nothing was touched.
  if (error instanceof DataDirInUse) {
    console.error(`assessment-connect: ${error.message}`);
    process.exit(1);
  }
  console.error('assessment-connect failed to start:', error);
  process.exit(1);
});
