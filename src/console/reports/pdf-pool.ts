// Report PDFs are drawn in a worker thread, one at a time, so that a long report (hundreds of
// answers, 200 signals) costs its requester time and never stalls the requests of everyone else.
// The thread starts on the first PDF, is not kept alive for its own sake (unref), and is started
// again after a failure; a PDF that takes longer than TIMEOUT_MS fails (and its thread is ended).
import { Worker } from 'node:worker_threads';
import type { reportPdf } from './pdf.js';

const TIMEOUT_MS = 30_000;

interface Waiting {
  resolve(bytes: Buffer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, Waiting>();

function failAll(error: Error): void {
  for (const [id, w] of waiting) {
    clearTimeout(w.timer);
    w.reject(error);
    waiting.delete(id);
  }
}

function thread(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL('./pdf-thread.mjs', import.meta.url), { execArgv: [] });
  started.unref();
  started.on('message', (message: { id: number; bytes?: Uint8Array; error?: string }) => {
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    clearTimeout(w.timer);
    if (waiting.size === 0) started.unref();
    if (message.bytes) w.resolve(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
    else w.reject(new Error(`the report PDF could not be drawn: ${message.error}`));
  });
  const gone = (error: Error) => {
    if (worker === started) worker = undefined;
    failAll(error);
  };
  started.on('error', gone);
  started.on('exit', (code) => gone(new Error(`the report PDF thread ended (${code})`)));
  worker = started;
  return started;
}

/** reportPdf, drawn in the worker thread. */
export function renderReportPdf(...args: Parameters<typeof reportPdf>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const w = thread();
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new Error(`the report PDF took longer than ${TIMEOUT_MS} ms`));
      // A thread stuck on one PDF would hold the next ones: end it; the next PDF starts another.
      if (worker === w) worker = undefined;
      void w.terminate();
    }, TIMEOUT_MS);
    waiting.set(id, { resolve, reject, timer });
    w.ref();
    w.postMessage({ id, args });
  });
}
