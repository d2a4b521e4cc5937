// The candidates: the list with its filters (and as CSV), one candidate's report with the
// recruiters' marks, a retake, and the pieces beside them (saved searches, compare, decisions).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, invalidInput, notFound } from '../../domain/errors.js';
import { consoleClient } from '../../db/replica.js';
import { assessmentReports } from '../../modules/attempts/report.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { countCandidates, findCandidate, searchCandidates, type CandidateListItem } from '../../modules/candidates/repository.js';
import { BULK_MAX } from '../../modules/decisions/commands.js';
import { isUuid } from '../../domain/ids.js';
import { marksOf, marksOfMany, tagsInUse } from '../../modules/decisions/repository.js';
import { retakeInvitation, sendFreshLink } from '../../modules/invitations/lifecycle.js';
import { brandOf } from '../../modules/tenants/branding.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { savedSearches } from '../../modules/users/saved-searches.js';
import { BLIND_REFUSAL, maySeeCandidate, reviewerOf, sightOf } from '../../modules/reviews/blind.js';
import { userLeads } from '../../modules/reviews/repository.js';
import type { ReviewViewer } from '../reviews/views.js';
import type { SafeHtml } from '../../html/html.js';
import type { ConsoleContext } from '../context.js';
import { reportBody } from '../reports/view.js';
import { doneText, parseCandidateOrder, registerBulkRoutes } from './bulk.js';
import { parsePage } from '../lists.js';
import { registerCompareRoutes } from './compare.js';
import { candidatesCsv, decisionActions, headerMarks, marksPanel, registerDecisionRoutes } from './decisions.js';
import { registerSearchRoutes, savedSearchesPanel, type SearchFormState } from './searches.js';
import { candidatesBody } from './views.js';
import { registerWebcamRoutes, webcamSections } from './webcam.js';

const PAGE_SIZE = 50;
/** The CSV export of the candidates list reads in pages of this many, up to CSV_MAX_CANDIDATES. */
const CSV_PAGE = 500;
const CSV_MAX_CANDIDATES = 10_000;

export function registerCandidateRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const { db } = c;
  /** Where the user's list reads go: the replica unless the user just changed something (src/db/replica.ts). */
  const listDb = (request: FastifyRequest) => c.deps.reads?.for(consoleClient(request.consoleUser!.user.id)) ?? db;

  /** The list's filters from its query, checked: a search of the candidates module. */
  async function candidateSearch(q: Record<string, string | undefined>, instance: Instance, limit: number) {
    const assessments = await listAssessments(db, [instance.id]);
    const assessment = q.assessment ? assessments.find((a) => a.id === q.assessment) : undefined;
    if (q.assessment && !assessment) throw invalidInput([{ name: 'assessment', in: 'query', detail: 'is not an assessment of this instance' }]);
    const oneOf = <T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined => {
      if (value === undefined || value === '') return undefined;
      if (!allowed.includes(value as T)) throw invalidInput([{ name, in: 'query', detail: `must be one of ${allowed.join(', ')}` }]);
      return value as T;
    };
    const flag = oneOf('flag', q.flag, ['yes', 'no'] as const);
    const days = oneOf('days', q.days, ['7', '30', '90'] as const);
    if (q.after !== undefined && !isUuid(q.after)) throw invalidInput([{ name: 'after', in: 'query', detail: 'is not a candidate id' }]);
    if (q.q !== undefined && q.q.length > 100) throw invalidInput([{ name: 'q', in: 'query', detail: 'is longer than 100 characters' }]);
    if (q.tag !== undefined && q.tag.length > 32) throw invalidInput([{ name: 'tag', in: 'query', detail: 'is longer than 32 characters' }]);
    const search = {
      instanceId: instance.id,
      query: q.q,
      assessmentId: assessment?.id,
      assessmentStatus: oneOf('status', q.status, ['INVITED', 'IN_PROGRESS', 'COMPLETED', 'STARTED'] as const),
      scoreStatus: oneOf('score', q.score, ['PENDING', 'LOW_PASS', 'PASS', 'FAIL', 'SCORED'] as const),
      redFlag: flag === undefined ? undefined : flag === 'yes',
      invitedSince: days ? new Date(c.now().getTime() - Number(days) * 86_400_000) : undefined,
      decision: oneOf('decision', q.decision, ['advance', 'hold', 'reject', 'none'] as const),
      tag: q.tag?.trim().toLowerCase() || undefined,
      after: q.after,
      limit,
    };
    return { assessments, search };
  }

  /** The list's page: its filters, order and page from the query; the bulk actions' errors or outcome when given. */
  async function listPage(
    request: FastifyRequest,
    q: Record<string, string | undefined>,
    bulk: { errors?: readonly { name: string; detail: string }[]; done?: string } = {},
    searchForm?: SearchFormState,
  ) {
    const instance = c.instanceOf(request, q.instance, 'names');
    const { assessments, search } = await candidateSearch(q, instance, PAGE_SIZE + 1);
    const order = parseCandidateOrder(q.sort);
    const page = parsePage(q.page);
    const keyset = search.after !== undefined;
    const reads = listDb(request);
    const [items, total] = await Promise.all([
      searchCandidates(reads, keyset ? search : { ...search, sort: order.sort, descending: order.descending, offset: (page - 1) * PAGE_SIZE }),
      countCandidates(reads, search),
    ]);
    const more = items.length > PAGE_SIZE;
    const shown = items.slice(0, PAGE_SIZE);
    const kept = Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '' && !['after', 'page', 'sort', 'instance', 'chosen'].includes(e[0]));
    const query = (change: Record<string, string>) => new URLSearchParams([['instance', instance.name], ...kept, ...Object.entries(change)]).toString();
    const orderText = (sort: string, descending: boolean) => `${sort}${descending ? '-desc' : ''}`;
    const list = {
      ...order,
      page: keyset ? 1 : page,
      size: PAGE_SIZE,
      total,
      href: (change: { sort?: string; descending?: boolean; page?: number }) =>
        `/console/candidates?${query({ sort: orderText(change.sort ?? order.sort, change.descending ?? order.descending), ...(change.page && change.page > 1 ? { page: String(change.page) } : {}) })}`,
      nextHref: keyset && more ? `/console/candidates?${query({ after: shown.at(-1)!.id })}` : undefined,
    };
    const filters = { q: q.q, assessment: q.assessment, status: q.status, score: q.score, flag: q.flag, days: q.days, decision: q.decision, tag: q.tag };
    const marks = await marksOfMany(
      db,
      shown.map((candidate) => candidate.id),
    );
    const tags = (await tagsInUse(db, instance.id)).map((t) => t.tag);
    const user = request.consoleUser!;
    if (q.chosen !== undefined && !isUuid(q.chosen)) throw invalidInput([{ name: 'chosen', in: 'query', detail: 'is not a candidate id' }]);
    const chosen = q.chosen === undefined ? undefined : await findCandidate(db, [instance.id], q.chosen);
    const saved = savedSearchesPanel({ instance: instance.name, csrf: user.csrfToken, saved: await savedSearches(db, user.user.id, instance.id), filters, form: searchForm });
    const body = candidatesBody({
      instance: instance.name,
      company: brandOf(instance).company,
      filters,
      assessments: assessments.map((a) => ({ id: a.id, name: a.name })),
      items: shown,
      list,
      bulk: {
        csrf: user.csrfToken,
        mayDecide: c.may(request, instance, 'manage'),
        back: new URLSearchParams(Object.entries(q).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '' && e[0] !== 'chosen')).toString(),
        chosen: chosen && { id: chosen.id, name: chosen.email === null ? 'The erased candidate' : `${chosen.firstName} ${chosen.lastName}` },
        chosenShown: chosen !== undefined && shown.some((row) => row.id === chosen.id),
        ...bulk,
      },
      marks,
      tags,
      csvHref: `/console/candidates.csv?${query({})}`,
      saved,
    });
    return { instance, body };
  }

  scope.get<{ Querystring: Record<string, string | undefined> }>('/console/candidates', async (request, reply) => {
    const { instance, body } = await listPage(request, request.query, { done: doneText(request.query.done) });
    return c.render(request, reply, { section: 'candidates', instance }, `Candidates of ${brandOf(instance).company}`, body);
  });

  registerBulkRoutes(scope, {
    db,
    now: c.now,
    instanceOf: c.instanceOf,
    again: async (request, reply, back, errors) => {
      const { instance, body } = await listPage(request, Object.fromEntries(new URLSearchParams(back)), { errors });
      return c.render(request, reply, { section: 'candidates', instance }, `Candidates of ${brandOf(instance).company}`, body, 400);
    },
    csv: async (instance, ids) => {
      const items = await searchCandidates(db, { instanceId: instance.id, ids, limit: BULK_MAX });
      return candidatesCsv(
        items,
        await marksOfMany(
          db,
          items.map((candidate) => candidate.id),
        ),
      );
    },
  });

  // The list as CSV, with its filters: every match (up to CSV_MAX_CANDIDATES), one row per candidate and assessment.
  scope.get<{ Querystring: Record<string, string | undefined> }>('/console/candidates.csv', async (request, reply) => {
    const q = request.query;
    const instance = c.instanceOf(request, q.instance, 'names');
    const { search } = await candidateSearch({ ...q, after: undefined }, instance, CSV_PAGE);
    const items: CandidateListItem[] = [];
    const reads = listDb(request);
    for (let after: string | undefined; items.length < CSV_MAX_CANDIDATES;) {
      const batch = await searchCandidates(reads, { ...search, after });
      items.push(...batch);
      if (batch.length < CSV_PAGE) break;
      after = batch.at(-1)!.id;
    }
    const marks = await marksOfMany(
      db,
      items.map((candidate) => candidate.id),
    );
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="candidates-${instance.name}.csv"`)
      .send(candidatesCsv(items.slice(0, CSV_MAX_CANDIDATES), marks));
  });

  /** The candidate page's header: the decision and tags, Advance / Hold / Reject, and Compare (on the list of those who completed the same assessment, this one chosen). */
  async function candidateHeader(
    instance: Instance,
    candidateId: string,
    erased: boolean,
    reports: Awaited<ReturnType<typeof assessmentReports>>,
    csrf: string,
    options: { canDecide: boolean; canCompare: boolean; errors?: { name: string; detail: string }[]; attempted?: string },
  ) {
    const marks = await marksOf(db, candidateId);
    const completed = reports.filter((r) => r.record.assessmentStatus === 'COMPLETED');
    const assessment = (completed.at(-1) ?? reports.at(-1))?.record.assessmentId;
    const compare =
      options.canCompare &&
      assessment !== undefined &&
      `/console/candidates?${new URLSearchParams({ instance: instance.name, assessment, ...(completed.length > 0 ? { status: 'COMPLETED' } : {}), chosen: candidateId })}`;
    return {
      marks: headerMarks(marks),
      actions: decisionActions({
        instance: instance.name,
        candidateId,
        csrf,
        canDecide: options.canDecide && !erased,
        compareHref: compare || undefined,
        current: marks.decision?.decision,
        errors: options.errors,
        attempted: options.attempted,
      }),
    };
  }

  /** A candidate's report page, with the recruiters' marks panel given. */
  async function reportPage(
    instance: Instance,
    candidateId: string,
    options: {
      viewer?: ReviewViewer;
      othersUnnamed?: boolean;
      canReview: boolean;
      canRetake: boolean;
      notice?: string;
      csrf: string;
      marks: (erased: boolean) => Promise<SafeHtml>;
      /** The header's decision buttons and Compare (for who may decide, or see names). */
      header?: { canDecide: boolean; canCompare: boolean; errors?: { name: string; detail: string }[]; attempted?: string };
    },
  ) {
    const candidate = await findCandidate(db, [instance.id], candidateId);
    if (!candidate) throw notFound('No such candidate in this instance');
    const reports = await assessmentReports(db, [instance.id], candidate.id);
    const header = options.header && (await candidateHeader(instance, candidate.id, candidate.email === null, reports, options.csrf, options.header));
    const body = reportBody(candidate, reports, {
      csrf: options.csrf,
      instance: instance.name,
      canReview: options.canReview,
      canRetake: options.canRetake,
      notice: options.notice,
      marks: await options.marks(candidate.email === null),
      attemptExtras: await webcamSections(db, reports, instance.name),
      viewer: options.viewer,
      othersUnnamed: options.othersUnnamed,
      header,
    });
    return { title: `${candidate.firstName} ${candidate.lastName}`, body };
  }

  scope.get<{ Params: { id: string }; Querystring: { instance?: string; retake?: string; marked?: string } }>('/console/candidates/:id', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const user = request.consoleUser!.user;
    // Under blind review a reviewer opens a candidate only once their own reviews of them are in.
    if (!(await maySeeCandidate(db, instance, user, request.params.id))) throw forbidden(BLIND_REFUSAL);
    const retake = request.query.retake;
    const notice =
      retake === 'SENT' || retake === 'FAILED' || retake === 'none'
        ? `The candidate may take it again; the earlier attempt stays in the history. ${retake === 'SENT' ? 'The e-mail with a fresh link was sent.' : retake === 'FAILED' ? "The e-mail could not be sent: see Invitations for the relay's answer, and resend it there." : ''}`
        : undefined;
    const csrf = request.consoleUser!.csrfToken;
    const canManage = c.may(request, instance, 'manage');
    const { title, body } = await reportPage(instance, request.params.id, {
      csrf,
      viewer: {
        reviewer: reviewerOf(user),
        blind: instance.blindReview,
        mayLead: await userLeads(db, instance.id, user),
      },
      othersUnnamed: sightOf(user, instance) === 'blind',
      canReview: c.may(request, instance, 'review'),
      canRetake: canManage,
      header: { canDecide: canManage, canCompare: c.may(request, instance, 'names') },
      notice,
      marks: async (erased) =>
        marksPanel({
          instance: instance.name,
          candidateId: request.params.id,
          marks: await marksOf(db, request.params.id),
          csrf,
          canDecide: canManage && !erased,
          saved: request.query.marked === '1',
        }),
    });
    return c.render(request, reply, { section: 'candidates', instance }, title, body);
  });

  registerSearchRoutes(scope, {
    db,
    now: c.now,
    instanceOf: c.instanceOf,
    again: async (request, reply, query, form) => {
      const { instance, body } = await listPage(request, query, {}, form);
      return c.render(request, reply, { section: 'candidates', instance }, `Candidates of ${brandOf(instance).company}`, body, 400);
    },
  });
  registerWebcamRoutes(scope, { db, instanceOf: c.instanceOf, maySee: (request, instance, candidateId) => maySeeCandidate(db, instance, request.consoleUser!.user, candidateId) });

  registerCompareRoutes(scope, {
    db,
    instanceOf: c.instanceOf,
    render: (request, reply, instance, title, body) => c.render(request, reply, { section: 'candidates', instance }, title, body),
  });

  registerDecisionRoutes(scope, {
    db,
    now: c.now,
    instanceOf: c.instanceOf,
    again: async (request, reply, instance, candidateId, errors, attempted) => {
      const csrf = request.consoleUser!.csrfToken;
      const { title, body } = await reportPage(instance, candidateId, {
        csrf,
        canReview: true,
        canRetake: true,
        header: { canDecide: true, canCompare: c.may(request, instance, 'names'), errors: attempted ? errors : undefined, attempted },
        marks: async () =>
          marksPanel({ instance: instance.name, candidateId, marks: await marksOf(db, candidateId), csrf, canDecide: true, errors: attempted ? undefined : errors }),
      });
      return c.render(request, reply, { section: 'candidates', instance }, title, body, 400);
    },
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/candidates/:id/retake', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const assessmentId = body.assessmentId ?? '';
    const ref = { instanceIds: [instance.id], candidateId: request.params.id, assessmentId };
    const fresh = await c.command(request, 'invitation_retake', (ctx) => retakeInvitation(ctx, c.deps.invite, ref));
    const status = await sendFreshLink(c.deps.invite, fresh);
    return reply.redirect(`/console/candidates/${request.params.id}?instance=${encodeURIComponent(instance.name)}&retake=${status}#a-${assessmentId}`, 303);
  });
}
