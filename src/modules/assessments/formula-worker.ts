// The worker thread (ThreadJobs) that lays out formulas at publish (formula-check.ts), so that
// MathJax's work on a large formula never holds the event loop that serves requests.
import { parentPort } from 'node:worker_threads';
import type { Formula } from '../../html/markdown.js';
import { formulaProblem } from './formula-image.js';

parentPort!.on('message', ({ id, formula, display }: { id: number; formula: Formula; display: boolean }) => {
  try {
    parentPort!.postMessage({ id, problem: formulaProblem(formula, display) ?? null });
  } catch (error) {
    parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
