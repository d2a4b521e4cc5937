// The embedded store (PGlite), seen from the server's thread. The database itself runs in a
// worker thread (src/db/embedded-worker.ts), so that its work is done on another core than the
// HTTP work; this side sends each statement there and hands back its rows, with the same
// interface and the same errors as before. One PGlite session serves everything, as it always
// did: PGlite runs one statement or transaction at a time, in the order they arrive.
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type { Database, Queryable } from './store.js';
import type { Ready, Reply, Request, WireError, WorkerOptions } from './embedded-worker.js';
import { monotonicMs } from '../domain/clock.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';

/** Longest a statement inside a transaction may take before the worker is taken for lost. */
const SYNC_LIMIT_MS = 60_000;

/** The message of every call once the worker has stopped (isUnavailable() knows it: a 503). */
const CLOSED = 'PGlite is closed';

type Pending = { resolve: (rows: unknown[]) => void; reject: (error: Error) => void };
type Call = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** An error from the worker as the caller would have had it from PGlite: message and fields. */
function fromWire(wire: WireError): Error {
  const { message, name, ...fields } = wire;
  const error = new Error(message);
  if (name && name !== 'Error') Object.defineProperty(error, 'name', { value: name, enumerable: false, configurable: true, writable: true });
  return Object.assign(error, fields);
}

/**
 * PostgreSQL's WASM, compiled once per process and handed to every store's thread: a thread that
 * compiled it itself spent about 0.3 s of CPU on it per store, which a process opening many
 * stores (the tests') paid each time.
 */
let compiled: Promise<WebAssembly.Module> | undefined;
const pgliteWasm = () => (compiled ??= readFile(fileURLToPath(import.meta.resolve('@electric-sql/pglite/pglite.wasm'))).then((bytes) => WebAssembly.compile(bytes)));

/**
 * Opens the embedded store in `dataDir`, or in memory when it is undefined. An in-memory store
 * can start from `template`, a data directory as a tarball (its `dumpDataDir()`), instead of an
 * empty database: the tests open their databases from one already migrated. `initdbArgs` are
 * added to initdb's when the store is made anew (the tests' template has small WAL segments).
 * A data directory is locked for this store first (data-dir-lock.ts): one that another process
 * or store has open is refused with DataDirInUse before anything in it is read or written.
 */
export async function openEmbedded(dataDir: string | undefined, template?: Uint8Array, initdbArgs?: string[]): Promise<Database> {
  if (dataDir !== undefined && template) throw new Error('the embedded store starts from a template only in memory (no data directory)');
  const lock = dataDir === undefined ? undefined : lockDataDir(dataDir);
  try {
    return await openWorker(dataDir === undefined ? undefined : path.join(dataDir, 'pgdata'), lock, template, initdbArgs);
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function openWorker(location: string | undefined, lock: DataDirLock | undefined, template?: Uint8Array, initdbArgs?: string[]): Promise<Database> {
  if (location !== undefined) mkdirSync(location, { recursive: true });
  // The thread loads its own TypeScript hooks (embedded-thread.mjs) and none of this process's
  // flags (a test runner's would make it a test).
  const signal = new SharedArrayBuffer(4);
  const { port1: syncReplies, port2: replies } = new MessageChannel();
  const worker = new Worker(new URL('./embedded-thread.mjs', import.meta.url), {
    workerData: { location, template, initdbArgs, replies, signal, wasm: await pgliteWasm() } satisfies WorkerOptions,
    transferList: [replies],
    execArgv: [],
  });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let nextTx = 1;
  let stopped: Error | undefined;

  // The worker keeps the process alive only while a call waits for it, as an open socket would.
  worker.unref();
  const settle = (id: number) => {
    const call = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    return call;
  };
  const stop = (error: Error) => {
    stopped ??= error;
    for (const [id, call] of pending) {
      pending.delete(id);
      call.reject(stopped);
    }
    worker.unref();
    syncReplies.close();
  };

  // Only this wait's own listeners are removed after it: the Worker keeps internal ones. A thread
  // that failed to open is ended before the caller lets the data directory go.
  await new Promise<void>((resolve, reject) => {
    const opened = (ready: Ready) => {
      done();
      if (ready.ready) resolve();
      else reject(fromWire(ready.error));
    };
    const failed = (error: Error) => {
      done();
      reject(error);
    };
    const exited = (code: number) => failed(new Error(`${CLOSED}: the embedded store's thread exited with code ${code} while opening`));
    const done = () => {
      worker.off('message', opened).off('error', failed).off('exit', exited);
      worker.unref();
    };
    worker.on('message', opened).on('error', failed).on('exit', exited);
    worker.ref();
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  worker.on('message', (reply: Reply) => {
    const call = settle(reply.id);
    if (!call) return;
    if (reply.error) call.reject(fromWire(reply.error));
    else call.resolve(reply.rows ?? []);
  });
  // A thread that fails (out of memory, a WASM abort) fails every call waiting and every call
  // after it: the server answers 503 and its health check says so.
  worker.on('error', (error) => stop(new Error(`${CLOSED}: the embedded store's thread failed: ${error.message}`, { cause: error })));
  worker.on('exit', (code) => stop(new Error(`${CLOSED}: the embedded store's thread exited with code ${code}`)));
  // Adding a 'message' listener refs the worker again; nothing waits for it yet. (A store opened
  // from a template and then used only inside transactions kept a test process alive for good.)
  worker.unref();

  const call = <T>(request: Call): Promise<T[]> => {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise<T[]>((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      worker.postMessage({ ...request, id } as Request);
    });
  };

  /**
   * A statement inside a transaction, answered without a turn of the event loop. The transaction
   * holds PGlite's lock, so nothing else runs in the worker meanwhile: were each statement's
   * answer to wait for its turn behind the HTTP work queued here, the lock would be held that
   * much longer and every other call would wait for it (invites on the embedded store ran at
   * two thirds of their rate so). The server's thread waits for the statement instead, as it did
   * when PGlite ran in it, and the worker is busy with nothing else. A worker that does not
   * answer in SYNC_LIMIT_MS is taken for lost.
   */
  const flag = new Int32Array(signal);
  /**
   * The answer to sync statement `id`. The flag can be seen raised a moment before the answer is
   * on the port (seen under heavy load: a statement then read "no answer", and the next one read
   * that late answer and was refused, an invite answered 500), so the answer is waited for in
   * steps of a millisecond; an answer of an earlier statement, which can only be one whose caller
   * gave up, is dropped rather than taken for this one.
   */
  const syncReply = (id: number): Reply => {
    const deadline = monotonicMs() + SYNC_LIMIT_MS;
    for (;;) {
      const reply = receiveMessageOnPort(syncReplies)?.message as Reply | undefined;
      if (reply?.id === id) return reply;
      if (reply && reply.id > id) throw new Error(`the embedded store answered statement ${reply.id} for ${id}`);
      if (reply) continue;
      if (monotonicMs() > deadline) {
        stop(new Error(`${CLOSED}: the embedded store's thread did not answer a statement within ${SYNC_LIMIT_MS / 1000} s`));
        void worker.terminate();
        throw stopped!;
      }
      Atomics.wait(flag, 0, 1, 1);
    }
  };
  const callSync = <T>(request: Call & { op: 'query' }): T[] => {
    if (stopped) throw stopped;
    const id = nextId++;
    Atomics.store(flag, 0, 0);
    worker.postMessage({ ...request, id, sync: true } satisfies Request);
    if (Atomics.wait(flag, 0, 0, SYNC_LIMIT_MS) === 'timed-out') {
      stop(new Error(`${CLOSED}: the embedded store's thread did not answer a statement within ${SYNC_LIMIT_MS / 1000} s`));
      void worker.terminate();
      throw stopped;
    }
    const reply = syncReply(id);
    if (reply.error) throw fromWire(reply.error);
    return (reply.rows ?? []) as T[];
  };

  const query: Queryable['query'] = async <T>(text: string, params?: unknown[]) => ({ rows: await call<T>({ op: 'query', text, params }) });
  return {
    kind: 'pglite',
    query,
    prepared: async <T>(name: string, text: string, params: unknown[]) => ({ rows: await call<T>({ op: 'prepared', name, text, params }) }),
    async transaction(fn) {
      const tx = nextTx++;
      await call({ op: 'begin', tx });
      let result;
      try {
        result = await fn({ query: async <T>(text: string, params?: unknown[]) => ({ rows: callSync<T>({ op: 'query', text, params, tx }) }) });
      } catch (error) {
        await call({ op: 'end', tx, commit: false }).catch(() => {});
        throw error;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
    session: (fn) =>
      fn({
        query,
        exec: async (sql) => {
          await call({ op: 'exec', sql });
        },
      }),
    async dumpDataDir() {
      const [tarball] = await call<Uint8Array>({ op: 'dump' });
      return tarball!;
    },
    async close() {
      if (!stopped) {
        await call({ op: 'close' });
        stop(new Error(CLOSED));
      }
      await worker.terminate();
      // The thread is gone, its files closed: the data directory is free for another process.
      lock?.release();
    },
  };
}
