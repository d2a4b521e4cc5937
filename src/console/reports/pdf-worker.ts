// The worker thread that draws report PDFs (pdf.ts), so that laying out a long report never
// holds the event loop that serves requests. One message in, the PDF's bytes (or an error) out.
import { parentPort } from 'node:worker_threads';
import { reportPdf } from './pdf.js';

export interface PdfJob {
  id: number;
  args: Parameters<typeof reportPdf>;
}

parentPort!.on('message', async ({ id, args }: PdfJob) => {
  try {
    const bytes = await reportPdf(...args);
    const copy = new Uint8Array(bytes);
    parentPort!.postMessage({ id, bytes: copy }, [copy.buffer]);
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
