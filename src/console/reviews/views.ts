// How reviews read in the console: the final score of a free-text answer with each reviewer's
// review (score, rubric levels, comment), a lead's settlement, and the fields a reviewer scores
// with (a radio group per rubric criterion, or one score of 0-100). Shared by the candidate's
// report (reports/view.ts) and the review queue (routes.ts); blind review hides the others' reviews
// from a reviewer who has not submitted their own.
import { html, type Renderable, type SafeHtml } from '../../html/html.js';
import { markdown } from '../../html/markdown.js';
import type { RubricContent } from '../../modules/assessments/content-schema.js';
import type { QuestionReport } from '../../modules/attempts/report-questions.js';
import { reviewerName, when } from '../format.js';

type Review = QuestionReport['reviews'][number];

const at = when;

/** The levels a review chose, criterion by criterion, as "Empathy: Strong (3 points)". */
export function criteriaText(rubric: RubricContent | null, criteria: Record<string, string> | null): string[] {
  if (!criteria) return [];
  return Object.entries(criteria).map(([id, label]) => {
    const criterion = rubric?.criteria.find((c) => c.id === id);
    const level = criterion?.levels.find((l) => l.label === label);
    return `${criterion?.name ?? id}: ${label}${level ? ` (${level.points} point${level.points === 1 ? '' : 's'})` : ''}`;
  });
}

/** Each reviewer's review, oldest first. */
export function reviewList(rubric: RubricContent | null, reviews: Review[]): SafeHtml | false {
  if (reviews.length === 0) return false;
  return html`<ul class="plain review-list">${reviews.map((r) => {
    const levels = criteriaText(rubric, r.criteria);
    return html`<li class="review-entry"><strong>${r.score} / 100</strong> by ${reviewerName(r.reviewer)} on ${at(r.reviewedAt)}${
      levels.length > 0 && html`<ul class="criteria">${levels.map((l) => html`<li>${l}</li>`)}</ul>`
    }${r.comment && html`<blockquote class="review-comment"><p class="pre">${r.comment}</p></blockquote>`}</li>`;
  })}</ul>`;
}

/** The final score in words: who or what made it. */
export function finalText(q: Pick<QuestionReport, 'review' | 'settlement'>): SafeHtml | false {
  if (q.settlement && q.review)
    return html`<p class="reviewed">Final: ${q.review.score} / 100, settled by ${reviewerName(q.settlement.settledBy)} (lead) on ${at(q.settlement.settledAt)}</p>${
      q.settlement.comment && html`<blockquote class="review-comment"><p class="pre">${q.settlement.comment}</p></blockquote>`
    }`;
  if (!q.review) return false;
  const by = q.review.reviewer;
  return html`<p class="reviewed">${by?.startsWith('mean of') ? 'Final' : 'Reviewed'}: ${q.review.score} / 100 on ${at(q.review.reviewedAt)}${by && (by.startsWith('mean of') ? ` (the ${by})` : ` by ${reviewerName(by)}`)}</p>${
    !by?.startsWith('mean of') && q.review.comment && html`<blockquote class="review-comment"><p class="pre">${q.review.comment}</p></blockquote>`
  }`;
}

/** The fields a reviewer scores with: a radio group per rubric criterion (each level with its points and description), or a score of 0-100. */
export function scoreFields(prefix: string, rubric: RubricContent | null, current?: { score: number; criteria: Record<string, string> | null }): SafeHtml {
  if (!rubric) {
    return html`<label for="${prefix}-score">Score (0–100)${current && html` — now ${current.score}`}</label>
<input type="number" id="${prefix}-score" name="score" min="0" max="100" step="1" required value="${current?.score ?? ''}">`;
  }
  return html`${rubric.criteria.map(
    (c) =>
      html`<fieldset class="rubric-criterion"><legend>${c.name}</legend>${c.levels.map(
        (l, n) =>
          html`<label class="choice" for="${prefix}-${c.id}-${n}"><input type="radio" id="${prefix}-${c.id}-${n}" name="rubric.${c.id}" value="${l.label}" required${
            current?.criteria?.[c.id] === l.label ? html` checked` : html``
          }> ${l.label} (${l.points} point${l.points === 1 ? '' : 's'})${l.description && html`<span class="hint"> — ${l.description}</span>`}</label>`,
      )}</fieldset>`,
  )}`;
}

export interface ReviewViewer {
  /** How the viewer is named on reviews (`user:<e-mail>`). */
  reviewer: string;
  blind: boolean;
  mayLead: boolean;
}

/**
 * A free-text answer's reviews on the candidate's report, and the form to review it for those who
 * may. Under blind review a reviewer who has not reviewed it sees none of the others' reviews and
 * no form (they review it in the queue, without the candidate's name).
 */
export function reviewPanel(
  q: QuestionReport,
  options: { attemptId: string | undefined; finished: boolean; csrf: string; instance: string; canReview: boolean; viewer?: ReviewViewer },
): Renderable {
  const mine = options.viewer ? q.reviews.find((r) => r.reviewer === options.viewer!.reviewer) : undefined;
  const hidden = options.viewer?.blind === true && !options.viewer.mayLead && mine === undefined;
  const shown = hidden
    ? html`<p class="hint">Blind review: the reviews of this answer are shown once you have submitted yours, in the review queue.</p>`
    : html`${finalText(q)}${q.reviews.length > 1 || (q.reviews.length === 1 && q.review?.reviewer !== q.reviews[0]!.reviewer) ? reviewList(q.rubric, q.reviews) : q.rubric && reviewList(q.rubric, q.reviews)}`;
  const open = q.type === 'free-text' && q.answered && options.canReview && options.finished && options.attemptId !== undefined && !q.settlement && !options.viewer?.blind;
  if (!open) return shown;
  const prefix = `r-${options.attemptId}-${q.id}`;
  return html`${shown}<form method="post" action="/console/reviews" class="review-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${options.instance}">
<input type="hidden" name="attemptId" value="${options.attemptId}">
<input type="hidden" name="questionId" value="${q.id}">
${q.guidance && html`<div class="guidance"><p><strong>Guidance:</strong></p>${markdown(q.guidance)}</div>`}
${scoreFields(prefix, q.rubric, mine ?? (q.review && q.reviews.length === 0 ? { score: q.review.score, criteria: null } : undefined))}
<label for="${prefix}-comment">Comment (optional)</label>
<textarea id="${prefix}-comment" name="comment" rows="2" maxlength="2000"></textarea>
<button type="submit" class="primary">Save score</button>
</form>`;
}
