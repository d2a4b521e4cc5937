// Reviewing together in the console: the review queue (each reviewer's answers to score, blind
// when the instance says so), the review form (a radio group per rubric criterion, or a score of
// 0-100), the disagreements a lead settles, the managers' board of every answer with its
// assignees and state (assigning and unassigning), who leads, and the instance's review settings.
// Every write is a command of the reviews module (or the tenants module's, for the settings).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput, notFound } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import { markdown } from '../../html/markdown.js';
import { commandRequest } from '../../http/command.js';
import { fieldErrors } from '../../http/errors.js';
import { validatorCompiler } from '../../http/validation.js';
import { attemptOwner } from '../../modules/attempts/attempt-lookups.js';
import { assignReview, settleReview, setReviewLead, submitReview, unassignReview } from '../../modules/reviews/commands.js';
import { answerLabel, queueOf, sightOf } from '../../modules/reviews/blind.js';
import { reviewBoard, reviewersOfInstance, userLeads, type BoardItem, type InstanceReviewer, type ReviewState } from '../../modules/reviews/repository.js';
import { Settings } from '../../modules/tenants/admin-routes.js';
import { changeTenantSettings } from '../../modules/tenants/commands.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { when } from '../format.js';
import type { Frame } from '../layout.js';
import { settingsBody } from '../settings/views.js';
import { reviewList, scoreFields } from './views.js';
import { emptyState } from '../components.js';
import { isUuid } from '../../domain/ids.js';

export interface ReviewPageDeps {
  db: Database;
  now: () => Date;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml;
  frameOf(request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame;
  instanceOf(request: FastifyRequest, name: unknown, permission: 'review' | 'manage'): Instance;
}

export const STATE_TEXT: Record<ReviewState, string> = { awaiting: 'awaiting', 'in-review': 'in review', disagreement: 'disagreement', settled: 'settled' };
const QUESTION = /^[a-z][a-z0-9-]{0,63}$/;

interface QueueView {
  instance: Instance;
  /** The viewer sees candidates only as opaque answer labels (a reviewer under blind review). */
  blindViewer: boolean;
  csrf: string;
  saved?: string;
  queue: BoardItem[];
  disagreements: BoardItem[];
  /** For owners and managers: every answer with its state and assignees, and who may review. */
  board?: { items: BoardItem[]; reviewers: InstanceReviewer[] };
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
<h3>${view.blindViewer ? answerLabel(item) : item.candidateName} · ${item.assessmentName} · ${item.questionId}</h3>
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
  const { items, reviewers } = view.board;
  const blind = view.instance.blindReview;
  const name = view.instance.name;
  const assignForm = (item: BoardItem, n: number) =>
    item.state !== 'settled' &&
    item.assignees.length < view.instance.reviewersPerAnswer &&
    html`<form method="post" action="/console/reviews/assign" class="assign-form">
${hidden(view.csrf, name)}${answerHidden(item)}
<label for="assign-${n}" class="visually-hidden">Assign ${item.questionId} of answer ${n + 1} to</label>
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
    ? emptyState('No answers to review yet.', 'Free-text answers appear here when candidates submit an assessment that has them.')
    : html`<div class="table-scroll"><table class="data">
<caption class="visually-hidden">Free-text answers of ${name}, their reviews and assignees</caption>
<thead><tr><th scope="col">Candidate</th><th scope="col">Assessment · question</th><th scope="col">Completed</th><th scope="col">State</th><th scope="col">Reviews</th><th scope="col">Assignees</th><th scope="col">Assign</th></tr></thead>
<tbody>${items.map(
        (item, n) => html`<tr class="state-${item.state}">
<td>${blind ? html`<span class="hint">hidden (blind review)</span>` : html`<a href="/console/candidates/${item.candidateId}?instance=${name}">${item.candidateName}</a>`}</td>
<td>${item.assessmentName} · ${item.questionId}</td>
<td>${when(item.finishedAt)}</td>
<td><span class="badge review-${item.state}">${STATE_TEXT[item.state]}</span>${item.final && html` ${item.final.score} / 100`}</td>
<td>${item.reviews.length} of ${view.instance.reviewersPerAnswer}</td>
<td>${
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
  return html`<h1>Review queue of ${view.instance.name}</h1>
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
    .map((p) => html`<li>${blind ? answerLabel(p) : p.candidateName} · ${p.assessmentName} · ${p.questionId} (completed ${when(p.finishedAt)})</li>`)}</ol>`
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

const checkSettings = validatorCompiler()({ schema: Settings, httpPart: 'body', method: 'POST', url: '/console/settings/reviews' }) as ((
  data: unknown,
) => data is Static<typeof Settings>) & { errors?: unknown[] };

/** A number field as the schema's check sees it: a whole number, or -1 (out of every range) when it is not one. */
const whole = (value: string) => (/^\d{1,4}$/.test(value) ? Number(value) : -1);

export function registerReviewRoutes(scope: FastifyInstance, deps: ReviewPageDeps): void {
  const { db } = deps;
  const userOf = (request: FastifyRequest) => request.consoleUser!.user;
  const csrfOf = (request: FastifyRequest) => request.consoleUser!.csrfToken;
  const mayManage = (request: FastifyRequest, instance: Instance) => {
    try {
      return deps.instanceOf(request, instance.name, 'manage').id === instance.id;
    } catch {
      return false;
    }
  };
  const queueUrl = (instance: Instance, saved: string) => `/console/reviews?instance=${encodeURIComponent(instance.name)}&saved=${saved}`;

  scope.get<{ Querystring: { instance?: string; saved?: string } }>('/console/reviews', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'review');
    const user = userOf(request);
    const open = await reviewBoard(db, instance, { open: true });
    const lead = await userLeads(db, instance.id, user);
    const manager = mayManage(request, instance);
    const saved = { score: 'Score saved.', settled: 'Settled: the answer has its final score.', assigned: 'Assigned.', unassigned: 'Unassigned.', lead: 'Saved.' }[
      request.query.saved ?? ''
    ];
    const body = reviewQueueBody({
      instance,
      blindViewer: sightOf(user, instance) === 'blind',
      csrf: csrfOf(request),
      saved,
      queue: queueOf(open, user, instance),
      disagreements: lead ? open.filter((item) => item.state === 'disagreement') : [],
      board: manager ? { items: await reviewBoard(db, instance, { open: false, limit: 300 }), reviewers: await reviewersOfInstance(db, instance.id) } : undefined,
    });
    return deps.page(reply, deps.consolePage(deps.frameOf(request, 'reviews', instance), `Review queue of ${instance.name}`, body));
  });

  /** The answer a form names, checked for its shape (the command checks the rest). */
  const answerOf = (body: Record<string, string | undefined>) => {
    const attemptId = body.attemptId ?? '';
    const questionId = body.questionId ?? '';
    if (!isUuid(attemptId) || !QUESTION.test(questionId)) throw notFound('No such answer in this instance');
    return { attemptId, questionId };
  };
  const scoreOf = (text: string | undefined) => {
    if (text === undefined || text.trim() === '') return undefined;
    if (!/^\d{1,3}(\.\d{1,2})?$/.test(text.trim()) || Number(text) > 100) throw invalidInput([{ name: 'score', detail: 'must be a number from 0 to 100' }]);
    return Number(text);
  };

  scope.post<{ Body: Record<string, string | undefined> }>('/console/reviews', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'review');
    const answer = answerOf(body);
    const rubric = Object.fromEntries(
      Object.entries(body)
        .filter(([name, value]) => name.startsWith('rubric.') && typeof value === 'string')
        .map(([name, value]) => [name.slice('rubric.'.length), value!]),
    );
    const score = scoreOf(body.score);
    await runCommand(
      db,
      commandRequest(request, deps.now()),
      (ctx) => submitReview(ctx, { instance, ...answer, score, rubric: Object.keys(rubric).length > 0 ? rubric : undefined, comment: body.comment }),
      'review_submit',
    );
    if (body.next === 'queue') return reply.redirect(queueUrl(instance, 'score'), 303);
    const owner = await attemptOwner(db, instance.id, answer.attemptId);
    return reply.redirect(`/console/candidates/${owner!.candidateId}?instance=${encodeURIComponent(instance.name)}#a-${owner!.assessmentId}`, 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/reviews/settle', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'review');
    const answer = answerOf(body);
    const score = scoreOf(body.score);
    if (score === undefined) throw invalidInput([{ name: 'score', detail: 'must be a number from 0 to 100' }]);
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => settleReview(ctx, { instance, ...answer, score, comment: body.comment }), 'review_settle');
    return reply.redirect(queueUrl(instance, 'settled'), 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/reviews/assign', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const answer = answerOf(body);
    const userId = body.userId ?? '';
    if (!isUuid(userId)) throw invalidInput([{ name: 'userId', detail: 'choose a console user of this instance' }]);
    await runCommand(
      db,
      commandRequest(request, deps.now()),
      (ctx) => assignReview(ctx, { instance, attemptId: answer.attemptId, questionId: body.whole === '1' ? undefined : answer.questionId, userId }),
      'review_assign',
    );
    return reply.redirect(queueUrl(instance, 'assigned'), 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/reviews/unassign', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const answer = answerOf(body);
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => unassignReview(ctx, { instance, ...answer, userId: body.userId ?? '' }), 'review_unassign');
    return reply.redirect(queueUrl(instance, 'unassigned'), 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/reviews/leads', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const userId = body.userId ?? '';
    if (!isUuid(userId)) throw invalidInput([{ name: 'userId', detail: 'choose a console user of this instance' }]);
    if (body.lead !== '1' && body.lead !== '0') throw invalidInput([{ name: 'lead', detail: 'must be 1 (mark) or 0 (unmark)' }]);
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => setReviewLead(ctx, { instance, userId, lead: body.lead === '1' }), 'review_lead');
    return reply.redirect(queueUrl(instance, 'lead'), 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/settings/reviews', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const names = ['reviewersPerAnswer', 'blindReview', 'reviewAgreement', 'reviewAgreementPoints', 'reviewDueHours', 'reviewUnassigned'] as const;
    const values: Record<string, string> = Object.fromEntries(names.map((name) => [name, (body[name] ?? '').trim()]));
    const given: Record<string, unknown> = {};
    const yesNo = (value: string) => (value === 'yes' ? true : value === 'no' ? false : value);
    for (const name of names) {
      if (body[name] === undefined) continue;
      const value = values[name]!;
      if (name === 'reviewersPerAnswer' || name === 'reviewAgreementPoints') given[name] = whole(value);
      else if (name === 'reviewDueHours') given[name] = value === '' ? null : whole(value);
      else if (name === 'blindReview' || name === 'reviewUnassigned') given[name] = yesNo(value);
      else given[name] = value;
    }
    const refused = (errors: { name: string; detail: string }[]) =>
      deps.page(
        reply,
        deps.consolePage(
          deps.frameOf(request, 'settings', instance),
          `Settings of ${instance.name}`,
          settingsBody(instance, csrfOf(request), {
            addressesLocked: userOf(request).role !== 'owner',
            reviews: reviewSettingsPanel(instance, csrfOf(request), { values, errors }),
          }),
        ),
        400,
      );
    if (!checkSettings(given)) return refused(fieldErrors('body', (checkSettings.errors ?? []) as never));
    try {
      await runCommand(db, commandRequest(request, deps.now()), (ctx) => changeTenantSettings(ctx, { instance: instance.name, changes: given }), 'instance_update');
    } catch (error) {
      if (error instanceof DomainError && error.fields) return refused(error.fields.map((f) => ({ name: f.name, detail: f.detail })));
      throw error;
    }
    return reply.redirect(`/console/settings?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);
  });
}
