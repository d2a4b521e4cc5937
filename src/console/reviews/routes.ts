// Reviewing together in the console: the review queue (each reviewer's answers to score, blind
// when the instance says so), the review form (a radio group per rubric criterion, or a score of
// 0-100), the disagreements a lead settles, the managers' board of every answer with its
// assignees and state (assigning and unassigning), who leads, and the instance's review settings.
// Every write is a command of the reviews module (or the tenants module's, for the settings);
// the pages are views.ts's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput, notFound } from '../../domain/errors.js';
import type { SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import { fieldErrors } from '../../http/errors.js';
import { validatorCompiler } from '../../http/validation.js';
import { attemptOwner } from '../../modules/attempts/attempt-lookups.js';
import { assignReview, settleReview, setReviewLead, submitReview, unassignReview } from '../../modules/reviews/commands.js';
import { queueOf, sightOf } from '../../modules/reviews/blind.js';
import { reviewBoard, reviewersOfInstance, userLeads, type BoardItem, type ReviewState } from '../../modules/reviews/repository.js';
import { byText, byTime, pageOf, parseOrder, parsePage, type Compare } from '../lists.js';
import { Settings } from '../../modules/tenants/admin-routes.js';
import { changeTenantSettings } from '../../modules/tenants/commands.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { Frame } from '../layout.js';
import { settingsBody } from '../settings/views.js';
import { reviewQueueBody, reviewSettingsPanel } from './views.js';
import { isUuid } from '../../domain/ids.js';

export interface ReviewPageDeps {
  db: Database;
  now: () => Date;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml;
  frameOf(request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame;
  instanceOf(request: FastifyRequest, name: unknown, permission: 'review' | 'manage'): Instance;
}

const QUESTION = /^[a-z][a-z0-9-]{0,63}$/;

const BOARD_PAGE = 50;
const BOARD_SORTS = ['read', 'candidate', 'completed', 'state'] as const;
const STATE_ORDER: ReviewState[] = ['disagreement', 'awaiting', 'in-review', 'settled'];
const BOARD_ORDER: Record<(typeof BOARD_SORTS)[number], Compare<BoardItem>> = {
  read: () => 0,
  candidate: byText((item) => item.candidateName),
  completed: byTime((item) => item.finishedAt),
  state: (a, b) => STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state),
};

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

  scope.get<{ Querystring: { instance?: string; saved?: string; sort?: string; page?: string } }>('/console/reviews', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'review');
    // The board's order: as read (open answers first, oldest first) unless a column is asked;
    // under blind review not by candidate, whose order would say who is who.
    const sorts = instance.blindReview ? BOARD_SORTS.filter((s) => s !== 'candidate') : BOARD_SORTS;
    const order = parseOrder(request.query.sort, sorts, { sort: 'read', descending: false });
    const page = parsePage(request.query.page);
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
      board: manager
        ? {
            ...pageOf(await reviewBoard(db, instance, { open: false, limit: 300 }), order, BOARD_ORDER, page, BOARD_PAGE),
            order,
            page,
            size: BOARD_PAGE,
            reviewers: await reviewersOfInstance(db, instance.id),
          }
        : undefined,
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
