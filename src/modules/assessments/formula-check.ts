// Formulas checked at publish (formulaProblem: what the report's PDF can draw), laid out by MathJax
// on a worker thread of their own, one at a time, each within LAYOUT_MS: a formula that takes
// longer is refused for it, and the thread that was laying it out is ended. Publishing content
// with many large formulas so costs its publisher time, never the event loop that serves requests.
import type { Formula } from '../../html/markdown.js';
import { ThreadJobs, ThreadTimeout } from '../../domain/thread-jobs.js';

/** The longest one formula may take to lay out. */
export const LAYOUT_MS = 5000;

const thread = new ThreadJobs(new URL('./formula-worker.js', import.meta.url), { what: 'laying out a formula', timeoutMs: LAYOUT_MS, heapMb: 256 });

/** Why the report's PDF could not draw each formula (formulaProblem), or undefined for one it can; in order. */
export async function formulaProblems(formulas: { formula: Formula; display: boolean }[]): Promise<(string | undefined)[]> {
  const problems: (string | undefined)[] = [];
  for (const { formula, display } of formulas) {
    try {
      const { problem } = await thread.run<{ problem: string | null }>({ formula, display });
      problems.push(problem ?? undefined);
    } catch (error) {
      if (!(error instanceof ThreadTimeout)) throw error;
      problems.push(`it takes more than ${LAYOUT_MS / 1000} s to lay out`);
    }
  }
  return problems;
}
