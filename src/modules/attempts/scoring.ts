// Scoring an attempt: per-question credit, per-category percentages with question
// points, the weighted total, completion, and the PASS / LOW_PASS / FAIL decision. Pure: no I/O,
// so that every rule is tested exhaustively.
import { scaleLabels, type AssessmentContent, type QuestionContent } from '../assessments/content-schema.js';
// Scores are rounded as their strings show them, so that thresholds see what clients see.
import { round2 } from '../scores/format.js';

/** A coding question's answer: the program and the language it is written in. */
export interface CodingAnswer {
  language: string;
  source: string;
}

/**
 * What a candidate gave: an option index (single choice; a Likert item's point, 0 = the lowest),
 * several option indexes (multiple choice; a ranking's option indexes, first-ranked first), text,
 * or a program (coding).
 */
export type AnswerValue = number | number[] | string | CodingAnswer;

/** Whether the value is a program in one of the question's languages, with something written. */
export function isCodingAnswer(value: unknown, languages: readonly string[]): value is CodingAnswer {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { language, source } = value as Record<string, unknown>;
  return typeof language === 'string' && languages.includes(language) && typeof source === 'string' && source.trim() !== '';
}

export interface ScoreInput {
  content: AssessmentContent;
  /**
   * The questions this attempt was given (drawn from pools), in any order: only these count, so a
   * category's maximum is that of its drawn questions. Absent: every question of the content.
   */
  questionIds?: readonly string[];
  /** Answers by question id; absent means not answered. */
  answers: Record<string, AnswerValue | undefined>;
  /**
   * Operator review scores (0-100) of free-text answers, and the grades (0-100, the share of
   * hidden tests' points passed) of coding answers, by question id.
   */
  reviews: Record<string, number | undefined>;
  /** Net words per minute of the typing test, when it was taken. */
  typingWpm?: number;
}

export interface ScoreResult {
  /** Share of questions answered (the typing test counting as one), percent. */
  completion: number;
  totalScore: number;
  categoryScores: { name: string; score: number }[];
  /** Free-text answers still waiting for an operator's score. */
  awaitingReview: string[];
  scoreStatus: 'PENDING' | 'PASS' | 'LOW_PASS' | 'FAIL';
}

/** Lower-case, trimmed, inner spaces collapsed, a final full stop dropped. */
export function normaliseText(value: string): string {
  return value.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ').replace(/\.$/, '').trim();
}

/** The number a short answer means, if it is one: "1,250", "$1,250.00", "12.5 %" all count. */
export function numericValue(value: string): number | undefined {
  const compact = value
    .normalize('NFKC')
    .trim()
    .replace(/\s+/g, '')
    .replace(/^[$£€]/, '')
    .replace(/%$/, '');
  if (!/^[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[-+]?\.\d+$/.test(compact)) return undefined;
  return Number(compact.replace(/,/g, ''));
}

export function shortAnswerMatches(given: string, accepted: string[]): boolean {
  const number = numericValue(given);
  const text = normaliseText(given);
  if (text === '') return false;
  return accepted.some((candidate) => {
    const expected = numericValue(candidate);
    if (number !== undefined && expected !== undefined) return Math.abs(number - expected) < 1e-9;
    return normaliseText(candidate) === text;
  });
}

export function isAnswered(question: QuestionContent, answer: AnswerValue | undefined): boolean {
  if (answer === undefined) return false;
  switch (question.type) {
    case 'single-choice':
      return typeof answer === 'number';
    case 'multiple-choice':
      return Array.isArray(answer) && answer.length > 0;
    case 'likert':
      return Number.isInteger(answer) && (answer as number) >= 0 && (answer as number) < scaleLabels(question.scale).length;
    case 'ranking':
      return isPermutation(answer, question.options.length);
    case 'coding':
      return isCodingAnswer(answer, question.languages);
    default:
      return typeof answer === 'string' && answer.trim() !== '';
  }
}

/**
 * Credit for one question, 0 to 1; null while a free-text answer awaits review. An unanswered
 * question earns 0, whatever its type. (docs/question-types.md gives the rules of the newer types.)
 * Multiple choice gives partial credit: (correct options chosen − wrong options chosen) divided
 * by the number of correct options, never below 0. Choosing everything therefore earns nothing
 * more than choosing nothing.
 * A Likert item earns (s − 1) / (k − 1) for its keyed score s on a k-point scale, so a category of
 * Likert items of equal points scores (sum − min) / (max − min) of its keyed scores.
 * A ranking earns 1 − footrule distance to the key / ⌊n²/2⌋.
 * A coding answer earns its grade, the share of its hidden tests' points passed (null until it
 * is graded: src/modules/attempts/coding-grades.ts).
 */
export function questionCredit(question: QuestionContent, answer: AnswerValue | undefined, review: number | undefined): number | null {
  if (!isAnswered(question, answer)) return 0;
  switch (question.type) {
    case 'single-choice':
      return question.options[answer as number]?.correct ? 1 : 0;
    case 'multiple-choice': {
      const chosen = new Set(answer as number[]);
      const correct = question.options.filter((o) => o.correct).length;
      let right = 0;
      let wrong = 0;
      question.options.forEach((option, index) => {
        if (!chosen.has(index)) return;
        if (option.correct) right++;
        else wrong++;
      });
      return Math.max(0, (right - wrong) / correct);
    }
    case 'short-answer':
      return shortAnswerMatches(answer as string, question.accept) ? 1 : 0;
    case 'free-text':
      return review === undefined ? null : Math.min(100, Math.max(0, review)) / 100;
    case 'likert': {
      const points = scaleLabels(question.scale).length;
      return (likertItemScore(points, answer as number, question.reverse === true) - 1) / (points - 1);
    }
    case 'ranking':
      return rankingCredit(question, answer);
    case 'coding':
      return review === undefined ? null : Math.min(100, Math.max(0, review)) / 100;
  }
}

/** Whether the value orders the indexes 0..n-1, each once. */
export function isPermutation(value: unknown, n: number): value is number[] {
  if (!Array.isArray(value) || value.length !== n) return false;
  const seen = new Set<number>();
  for (const v of value) {
    if (!Number.isInteger(v) || v < 0 || v >= n || seen.has(v)) return false;
    seen.add(v);
  }
  return true;
}

/**
 * A Likert answer's keyed score, 1 to k on a k-point scale: the chosen point's place from the
 * lowest (the answer 0 scores 1), or k + 1 − that for a reverse-keyed item.
 */
export function likertItemScore(points: number, answer: number, reverse: boolean): number {
  const x = answer + 1;
  return reverse ? points + 1 - x : x;
}

/** Spearman's footrule: how far, in places, each option stands from its place in the key. */
export function footrule(order: readonly number[], keyPlace: readonly number[]): number {
  return order.reduce((sum, option, place) => sum + Math.abs(place - keyPlace[option]!), 0);
}

/** The largest footrule distance between two orders of n items (reached by the reverse): ⌊n²/2⌋. */
export const maxFootrule = (n: number) => Math.floor((n * n) / 2);

/** Ranking credit: 1 − footrule / max footrule; 1 for the key's order, 0 for its reverse. */
export function rankingCredit(question: Extract<QuestionContent, { type: 'ranking' }>, answer: AnswerValue | undefined): number {
  const n = question.options.length;
  if (!isPermutation(answer, n)) return 0;
  const keyPlace = question.options.map((option) => question.key.indexOf(option.id));
  return 1 - footrule(answer, keyPlace) / maxFootrule(n);
}

export const typingCredit = (wpm: number, targetWpm: number) => Math.min(1, Math.max(0, wpm) / targetWpm);

export function scoreAttempt(input: ScoreInput): ScoreResult {
  const { content } = input;
  const sums = new Map(content.categories.map((c) => [c.id, { earned: 0, possible: 0 }]));
  const awaitingReview: string[] = [];
  let answered = 0;
  const given = input.questionIds === undefined ? content.questions : content.questions.filter((q) => input.questionIds!.includes(q.id));
  for (const question of given) {
    const answer = input.answers[question.id];
    if (isAnswered(question, answer)) answered++;
    const credit = questionCredit(question, answer, input.reviews[question.id]);
    const points = question.points ?? 1;
    const sum = sums.get(question.category)!;
    sum.possible += points;
    if (credit === null) awaitingReview.push(question.id);
    else sum.earned += credit * points;
  }
  let items = given.length;
  if (content.typingTest) {
    items++;
    const sum = sums.get(content.typingTest.category)!;
    const points = content.typingTest.points ?? 1;
    sum.possible += points;
    if (input.typingWpm !== undefined) {
      answered++;
      sum.earned += typingCredit(input.typingWpm, content.typingTest.targetWpm) * points;
    }
  }
  const categoryScores = content.categories.map((c) => {
    const sum = sums.get(c.id)!;
    return { name: c.name, score: sum.possible === 0 ? 0 : (100 * sum.earned) / sum.possible };
  });
  const totalWeight = content.categories.reduce((total, c) => total + (c.weight ?? 1), 0);
  const totalScore = content.categories.reduce((total, c, i) => total + (c.weight ?? 1) * categoryScores[i]!.score, 0) / totalWeight;
  const rounded = round2(totalScore);
  const scoreStatus = awaitingReview.length > 0 ? 'PENDING' : rounded >= content.passScore ? 'PASS' : rounded >= content.lowPassScore ? 'LOW_PASS' : 'FAIL';
  return {
    completion: round2((100 * answered) / items),
    totalScore: rounded,
    categoryScores: categoryScores.map((c) => ({ name: c.name, score: round2(c.score) })),
    awaitingReview,
    scoreStatus,
  };
}
