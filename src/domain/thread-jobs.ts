// Work done on a worker thread of its own, one job at a time, so that it never holds the event loop
// that serves requests: the report's PDF and its pictures, the check of formulas at publish. The
// thread (its module named by URL, loaded through thread.mjs) starts on the first job, is not kept
// alive for its own sake (unref), and is started again after a failure; a job that takes longer
// than its time limit fails, and its thread is ended (the next job starts another); the thread's
// heap is bounded. The module answers each `{ id, ...job }` message with `{ id, ...result }`, or
// `{ id, error }` with the error's message.
import { Worker } from 'node:worker_threads';

/** The longest a thread may take to load its module. */
const STARTUP_MS = 60_000;

/** A job that took longer than its time limit (its thread was ended). */
export class ThreadTimeout extends Error {}

interface Waiting {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

export class ThreadJobs {
  private worker: Worker | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  /** `what` names the work in errors ("the report PDF"). */
  constructor(
    private readonly module: URL,
    private readonly options: { what: string; timeoutMs: number; heapMb: number },
  ) {}

  /** The job's answer (without its id); rejects with the module's error, a timeout, or the thread's end. */
  async run<T>(job: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    const { worker: w, ready } = this.thread();
    // The time limit runs once the thread has loaded its module (on a cold start, a second or more).
    await ready;
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new ThreadTimeout(`${this.options.what} took longer than ${this.options.timeoutMs} ms`));
        // A thread stuck on one job would hold the next ones: end it; the next job starts another.
        if (this.worker === w) this.worker = undefined;
        void w.terminate();
      }, this.options.timeoutMs);
      this.waiting.set(id, { resolve: resolve as (result: Record<string, unknown>) => void, reject, timer });
      w.ref();
      w.postMessage({ ...job, id }, transfer);
    });
  }

  private failAll(error: Error): void {
    for (const [id, w] of this.waiting) {
      clearTimeout(w.timer);
      w.reject(error);
      this.waiting.delete(id);
    }
  }

  /** The thread, and when it has loaded its module (rejected if it ends first or takes STARTUP_MS). */
  private thread(): { worker: Worker; ready: Promise<void> } {
    if (this.worker) return { worker: this.worker, ready: this.ready! };
    const started = new Worker(new URL('./thread.mjs', import.meta.url), {
      workerData: { module: this.module.href },
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    started.unref();
    let loaded!: () => void;
    let failed!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((loaded = resolve), (failed = reject)));
    const startup = setTimeout(() => {
      failed(new Error(`the thread of ${this.options.what} did not start within ${STARTUP_MS / 1000} s`));
      void started.terminate();
    }, STARTUP_MS);
    started.on('message', ({ id, error, ready, ...result }: { id: number; error?: string; ready?: boolean } & Record<string, unknown>) => {
      if (ready) {
        clearTimeout(startup);
        loaded();
        return;
      }
      const w = this.waiting.get(id);
      if (!w) return;
      this.waiting.delete(id);
      clearTimeout(w.timer);
      if (this.waiting.size === 0) started.unref();
      if (error !== undefined) w.reject(new Error(`${this.options.what} could not be made: ${error}`));
      else w.resolve(result);
    });
    const gone = (error: Error) => {
      clearTimeout(startup);
      failed(error);
      if (this.worker === started) this.worker = undefined;
      this.failAll(error);
    };
    started.on('error', gone);
    started.on('exit', (code) => gone(new Error(`the thread of ${this.options.what} ended (${code})`)));
    this.worker = started;
    this.ready = ready;
    // Awaited by each job; a start that failed must not be an unhandled rejection meanwhile.
    ready.catch(() => {});
    return { worker: started, ready };
  }
}
