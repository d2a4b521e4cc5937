// Report PDFs are drawn in a worker thread, one at a time, so that a long report (hundreds of
// answers, 200 signals) or its formulas cost their requester time and never stall the requests of
// everyone else. The thread starts on the first PDF, is not kept alive for its own sake (unref),
// and is started again after a failure; a PDF that takes longer than TIMEOUT_MS fails (and its
// thread is ended), and the thread's heap is bounded (HEAP_MB). The pictures are drawn there too
// (pictures.ts), from the stored files read here.
import type { FastifyBaseLogger } from 'fastify';
import { Worker } from 'node:worker_threads';
import type { Queryable } from '../../db/database.js';
import { storedPictures } from '../../modules/assessments/media-store.js';
import { monotonicMs } from '../../domain/clock.js';
import type { reportPdf } from './pdf.js';
import type { Unreadable } from './pictures.js';

const TIMEOUT_MS = 30_000;
const HEAP_MB = 512;

/** A PDF drawn: its bytes, the pictures it printed as their text, how many pictures were drawn for it and how many kept from before. */
interface Drawn {
  bytes: Buffer;
  unreadable: Unreadable[];
  drawn: number;
  reused: number;
}

interface Waiting {
  resolve(drawn: Drawn): void;
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
  const started = new Worker(new URL('./pdf-thread.mjs', import.meta.url), { execArgv: [], resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
  started.unref();
  started.on('message', (message: Partial<Omit<Drawn, 'bytes'>> & { id: number; bytes?: Uint8Array; error?: string }) => {
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    clearTimeout(w.timer);
    if (waiting.size === 0) started.unref();
    if (message.bytes)
      w.resolve({
        bytes: Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength),
        unreadable: message.unreadable ?? [],
        drawn: message.drawn ?? 0,
        reused: message.reused ?? 0,
      });
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

/** reportPdf, drawn in the worker thread with its pictures (`media`: the stored ones, as stored). */
function render(args: Parameters<typeof reportPdf>, media: Record<string, Uint8Array>): Promise<Drawn> {
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
    w.postMessage({ id, args, media });
  });
}

/**
 * The report's PDF: the stored pictures its prompts show read here, the PDF and its pictures
 * drawn in the worker thread. Pictures printed as their text instead are logged (a warning,
 * naming each and why), and every PDF's line says how many pictures were drawn and kept.
 */
export async function renderReportPdf(db: Queryable, log: FastifyBaseLogger, ...args: Parameters<typeof reportPdf>): Promise<Buffer> {
  const began = monotonicMs();
  const media = await storedPictures(
    db,
    args[1].questions.map((q) => q.prompt),
  );
  const { bytes, unreadable, drawn, reused } = await render(args, media);
  if (unreadable.length > 0) log.warn({ pictures: unreadable }, 'report PDF: pictures that could not be drawn are printed as their text');
  log.info({ pictures: { drawn, reused, asText: unreadable.length }, ms: Math.round(monotonicMs() - began) }, 'report PDF drawn');
  return bytes;
}
