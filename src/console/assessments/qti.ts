// QTI 3.0 packages in the console: an assessment's "Export as QTI" download, and "Import a QTI
// package" (upload, publish through the assessments module's command, and the import report).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import { importQtiPackage, qtiPackageOf, type QtiImportResult } from '../../modules/assessments/qti/commands.js';
import { MAX_PACKAGE_BYTES } from '../../modules/assessments/qti/zip.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { ConsoleContext } from '../context.js';

const BASE = '/console/assessments/qti';
const MB = 1024 * 1024;

interface UploadState {
  errors?: { name: string; detail: string }[];
  result?: QtiImportResult;
}

function reportList(result: QtiImportResult): SafeHtml {
  const r = result.report;
  const where = (n: { file: string; item?: string }) => html`<code>${n.file}</code>${n.item ? html` (<code>${n.item}</code>)` : ''}`;
  return html`<section class="panel" aria-labelledby="qti-report-heading">
<h2 id="qti-report-heading">Import report</h2>
<p class="info" role="status">${{ created: 'Published', updated: 'Published a new version of', unchanged: 'Nothing changed in' }[result.outcome]} ${result.id} (version ${result.version}): ${r.imported.length} item${r.imported.length === 1 ? '' : 's'} imported, ${r.notImported.length} not imported.</p>
<p><a href="/console/assessments/${result.id}/preview?instance=${result.instance}">Preview it as a candidate sees it</a> · <a href="/console/assessments/${result.id}/edit?instance=${result.instance}">Edit it</a></p>
<h3>Imported</h3>
<table><thead><tr><th scope="col">File</th><th scope="col">Item</th><th scope="col">Question</th><th scope="col">Type</th></tr></thead>
<tbody>${r.imported.map((i) => html`<tr><td><code>${i.file}</code></td><td><code>${i.item}</code></td><td><code>${i.question}</code></td><td>${i.type}</td></tr>`)}</tbody></table>
<h3>Not imported</h3>
${r.notImported.length === 0 ? html`<p>Everything in the package was imported.</p>` : html`<ul class="qti-not-imported">${r.notImported.map((n) => html`<li>${where(n)}: ${n.what}: ${n.why}</li>`)}</ul>`}
<h3>Notes</h3>
${r.notes.length === 0 ? html`<p>Nothing was changed or left out within the items imported.</p>` : html`<ul class="qti-notes">${r.notes.map((n) => html`<li>${where(n)}: ${n.what}</li>`)}</ul>`}
</section>`;
}

function uploadBody(instance: string, csrf: string, state: UploadState): SafeHtml {
  return html`<p class="no-print"><a href="/console/assessments?instance=${instance}">Back to assessments</a></p>
<h1>Import a QTI package</h1>
<p>A QTI 3.0 content package (a zip with <code>imsmanifest.xml</code>) from TAO, Moodle or any QTI tool, or exported here. Its items become the questions of an assessment; the report names every item imported and everything that did not map, and why. At most ${MAX_PACKAGE_BYTES / MB} MB. See the QTI mapping in the documentation (docs/qti.md).</p>
${
  state.errors &&
  html`<div class="error-list" role="alert" id="qti-errors"><p class="error">The package was refused; nothing was published:</p>
<ul>${state.errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`
}
${state.result && reportList(state.result)}
<form method="post" action="${BASE}" enctype="multipart/form-data" class="import-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<label for="qti-file">QTI package (.zip)</label>
<input type="file" id="qti-file" name="file" accept=".zip,application/zip" required${state.errors && html` aria-describedby="qti-errors" aria-invalid="true"`}>
<button type="submit" class="primary">Import and publish</button>
</form>`;
}

export function registerQtiRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  const page = (request: FastifyRequest, reply: FastifyReply, instance: Instance, state: UploadState, status = 200) =>
    c.render(
      request,
      reply,
      { section: 'assessments', instance },
      `Import a QTI package · ${instance.name}`,
      uploadBody(instance.name, request.consoleUser!.csrfToken, state),
      status,
    );

  scope.get<{ Querystring: { instance?: string } }>(BASE, async (request, reply) => page(request, reply, c.instanceOf(request, request.query.instance, 'manage'), {}));

  scope.post<{ Body: Record<string, unknown> }>(
    BASE,
    // The file is read up to one byte past the limit, so that a larger one is told its size.
    {
      config: { multipartOptions: { limits: { fileSize: MAX_PACKAGE_BYTES + 1, files: 1, fields: 10 }, throwFileSizeLimit: false } as never },
      bodyLimit: MAX_PACKAGE_BYTES + 64 * 1024,
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const instance = c.instanceOf(request, body.instance, 'manage');
      const file = body.file as { bytes?: unknown; filename?: unknown } | undefined;
      try {
        if (!file || !Buffer.isBuffer(file.bytes) || file.bytes.length === 0)
          throw new DomainError('invalid', 'choose a QTI package', [{ name: 'file', detail: 'choose a QTI package (.zip) to upload' }]);
        const bytes = file.bytes;
        const fileName = typeof file.filename === 'string' ? file.filename : 'package.zip';
        const result = await c.command(request, 'assessment_import_qti', (ctx) => importQtiPackage(ctx, { instance, bytes, fileName }));
        return page(request, reply, instance, { result });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
        const errors = (error.fields ?? []).map((e) => ({ name: e.name, detail: e.detail }));
        return page(request, reply, instance, { errors: errors.length > 0 ? errors : [{ name: 'file', detail: error.message }] }, 400);
      }
    },
  );

  scope.get<{ Params: { id: string }; Querystring: { instance?: string } }>('/console/assessments/:id/qti', async (request, reply) => {
    const instance = c.instanceOf(request, request.query.instance, 'read');
    const exported = await qtiPackageOf(c.db, instance.id, request.params.id);
    return reply.type('application/zip').header('content-disposition', `attachment; filename="${exported.id}-qti.zip"`).send(Buffer.from(exported.zip));
  });
}
