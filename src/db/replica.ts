// Reads from a streaming replica (DATABASE_READ_URL): score reads and exports go there, unless
//  - the client wrote through this node within the last `stickyMs` (its own writes are read from
//    the primary until the replica has them for certain: stickiness, not an LSN wait, so that a
//    read never waits for replay), or
//  - the replica is behind by more than `maxLagMs`, or unreachable: then every read goes to the
//    primary until a check finds it caught up again (a log line at each change, and metrics).
// The lag is measured by the primary's WAL position: each check notes the primary's current LSN
// and the replica's replayed one; the replica is as far behind as the newest check whose primary
// LSN it has replayed (nothing behind when it replayed the current one). An idle primary never
// looks like a lagging replica. `stickyMs` is the lag bound plus two check intervals: a write is
// on the replica by then, or the replica is found behind and not read.
import { isUnavailable } from './database.js';
import type { Database, Queryable } from './store.js';

export type ReplicaState = 'up' | 'behind' | 'down';
/** Where a read went, and why: the replica, or the primary for the client's own writes, a lagging or a lost replica. */
export type ReadTarget = 'replica' | 'sticky' | 'behind' | 'down';

export interface ReadRouterOptions {
  primary: Database;
  replica: Database;
  /** The app's clock: stickiness and lag are measured on it. */
  now: () => Date;
  /** A replica further behind than this is not read. */
  maxLagMs: number;
  /** How often the replica's lag is checked (the job's interval). */
  checkEveryMs: number;
  /** Hears each change of state (for the log). */
  onChange?(state: ReplicaState, details: { lagMs: number; cause?: unknown }): void;
}

/** The client a read or a write through /v1 is counted for: its API key. */
export const apiClient = (keyId: string) => `key:${keyId}`;
/** The name of an instance's writes made without a key (a candidate's completion): the reads of every key of the instance see them. */
export const instanceClient = (instanceId: string) => `instance:${instanceId}`;

/** The routers of the apps of this process (one in the server; a test process has several). */
const routers = new Set<ReadRouter>();

/** `router` is told of instancesWrote until the returned function is called (its app closes). */
export function markedByCompletions(router: ReadRouter): () => void {
  routers.add(router);
  return () => void routers.delete(router);
}

/**
 * Someone without an API key changed what the instances' keys read (a candidate completed an
 * attempt: its record, its score): every key's reads of these instances go to the primary for a
 * moment, as after the key's own write, so that a client told of the completion (a webhook, the
 * candidate) reads it. Called after the commit, by the command that wrote.
 */
export function instancesWrote(instanceIds: string[]): void {
  for (const router of routers) for (const id of instanceIds) router.wrote(instanceClient(id));
}
/** The client a read or a write in the console is counted for: its user. */
export const consoleClient = (userId: string) => `user:${userId}`;

/** An LSN ("16/B374D848") as a number of bytes. */
function bytes(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

const HISTORY = 256;

export class ReadRouter {
  /** Until the first check the replica is not trusted. */
  state: ReplicaState = 'down';
  lagMs = 0;
  readonly stickyMs: number;
  /** Reads by where they went (for /metrics). */
  readonly reads: Record<ReadTarget, number> = { replica: 0, sticky: 0, behind: 0, down: 0 };
  /** Reads begun on the replica that failed there and were answered by the primary. */
  fellBack = 0;
  /** The replica as the reads see it: an unreachable replica's read is answered by the primary. */
  readonly replica: Database;
  private readonly sticky = new Map<string, number>();
  /** Primary WAL positions at past checks, oldest first. */
  private readonly history: { at: number; lsn: bigint }[] = [];

  constructor(private readonly options: ReadRouterOptions) {
    this.stickyMs = options.maxLagMs + 2 * options.checkEveryMs;
    this.replica = this.guarded();
  }

  get primary(): Database {
    return this.options.primary;
  }

  /** `client` (an API key, a console user) wrote: its reads go to the primary for `stickyMs`. */
  wrote(client: string): void {
    this.sticky.set(client, this.options.now().getTime() + this.stickyMs);
  }

  /** The database a read by `client` goes to; `also`: the tenants it reads, whose recent writes by others (a completion) it must see too. */
  for(client: string | undefined, also: string[] = []): Database {
    let target = this.target(client);
    for (const other of also) if (target === 'replica') target = this.target(other);
    this.reads[target]++;
    return target === 'replica' ? this.replica : this.options.primary;
  }

  private target(client: string | undefined): ReadTarget {
    if (this.state !== 'up') return this.state;
    if (client !== undefined) {
      const until = this.sticky.get(client);
      if (until !== undefined) {
        if (until > this.options.now().getTime()) return 'sticky';
        this.sticky.delete(client);
      }
    }
    return 'replica';
  }

  /** Measures the replica's lag and sets the state by it (the background job's turn). */
  async check(): Promise<ReplicaState> {
    const at = this.options.now().getTime();
    for (const [client, until] of this.sticky) if (until <= at) this.sticky.delete(client);
    // The primary's position first: a replica that replays it meanwhile is found caught up.
    const { rows: primary } = await this.options.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    const current = bytes(primary[0]!.lsn);
    let replayed: bigint;
    try {
      const { rows } = await this.options.replica.query<{ recovery: boolean; lsn: string | null }>('SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn');
      if (!rows[0]!.recovery || rows[0]!.lsn === null) throw new Error('DATABASE_READ_URL does not name a streaming replica (pg_is_in_recovery() is false)');
      replayed = bytes(rows[0]!.lsn);
    } catch (error) {
      this.set('down', error);
      return this.state;
    }
    this.history.push({ at, lsn: current });
    if (this.history.length > HISTORY) this.history.shift();
    if (replayed >= current) {
      this.lagMs = 0;
    } else {
      let reached = this.history[0]!;
      for (const entry of this.history) if (entry.lsn <= replayed) reached = entry;
      this.lagMs = at - reached.at;
    }
    this.set(this.lagMs > this.options.maxLagMs ? 'behind' : 'up');
    return this.state;
  }

  /** Marks the replica lost at once (a read failed on it): reads go to the primary until a check finds it back. */
  private lost(cause: unknown): void {
    this.set('down', cause);
  }

  private set(state: ReplicaState, cause?: unknown): void {
    if (state === this.state) return;
    this.state = state;
    this.options.onChange?.(state, { lagMs: this.lagMs, cause });
  }

  /** The replica, each read of it answered by the primary instead when the replica cannot be reached. */
  private guarded(): Database {
    const { replica, primary } = this.options;
    const fallBack = (error: unknown) => {
      this.lost(error);
      this.fellBack++;
    };
    const either = async <T>(read: (db: Database) => Promise<T>): Promise<T> => {
      try {
        return await read(replica);
      } catch (error) {
        if (!isUnavailable(error)) throw error;
        fallBack(error);
        return read(primary);
      }
    };
    return {
      kind: 'postgres',
      query: <T>(text: string, params?: unknown[]) => either((db) => db.query<T>(text, params)),
      ...(replica.prepared && primary.prepared ? { prepared: <T>(name: string, text: string, params: unknown[]) => either((db) => db.prepared!<T>(name, text, params)) } : {}),
      async *batches<T>(text: string, params: unknown[], size: number): AsyncGenerator<T[]> {
        let first = true;
        try {
          for await (const rows of replica.batches!<T>(text, params, size)) {
            first = false;
            yield rows;
          }
        } catch (error) {
          // Only a read not begun moves to the primary: a client given half an export from one
          // and the rest from the other could get rows twice or miss some.
          if (!first || !isUnavailable(error)) throw error;
          fallBack(error);
          yield* primary.batches!<T>(text, params, size);
        }
      },
      // Writes never come here; should one, it goes to the primary.
      transaction: <T>(fn: (tx: Queryable) => Promise<T>, name?: string) => primary.transaction(fn, name),
      session: (fn) => primary.session(fn),
      close: async () => {},
    };
  }
}
