// "Download PDF" on a candidate's page: the report of one assessment as the PDF that a report
// link's `.pdf` serves (the same drawing, in its worker thread: pdf-pool.ts), for a signed-in user
// who may read the instance, without making or signing a link.
import type { FastifyInstance } from 'fastify';
import { forbidden, notFound } from '../../domain/errors.js';
import { BLIND_REFUSAL, maySeeCandidate } from '../../modules/reviews/blind.js';
import { assessmentReports } from '../../modules/attempts/report.js';
import { findCandidate } from '../../modules/candidates/repository.js';
import { brandOf } from '../../modules/tenants/branding.js';
import type { ConsoleContext } from '../context.js';
import { html } from '../../html/html.js';
import { reportLinks } from '../../modules/reports/links.js';
import { renderReportPdf } from './pdf-pool.js';

export function registerReportDownload(scope: FastifyInstance, c: Pick<ConsoleContext, 'db' | 'now' | 'instanceOf' | 'render' | 'deps'>): void {
  scope.get<{ Params: { id: string; assessmentId: string }; Querystring: { instance?: string } }>('/console/candidates/:id/pdf/:assessmentId', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const { id, assessmentId } = request.params;
    // Under blind review, as the candidate's page: only once the reviewer's own reviews of them are in.
    if (!(await maySeeCandidate(c.db, instance, request.consoleUser!.user, id))) throw forbidden(BLIND_REFUSAL);
    const candidate = await findCandidate(c.db, [instance.id], id);
    if (!candidate) throw notFound('No candidate with this id in this instance');
    if (candidate.email === null) throw notFound("The candidate's data was erased; the report no longer exists");
    const [report] = await assessmentReports(c.db, [instance.id], id, [assessmentId]);
    if (!report) throw notFound('The candidate was not invited to this assessment');
    const bytes = await renderReportPdf(c.db, request.log, candidate, report, c.now(), brandOf(instance).company);
    const filename = `${candidate.lastName ?? 'candidate'}-${assessmentId}.pdf`.replace(/[^A-Za-z0-9._-]+/g, '_');
    return reply.header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'private, no-store').type('application/pdf').send(bytes);
  });

  // "Copy report link": the signed link the API's reportUrl gives for this assessment (the
  // instance's link days), on a page of its own to copy from, for those who manage the instance.
  scope.get<{ Params: { id: string; assessmentId: string }; Querystring: { instance?: string } }>('/console/candidates/:id/link/:assessmentId', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'manage');
    const { id, assessmentId } = request.params;
    const candidate = await findCandidate(c.db, [instance.id], id);
    if (!candidate || candidate.email === null) throw notFound('No candidate with this id in this instance');
    const [report] = await assessmentReports(c.db, [instance.id], id, [assessmentId]);
    if (!report) throw notFound('The candidate was not invited to this assessment');
    const link = (
      await reportLinks(c.db, { instanceId: instance.id, days: instance.reportLinkDays, candidateId: id, assessmentIds: [assessmentId] }, c.now(), c.deps.publicUrl)
    ).get(assessmentId)!;
    const name = `${candidate.firstName} ${candidate.lastName}`;
    return c.render(
      request,
      reply,
      { section: 'candidates', instance },
      `Report link: ${name}`,
      html`<div class="page-header"><div><h1>Report link: ${name}</h1><p class="lead">${report.assessmentName}: opens the report without an account, read only, for ${instance.reportLinkDays} days.</p></div></div>
<div class="panel"><label for="report-link">The link</label><input type="text" id="report-link" class="copy-source" value="${link}" readonly size="60">
<p class="actions"><button type="button" class="primary copy-button" data-copies="report-link" hidden>Copy report link</button> <a href="/console/candidates/${id}?instance=${instance.name}">Back to ${name}</a></p></div>`,
    );
  });
}
