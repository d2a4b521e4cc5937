// What every part of the service speaks to a store, whichever it is (PGlite on a worker thread,
// or PostgreSQL through a pool): the interface, apart from the code that opens one
// (database.ts), so that the stores' implementations and their users depend on it alone.

export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * A read run as a named prepared statement: planned once per pooled connection (PostgreSQL) or
   * once (the embedded store's one session) instead of on every call. Only for hot reads whose
   * plan does not depend on the values (a generic plan must be as good as a custom one).
   */
  prepared?<T = Record<string, unknown>>(name: string, text: string, params: unknown[]): Promise<{ rows: T[] }>;
  /**
   * Runs fn in one transaction: committed when it resolves, rolled back when it throws. A name
   * (a hot path's, such as `invite`) has its duration reported in /metrics (src/db/timing.ts).
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, name?: string): Promise<T>;
  /** Runs fn on one connection, for session-level state such as advisory locks. */
  session<T>(fn: (conn: Queryable & { exec(sql: string): Promise<void> }) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL only: the rows of one read, batch by batch, from a server-side cursor in one
   * consistent snapshot (REPEATABLE READ, READ ONLY). Stopping early (return() on the iterator,
   * as when a client disconnects) closes the cursor and frees the connection at once.
   */
  batches?<T = Record<string, unknown>>(text: string, params: unknown[], size: number): AsyncGenerator<T[]>;
  /** PostgreSQL only: the pool's connections now (for /metrics). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * PostgreSQL only: tells `listener` when the database is found unreachable and when it is
   * reachable again, once each per outage (the process logs them; requests in between fail fast).
   */
  watchAvailability?(listener: AvailabilityListener): void;
  /**
   * The embedded store only: its data directory as a tarball, from which another in-memory store
   * can be opened (openDatabase's `template`).
   */
  dumpDataDir?(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** Hears the breaker open (an outage begins) and close again (it is over). */
export interface AvailabilityListener {
  /** The database was just found unreachable: queries fail fast until a probe gets through. */
  down(cause: unknown): void;
  /** A probe got through: how long the outage lasted and how many queries failed fast meanwhile. */
  up(outage: { ms: number; failedFast: number }): void;
}
