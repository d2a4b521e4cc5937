// The one place that picks the store: PostgreSQL through `pg` when a URL is given, otherwise
// embedded PGlite (the same PostgreSQL, compiled to WASM). Everything above this file speaks
// the same SQL to the same small interface.
import pg from 'pg';
import Cursor from 'pg-cursor';
import { openEmbedded } from './embedded.js';
import type { AvailabilityListener, Database, Queryable } from './store.js';
import { systemClock } from '../domain/clock.js';

export type { AvailabilityListener, Database, Queryable } from './store.js';

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory of the embedded store; undefined keeps it in memory (tests). */
  dataDir?: string;
  /**
   * The embedded store in memory only: start from this data directory (a tarball, as a store's
   * `dumpDataDir()` gives it) instead of an empty database. The tests open their databases from
   * one already migrated.
   */
  template?: Uint8Array;
  poolSize?: number;
  /** Longest wait for a free pooled connection, in ms (default 5000). */
  poolWaitMs?: number;
  /** PostgreSQL: the clock of the circuit breaker's open interval (a test moves it instead of waiting). */
  now?: () => Date;
  /**
   * PostgreSQL: run hot reads as named prepared statements (`prepared`). Off by default: a
   * statement prepared on one server connection does not exist on another, and a pooler in
   * transaction mode (PgBouncer 1.18) hands each transaction whichever connection is free, so
   * named statements fail there ("prepared statement … does not exist" / "already exists"). Turn
   * it on only when DATABASE_URL reaches PostgreSQL itself. The embedded store always prepares.
   */
  preparedStatements?: boolean;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, { max: options.poolSize ?? 10, poolWaitMs: options.poolWaitMs ?? 5000, now: options.now, prepare: options.preparedStatements ?? false })
    : openEmbedded(options.dataDir, options.template);
}

/** Thrown without asking PostgreSQL while the breaker is open: it was just found unreachable. */
export class DatabaseUnavailable extends Error {
  constructor(cause: unknown) {
    super('PostgreSQL is unreachable (failing fast until the next probe)', { cause });
  }
}

/**
 * A circuit breaker for the pool. When PostgreSQL turns out to be unreachable, every query for the
 * next OPEN_MS fails at once instead of each waiting for its own connection timeout; then one
 * query is let through as a probe, and its success closes the breaker again. So during an outage
 * clients get their 503 in milliseconds, the server is not hammered with connection attempts, and
 * recovery needs no restart.
 */
export class Breaker {
  private openUntil = 0;
  private probing = false;
  private lastError: unknown;
  /** When the breaker opened (the outage's start) and the queries failed fast since. */
  private openedAt = 0;
  private failedFast = 0;
  private readonly listeners: AvailabilityListener[] = [];

  /** `now` is the clock the open interval is measured on (a test's, to move it instead of waiting). */
  constructor(
    private readonly openMs = 500,
    private readonly now: () => Date = systemClock,
  ) {}

  watch(listener: AvailabilityListener): void {
    this.listeners.push(listener);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    const now = this.now().getTime();
    let probe = false;
    if (this.openUntil > 0) {
      if (now < this.openUntil || this.probing) {
        this.failedFast++;
        throw new DatabaseUnavailable(this.lastError);
      }
      probe = this.probing = true;
    }
    try {
      const result = await work();
      if (this.openUntil > 0 && probe) this.close();
      return result;
    } catch (error) {
      // Every connection busy is a burst, not an outage: the request gets its 503, the others go on.
      if (isUnavailable(error) && !isPoolBusy(error)) {
        this.lastError = error;
        if (this.openUntil === 0) this.open(error);
        this.openUntil = this.now().getTime() + this.openMs;
      } else if (probe) {
        // The server answered, if only with an error of this query: it is reachable.
        this.close();
      }
      throw error;
    } finally {
      if (probe) this.probing = false;
    }
  }

  private open(cause: unknown): void {
    this.openedAt = this.now().getTime();
    this.failedFast = 0;
    for (const listener of this.listeners) listener.down(cause);
  }

  private close(): void {
    this.openUntil = 0;
    for (const listener of this.listeners) listener.up({ ms: this.now().getTime() - this.openedAt, failedFast: this.failedFast });
  }

  get isOpen(): boolean {
    return this.openUntil > 0;
  }
}

/** Opening a connection fails after 1 s: a server that is away gets its 503 at once. */
const CONNECT_TIMEOUT_MS = 1000;
class Client extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super({ ...config, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  }
}

interface PoolOptions {
  max: number;
  poolWaitMs: number;
  now?: () => Date;
  prepare: boolean;
}

async function openPostgres(connectionString: string, { max, poolWaitMs, now, prepare }: PoolOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max,
    Client,
    // A request waits this long for a free connection when all are busy (a burst): the pool's
    // option applies to the wait, the client's own (above) to opening a connection.
    connectionTimeoutMillis: poolWaitMs,
    query_timeout: 15000,
    idleTimeoutMillis: 30000,
    application_name: 'assessment-connect',
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const breaker = new Breaker(undefined, now);
  /** pg's result as the caller's row type says (pg's own typing takes that on trust too). */
  const typed = <T>(result: Promise<pg.QueryResult>) => result as unknown as Promise<{ rows: T[] }>;
  // pg's result is given as it is (its rows, and fields no caller reads): no async step of our own
  // between a statement and its caller.
  const query: Queryable['query'] = <T>(text: string, params?: unknown[]) => breaker.run(() => typed<T>(pool.query(text, params)));
  // A checked-out client whose connection is lost between two queries (a server restart, a
  // terminated backend; an export waiting for a slow reader) emits 'error', and pg-pool listens
  // only on idle clients: without a listener of ours the process would crash. The next query on
  // the client fails instead, and the pool drops the client when it is released (it is no longer
  // queryable). The listener is attached when the client connects, synchronously: a server
  // shutting down can send the message that completes a connection and the FATAL error that ends
  // it in one TCP packet, and pg-pool hands the new client out (no listener of its own left)
  // before it reads the error, in the same tick, before any caller could attach one.
  const ignoreLoss = () => {};
  pool.on('connect', (client) => client.on('error', ignoreLoss));
  const connect = () => breaker.run(() => pool.connect());
  const prepared = <T>(name: string, text: string, params: unknown[]) =>
    breaker.run(() => {
      // A Query made from the text, then named: given a config object ({ name, text, values }),
      // pg copies it property by property (Object.getOwnPropertyDescriptors), about 1 µs of a
      // score read's CPU; given the text, it does not.
      const statement: pg.QueryConfig = Object.assign(new pg.Query(text, params as unknown[]), { text, name });
      return typed<T>(pool.query(statement));
    });
  return {
    kind: 'postgres',
    query,
    // Without named statements the callers send the same text unnamed (planned on each call).
    ...(prepare ? { prepared } : {}),
    async transaction(fn) {
      const client = await connect();
      try {
        await client.query('BEGIN');
        const result = await fn({ query: async (text, params) => ({ rows: (await client.query(text, params as unknown[])).rows }) });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async session(fn) {
      const client = await connect();
      try {
        return await fn({
          query: async (text, params) => ({ rows: (await client.query(text, params as unknown[])).rows }),
          exec: async (sql) => {
            await client.query(sql);
          },
        });
      } finally {
        client.release();
      }
    },
    async *batches<T>(text: string, params: unknown[], size: number): AsyncGenerator<T[]> {
      const client = await connect();
      let open = false;
      let cursor: Cursor<T> | undefined;
      // A connection lost while the cursor waits between reads would leave the next read, and
      // closing the cursor, pending for ever: the loss rejects the read, and a lost connection is
      // dropped without the goodbyes.
      let lost: Error | undefined;
      let onLoss: (error: Error) => void = () => {};
      client.once('error', (error: Error) => {
        lost = error;
        onLoss(error);
      });
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        open = true;
        const reading = (cursor = client.query(new Cursor<T>(text, params)));
        // pg arms its read timeout (query_timeout, 15 s) on every query it is given and disarms it
        // through the query's callback, which a cursor never calls: 15 s after it was opened the
        // timer failed the cursor, which then read as finished, so an export that a slow client
        // took longer than that to read ended early as if complete (and the timer kept a closing
        // process alive for those 15 s). The cursor's reads are watched by the loss handling above
        // instead: its callback, pg's wrapper, is called once to clear the timer.
        (reading as unknown as { callback?: () => void }).callback?.();
        const read = () =>
          lost
            ? Promise.reject(lost)
            : new Promise<T[]>((resolve, reject) => {
                onLoss = reject;
                reading.read(size).then(resolve, reject);
              });
        for (;;) {
          const rows = await read();
          if (rows.length === 0) break;
          yield rows;
        }
      } catch (error) {
        if (isUnavailable(error)) lost ??= error as Error;
        throw error;
      } finally {
        if (!lost) {
          await cursor?.close().catch(() => {});
          if (open) await client.query('ROLLBACK').catch((error: Error) => (lost = error));
        }
        // A connection in an unknown state is dropped rather than handed to the next request.
        client.release(lost ? true : undefined);
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    watchAvailability: (listener) => breaker.watch(listener),
    close: () => pool.end(),
  };
}

/** True when no pooled connection became free in time (pg-pool's wait timeout): the server is busy, not away. */
export function isPoolBusy(error: unknown): boolean {
  return error instanceof Error && error.message === 'timeout exceeded when trying to connect';
}

/** True for errors that mean "the database cannot be reached right now", as opposed to a bad query. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof DatabaseUnavailable) return true;
  const code = (error as { code?: string }).code;
  if (
    code &&
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300', '08000', '08003', '08006', '08001', '08004'].includes(
      code,
    )
  ) {
    return true;
  }
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|PGlite is closed/i.test(error.message);
}
