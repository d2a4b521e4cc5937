// A report's questions as the candidate was given them: each in the order they saw it (options in
// that order too), with the answer given, what was correct, its credit and its reviews. Shaping
// only; the rows are loaded by report.ts.
import { scaleLabels, type AssessmentContent, type QuestionContent, type RubricContent } from '../assessments/content-schema.js';
import type { AttemptLayout } from './layout.js';
import { isAnswered, isPermutation, likertItemScore, questionCredit, type AnswerValue } from './scoring.js';

export interface QuestionReport {
  id: string;
  type: QuestionContent['type'];
  category: string;
  prompt: string;
  /** Option texts for choice questions, with which are correct. */
  options: { text: string; correct: boolean; chosen: boolean }[];
  /** The text given to a short-answer or free-text question, or the program of a coding one. */
  text: string | null;
  answered: boolean;
  /** Accepted answers of a short-answer question. */
  accepted: string[];
  /** A Likert item: its scale's labels (lowest first), the point chosen, its key and keyed score (1..k). */
  likert: { labels: string[]; chosen: number | null; reverse: boolean; score: number | null } | null;
  /** A ranking: the candidate's order and the key's, as option texts, first-ranked first. */
  ranking: { given: string[] | null; key: string[] } | null;
  /** 0-1, null while a free-text answer awaits its review. */
  credit: number | null;
  guidance: string | null;
  /** A free-text question's rubric (criteria with their levels), or null. */
  rubric: RubricContent | null;
  /** The final review score (one review, the mean of several, or a lead's), or a coding answer's grade. */
  review: { score: number; reviewedAt: Date; reviewer: string | null; comment: string | null } | null;
  /** Each reviewer's review of a free-text answer (reviewing together), oldest first. */
  reviews: { reviewer: string; score: number; criteria: Record<string, string> | null; comment: string | null; reviewedAt: Date }[];
  /** A lead's final score where the reviews disagreed. */
  settlement: { score: number; comment: string | null; settledBy: string; settledAt: Date } | null;
}

/** An answer as report.ts loads it: its value, the current review and every reviewer's. */
export interface AnswerRow {
  questionId: string;
  value: AnswerValue;
  reviewScore: number | null;
  reviewedAt: Date | null;
  reviewer: string | null;
  reviewComment: string | null;
  reviews: QuestionReport['reviews'];
  settlement: QuestionReport['settlement'];
}

/** The questions shown (`shown`: the attempt's layout of `content`), each with its answer from `answers`, by question id. */
export function questionReports(content: AssessmentContent, shown: AttemptLayout, answers: Map<string, AnswerRow>): QuestionReport[] {
  return shown.questions.map((id) => {
    const question = content.questions.find((q) => q.id === id)!;
    const given = answers.get(question.id);
    const value = given?.value;
    const review = given?.reviewScore ?? undefined;
    const chosen = new Set(Array.isArray(value) ? value : typeof value === 'number' ? [value] : []);
    return {
      id: question.id,
      type: question.type,
      category: content.categories.find((c) => c.id === question.category)?.name ?? question.category,
      prompt: question.prompt,
      options:
        question.type === 'single-choice' || question.type === 'multiple-choice'
          ? (shown.options[question.id] ?? question.options.map((_, i) => i)).map((i) => {
              const o = question.options[i]!;
              return { text: o.text, correct: o.correct === true, chosen: chosen.has(i) };
            })
          : [],
      // A coding answer shows as its program, headed by the language.
      text: typeof value === 'string' ? value : typeof value === 'object' && value !== null && !Array.isArray(value) ? `(${value.language})\n${value.source}` : null,
      answered: given !== undefined,
      accepted: question.type === 'short-answer' ? question.accept : [],
      likert: question.type === 'likert' ? likertView(question, value) : null,
      ranking:
        question.type === 'ranking'
          ? {
              given: isPermutation(value, question.options.length) ? value.map((i) => question.options[i]!.text) : null,
              key: question.key.map((id) => question.options.find((o) => o.id === id)?.text ?? id),
            }
          : null,
      credit: questionCredit(question, value, review),
      guidance: question.type === 'free-text' ? (question.guidance ?? null) : null,
      rubric: question.type === 'free-text' ? (question.rubric ?? null) : null,
      reviews: (given?.reviews ?? []).map((r) => ({ ...r, reviewedAt: new Date(r.reviewedAt) })),
      settlement: given?.settlement ? { ...given.settlement, settledAt: new Date(given.settlement.settledAt) } : null,
      review:
        given?.reviewScore !== null && given?.reviewScore !== undefined
          ? { score: given.reviewScore, reviewedAt: given.reviewedAt!, reviewer: given.reviewer, comment: given.reviewComment }
          : null,
    };
  });
}

function likertView(question: Extract<QuestionContent, { type: 'likert' }>, value: AnswerValue | undefined): QuestionReport['likert'] {
  const labels = [...scaleLabels(question.scale)];
  const reverse = question.reverse === true;
  const chosen = isAnswered(question, value) ? (value as number) : null;
  return { labels, chosen, reverse, score: chosen === null ? null : likertItemScore(labels.length, chosen, reverse) };
}
