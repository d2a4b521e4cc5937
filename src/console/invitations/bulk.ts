// Inviting in bulk from a CSV file, in the console (owners and managers: whoever may invite):
// upload the file, map its columns to the fields of an invite, choose the assessments, read the
// preview (every bad row by line, column and why; duplicates; candidates known already), start.
// The rows are invited by a background job (modules/bulk-invites/job.ts): the page shows the
// progress, refreshing itself while the job runs (console.js; a reload does the same), and offers
// the result file when it is done. The page may be closed at any time.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput } from '../../domain/errors.js';
import { problemFor } from '../../http/errors.js';
import { commandRequest } from '../../http/command.js';
import { html, type SafeHtml } from '../../html/html.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { cancelBulkInvite, importBulkInvite, prepareBulkInvite, startBulkInvite } from '../../modules/bulk-invites/commands.js';
import type { Mapping } from '../../modules/bulk-invites/csv.js';
import { FIELDS, FIELD_LABELS, MAX_FILE_BYTES, MAX_ROWS, readCsv } from '../../modules/bulk-invites/csv.js';
import { getBulkInvite, listBulkInvites, listRows, resultCsv, type BulkInviteView, type BulkRowView } from '../../modules/bulk-invites/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { when } from '../format.js';
import type { Frame } from '../layout.js';
import { optionSearch } from '../components.js';

export interface BulkInvitePageDeps {
  db: Database;
  now: () => Date;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml;
  frameOf(request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame;
  instanceOf(request: FastifyRequest, name: unknown, permission: 'manage'): Instance;
}

type Errors = { name: string; detail: string; line?: number }[];

const PREVIEW_ROWS = 500;
const BASE = '/console/invite/bulk';
const q = (instance: string) => `?instance=${encodeURIComponent(instance)}`;

const STATUS_TEXT: Record<BulkInviteView['status'], string> = {
  draft: 'uploaded: map its columns',
  ready: 'previewed: not started',
  running: 'inviting',
  done: 'done',
  cancelled: 'cancelled',
};

function errorList(errors: Errors | undefined, lead: string): SafeHtml | undefined {
  if (!errors || errors.length === 0) return undefined;
  return html`<div role="alert" id="bulk-errors"><p class="error">${lead}</p><ul>${errors.map((e) => html`<li>${e.line ? `Line ${e.line}: ` : ''}<code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`;
}

function uploadBody(instance: string, csrf: string, recent: BulkInviteView[], errors?: Errors): SafeHtml {
  return html`<h1>Invite from a CSV file</h1>
<p><a href="/console/invitations${q(instance)}">Back to invitations</a></p>
${errorList(errors, 'The file was not stored:')}
<section class="panel" aria-labelledby="upload-heading">
<h2 id="upload-heading">Upload a file</h2>
<p class="hint">A CSV file saved as UTF-8, separated by commas or semicolons, with a header row naming its columns: at least e-mail, first name and last name. At most ${MAX_ROWS.toLocaleString('en')} rows and ${MAX_FILE_BYTES / 1024 / 1024} MB. Nothing is sent before you have seen the preview.</p>
<p class="hint">Optional columns: <strong>assessments</strong>, the ids of the row's own assessments separated by <code>;</code> or <code>|</code> (rows without them take the assessments you choose after the upload); <strong>language</strong>, the candidate's language as a tag such as <code>en</code>, <code>de</code> or <code>es</code>; <strong>external reference</strong>; <strong>extra time (%)</strong>.</p>
<form method="post" action="${BASE}" enctype="multipart/form-data" class="invite-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<div class="field"><label for="bulk-file">CSV file</label><input type="file" id="bulk-file" name="file" accept=".csv,text/csv" required></div>
<button type="submit" class="primary">Upload</button>
</form>
</section>
<h2>Recent files</h2>
${
  recent.length === 0
    ? html`<p>No file has been uploaded yet.</p>`
    : html`<table class="data"><caption class="visually-hidden">Recent bulk invites, newest first</caption>
<thead><tr><th scope="col">File</th><th scope="col">Uploaded</th><th scope="col">Rows</th><th scope="col">State</th><th scope="col">Invited</th></tr></thead>
<tbody>${recent.map(
        (b) =>
          html`<tr><td><a href="${BASE}/${b.id}${q(instance)}">${b.fileName}</a></td><td data-label="Uploaded">${when(b.createdAt)}</td><td data-label="Rows">${b.rowCount}</td><td data-label="State">${STATUS_TEXT[b.status]}</td><td data-label="Invited">${b.counts.invited}</td></tr>`,
      )}</tbody></table>`
}`;
}

function problemCell(row: BulkRowView): SafeHtml {
  if (row.status === 'invalid') return html`<ul class="plain">${row.errors.map((e) => html`<li><strong>${e.column}</strong>: ${e.detail}</li>`)}</ul>`;
  if (row.status === 'duplicate') return html`the same e-mail as line ${row.duplicateOf}: not invited twice`;
  if (row.status === 'failed') return html`${row.detail ?? 'refused'}`;
  return html`${row.notes.join('; ')}`;
}

const ROW_LABEL: Record<BulkRowView['status'], string> = {
  invalid: 'bad row: not invited',
  duplicate: 'duplicate: not invited',
  failed: 'refused',
  pending: 'will be invited',
  invited: 'invited',
  skipped: 'left (cancelled)',
};

interface DetailState {
  errors?: Errors;
  /** The form as posted, when it was refused. */
  values?: { mapping: Mapping; assessments: string[]; sendInvite: boolean };
}

function detailBody(
  instance: string,
  csrf: string,
  bulk: BulkInviteView,
  assessments: { id: string; name: string }[],
  sample: BulkRowView[],
  problems: BulkRowView[],
  state: DetailState,
): SafeHtml {
  const editable = bulk.status === 'draft' || bulk.status === 'ready';
  const values = state.values ?? { mapping: bulk.mapping, assessments: bulk.assessments, sendInvite: bulk.sendInvite };
  const c = bulk.counts;
  const tried = c.invited + c.failed + c.skipped;
  const mappingForm =
    editable &&
    html`<section class="panel" aria-labelledby="map-heading">
<h2 id="map-heading">1. Which column is which</h2>
${errorList(state.errors, 'Nothing was checked:')}
<form method="post" action="${BASE}/${bulk.id}/preview" class="invite-form" id="bulk-map">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
${FIELDS.map(
  (field) =>
    html`<div class="field"><label for="map-${field}">${FIELD_LABELS[field]}${['email', 'firstName', 'lastName'].includes(field) ? ' (required)' : ''}</label>
<select id="map-${field}" name="map_${field}"><option value="">(none)</option>${bulk.headers.map(
      (h, i) => html`<option value="${String(i)}"${values.mapping[field] === i && html` selected`}>${h || `column ${i + 1}`}</option>`,
    )}</select></div>`,
)}
<fieldset><legend>2. Assessments</legend>
${optionSearch('bulk-assessments', assessments.length)}<div class="option-list" id="bulk-assessments">${assessments.map(
      (a) =>
        html`<div class="option"><input type="checkbox" id="bulk-a-${a.id}" name="assessments" value="${a.id}"${values.assessments.includes(a.id) && html` checked`}><label for="bulk-a-${a.id}">${a.name}</label></div>`,
    )}</div>
</fieldset>
<div class="option"><input type="checkbox" id="bulk-send" name="sendInvite" value="true"${values.sendInvite && html` checked`}><label for="bulk-send">E-mail each candidate their invitation</label></div>
<button type="submit" class="primary">Check the rows</button>
</form>
<h3>The first rows of the file</h3>
<div class="table-scroll" role="region" aria-label="The first rows of the file" tabindex="0"><table class="data"><caption class="visually-hidden">The first rows of ${bulk.fileName}</caption>
<thead><tr><th scope="col">Line</th>${bulk.headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${sample.map((r) => html`<tr><td>${r.line}</td>${r.cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table></div>
</section>`;
  const preview =
    bulk.status !== 'draft' &&
    html`<section class="panel" aria-labelledby="preview-heading">
<h2 id="preview-heading">${bulk.status === 'ready' ? '3. Preview' : 'Rows'}</h2>
<p id="bulk-summary">${bulk.rowCount} rows: ${c.pending + c.invited + c.failed + c.skipped} to invite, <strong>${c.invalid} bad</strong>, ${c.duplicate} duplicate${c.duplicate === 1 ? '' : 's'}, ${bulk.existing} known already. Assessments: ${bulk.assessments.join(', ')}; ${bulk.sendInvite ? 'each candidate is e-mailed' : 'nobody is e-mailed'}.</p>
${
  problems.length === 0
    ? html`<p>Every row is good.</p>`
    : html`<div class="table-scroll" role="region" aria-label="Rows to look at" tabindex="0"><table class="data" id="bulk-problems"><caption>Rows to look at${problems.length >= PREVIEW_ROWS ? html` (the first ${PREVIEW_ROWS}; the result file has all)` : ''}</caption>
<thead><tr><th scope="col">Line</th><th scope="col">E-mail</th><th scope="col">What</th><th scope="col">Why</th></tr></thead>
<tbody>${problems.map((r) => html`<tr class="${`row-${r.status}`}"><td>${r.line}</td><td>${r.email ?? ''}</td><td>${ROW_LABEL[r.status]}</td><td>${problemCell(r)}</td></tr>`)}</tbody></table></div>`
}
${
  bulk.status === 'ready' &&
  html`<form method="post" action="${BASE}/${bulk.id}/start" class="inline">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<button type="submit" class="primary" id="bulk-start"${c.pending === 0 && html` disabled`}>Invite ${c.pending} candidate${c.pending === 1 ? '' : 's'}</button>
</form>`
}
</section>`;
  const progress =
    (bulk.status === 'running' || bulk.status === 'done' || bulk.status === 'cancelled') &&
    html`<section class="panel" aria-labelledby="progress-heading"${bulk.status === 'running' && html` data-refresh="2"`}>
<h2 id="progress-heading">Progress</h2>
<p><progress max="${String(tried + c.pending)}" value="${String(tried)}" aria-labelledby="progress-heading"></progress></p>
<p role="status" id="bulk-progress">${STATUS_TEXT[bulk.status]}: ${tried} of ${tried + c.pending} rows tried, ${c.invited} invited, ${c.failed} refused${c.skipped > 0 ? `, ${c.skipped} left` : ''}.</p>
${bulk.status === 'running' && html`<p class="hint">You may close this page: the service goes on, and this page shows how far it is when you come back.</p>`}
${
  bulk.status === 'running' &&
  html`<form method="post" action="${BASE}/${bulk.id}/cancel" class="inline confirm" data-confirm="Stop inviting? Rows not yet invited are left.">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<button type="submit">Cancel</button>
</form>`
}
${bulk.status !== 'running' && html`<p><a href="${BASE}/${bulk.id}/result.csv${q(instance)}" id="bulk-result" download>Download the result file (CSV)</a></p>`}
</section>`;
  return html`<h1>${bulk.fileName}</h1>
<p><a href="${BASE}${q(instance)}">All files</a> · uploaded ${when(bulk.createdAt)} · ${bulk.rowCount} rows · ${STATUS_TEXT[bulk.status]}</p>
${mappingForm}
${preview}
${progress}`;
}

const fieldsOf = (error: unknown, request: FastifyRequest): Errors | undefined => {
  const problem = problemFor(error, request);
  if (problem.status !== 400) return undefined;
  const errors = (problem.errors ?? []).map((e) => ({ name: e.name, detail: e.detail, line: (e as { line?: number }).line }));
  return errors.length > 0 ? errors : [{ name: 'file', detail: problem.detail }];
};

export function bulkInviteRoutes(scope: FastifyInstance, deps: BulkInvitePageDeps): void {
  const { db } = deps;
  const csrfOf = (request: FastifyRequest) => request.consoleUser!.csrfToken;

  async function uploadPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, errors?: Errors, status = 200) {
    const recent = await listBulkInvites(db, instance.id);
    return deps.page(
      reply,
      deps.consolePage(deps.frameOf(request, 'invitations', instance), `Invite from a CSV file · ${instance.name}`, uploadBody(instance.name, csrfOf(request), recent, errors)),
      status,
    );
  }

  async function detailPage(request: FastifyRequest, reply: FastifyReply, instance: Instance, id: string, state: DetailState = {}, status = 200) {
    const bulk = await getBulkInvite(db, instance.id, id);
    const assessments = (await listAssessments(db, [instance.id])).map((a) => ({ id: a.id, name: a.name }));
    const sample = bulk.status === 'draft' || bulk.status === 'ready' ? await listRows(db, bulk.id, { limit: 5 }) : [];
    const problems = bulk.status === 'draft' ? [] : await listRows(db, bulk.id, { problemsOnly: true, limit: PREVIEW_ROWS });
    return deps.page(
      reply,
      deps.consolePage(
        deps.frameOf(request, 'invitations', instance),
        `${bulk.fileName} · ${instance.name}`,
        detailBody(instance.name, csrfOf(request), bulk, assessments, sample, problems, state),
      ),
      status,
    );
  }

  const detailUrl = (instance: Instance, id: string) => `${BASE}/${id}${q(instance.name)}`;

  scope.get<{ Querystring: { instance?: string } }>(BASE, async (request, reply) => uploadPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage')));

  scope.post<{ Body: Record<string, unknown> }>(
    BASE,
    // The file is read up to one byte past the limit, so that a larger one is told its size.
    { config: { multipartOptions: { limits: { fileSize: MAX_FILE_BYTES + 1, files: 1, fields: 10 }, throwFileSizeLimit: false } as never }, bodyLimit: MAX_FILE_BYTES + 64 * 1024 },
    async (request, reply) => {
      const body = request.body ?? {};
      const instance = deps.instanceOf(request, body.instance, 'manage');
      const file = body.file as { bytes?: unknown; filename?: unknown } | undefined;
      try {
        if (!file || !Buffer.isBuffer(file.bytes)) throw invalidInput([{ in: 'body', name: 'file', detail: 'choose a CSV file to upload' }]);
        const table = readCsv(file.bytes);
        const made = await runCommand(
          db,
          commandRequest(request, deps.now()),
          (ctx) => importBulkInvite(ctx, { instanceId: instance.id, fileName: typeof file.filename === 'string' ? file.filename : 'upload.csv', table }),
          'bulk_invite_import',
        );
        return reply.redirect(detailUrl(instance, made.id), 303);
      } catch (error) {
        const errors = error instanceof DomainError ? fieldsOf(error, request) : undefined;
        if (!errors) throw error;
        return uploadPage(request, reply, instance, errors, 400);
      }
    },
  );

  scope.get<{ Params: { id: string }; Querystring: { instance?: string } }>(`${BASE}/:id`, async (request, reply) =>
    detailPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), request.params.id),
  );

  scope.post<{ Params: { id: string }; Body: Record<string, string | string[] | undefined> }>(`${BASE}/:id/preview`, async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const mapping: Mapping = {};
    for (const field of FIELDS) {
      const value = body[`map_${field}`];
      if (typeof value === 'string' && /^\d{1,2}$/.test(value)) mapping[field] = Number(value);
    }
    const assessments = body.assessments === undefined ? [] : ([] as string[]).concat(body.assessments);
    const sendInvite = body.sendInvite === 'true';
    try {
      await runCommand(
        db,
        commandRequest(request, deps.now()),
        (ctx) => prepareBulkInvite(ctx, { instanceId: instance.id, id: request.params.id, mapping, assessments, sendInvite }),
        'bulk_invite_prepare',
      );
    } catch (error) {
      const errors = error instanceof DomainError && error.code === 'invalid' ? fieldsOf(error, request) : undefined;
      if (!errors) throw error;
      return detailPage(request, reply, instance, request.params.id, { errors, values: { mapping, assessments, sendInvite } }, 400);
    }
    return reply.redirect(`${detailUrl(instance, request.params.id)}#preview-heading`, 303);
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>(`${BASE}/:id/start`, async (request, reply) => {
    const instance = deps.instanceOf(request, request.body?.instance, 'manage');
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => startBulkInvite(ctx, { instanceId: instance.id, id: request.params.id }), 'bulk_invite_start');
    return reply.redirect(detailUrl(instance, request.params.id), 303);
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>(`${BASE}/:id/cancel`, async (request, reply) => {
    const instance = deps.instanceOf(request, request.body?.instance, 'manage');
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => cancelBulkInvite(ctx, { instanceId: instance.id, id: request.params.id }), 'bulk_invite_cancel');
    return reply.redirect(detailUrl(instance, request.params.id), 303);
  });

  scope.get<{ Params: { id: string }; Querystring: { instance?: string } }>(`${BASE}/:id/result.csv`, async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'manage');
    const text = await resultCsv(db, instance.id, request.params.id);
    return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="bulk-invite-${request.params.id}-result.csv"`).send(text);
  });
}
