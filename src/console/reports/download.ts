// "Download PDF" on a candidate's page: the report of one assessment as the PDF that a report
// link's `.pdf` serves (the same drawing, in its worker thread: pdf-pool.ts), for a signed-in user
// who may read the instance, without making or signing a link.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../domain/errors.js';
import { assessmentReports } from '../../modules/attempts/report.js';
import { findCandidate } from '../../modules/candidates/repository.js';
import { brandOf } from '../../modules/tenants/branding.js';
import type { ConsoleContext } from '../context.js';
import { renderReportPdf } from './pdf-pool.js';

export function registerReportDownload(scope: FastifyInstance, c: Pick<ConsoleContext, 'db' | 'now' | 'instanceOf'>): void {
  scope.get<{ Params: { id: string; assessmentId: string }; Querystring: { instance?: string } }>('/console/candidates/:id/pdf/:assessmentId', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const { id, assessmentId } = request.params;
    const candidate = await findCandidate(c.db, [instance.id], id);
    if (!candidate) throw notFound('No candidate with this id in this instance');
    if (candidate.email === null) throw notFound("The candidate's data was erased; the report no longer exists");
    const [report] = await assessmentReports(c.db, [instance.id], id, [assessmentId]);
    if (!report) throw notFound('The candidate was not invited to this assessment');
    const bytes = await renderReportPdf(candidate, report, c.now(), brandOf(instance).company);
    const filename = `${candidate.lastName ?? 'candidate'}-${assessmentId}.pdf`.replace(/[^A-Za-z0-9._-]+/g, '_');
    return reply.header('content-disposition', `attachment; filename="${filename}"`).header('cache-control', 'private, no-store').type('application/pdf').send(bytes);
  });
}
