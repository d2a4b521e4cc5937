// Webcam snapshots in the console: on a candidate's report, each attempt of an assessment that
// takes them shows the candidate's choice (agreed, declined, camera unavailable, not asked) and a
// strip of the images with their times; the images are served one by one behind the same sign-in
// and instance check as the report, never cached. Not on shared report links nor their PDF.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { forbidden, notFound } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { AssessmentReport } from '../../modules/attempts/report.js';
import { BLIND_REFUSAL } from '../../modules/reviews/blind.js';
import { snapshotImage, webcamReports, type WebcamReport, type WebcamState } from '../../modules/snapshots/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { when } from '../format.js';

const STATE_TEXT: Record<WebcamState, string> = {
  agreed: 'agreed',
  declined: 'declined: no snapshots were taken',
  'camera-unavailable': 'agreed, but the camera was unavailable (refused, missing or in use): no snapshots were taken',
  'not-asked': 'not asked',
};

/** The webcam part of one attempt's report. */
export function webcamSection(report: WebcamReport, instance: string): SafeHtml {
  const count = report.snapshots.length;
  const consent = html`<p>Webcam snapshots (one every ${report.intervalSeconds} s): <strong class="webcam-state webcam-${report.state}">${STATE_TEXT[report.state]}</strong>${
    report.chosenAt && ` on ${when(report.chosenAt)}`
  }.${report.state === 'agreed' && report.cameraUnavailableAt && ` The camera became unavailable on ${when(report.cameraUnavailableAt)}.`}</p>`;
  return html`<section class="webcam" aria-labelledby="webcam-${report.attemptId}">
<h3 id="webcam-${report.attemptId}">Webcam snapshots</h3>
${consent}
${
  count > 0 &&
  html`<p class="hint">${count} ${count === 1 ? 'snapshot' : 'snapshots'}, seen only in the console by this company's reviewers; kept until the candidate's erasure or the instance's retention period deletes them.</p>
<ol class="webcam-strip">${report.snapshots.map(
    (s, i) =>
      html`<li><a href="/console/webcam/${s.id}?instance=${instance}"><img src="/console/webcam/${s.id}?instance=${instance}" width="160" height="120" loading="lazy" alt="Webcam snapshot ${i + 1} of ${count}, ${when(s.takenAt)}"></a><span class="webcam-time">${when(s.takenAt).slice(11)}</span></li>`,
  )}</ol>`
}
</section>`;
}

/** The webcam sections of a candidate's reports, by attempt id (for reportBody's `attemptExtras`). */
export async function webcamSections(db: Database, reports: Pick<AssessmentReport, 'attempt'>[], instance: string): Promise<Map<string, SafeHtml>> {
  const found = await webcamReports(
    db,
    reports.flatMap((r) => (r.attempt ? [r.attempt.id] : [])),
  );
  return new Map([...found].map(([id, report]) => [id, webcamSection(report, instance)]));
}

/** GET /console/webcam/:id?instance=…: one snapshot, for those who may read the instance's reports. */
export function registerWebcamRoutes(
  scope: FastifyInstance,
  deps: {
    db: Database;
    instanceOf: (request: FastifyRequest, name: unknown, permission: 'read') => Instance;
    /** Whether the signed-in user may see this candidate (blind review). */
    maySee: (request: FastifyRequest, instance: Instance, candidateId: string) => Promise<boolean>;
  },
): void {
  scope.get<{ Params: { id: string }; Querystring: { instance?: string } }>('/console/webcam/:id', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'read');
    const snapshot = await snapshotImage(deps.db, [instance.id], request.params.id);
    if (!snapshot) throw notFound('No such snapshot in this instance');
    if (!(await deps.maySee(request, instance, snapshot.candidateId))) throw forbidden(BLIND_REFUSAL);
    return reply.type('image/jpeg').header('cache-control', 'private, no-store').header('content-disposition', 'inline').send(snapshot.image);
  });
}
