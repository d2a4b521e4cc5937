// Report links for recruiters, opened without an account: the report of one candidate's
// assessment as a page (read-only: no review form) or, with `.pdf`, as a PDF. The link's
// signature, expiry and revocation are checked by the reports module; an invalid link is 404,
// an expired or revoked one 410, each with a page that says which.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { problemFor } from '../../http/errors.js';
import { assessmentReports } from '../../modules/attempts/report.js';
import { findCandidate } from '../../modules/candidates/repository.js';
import type { RefusalLimit } from '../../modules/limits/rate-limit.js';
import { checkReportLink } from '../../modules/reports/links.js';
import { brandOf } from '../../modules/tenants/branding.js';
import { findInstanceById } from '../../modules/tenants/repository.js';
import { PAGE_HEADERS } from '../../http/page-headers.js';
import { sharedReportMessage, sharedReportPage } from '../layout.js';
import { reportBody } from './view.js';
import { renderReportPdf } from './pdf-pool.js';

// The link's signature is in its query string: no Referer may carry it anywhere, no cache or
// search engine may keep the report.
const HEADERS = { ...PAGE_HEADERS, 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex, nofollow', 'cache-control': 'private, no-store' };

const REFUSALS = {
  invalid: [404, 'Report link not valid', 'This link does not open a report. Check that it was copied whole, or ask for a new link.'],
  expired: [410, 'Report link expired', 'This report link has expired. Ask for a new link from the system you opened it from.'],
  revoked: [410, 'Report link withdrawn', 'This report link was withdrawn. Ask for a new link from the system you opened it from.'],
  erased: [410, 'Report no longer available', "The candidate's data was erased; the report no longer exists."],
} as const;

export async function reportLinkRoutes(app: FastifyInstance, { db, now, refusals }: { db: Queryable; now: () => Date; refusals: RefusalLimit }): Promise<void> {
  const refuse = (reply: FastifyReply, reason: keyof typeof REFUSALS) => {
    const [status, title, message] = REFUSALS[reason];
    return reply.code(status).headers(HEADERS).type('text/html; charset=utf-8').send(sharedReportMessage(title, message).toString());
  };

  app.setErrorHandler((error, request, reply) => {
    const problem = problemFor(error, request);
    if (problem.headers) reply.headers(problem.headers);
    const message =
      problem.status === 503
        ? 'The report cannot be read right now. Try again in a few seconds.'
        : problem.status === 429
          ? problem.detail
          : `Something went wrong. If it happens again, quote this reference: ${request.id}`;
    return reply.code(problem.status).headers(HEADERS).type('text/html; charset=utf-8').send(sharedReportMessage('Report unavailable', message).toString());
  });

  app.get<{ Params: { candidateId: string; file: string }; Querystring: Record<string, string | string[] | undefined> }>(
    '/reports/:candidateId/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const { candidateId, file } = request.params;
      const pdf = file.endsWith('.pdf');
      const assessmentId = pdf ? file.slice(0, -4) : file;
      const { expires, signature, ...rest } = request.query;
      if (Object.keys(rest).length > 0 || typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) {
        await refusals.failed(request);
        return refuse(reply, 'invalid');
      }
      const at = now();
      // Counted before the signature is checked (as sign-in links are): guessing is refused with 429.
      await refusals.reserve(request);
      const check = await checkReportLink(db, { candidateId, assessmentId, expires: Number(expires), signature }, at);
      if (check.state === 'invalid') return refuse(reply, 'invalid');
      await refusals.release(request);
      if (check.state !== 'valid') return refuse(reply, check.state);
      const candidate = await findCandidate(db, [check.instanceId], candidateId);
      const [report] = await assessmentReports(db, [check.instanceId], candidateId, [assessmentId]);
      if (!candidate || !report) return refuse(reply, 'invalid');
      if (candidate.email === null) return refuse(reply, 'erased');
      const instance = await findInstanceById(db, check.instanceId);
      const company = instance ? brandOf(instance).company : candidate.instance;
      if (pdf) {
        const bytes = await renderReportPdf(db, request.log, candidate, report, at, company);
        const filename = `${candidate.lastName ?? 'candidate'}-${assessmentId}.pdf`.replace(/[^A-Za-z0-9._-]+/g, '_');
        return reply.headers(HEADERS).header('content-disposition', `inline; filename="${filename}"`).type('application/pdf').send(bytes);
      }
      const pdfHref = `/reports/${candidateId}/${assessmentId}.pdf?expires=${expires}&signature=${signature}`;
      const body = reportBody(candidate, [report], { csrf: '', instance: instance?.name ?? '', company, canReview: false, pdfHref });
      return reply
        .headers(HEADERS)
        .type('text/html; charset=utf-8')
        .send(sharedReportPage(`${candidate.firstName} ${candidate.lastName}: ${report.assessmentName}`, company, body).toString());
    },
  );
}
