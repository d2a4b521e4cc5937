// Builds the real application on a real, fresh database for a test suite: embedded PGlite always,
// and PostgreSQL too when TEST_DATABASE_URL is set (a throw-away database per suite). Each fresh
// database is a copy of one already migrated (test/support/templates.ts). With
// REQUIRE_POSTGRES=1 (as .ci/run sets it) a missing TEST_DATABASE_URL fails instead of skipping.
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { Redis } from 'ioredis';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { loggerOptions } from '../src/http/logging.js';
import { createFileMailer, type Mailer } from '../src/modules/mail/mailer.js';
import { createPostgresDatabase, openMigratedPglite } from './support/templates.js';

export interface StoreKind {
  name: 'pglite' | 'postgres';
  /** A fresh database holding the migrated schema and no rows (a copy of the run's template). */
  open(): Promise<{ db: Database; drop(): Promise<void> }>;
}

const pglite: StoreKind = {
  name: 'pglite',
  async open() {
    const db = await openMigratedPglite();
    // In memory: closing it is all there is to drop (closing twice is harmless).
    return { db, drop: () => db.close() };
  },
};

/**
 * A fresh database on the PostgreSQL server of TEST_DATABASE_URL, dropped after the suite: a copy
 * of the migrated template, or empty (no migration applied) with `{ migrated: false }`.
 */
export async function freshPostgresDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `ac_test_${randomBytes(6).toString('hex')}`;
  await createPostgresDatabase(name, options.migrated ?? true);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

const postgres: StoreKind = {
  name: 'postgres',
  async open() {
    const fresh = await freshPostgresDatabase();
    // Straight to PostgreSQL: named prepared statements on (test/pooling.test.ts runs without, through PgBouncer).
    const db = await openDatabase({ databaseUrl: fresh.url, poolSize: 20, preparedStatements: true });
    return {
      db,
      async drop() {
        await db.close();
        await fresh.drop();
      },
    };
  },
};

export function storeKinds(): StoreKind[] {
  if (process.env.TEST_DATABASE_URL) return [pglite, postgres];
  if (process.env.REQUIRE_POSTGRES === '1') {
    throw new Error('REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set: the PostgreSQL suites would be skipped');
  }
  return [pglite];
}

/**
 * Says that a suite is skipped, and why, where the test command can find it: Node's test runner
 * does not count skipped `describe` blocks in its summary, so scripts/test.mjs prints a final line
 * listing these (it passes TEST_SKIP_LOG); the line also goes to the output as it happens.
 */
export function announceSkip(suite: string, reason: string): string {
  const line = `${suite}: ${reason}`;
  process.stdout.write(`# SKIPPED SUITE ${line}\n`);
  if (process.env.TEST_SKIP_LOG) appendFileSync(process.env.TEST_SKIP_LOG, `${line}\n`);
  return reason;
}

/**
 * The Redis of TEST_REDIS_URL for a suite that needs one, or why the suite is skipped: the
 * variable is unset, or nothing answers there within a second. With REQUIRE_REDIS=1 (as .ci/run
 * sets it) either is a failure instead, so that the Redis suites can never be skipped silently.
 */
export async function redisForSuite(suite: string): Promise<{ url: string; skip: false } | { url: undefined; skip: string }> {
  const url = process.env.TEST_REDIS_URL;
  let reason: string | undefined;
  if (!url) {
    reason = 'TEST_REDIS_URL is not set';
  } else {
    const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
    } catch (error) {
      reason = `Redis at TEST_REDIS_URL does not answer (${(error as Error).message})`;
    } finally {
      client.disconnect();
    }
  }
  if (reason === undefined) return { url: url!, skip: false };
  if (process.env.REQUIRE_REDIS === '1') throw new Error(`REQUIRE_REDIS=1 but ${reason}: the suite "${suite}" would be skipped`);
  return { url: undefined, skip: announceSkip(suite, `${reason} (set TEST_REDIS_URL=redis://127.0.0.1:6379 to run it)`) };
}

/** Whether a program is on the PATH (for suites that start one, such as redis-server). */
export function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && existsSync(path.join(dir, program)));
}

/** A loopback port that was free a moment ago (nothing listens on it when this resolves). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestContext {
  store: StoreKind['name'];
  app: FastifyInstance;
  db: Database;
  mailDir: string;
  /** Sends a request through the real app; adds the admin token for /admin paths. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** Makes an instance with a unique name starting with `prefix`; returns its name. */
  instance(prefix?: string): Promise<string>;
  /** Issues an API key granted the given instances; returns the key. */
  key(instances: string[], extra?: Record<string, unknown>): Promise<string>;
  /** Publishes assessment content into an instance. */
  publish(instance: string, source: string): Promise<LightMyRequestResponse>;
}

let counter = 0;

export interface ContextOptions {
  mailer?: Mailer;
  keyCacheMs?: number;
  sweepEveryMs?: number;
  /** Per-instance template overrides, as $DATA_DIR/templates in the server. */
  templatesDir?: string;
  /** Serve /dev/mail over the file mailer's directory. */
  devMail?: boolean;
  /** Log as the server does (level info) into this stream. */
  logStream?: NodeJS.WritableStream;
  requestTimeoutMs?: number;
  redisUrl?: string;
  rateLimitPerMinute?: number;
  authFailuresPerMinute?: number;
  /** An existing database (migrated) instead of a fresh one; not dropped at close. */
  db?: Database;
  /** A streaming replica of `db` for reads (DATABASE_READ_URL), and the lag past which it is not read. */
  readDb?: Database;
  replicaMaxLagMs?: number;
  /** The app's clock, for suites that move time. */
  now?: () => Date;
  /** Webhooks: allow loopback receivers, and the receiver's time limit in ms. */
  webhookAllowPrivateNetworks?: boolean;
  webhookTimeoutMs?: number;
  /** ASHBY_API_URL: where Ashby callbacks go (a local stand-in in tests). */
  ashbyApiUrl?: string;
  /** HIBOB_API_URL, LEVER_API_URL, SMARTRECRUITERS_API_URL: the other ATSs' APIs (stand-ins in tests). */
  hibobApiUrl?: string;
  leverApiUrl?: string;
  smartrecruitersApiUrl?: string;
  /** How often the bulk-invite job runs by itself, in ms (default: practically never; tests run it). */
  bulkInviteEveryMs?: number;
  /** TRUST_PROXY: which peers' X-Forwarded-For names the client. */
  trustProxy?: false | number | string[];
  /** SSO_ALLOW_INSECURE_HTTP: single sign-on with a plain-http provider (a local one in tests). */
  ssoAllowInsecureHttp?: boolean;
}

export async function createTestContext(kind: StoreKind, options: ContextOptions = {}): Promise<TestContext & { close(): Promise<void> }> {
  const { db, drop } = options.db ? { db: options.db, drop: async () => {} } : await kind.open();
  const mailDir = mkdtempSync(path.join(tmpdir(), 'ac-mail-'));
  const mailer = options.mailer ?? createFileMailer({ from: 'Test <test@localhost>', timeoutMs: 2000, mailDir });
  const app = await buildApp({
    config: {
      publicUrl: 'http://portal.test',
      adminToken: ADMIN_TOKEN,
      keyCacheMs: options.keyCacheMs ?? 2000,
      sweepEveryMs: options.sweepEveryMs ?? 1000,
      templatesDir: options.templatesDir,
      devMailDir: options.devMail ? mailDir : undefined,
      requestTimeoutMs: options.requestTimeoutMs,
      redisUrl: options.redisUrl,
      rateLimitPerMinute: options.rateLimitPerMinute,
      authFailuresPerMinute: options.authFailuresPerMinute,
      now: options.now,
      webhookAllowPrivateNetworks: options.webhookAllowPrivateNetworks,
      webhookTimeoutMs: options.webhookTimeoutMs,
      ashbyApiUrl: options.ashbyApiUrl,
      hibobApiUrl: options.hibobApiUrl,
      leverApiUrl: options.leverApiUrl,
      smartrecruitersApiUrl: options.smartrecruitersApiUrl,
      trustProxy: options.trustProxy,
      ssoAllowInsecureHttp: options.ssoAllowInsecureHttp,
      replicaMaxLagMs: options.replicaMaxLagMs,
      // Tests run the webhook job themselves (app.jobs.runOnce), after moving their clock.
      webhookEveryMs: 3_600_000,
      // And the bulk-invite job, unless a suite wants it running on its own (the CLI waits for it).
      bulkInviteEveryMs: options.bulkInviteEveryMs ?? 3_600_000,
    },
    logger: options.logStream ? loggerOptions('info', options.logStream) : false,
    db,
    readDb: options.readDb,
    mailer,
  });
  await app.ready();
  const request: TestContext['request'] = (opts) => {
    const url = String(opts.url ?? '');
    const headers = { ...(opts.headers ?? {}) };
    if (url.startsWith('/admin/') && headers.authorization === undefined) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
    return app.inject({ ...opts, headers });
  };
  const ctx = {
    store: kind.name,
    app,
    db,
    mailDir,
    request,
    async instance(prefix = 'inst') {
      const name = `${prefix}-${process.pid}-${++counter}`;
      const response = await request({ method: 'POST', url: '/admin/v1/instances', payload: { name } });
      if (response.statusCode !== 201) throw new Error(`instance create failed: ${response.body}`);
      return name;
    },
    async key(instances: string[], extra: Record<string, unknown> = {}) {
      const response = await request({ method: 'POST', url: '/admin/v1/keys', payload: { instances, ...extra } });
      if (response.statusCode !== 201) throw new Error(`key create failed: ${response.body}`);
      return response.json().key as string;
    },
    publish(instance: string, source: string) {
      return request({ method: 'POST', url: `/admin/v1/instances/${instance}/assessments`, headers: { 'content-type': 'application/yaml' }, payload: source });
    },
    async close() {
      await app.close();
      await drop();
      rmSync(mailDir, { recursive: true, force: true });
    },
  };
  return ctx;
}

/**
 * Declares a suite once per store kind; `setup` gets a fresh context before the suite's tests.
 * Tests read the context through the returned getter inside `it` callbacks.
 */
export function describeEachStore(title: string, body: (ctx: () => TestContext) => void, options: Omit<ContextOptions, 'db'> = {}): void {
  for (const kind of storeKinds()) {
    describe(`${title} [${kind.name}]`, () => {
      let context: (TestContext & { close(): Promise<void> }) | undefined;
      before(async () => {
        context = await createTestContext(kind, options);
      });
      after(async () => {
        await context?.close();
      });
      body(() => {
        if (!context) throw new Error('test context is not ready');
        return context;
      });
    });
  }
}

/** A small valid assessment; `id` and overrides make variants (`freeText: false`: without the free-text question and its category, so scored at submission). */
export function sampleAssessment(id = 'sample', overrides: { name?: string; durationMinutes?: number; typing?: boolean; freeText?: boolean } = {}): string {
  const freeText = overrides.freeText ?? true;
  return `id: ${id}
name: ${overrides.name ?? 'Sample assessment'}
description: A short assessment used by the tests.
durationMinutes: ${overrides.durationMinutes ?? 20}
passScore: 70
lowPassScore: 50
categories:
  - id: reasoning
    name: Reasoning
    weight: 2
${freeText ? '  - id: writing\n    name: Writing\n' : ''}${overrides.typing ? '  - id: typing\n    name: Typing\n' : ''}questions:
  - id: q1
    type: single-choice
    category: reasoning
    prompt: What is 2 + 2?
    options:
      - text: "3"
      - text: "4"
        correct: true
  - id: q2
    type: multiple-choice
    category: reasoning
    prompt: Which are even?
    options:
      - text: "2"
        correct: true
      - text: "3"
      - text: "8"
        correct: true
  - id: q3
    type: short-answer
    category: reasoning
    prompt: What is 10 times 125?
    accept: ["1250"]
${
  freeText
    ? `  - id: q4
    type: free-text
    category: writing
    prompt: Describe a time you helped a customer.
`
    : ''
}${
    overrides.typing
      ? `typingTest:
  category: typing
  targetWpm: 40
  passage: The quick brown fox jumps over the lazy dog while the warehouse team counts every box twice.
`
      : ''
  }`;
}

/** One question, no free text: a submitted attempt is scored at once (score.finalized). */
export const QUICK_ASSESSMENT = `id: quick
name: Quick check
description: One question, scored at once.
durationMinutes: 10
passScore: 50
lowPassScore: 30
categories:
  - id: reasoning
    name: Reasoning
questions:
  - id: q1
    type: single-choice
    category: reasoning
    prompt: What is 2 + 2?
    options:
      - text: "3"
      - text: "4"
        correct: true
`;
