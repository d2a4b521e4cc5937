// Scoring an attempt: per-question credit, per-category percentages with question
// points, the weighted total, completion, and the PASS / LOW_PASS / FAIL decision. Pure: no I/O,
// so that every rule is tested exhaustively.
import type { AssessmentContent, QuestionContent } from '../assessments/content-schema.js';
// Scores are rounded as their strings show them, so that thresholds see what clients see.
import { round2 } from '../scores/format.js';

/** What a candidate gave: an option index, several option indexes, or text. */
export type AnswerValue = number | number[] | string;

export interface ScoreInput {
  content: AssessmentContent;
  /** Answers by question id; absent means not answered. */
  answers: Record<string, AnswerValue | undefined>;
  /** Operator review scores (0-100) of free-text answers, by question id. */
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
  const compact = value.normalize('NFKC').trim().replace(/\s+/g, '').replace(/^[$£€]/, '').replace(/%$/, '');
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
    default:
      return typeof answer === 'string' && answer.trim() !== '';
  }
}

/**
 * Credit for one question, 0 to 1; null while a free-text answer awaits review.
 * Multiple choice gives partial credit: (correct options chosen − wrong options chosen) divided
 * by the number of correct options, never below 0. Choosing everything therefore earns nothing
 * more than choosing nothing.
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
  }
}

export const typingCredit = (wpm: number, targetWpm: number) => Math.min(1, Math.max(0, wpm) / targetWpm);

export function scoreAttempt(input: ScoreInput): ScoreResult {
  const { content } = input;
  const sums = new Map(content.categories.map((c) => [c.id, { earned: 0, possible: 0 }]));
  const awaitingReview: string[] = [];
  let answered = 0;
  for (const question of content.questions) {
    const answer = input.answers[question.id];
    if (isAnswered(question, answer)) answered++;
    const credit = questionCredit(question, answer, input.reviews[question.id]);
    const points = question.points ?? 1;
    const sum = sums.get(question.category)!;
    sum.possible += points;
    if (credit === null) awaitingReview.push(question.id);
    else sum.earned += credit * points;
  }
  let items = content.questions.length;
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
  const scoreStatus =
    awaitingReview.length > 0 ? 'PENDING' : rounded >= content.passScore ? 'PASS' : rounded >= content.lowPassScore ? 'LOW_PASS' : 'FAIL';
  return {
    completion: round2((100 * answered) / items),
    totalScore: rounded,
    categoryScores: categoryScores.map((c) => ({ name: c.name, score: round2(c.score) })),
    awaitingReview,
    scoreStatus,
  };
}
