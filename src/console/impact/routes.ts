// The adverse-impact report, for owners and managers (reviewers are refused): per assessment and
// period, the selection rates of the groups candidates identified themselves with, the impact
// ratios and the four-fifths flag, as a page and as CSV; and the self-identification settings
// (on or off, the questions), changed through the equality module's command.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { DomainError, invalidInput, type DomainFieldError } from '../../domain/errors.js';
import { listAssessments, assessmentUuid } from '../../modules/assessments/repository.js';
import { changeSelfIdSettings, selfIdSettingsView } from '../../modules/equality/commands.js';
import { SELECTED_STATUSES, SELECTIONS, impactReport, type Selection } from '../../modules/equality/impact.js';
import { defaultQuestions } from '../../modules/equality/questions.js';
import { impactCounts } from '../../modules/equality/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { ConsoleContext } from '../context.js';
import { impactBody, impactCsv, type ImpactFilters } from './views.js';

type Query = { instance?: string; assessment?: string; from?: string; to?: string; selected?: string; saved?: string };

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const dateText = (d: Date) => d.toISOString().slice(0, 10);

/** A YYYY-MM-DD date that exists (2026-02-30 does not), as midnight UTC. */
function parseDate(value: string, name: string, errors: DomainFieldError[]): Date | undefined {
  const date = DATE.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
  if (!date || Number.isNaN(date.getTime()) || dateText(date) !== value) {
    errors.push({ in: 'query', name, detail: 'must be a date, YYYY-MM-DD' });
    return undefined;
  }
  return date;
}

export function registerImpactRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  /** The page's filters from the query, checked: the last 12 months, PASS only, the first assessment by default. */
  async function filtersOf(instance: Instance, query: Query) {
    const errors: DomainFieldError[] = [];
    const today = dateText(c.now());
    const to = parseDate(query.to || today, 'to', errors);
    const from = parseDate(query.from || dateText(new Date((to ?? c.now()).getTime() - 365 * DAY_MS)), 'from', errors);
    const selected = (query.selected || 'pass') as Selection;
    if (!SELECTIONS.includes(selected)) errors.push({ in: 'query', name: 'selected', detail: `must be one of ${SELECTIONS.join(', ')}` });
    if (from && to && from > to) errors.push({ in: 'query', name: 'from', detail: 'must not be after to' });
    const assessments = (await listAssessments(c.db, [instance.id])).map((a) => ({ id: a.id, name: a.name }));
    const assessment = query.assessment ? assessments.find((a) => a.id === query.assessment) : assessments[0];
    if (query.assessment && !assessment) errors.push({ in: 'query', name: 'assessment', detail: `is not an assessment of ${instance.name}` });
    if (errors.length > 0) throw invalidInput(errors);
    const filters: ImpactFilters = { instance: instance.name, assessment: assessment?.id, from: dateText(from!), to: dateText(to!), selected };
    return { filters, assessments, assessment, period: { from: from!, to: new Date(to!.getTime() + DAY_MS) } };
  }

  async function reportOf(instance: Instance, query: Query) {
    const found = await filtersOf(instance, query);
    const settings = await selfIdSettingsView(c.db, instance.id);
    if (!found.assessment) return { ...found, settings, report: undefined };
    const counts = await impactCounts(c.db, {
      instanceId: instance.id,
      assessmentId: (await assessmentUuid(c.db, instance.id, found.assessment.id))!,
      ...found.period,
      questions: settings.questions.map((q) => q.id),
      selected: SELECTED_STATUSES[found.filters.selected],
    });
    return { ...found, settings, report: impactReport(counts, settings.questions, found.filters.selected) };
  }

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    query: Query,
    extra: { saved?: boolean; errors?: { name: string; detail: string }[]; yaml?: string } = {},
    status = 200,
  ) => {
    const { filters, assessments, assessment, settings, report } = await reportOf(instance, query);
    const body = impactBody({
      filters,
      assessments,
      assessmentName: assessment?.name,
      report,
      settings,
      questionsYaml: extra.yaml ?? stringifyYaml(settings.questions),
      csrf: request.consoleUser!.csrfToken,
      saved: extra.saved,
      errors: extra.errors,
    });
    return c.render(request, reply, { section: 'impact', instance }, `Adverse impact in ${instance.name}`, body, status);
  };

  scope.get<{ Querystring: Query }>('/console/impact', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'manage');
    return show(request, reply, instance, request.query, { saved: request.query.saved === '1' });
  });

  scope.get<{ Querystring: Query }>('/console/impact.csv', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'manage');
    const { filters, assessment, report } = await reportOf(instance, request.query);
    if (!assessment || !report) throw invalidInput([{ in: 'query', name: 'assessment', detail: `${instance.name} has no assessments yet` }]);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="adverse-impact-${instance.name}-${assessment.id}-${filters.from}-${filters.to}.csv"`)
      .send(impactCsv(filters, assessment.name, report));
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/impact/settings', async (request, reply) => {
    const body = request.body ?? {};
    const instance = c.instanceOf(request, body.instance, 'manage');
    const enabled = body.enabled === '1';
    const text = body.questions ?? '';
    let questions: unknown;
    if (body.action === 'default') questions = null;
    else {
      try {
        questions = parseYaml(text);
      } catch (error) {
        const detail = `is not valid YAML: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`;
        return show(request, reply, instance, {}, { errors: [{ name: 'questions', detail }], yaml: text }, 400);
      }
      // The default questions sent back unchanged stay the default set (shown in each candidate's language).
      const current = await selfIdSettingsView(c.db, instance.id);
      if (current.isDefault && JSON.stringify(questions) === JSON.stringify(defaultQuestions())) questions = undefined;
    }
    try {
      await c.command(request, 'self_id_settings', (ctx) => changeSelfIdSettings(ctx, { instance, enabled, questions }));
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      return show(request, reply, instance, {}, { errors: error.fields, yaml: text }, 400);
    }
    return reply.redirect(`/console/impact?instance=${encodeURIComponent(instance.name)}&saved=1#self-id-settings`, 303);
  });
}
