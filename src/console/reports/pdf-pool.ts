// Report PDFs are drawn in a worker thread (ThreadJobs), one at a time, so that a long report
// (hundreds of answers, 200 signals) or its formulas cost their requester time and never stall the
// requests of everyone else: at most TIMEOUT_MS a PDF, the thread's heap at most HEAP_MB. The
// pictures are drawn there too (pictures.ts), from the stored files read here.
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { storedPictures } from '../../modules/assessments/media-store.js';
import { monotonicMs } from '../../domain/clock.js';
import { ThreadJobs } from '../../domain/thread-jobs.js';
import type { reportPdf } from './pdf.js';
import type { Unreadable } from './pictures.js';

const TIMEOUT_MS = 30_000;
const HEAP_MB = 512;

/** A PDF drawn: its bytes, the pictures it printed as their text, how many pictures were drawn for it and how many kept from before. */
interface Drawn {
  bytes: Uint8Array;
  unreadable: Unreadable[];
  drawn: number;
  reused: number;
}

const thread = new ThreadJobs(new URL('./pdf-worker.js', import.meta.url), { what: 'the report PDF', timeoutMs: TIMEOUT_MS, heapMb: HEAP_MB });

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
  const { bytes, unreadable, drawn, reused } = await thread.run<Drawn>({ args, media });
  if (unreadable.length > 0) log.warn({ pictures: unreadable }, 'report PDF: pictures that could not be drawn are printed as their text');
  log.info({ pictures: { drawn, reused, asText: unreadable.length }, ms: Math.round(monotonicMs() - began) }, 'report PDF drawn');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
