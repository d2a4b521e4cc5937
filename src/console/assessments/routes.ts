// Assessments of an instance: the list with score distributions and candidates' feedback, a
// document imported (published as a new version by the assessments module's command), and a
// preview of the current version as candidates see it.
import { brandOf } from '../../modules/tenants/branding.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, notFound } from '../../domain/errors.js';
import type { SafeHtml } from '../../html/html.js';
import { publishAssessment } from '../../modules/assessments/commands.js';
import { practiceOf } from '../../modules/assessments/content-schema.js';
import { assessmentUuid, currentContent, listAssessments } from '../../modules/assessments/repository.js';
import { feedbackSummaries } from '../../modules/attempts/feedback.js';
import { layoutNotes } from '../../modules/attempts/layout.js';
import { scoreDistribution } from '../../modules/scores/insights.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { questionField } from '../../views/questions.js';
import type { ConsoleContext } from '../context.js';
import { registerBuilderRoutes } from './builder.js';
import { registerEditorRoutes } from './editor.js';
import { registerQtiRoutes } from './qti.js';
import { assessmentsBody, previewBody, type AssessmentView, type ImportState } from './views.js';

// A refused import's document is put back in the form up to this size (a larger one would make the
// error page as large as the upload).
const ECHO_SOURCE_CHARACTERS = 64 * 1024;

export function registerAssessmentRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const { db } = c;

  async function assessmentsPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, importState?: ImportState, status = 200) {
    const items: AssessmentView[] = [];
    const feedback = await feedbackSummaries(db, instance.id);
    for (const a of await listAssessments(db, [instance.id])) {
      const uuid = await assessmentUuid(db, instance.id, a.id);
      const { roles, readingLevel } = await currentContent(db, uuid!);
      items.push({ ...a, roles, readingLevel, distribution: await scoreDistribution(db, uuid!), feedback: feedback.get(a.id) });
    }
    const body = assessmentsBody(instance.name, items, {
      csrf: request.consoleUser!.csrfToken,
      canManage: c.may(request, instance, 'manage'),
      importState,
      othersUnnamed: !c.may(request, instance, 'names'),
      company: brandOf(instance).company,
    });
    return c.render(request, reply, { section: 'assessments', instance }, `Assessments of ${brandOf(instance).company}`, body, status);
  }

  scope.get<{ Querystring: { instance?: string } }>('/console/assessments', async (request, reply) =>
    assessmentsPage(request, reply, c.instanceOf(request, request.query.instance, 'read')),
  );

  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments', async (request, reply) => {
    const instance = c.instanceOf(request, request.body?.instance, 'manage');
    const source = request.body?.source ?? '';
    let result;
    try {
      result = await c.command(request, 'assessment_import', (ctx) => publishAssessment(ctx, { instance, source }));
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
      const errors = (error.fields ?? []).map((e) => ({ line: e.line, column: e.column, name: e.name, detail: e.detail }));
      // The document comes back in the form to be fixed, unless it is too large to repeat.
      if (source.length > ECHO_SOURCE_CHARACTERS) {
        errors.unshift({
          line: undefined,
          column: undefined,
          name: '(document)',
          detail: `is not shown again (over ${ECHO_SOURCE_CHARACTERS / 1024} K characters): fix it where you edit it and import it again`,
        });
        return assessmentsPage(request, reply, instance, { source: '', errors }, 400);
      }
      return assessmentsPage(request, reply, instance, { source, errors }, 400);
    }
    const verb = { created: 'Published', updated: 'Published a new version of', unchanged: 'Nothing changed in' }[result.outcome];
    const missing = result.warnings?.length ?? 0;
    const warned =
      missing > 0
        ? ` ${missing} text${missing === 1 ? '' : 's'} of its translations ${missing === 1 ? 'is' : 'are'} missing and show${missing === 1 ? 's' : ''} in English (the editor's check lists them).`
        : '';
    return assessmentsPage(request, reply, instance, { source: '', published: `${verb} ${result.id} (version ${result.version}).${warned}` });
  });

  registerQtiRoutes(scope, c);
  const editorDeps = {
    db,
    now: c.now,
    instanceOf: c.instanceOf,
    render: (request: FastifyRequest, reply: FastifyReply, instance: Instance, title: string, body: SafeHtml, status?: number) =>
      c.render(request, reply, { section: 'assessments', instance }, title, body, status),
    mayManage: (request: FastifyRequest, instance: Instance) => c.may(request, instance, 'manage'),
  };
  registerEditorRoutes(scope, editorDeps);
  registerBuilderRoutes(scope, editorDeps);

  scope.get<{ Params: { id: string }; Querystring: { instance?: string } }>('/console/assessments/:id/preview', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const uuid = /^[a-z][a-z0-9-]{0,63}$/.test(request.params.id) ? await assessmentUuid(db, instance.id, request.params.id) : undefined;
    if (!uuid) throw notFound('No such assessment in this instance');
    const content = await currentContent(db, uuid);
    const questions = content.questions.map((q, i) => questionField(q, undefined, `p${i + 1}-`, true));
    // How each attempt is put together (pools, shuffling), and the practice question before Start.
    const practice = practiceOf(content);
    const fairness = { notes: layoutNotes(content), practice: practice && questionField(practice, undefined, 'practice-', true) };
    const body = previewBody(instance.name, content, questions, content.typingTest?.passage, fairness);
    return c.render(request, reply, { section: 'assessments', instance }, `Preview of ${content.name}`, body);
  });
}
