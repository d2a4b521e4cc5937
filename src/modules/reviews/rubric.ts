// Scoring an answer by its question's rubric: one level chosen per criterion, the answer's score
// the points chosen over the most points possible (0-100, two decimals). Without a rubric, one
// score of 0-100 as given.
import { invalidInput, type DomainFieldError } from '../../domain/errors.js';
import type { RubricContent } from '../assessments/content-schema.js';

/** The levels chosen, criterion id to level label. */
export type RubricChoice = Record<string, string>;

export const COMMENT_MAX = 2000;
// Control characters but tab and line breaks, and bidirectional overrides.
// eslint-disable-next-line no-control-regex -- these are the characters refused
const REFUSED_IN_COMMENT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

/** The most points a criterion gives (its highest level). */
const maxOf = (criterion: RubricContent['criteria'][number]) => Math.max(...criterion.levels.map((level) => level.points));

export const rubricMax = (rubric: RubricContent) => rubric.criteria.reduce((sum, criterion) => sum + maxOf(criterion), 0);

/** The score (0-100) of the levels chosen, each criterion once; an invalid error naming each unknown or missing one. */
export function scoreRubric(rubric: RubricContent, choice: RubricChoice): number {
  const errors: DomainFieldError[] = [];
  for (const name of Object.keys(choice)) {
    if (!rubric.criteria.some((criterion) => criterion.id === name)) {
      errors.push({ in: 'body', name: `rubric.${name.slice(0, 64)}`, detail: `is not a criterion of this question's rubric: use ${rubric.criteria.map((c) => c.id).join(', ')}` });
    }
  }
  let points = 0;
  for (const criterion of rubric.criteria) {
    const label = choice[criterion.id];
    if (label === undefined || label === '') {
      errors.push({ in: 'body', name: `rubric.${criterion.id}`, detail: `needs a level (${criterion.name}): one of ${criterion.levels.map((l) => `"${l.label}"`).join(', ')}` });
      continue;
    }
    const level = criterion.levels.find((l) => l.label === label);
    if (!level) {
      errors.push({
        in: 'body',
        name: `rubric.${criterion.id}`,
        detail: `"${String(label).slice(0, 60)}" is not a level of ${criterion.name}: use ${criterion.levels.map((l) => `"${l.label}"`).join(', ')}`,
      });
      continue;
    }
    points += level.points;
  }
  if (errors.length > 0) throw invalidInput(errors);
  return Math.round((10000 * points) / rubricMax(rubric)) / 100;
}

/** A score as given (0-100, at most two decimals), or an invalid error naming the field. */
export function checkScore(score: unknown, name = 'score'): number {
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100 || Math.round(score * 100) !== score * 100) {
    throw invalidInput([{ in: 'body', name, detail: 'must be a number from 0 to 100 (at most two decimals)' }]);
  }
  return score;
}

/** A comment as stored: trimmed, empty as none; an invalid error when too long or carrying control characters. */
export function checkComment(comment: string | null | undefined): string | null {
  const text = comment?.trim() || null;
  if (text === null) return null;
  if (text.length > COMMENT_MAX) throw invalidInput([{ in: 'body', name: 'comment', detail: `is ${text.length} characters; at most ${COMMENT_MAX}` }]);
  if (REFUSED_IN_COMMENT.test(text)) throw invalidInput([{ in: 'body', name: 'comment', detail: 'must not contain control or bidirectional override characters' }]);
  return text;
}
