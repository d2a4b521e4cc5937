// What the portal's script reports of how answers came to be and of the browser it runs in: pastes
// (their size, the question, the time the server received them), answers that grew without
// typing, and a browser driven by automation. The report's fields are checked here (known kinds,
// bounded numbers, a question of this attempt) and the stored detail is written by the server.
import type { CommandContext } from '../../domain/command.js';
import { invalidInput } from '../../domain/errors.js';
import type { SignalKind } from './proctoring.js';
import { layoutOf, type Attempt } from './repository.js';
import { versionContent } from '../assessments/repository.js';
import { recordSignal, recordSignalOnce } from './signals.js';

/** The most characters an answer can have (coding sources are at most 20,000 by default, free text 4,000): counts beyond are refused. */
export const MAX_REPORTED_CHARS = 1_000_000;

export interface BrowserReport {
  kind: SignalKind;
  detail?: string;
  /** Characters pasted (paste), or characters the answer grew by (untyped-answer). */
  chars?: number;
  /** Keystrokes seen while it grew (untyped-answer). */
  keystrokes?: number;
  /** The question it happened in, by id. */
  question?: string;
}

/** Records a signal the page reported, after checking it; an open attempt only. */
export async function recordBrowserSignal(ctx: CommandContext, input: { attempt: Attempt; report: BrowserReport }): Promise<void> {
  const { attempt, report } = input;
  if (attempt.finishedAt) return;
  const bad = (name: string, detail: string) => invalidInput([{ in: 'body', name, detail }], `${name} ${detail}`);
  for (const name of ['chars', 'keystrokes'] as const) {
    const n = report[name];
    if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > MAX_REPORTED_CHARS)) throw bad(name, `must be a whole number from 0 to ${MAX_REPORTED_CHARS}`);
  }
  let where = '';
  if (report.question !== undefined) {
    const content = await versionContent(ctx.tx, attempt.assessmentId, attempt.version);
    if (!layoutOf(attempt, content).questions.includes(report.question)) throw bad('question', 'must be a question of this attempt');
    const type = content.questions.find((q) => q.id === report.question)?.type;
    where = ` in question ${report.question}${type === 'coding' ? ' (code)' : type === 'free-text' ? ' (free text)' : ''}`;
  }
  switch (report.kind) {
    case 'paste':
      // An older page sends only its detail ("120 characters").
      await recordSignal(ctx, {
        attempt,
        kind: 'paste',
        detail: report.chars === undefined ? (report.detail ?? '') : `${report.chars} characters pasted${where}`,
        source: 'browser',
      });
      return;
    case 'untyped-answer':
      if (report.chars === undefined || report.keystrokes === undefined) throw bad('chars', 'and keystrokes must be given');
      await recordSignalOnce(ctx, {
        attempt,
        kind: 'untyped-answer',
        detail: `grew by ${report.chars} characters with ${report.keystrokes} keystrokes and nothing pasted${where}`,
        source: 'browser',
      });
      return;
    case 'automation':
      // The page says only that navigator.webdriver is true; once per attempt.
      await recordSignalOnce(ctx, { attempt, kind: 'automation', detail: 'navigator.webdriver is true', source: 'browser' });
      return;
    default:
      await recordSignal(ctx, { attempt, kind: report.kind, detail: report.detail ?? '', source: 'browser' });
  }
}
