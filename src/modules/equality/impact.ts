// The adverse-impact report from its counts: per question and group, the selection rate, the
// impact ratio against the group with the highest rate, and the four-fifths rule of the US
// Uniform Guidelines on Employee Selection Procedures (29 CFR 1607.4 D): a group whose rate is
// below four fifths (80 %) of the highest group's rate is flagged. Groups too small to judge,
// "prefer not to say" and no answer are counted but take no part in the ratios. As an extra,
// Fisher's exact test (two-sided) of each group against the reference group. Pure: counts in,
// numbers out; nothing here reads or changes a score.
import { PREFER_NOT, type SelfIdQuestion } from './questions.js';
import type { ImpactCounts } from './repository.js';

/** Fewer completed than this in a group: "too few to judge", not flagged and not a reference. */
export const MIN_GROUP = 5;

/** What counts as selected: PASS only (the default), or PASS and LOW_PASS. */
export type Selection = 'pass' | 'pass-or-low-pass';
export const SELECTIONS: readonly Selection[] = ['pass', 'pass-or-low-pass'];
export const SELECTED_STATUSES: Record<Selection, string[]> = { pass: ['PASS'], 'pass-or-low-pass': ['PASS', 'LOW_PASS'] };

/**
 * How a row stands: the reference (highest rate), at or above four fifths of it, below (flagged),
 * too few to judge, no rate to compare with (nobody in the judged groups was selected), or
 * excluded from the ratios (prefer not to say, no answer).
 */
export type Verdict = 'reference' | 'meets' | 'below' | 'too-few' | 'no-comparison' | 'excluded';

export interface ImpactRow {
  /** The option's id; "prefer-not-to-say"; null for no answer. */
  option: string | null;
  label: string;
  completed: number;
  selected: number;
  /** selected / completed, 0-1; null when nobody completed. */
  rate: number | null;
  /** rate / the reference group's rate; null when not judged. */
  ratio: number | null;
  verdict: Verdict;
  /** Fisher's exact test, two-sided, of this group against the reference group; null when not judged. */
  pValue: number | null;
}

export interface QuestionImpact {
  id: string;
  label: string;
  rows: ImpactRow[];
  /** The reference group's label, when there is one. */
  reference: string | null;
  /** How many groups had enough people to judge. */
  judged: number;
}

export interface ImpactReport {
  selection: Selection;
  scored: number;
  awaitingScore: number;
  answered: number;
  questions: QuestionImpact[];
}

/** The report of `counts` for the questions as the console names them (without "prefer not to say"). */
export function impactReport(counts: ImpactCounts, questions: SelfIdQuestion[], selection: Selection): ImpactReport {
  return {
    selection,
    scored: counts.scored,
    awaitingScore: counts.awaitingScore,
    answered: counts.answered,
    questions: questions.map((q) =>
      questionImpact(
        q,
        counts.groups.filter((g) => g.question === q.id),
      ),
    ),
  };
}

type Row = Omit<ImpactRow, 'ratio' | 'verdict' | 'pValue'>;

function questionImpact(question: SelfIdQuestion, groups: ImpactCounts['groups']): QuestionImpact {
  const count = (option: string | null) => groups.find((g) => g.option === option) ?? { completed: 0, selected: 0 };
  const row = (option: string | null, label: string): Row => {
    const { completed, selected } = count(option);
    return { option, label, completed, selected, rate: completed === 0 ? null : selected / completed };
  };
  const known = new Set(question.options.map((o) => o.id));
  const options = [
    ...question.options.map((o) => row(o.id, o.label)),
    // Answers to options the instance no longer offers (its questions changed since): still groups.
    ...groups.filter((g) => g.option !== null && g.option !== PREFER_NOT && !known.has(g.option)).map((g) => row(g.option, `"${g.option}" (no longer offered)`)),
  ];
  const judged = options.filter((r) => r.completed >= MIN_GROUP);
  // The reference: the judged group with the highest rate (the first in the question's order on a tie).
  const reference = judged.reduce<Row | undefined>((best, r) => (best === undefined || r.selected * best.completed > best.selected * r.completed ? r : best), undefined);
  const rows: ImpactRow[] = options.map((r) => {
    if (r.completed < MIN_GROUP || reference === undefined) return { ...r, ratio: null, verdict: 'too-few', pValue: null };
    if (reference.selected === 0) return { ...r, ratio: null, verdict: 'no-comparison', pValue: null };
    const ratio = (r.selected * reference.completed) / (reference.selected * r.completed);
    if (r === reference) return { ...r, ratio: 1, verdict: 'reference', pValue: null };
    // Below four fifths, compared in whole numbers: selected/completed < 4/5 · refSelected/refCompleted.
    const below = 5 * r.selected * reference.completed < 4 * reference.selected * r.completed;
    return {
      ...r,
      ratio,
      verdict: below ? 'below' : 'meets',
      pValue: fisherExact(r.selected, r.completed - r.selected, reference.selected, reference.completed - reference.selected),
    };
  });
  const excluded = (option: string | null, label: string): ImpactRow => ({ ...row(option, label), ratio: null, verdict: 'excluded', pValue: null });
  rows.push(excluded(PREFER_NOT, 'Prefer not to say'), excluded(null, 'No answer'));
  return { id: question.id, label: question.label, rows, reference: reference && reference.selected > 0 ? reference.label : null, judged: judged.length };
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials.push(logFactorials[i - 1]! + Math.log(i));
  return logFactorials[n]!;
}

/**
 * Fisher's exact test, two-sided, of the 2×2 table [[a, b], [c, d]]: the probability, with the
 * margins fixed, of a table at most as likely as this one.
 */
export function fisherExact(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const col1 = a + c;
  const n = a + b + c + d;
  const logP = (x: number) =>
    logFactorial(row1) +
    logFactorial(n - row1) +
    logFactorial(col1) +
    logFactorial(n - col1) -
    logFactorial(n) -
    logFactorial(x) -
    logFactorial(row1 - x) -
    logFactorial(col1 - x) -
    logFactorial(n - row1 - col1 + x);
  const observed = logP(a);
  let p = 0;
  for (let x = Math.max(0, row1 + col1 - n); x <= Math.min(row1, col1); x++) {
    const lp = logP(x);
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/** A ratio as shown: cut (never rounded up) to two decimals, so that one shown as 0.80 is at least 0.8. */
export const ratioText = (ratio: number) => (Math.floor(ratio * 100 + 1e-9) / 100).toFixed(2);
/** A rate as a percentage with one decimal. */
export const rateText = (rate: number) => `${(Math.round(rate * 1000) / 10).toFixed(1)} %`;
/** A p-value as shown: three decimals, "< 0.001" below. */
export const pText = (p: number) => (p < 0.001 ? '< 0.001' : p.toFixed(3));
