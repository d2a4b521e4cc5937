// The reviews section's markup. How reviews read in the console: the final score of a free-text
// answer with each reviewer's review (score, rubric levels, comment), a lead's settlement, and the
// fields a reviewer scores with (a radio group per rubric criterion, or one score of 0-100), shared
// by the candidate's report (reports/view.ts) and the review queue; blind review hides the others'
// reviews from a reviewer who has not submitted their own. And the queue's page (the answer to
// score, the disagreements a lead settles, the managers' board and leads) and the review settings'
// panel on the settings page; routes.ts only translates forms to commands.
import { html, type Renderable, type SafeHtml } from '../../html/html.js';
import { markdown } from '../../html/markdown.js';
import type { RubricContent } from '../../modules/assessments/content-schema.js';
import type { QuestionReport } from '../../modules/attempts/report-questions.js';
import { answerLabel } from '../../modules/reviews/blind.js';
import { brandOf } from '../../modules/tenants/branding.js';
import type { BoardItem, InstanceReviewer, ReviewState } from '../../modules/reviews/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { emptyState, pager, sortHeader } from '../components.js';
import { sortParam, type Order } from '../lists.js';
import { promptTitle, reviewerName, when } from '../format.js';

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

export const STATE_TEXT: Record<ReviewState, string> = { awaiting: 'awaiting', 'in-review': 'in review', disagreement: 'disagreement', settled: 'settled' };
export interface QueueView {
  instance: Instance;
  /** The viewer sees candidates only as opaque answer labels (a reviewer under blind review). */
  blindViewer: boolean;
  csrf: string;
  saved?: string;
  queue: BoardItem[];
  disagreements: BoardItem[];
  /** For owners and managers: every answer with its state and assignees, and who may review. */
  board?: { rows: BoardItem[]; total: number; order: Order; page: number; size: number; reviewers: InstanceReviewer[] };
}

const hidden = (csrf: string, instance: string) => html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">`;
const answerHidden = (item: BoardItem) => html`<input type="hidden" name="attemptId" value="${item.attemptId}"><input type="hidden" name="questionId" value="${item.questionId}">`;

function currentPanel(view: QueueView, item: BoardItem): SafeHtml {
  const blind = view.instance.blindReview;
  const name = view.instance.name;
  return html`<section class="panel review-current" aria-labelledby="review-current">
<h2 id="review-current">${blind ? html`${answerLabel(item)} · ${item.assessmentName}` : html`${item.candidateName} · ${item.assessmentName}`}</h2>
<p class="hint">Completed ${when(item.finishedAt)}${
    blind
      ? html` · blind review: the candidate's name and the other reviews are shown once you have submitted yours`
      : html` · <a href="/console/candidates/${item.candidateId}?instance=${name}">full report</a>`
  }${view.instance.reviewersPerAnswer > 1 && html` · ${item.reviews.length} of ${view.instance.reviewersPerAnswer} reviews in`}</p>
<div class="prompt">${markdown(item.prompt)}</div>
${item.guidance && html`<div class="guidance"><p><strong>Guidance:</strong></p>${markdown(item.guidance)}</div>`}
<blockquote class="pre answer-text">${item.answer}</blockquote>
${!blind && item.reviews.length > 0 && html`<h3>Reviews so far</h3>${reviewList(item.rubric, item.reviews)}`}
<form method="post" action="/console/reviews" class="review-form">
${hidden(view.csrf, name)}${answerHidden(item)}
<input type="hidden" name="next" value="queue">
${scoreFields('queue', item.rubric)}
<label for="queue-comment">Comment (optional)</label>
<textarea id="queue-comment" name="comment" rows="2" maxlength="2000"></textarea>
<button type="submit" class="primary">Save and next</button>
</form>
</section>`;
}

function disagreementPanel(view: QueueView): SafeHtml | false {
  if (view.disagreements.length === 0) return false;
  return html`<section class="panel disagreements" aria-labelledby="disagreements">
<h2 id="disagreements">Disagreements to settle (${view.disagreements.length})</h2>
<p class="hint">The reviews of these answers are further apart than ${view.instance.reviewAgreementPoints} points: as a lead, give each its final score.</p>
<ol class="plain">${view.disagreements.map((item, n) => {
    const id = `settle-${n}`;
    return html`<li class="disagreement">
<h3>${view.blindViewer ? answerLabel(item) : item.candidateName} · ${item.assessmentName} · ${promptTitle(item.prompt)}</h3>
<div class="prompt">${markdown(item.prompt)}</div>
<blockquote class="pre answer-text">${item.answer}</blockquote>
${reviewList(item.rubric, item.reviews)}
<form method="post" action="/console/reviews/settle" class="review-form settle-form">
${hidden(view.csrf, view.instance.name)}${answerHidden(item)}
<label for="${id}-score">Final score (0–100)</label>
<input type="number" id="${id}-score" name="score" min="0" max="100" step="1" required>
<label for="${id}-comment">Why (optional)</label>
<textarea id="${id}-comment" name="comment" rows="2" maxlength="2000"></textarea>
<button type="submit" class="primary">Settle</button>
</form>
</li>`;
  })}</ol>
</section>`;
}

function boardPanel(view: QueueView): SafeHtml | false {
  if (!view.board) return false;
  const { rows: items, reviewers } = view.board;
  const blind = view.instance.blindReview;
  const name = view.instance.name;
  const list = view.board;
  const href = (change: { sort?: string; page?: number }) => {
    const params = new URLSearchParams({ instance: name });
    if (change.sort && change.sort !== 'read') params.set('sort', change.sort);
    if (change.page && change.page > 1) params.set('page', String(change.page));
    return `/console/reviews?${params}#review-board`;
  };
  const header = (label: string, key: string, firstDescending = false) =>
    sortHeader(label, key, list.order, (sort, descending) => href({ sort: sortParam({ sort, descending }) }), firstDescending);
  const assignForm = (item: BoardItem, n: number) =>
    item.state !== 'settled' &&
    item.assignees.length < view.instance.reviewersPerAnswer &&
    html`<form method="post" action="/console/reviews/assign" class="assign-form">
${hidden(view.csrf, name)}${answerHidden(item)}
<label for="assign-${n}" class="visually-hidden">Assign “${promptTitle(item.prompt)}” of answer ${n + 1} to</label>
<select id="assign-${n}" name="userId">${reviewers.filter((r) => !item.assignees.some((a) => a.userId === r.id)).map((r) => html`<option value="${r.id}">${r.email}</option>`)}</select>
<label class="choice" for="assign-${n}-whole"><input type="checkbox" id="assign-${n}-whole" name="whole" value="1"> every free-text answer of this attempt</label>
<button type="submit">Assign</button>
</form>`;
  return html`<section class="panel review-board" aria-labelledby="review-board">
<h2 id="review-board">Every answer</h2>
<p class="hint">${view.instance.reviewersPerAnswer} reviewer${view.instance.reviewersPerAnswer === 1 ? '' : 's'} per answer; final score: ${
    view.instance.reviewAgreement === 'mean' ? 'the mean of the reviews' : `the mean when the reviews are within ${view.instance.reviewAgreementPoints} points, else a lead's`
  }${blind ? '; blind review' : ''}. Answers with assignees are theirs alone${view.instance.reviewUnassigned ? '; reviewers may take the others' : '; the others wait for an owner or a manager, or an assignment'}.</p>
${
  items.length === 0
    ? list.total > 0
      ? emptyState('This page is past the last one.', html`<a href="${href({ sort: sortParam(list.order) })}">Go to the first page</a>.`)
      : emptyState('No answers to review yet.', 'Free-text answers appear here when candidates submit an assessment that has them.')
    : html`<div class="table-scroll"><table class="data">
<caption class="visually-hidden">Free-text answers of ${name}, their reviews and assignees</caption>
<thead><tr>${blind ? html`<th scope="col">Candidate</th>` : header('Candidate', 'candidate')}<th scope="col">Assessment · question</th>${header('Completed', 'completed')}${header('State', 'state')}<th scope="col">Reviews</th><th scope="col">Assignees</th><th scope="col">Assign</th></tr></thead>
<tbody>${items.map(
        (item, n) => html`<tr class="state-${item.state}">
<td data-label="Candidate">${blind ? html`<span class="hint">hidden (blind review)</span>` : html`<a href="/console/candidates/${item.candidateId}?instance=${name}">${item.candidateName}</a>`}</td>
<td data-label="Question">${item.assessmentName} · ${promptTitle(item.prompt)}</td>
<td data-label="Completed">${when(item.finishedAt)}</td>
<td data-label="State"><span class="badge review-${item.state}">${STATE_TEXT[item.state]}</span>${item.final && html` ${item.final.score} / 100`}</td>
<td data-label="Reviews">${item.reviews.length} of ${view.instance.reviewersPerAnswer}</td>
<td data-label="Assignees">${
          item.assignees.length === 0
            ? 'nobody'
            : html`<ul class="plain">${item.assignees.map(
                (a) =>
                  html`<li>${a.email}${item.reviews.some((r) => r.reviewer === `user:${a.email.toLowerCase()}`) ? ' (reviewed)' : ''}${
                    item.state !== 'settled' &&
                    html` <form method="post" action="/console/reviews/unassign" class="inline">${hidden(view.csrf, name)}${answerHidden(item)}<input type="hidden" name="userId" value="${a.userId}"><button type="submit">Unassign<span class="visually-hidden"> ${a.email} from answer ${n + 1}</span></button></form>`
                  }</li>`,
              )}</ul>`
        }</td>
<td>${assignForm(item, n)}</td>
</tr>`,
      )}</tbody></table></div>`
}
${list.total > list.size && pager({ page: list.page, size: list.size, total: list.total, noun: 'answers', href: (page) => href({ sort: sortParam(list.order), page }) })}
</section>
<section class="panel review-leads" aria-labelledby="review-leads">
<h2 id="review-leads">Leads</h2>
<p class="hint">Owners and managers settle disagreements; so do reviewers marked lead.</p>
<ul class="plain">${reviewers
    .filter((r) => r.role === 'reviewer')
    .map(
      (r) =>
        html`<li>${r.email}: ${r.lead ? 'lead' : 'reviewer'} <form method="post" action="/console/reviews/leads" class="inline">${hidden(view.csrf, name)}<input type="hidden" name="userId" value="${r.id}"><input type="hidden" name="lead" value="${r.lead ? '0' : '1'}"><button type="submit">${r.lead ? 'Unmark lead' : 'Mark lead'}<span class="visually-hidden"> ${r.email}</span></button></form></li>`,
    )}</ul>
</section>`;
}

export function reviewQueueBody(view: QueueView): SafeHtml {
  const [first, ...rest] = view.queue;
  const blind = view.instance.blindReview;
  return html`<h1>Review queue of ${brandOf(view.instance).company}</h1>
${view.saved && html`<p class="info" role="status">${view.saved}</p>`}
<p>${
    view.queue.length === 0
      ? 'Nothing waits for review.'
      : `${view.queue.length} free-text answer${view.queue.length === 1 ? '' : 's'} wait${view.queue.length === 1 ? 's' : ''} for your score, oldest first.`
  }</p>
${first && currentPanel(view, first)}
${
  rest.length > 0 &&
  html`<h2>Next in your queue</h2><ol class="plain">${rest
    .slice(0, 20)
    .map((p) => html`<li>${blind ? answerLabel(p) : p.candidateName} · ${p.assessmentName} · ${promptTitle(p.prompt)} (completed ${when(p.finishedAt)})</li>`)}</ol>`
}
${disagreementPanel(view)}
${boardPanel(view)}`;
}

/** The review settings on the instance's settings page (a form of its own). */
export function reviewSettingsPanel(
  instance: Instance,
  csrf: string,
  state: { values?: Record<string, string>; errors?: { name: string; detail: string }[]; saved?: boolean } = {},
): SafeHtml {
  const v = state.values ?? {
    reviewersPerAnswer: String(instance.reviewersPerAnswer),
    blindReview: instance.blindReview ? 'yes' : 'no',
    reviewAgreement: instance.reviewAgreement,
    reviewAgreementPoints: String(instance.reviewAgreementPoints),
    reviewDueHours: instance.reviewDueHours === null ? '' : String(instance.reviewDueHours),
    reviewUnassigned: instance.reviewUnassigned ? 'yes' : 'no',
  };
  const option = (name: string, value: string, label: string) => html`<option value="${value}"${v[name] === value ? html` selected` : html``}>${label}</option>`;
  return html`<section class="panel" aria-labelledby="review-settings">
<h2 id="review-settings">Reviewing free-text answers</h2>
${state.errors && html`<div role="alert" id="review-settings-errors"><p class="error">Nothing was saved:</p><ul>${state.errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`}
<form method="post" action="/console/settings/reviews" class="settings-form">
${hidden(csrf, instance.name)}
<label for="set-reviewers">Reviewers per answer (1-5)</label>
<input type="number" id="set-reviewers" name="reviewersPerAnswer" min="1" max="5" step="1" required value="${v.reviewersPerAnswer ?? ''}">
<label for="set-blind">Blind review: reviewers see neither the candidate's name nor the other reviews until they have submitted theirs</label>
<select id="set-blind" name="blindReview">${option('blindReview', 'no', 'No')}${option('blindReview', 'yes', 'Yes')}</select>
<label for="set-agreement">Final score of several reviews</label>
<select id="set-agreement" name="reviewAgreement">${option('reviewAgreement', 'mean', 'Their mean')}${option('reviewAgreement', 'agree-within', 'Their mean when they agree within the distance below; else a lead settles')}</select>
<label for="set-distance">Distance within which reviews agree (percentage points, 0-100)</label>
<input type="number" id="set-distance" name="reviewAgreementPoints" min="0" max="100" step="1" required value="${v.reviewAgreementPoints ?? ''}">
<label for="set-due">Remind an assigned reviewer this many hours after completion or assignment, once (1-720; empty: no reminders)</label>
<input type="number" id="set-due" name="reviewDueHours" min="1" max="720" step="1" value="${v.reviewDueHours ?? ''}">
<label for="set-unassigned">Reviewers may take answers nobody was assigned</label>
<select id="set-unassigned" name="reviewUnassigned">${option('reviewUnassigned', 'yes', 'Yes')}${option('reviewUnassigned', 'no', 'No: only their assignments')}</select>
<p><button type="submit" class="primary">Save review settings</button></p>
</form>
</section>`;
}
