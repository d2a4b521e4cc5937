// One place for the service's settings. Read once at boot from the environment;
// a bad value stops the process with a message naming the variable, never a half-started server.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';

export interface Config {
  /** TCP port of the HTTP server. Default 8080. */
  port: number;
  /** Interface to listen on. Default 127.0.0.1 (loopback only); 0.0.0.0 to serve a network. */
  host: string;
  /** postgres://… selects a PostgreSQL server; unset means embedded PGlite under dataDir. */
  databaseUrl: string | undefined;
  /** Embedded database, generated admin token and local mailbox. Default ./data. */
  dataDir: string;
  /** Base of links given to candidates and of the docs. Default http://localhost:$PORT. */
  publicUrl: string;
  /** Bearer token of the admin API. Embedded mode generates one into $DATA_DIR/admin-token. */
  adminToken: string | undefined;
  /** Shared rate-limit counters for several nodes. Unset, or unreachable: in-process counters. */
  redisUrl: string | undefined;
  /** Requests per minute per API key when the key has no rate limit of its own. Default 600. */
  rateLimitPerMinute: number;
  /** Refused credentials per minute per client address before it is turned away. Default 20. */
  authFailuresPerMinute: number;
  /** Which peers are reverse proxies whose X-Forwarded-For names the client (Fastify's
   *  `trustProxy`): false (the default: the socket's peer is the client, X-Forwarded-For is
   *  ignored), a number of proxy hops, or a list of proxy addresses and CIDR ranges. */
  trustProxy: TrustProxy;
  /** smtp:// or smtps:// relay for invitation e-mail. Unset: .eml files under $DATA_DIR/mail. */
  smtpUrl: string | undefined;
  /** Sender of invitation e-mail. */
  mailFrom: string;
  /** Longest time a request waits for the mail relay, in ms. Default 5000. */
  mailTimeoutMs: number;
  /** How long an API key's record is trusted from memory, in ms: the bound on how late a
   *  revocation made on another node is seen. Default 2000; at most 5000. */
  keyCacheMs: number;
  /** Connections per node to PostgreSQL. Default 10. */
  databasePoolSize: number;
  /** DATABASE_READ_URL: a PostgreSQL streaming replica of DATABASE_URL's database that score
   *  reads, exports and console lists read from. Unset: every read goes to DATABASE_URL. */
  databaseReadUrl: string | undefined;
  /** REPLICA_MAX_LAG_MS: a replica further behind than this is not read until it catches up.
   *  Default 2000. */
  replicaMaxLagMs: number;
  /** DATABASE_PREPARED_STATEMENTS: hot reads as named prepared statements on PostgreSQL. Default
   *  false, which is what a pooler in transaction mode (PgBouncer) needs; true only when
   *  DATABASE_URL reaches PostgreSQL itself. The embedded store always prepares them. */
  databasePreparedStatements: boolean;
  /** How often each node completes attempts whose time ran out, in ms (several nodes share the
   *  work: each attempt is completed once). Lower means COMPLETED shows sooner after a deadline,
   *  at one small query per interval. Default 5000. */
  sweepEveryMs: number;
  /** Longest a client may take to send a whole request, in ms. Default 30000. */
  requestTimeoutMs: number;
  /** On SIGTERM/SIGINT, how long the node keeps its listener open and answers as usual while
   *  /readyz says 503, so that a load balancer stops sending to it before it stops accepting
   *  connections, in ms. Then the listener closes and requests in progress finish. Default 5000
   *  (a few probe intervals of a typical load balancer); 0 closes the listener at once. */
  shutdownDelayMs: number;
  /** Server processes sharing the port: 1, a number, or `auto` (one per core). Default 1. More
   *  than one needs DATABASE_URL: the embedded store belongs to one process. */
  workers: number;
  /** Pino log level. Default info. */
  logLevel: string;
  /** Create the demo instance and sample catalogue when the store is empty. Default true. */
  seedDemo: boolean;
  /** Collect and serve /metrics (Prometheus). Default true; METRICS=false turns both off (the
   *  bench measures what they cost this way). */
  metrics: boolean;
  /** Let webhook endpoints resolve to loopback, private or link-local addresses. Off by default:
   *  the service would otherwise fetch, on a client's behalf, addresses only it can reach (SSRF).
   *  Turn it on only where every endpoint is trusted (tests, a private network). */
  webhookAllowPrivateNetworks: boolean;
  /** Longest wait for a webhook receiver's answer, in ms. Default 15000. A delivery is held by the
   *  node sending it for this long and as long again; a node that dies mid-delivery leaves it to
   *  another after that. */
  webhookTimeoutMs: number;
  /** Ashby's API, where assessment.update callbacks go (ASHBY_API_URL). Default
   *  https://api.ashbyhq.com; tests and proxies point it elsewhere. */
  ashbyApiUrl: string;
  /** HiBob's, Lever's and SmartRecruiters' APIs, where their adapters read and report
   *  (HIBOB_API_URL, LEVER_API_URL, SMARTRECRUITERS_API_URL). Defaults: their public addresses;
   *  tests point them at stand-ins. */
  hibobApiUrl: string;
  leverApiUrl: string;
  smartrecruitersApiUrl: string;
  /** Let an instance's single sign-on use a plain-http issuer (SSO_ALLOW_INSECURE_HTTP). Off by
   *  default: issuers must be https. For development and tests against a local provider only. */
  ssoAllowInsecureHttp: boolean;
}

/** Fastify's `trustProxy` as this service allows it: off, a hop count, or addresses and CIDRs. */
export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

/**
 * TRUST_PROXY: unset, empty, `false` or `0` (off); a hop count (1–10); or a comma list of
 * addresses and CIDR ranges (`10.0.0.1,192.168.0.0/16,::1`). `true` (trust every peer) is refused:
 * any client could then name itself in X-Forwarded-For.
 */
export function trustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || value === '0' || value.toLowerCase() === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) throw new ConfigError(`TRUST_PROXY as a hop count must be between 0 and 10, got "${raw}"`);
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const validBits = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (family === 0 || rest.length > 0 || !validBits) {
      throw new ConfigError(`TRUST_PROXY must be a hop count or a comma list of proxy addresses and CIDR ranges, got "${entry}"`);
    }
  }
  return entries;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function workers(env: NodeJS.ProcessEnv, databaseUrl: string | undefined): number {
  const count = env.WORKERS === 'auto' ? availableParallelism() : integer(env, 'WORKERS', 1, 1, 64);
  if (count > 1 && !databaseUrl) {
    throw new ConfigError('WORKERS above 1 needs DATABASE_URL: the embedded store can be opened by one process only');
  }
  return count;
}

function readUrl(env: NodeJS.ProcessEnv): string | undefined {
  const read = url(env, 'DATABASE_READ_URL', ['postgres:', 'postgresql:']);
  if (read && !env.DATABASE_URL) throw new ConfigError('DATABASE_READ_URL needs DATABASE_URL: it names a replica of that database');
  return read;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const adminToken = env.ADMIN_TOKEN || undefined;
  if (adminToken !== undefined && adminToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long');
  }
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    publicUrl: publicUrl.replace(/\/+$/, ''),
    adminToken,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 20, 1, 100_000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'Assessment Connect <no-reply@localhost>',
    mailTimeoutMs: integer(env, 'MAIL_TIMEOUT_MS', 5000, 100, 60000),
    keyCacheMs: integer(env, 'KEY_CACHE_MS', 2000, 0, 5000),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 200),
    databaseReadUrl: readUrl(env),
    replicaMaxLagMs: integer(env, 'REPLICA_MAX_LAG_MS', 2000, 100, 600_000),
    databasePreparedStatements: flag(env, 'DATABASE_PREPARED_STATEMENTS', false),
    sweepEveryMs: integer(env, 'SWEEP_EVERY_MS', 5000, 100, 600_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 5000, 0, 120_000),
    workers: workers(env, env.DATABASE_URL),
    logLevel: env.LOG_LEVEL || 'info',
    seedDemo: flag(env, 'SEED_DEMO', true),
    webhookAllowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    metrics: flag(env, 'METRICS', true),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 1000, 60_000),
    ashbyApiUrl: url(env, 'ASHBY_API_URL', ['https:', 'http:']) ?? 'https://api.ashbyhq.com',
    hibobApiUrl: url(env, 'HIBOB_API_URL', ['https:', 'http:']) ?? 'https://api.hibob.com/v1',
    leverApiUrl: url(env, 'LEVER_API_URL', ['https:', 'http:']) ?? 'https://api.lever.co/v1',
    smartrecruitersApiUrl: url(env, 'SMARTRECRUITERS_API_URL', ['https:', 'http:']) ?? 'https://api.smartrecruiters.com',
    ssoAllowInsecureHttp: flag(env, 'SSO_ALLOW_INSECURE_HTTP', false),
  };
}
