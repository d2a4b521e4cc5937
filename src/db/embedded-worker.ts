// The embedded store's own thread. PGlite runs PostgreSQL compiled to WASM in the thread that
// calls it: in the server's thread, every statement's parsing, planning, execution and page reads
// would take turns with the HTTP work on one core. Here it runs in a worker thread of its own
// (src/db/embedded.ts starts it and speaks to it), so that the database works on the second
// core while the server's thread answers requests, as PostgreSQL's own processes do.
//
// The messages are small: statements and their values in, rows out (structured clone keeps
// Dates, byte arrays and parsed JSON as they are). Errors go back as their message and
// PostgreSQL's fields (code, detail, constraint …), so callers see what PGlite would throw.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite, parse as pgliteResults, protocol, type Transaction } from '@electric-sql/pglite';

export type Request =
  | { id: number; op: 'query'; text: string; params?: unknown[]; tx?: number; sync?: boolean }
  | { id: number; op: 'prepared'; name: string; text: string; params: unknown[] }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'begin'; tx: number }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'dump' }
  | { id: number; op: 'close' };

export type Reply = { id: number; rows?: unknown[]; error?: undefined } | { id: number; error: WireError };

/** An error as it crosses the thread: its message, name and PostgreSQL's fields. */
export type WireError = { message: string; name?: string } & Record<string, string | number | undefined>;

/** The first message: the store is open, or why it could not be. */
export type Ready = { ready: true } | { ready: false; error: WireError };

export interface WorkerOptions {
  /** Directory of the store; undefined keeps it in memory. */
  location?: string;
  /** A data directory to start from (a tarball from the 'dump' message) instead of an empty database. */
  template?: Uint8Array;
  /** Arguments added to initdb's when the store is new (neither a template nor an existing directory). */
  initdbArgs?: string[];
  /**
   * For statements inside a transaction, answered without the event loop: the reply goes to this
   * port, and the first Int32 of this buffer is set to 1 and notified, while the caller waits on it.
   */
  replies: MessagePort;
  signal: SharedArrayBuffer;
  /** PostgreSQL's WASM, compiled by the opening thread. */
  wasm: WebAssembly.Module;
}

const INT8 = 20;
// int8 as text, as node-postgres returns it, so that both stores hand out the same values.
export const PGLITE_PARSERS = { [INT8]: (value: string) => value };

const PG_FIELDS = [
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'severity',
  'routine',
] as const;

export function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { message: String(error) };
  const wire: WireError = { message: error.message, name: error.name };
  for (const field of PG_FIELDS) {
    const value = (error as unknown as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number') wire[field] = value;
  }
  return wire;
}

/**
 * Prepared reads. PGlite's query() sends six protocol messages into the WASM backend one at a
 * time (parse, describe, bind, describe, execute, sync) and parses and plans the statement every
 * time; here a statement is parsed and described once, then each call is one message of bind,
 * describe, execute and sync, run on the plan PostgreSQL keeps. Taken under both of PGlite's
 * locks, as query() is, so that it never runs inside another caller's open transaction.
 */
export function preparedReads(db: PGlite) {
  const { serialize } = protocol;
  /** Each statement's parameter types, once it is prepared. */
  const prepared = new Map<string, number[]>();
  const parsers = { ...db.parsers, ...PGLITE_PARSERS };
  const send = async (...messages: Uint8Array[]) => {
    const message = new Uint8Array(messages.reduce((n, m) => n + m.length, 0));
    let at = 0;
    for (const m of messages) {
      message.set(m, at);
      at += m.length;
    }
    return (await db.execProtocol(message, { syncToFs: false })).messages;
  };
  return (name: string, text: string, params: unknown[]): Promise<unknown[]> =>
    db._runExclusiveTransaction(() =>
      db.runExclusive(async () => {
        let types = prepared.get(name);
        if (!types) {
          types = pgliteResults.parseDescribeStatementResults(await send(serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()));
          prepared.set(name, types);
        }
        const values = params.map((value, i) => (value === null || value === undefined ? null : (db.serializers[types[i]!]?.(value as never) ?? String(value))));
        const replies = await send(serialize.bind({ statement: name, values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync());
        return pgliteResults.parseResults(replies, parsers)[0]?.rows ?? [];
      }),
    );
}

/** An open transaction: its handle, and how it is to end (resolved by the 'end' message). */
interface Open {
  tx: Transaction;
  end: (commit: boolean) => void;
}

async function serve(options: WorkerOptions): Promise<void> {
  const port = parentPort!;
  let db: PGlite;
  try {
    // Options as one object: PGlite(dataDir, options) drops the options when dataDir is
    // undefined, and the in-memory store (the tests') then handed out int8 as numbers and BigInts.
    db = new PGlite({
      dataDir: options.location,
      parsers: PGLITE_PARSERS,
      loadDataDir: options.template && new Blob([options.template.slice()]),
      initDbStartParams: options.initdbArgs,
      pgliteWasmModule: options.wasm,
    });
    await db.waitReady;
  } catch (error) {
    port.postMessage({ ready: false, error: toWire(error) } satisfies Ready);
    return;
  }
  const prepared = preparedReads(db);
  const open = new Map<number, Open>();
  /** The outcome of each open transaction, awaited by its 'end'. */
  const endings = new Map<number, Promise<unknown>>();
  const rollback = Symbol('rollback');

  const signal = new Int32Array(options.signal);
  const answer = (message: Reply, sync: boolean | undefined) => {
    if (!sync) return port.postMessage(message);
    options.replies.postMessage(message);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  };
  const reply = (id: number, work: Promise<unknown[] | undefined>, sync?: boolean) =>
    work.then(
      (rows) => answer({ id, rows }, sync),
      (error: unknown) => answer({ id, error: toWire(error) }, sync),
    );

  const handle = (m: Request): void => {
    switch (m.op) {
      case 'query': {
        const target = m.tx === undefined ? db : open.get(m.tx)?.tx;
        if (!target) {
          void reply(m.id, Promise.reject(new Error(`transaction ${m.tx} is not open`)), m.sync);
          return;
        }
        void reply(
          m.id,
          target.query(m.text, m.params).then((r) => r.rows),
          m.sync,
        );
        return;
      }
      case 'prepared':
        void reply(m.id, prepared(m.name, m.text, m.params));
        return;
      case 'exec':
        void reply(
          m.id,
          db.exec(m.sql).then(() => undefined),
        );
        return;
      case 'begin': {
        // Answered once PGlite has opened the transaction (it waits for any other to end);
        // PGlite commits when the callback resolves and rolls back when it throws.
        let opened!: () => void;
        const isOpen = new Promise<undefined>((resolve) => (opened = () => resolve(undefined)));
        const ended = db
          .transaction(
            (tx) =>
              new Promise<void>((resolve, reject) => {
                open.set(m.tx, { tx, end: (commit) => (commit ? resolve() : reject(rollback)) });
                opened();
              }),
          )
          .finally(() => open.delete(m.tx));
        endings.set(m.tx, ended);
        // A BEGIN that fails ends the transaction before it opens: that error is the answer.
        void reply(
          m.id,
          Promise.race([
            isOpen,
            ended.then(
              () => undefined,
              (error: unknown) => {
                endings.delete(m.tx);
                throw error;
              },
            ),
          ]),
        );
        return;
      }
      case 'end': {
        const entry = open.get(m.tx);
        const ended = endings.get(m.tx);
        endings.delete(m.tx);
        if (!entry || !ended) {
          void reply(m.id, Promise.reject(new Error(`transaction ${m.tx} is not open`)));
          return;
        }
        entry.end(m.commit);
        void reply(
          m.id,
          ended.then(
            () => undefined,
            (error: unknown) => {
              if (error === rollback) return undefined;
              throw error;
            },
          ),
        );
        return;
      }
      case 'dump':
        // Checkpointed first, so that a store opened from the tarball has no WAL to replay.
        void reply(
          m.id,
          db
            .exec('CHECKPOINT')
            .then(() => db.dumpDataDir('none'))
            .then(async (tarball) => [new Uint8Array(await tarball.arrayBuffer())]),
        );
        return;
      case 'close':
        void reply(
          m.id,
          db.close().then(() => undefined),
        );
        return;
    }
  };
  port.on('message', handle);
  port.postMessage({ ready: true } satisfies Ready);
}

if (parentPort) void serve(workerData as WorkerOptions);
