// The worker thread (ThreadJobs) that draws report PDFs (pdf.ts) and their pictures (pictures.ts), so that
// laying out a long report or its formulas never holds the event loop that serves requests. One
// message in, the PDF's bytes (with the pictures it printed as text instead, and how many it drew)
// or an error out.
import { parentPort } from 'node:worker_threads';
import { reportPdf } from './pdf.js';
import { reportPictures } from './pictures.js';

export interface PdfJob {
  id: number;
  args: Parameters<typeof reportPdf>;
  /** The stored pictures the report's prompts name, as stored, by stored name. */
  media: Record<string, Uint8Array>;
}

parentPort!.on('message', async ({ id, args, media }: PdfJob) => {
  try {
    const [candidate, report, generatedAt, company] = args;
    const { unreadable, drawn, reused, ...pictures } = await reportPictures(
      report.questions.map((q) => q.prompt),
      media,
    );
    const bytes = await reportPdf(candidate, report, generatedAt, company, pictures);
    const copy = new Uint8Array(bytes);
    parentPort!.postMessage({ id, bytes: copy, unreadable, drawn, reused }, [copy.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
