// The assessment editor of the console: an assessment's whole content as YAML, in a form that
// works without JavaScript (a textarea and buttons), which content-editor.js turns into CodeMirror
// with checks as you type (the importer's words, by line), an outline and a live preview. Drafts
// are saved, discarded and published by the assessments module's commands (drafts.ts); a page
// lists an assessment's versions and the line changes between any two (or the draft).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput, notFound } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import { practiceOf, type AssessmentContent } from '../../modules/assessments/content-schema.js';
import type { ContentError } from '../../modules/assessments/content.js';
import { diffText, type DiffLine } from '../../modules/assessments/diff.js';
import {
  DRAFT_MAX_BYTES,
  contentSummary,
  contentYaml,
  discardDraft,
  findDraft,
  listVersions,
  publishDraft,
  saveDraft,
  validateDraft,
  versionContent,
  type ContentSummary,
  type Draft,
  type DraftTarget,
  type VersionEntry,
} from '../../modules/assessments/drafts.js';
import { assessmentUuid, currentContent } from '../../modules/assessments/repository.js';
import { layoutNotes } from '../../modules/attempts/layout.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { questionField } from '../../views/questions.js';
import { when } from '../format.js';
import { head } from '../pages.js';
import { previewBody } from './views.js';

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;
/** Unchanged lines shown around each change in a diff; longer runs are folded. */
const DIFF_CONTEXT = 3;

/** What a new assessment starts from: valid, with a question of the commonest type, to be rewritten. */
export const NEW_TEMPLATE = `id: my-assessment
name: My assessment
description: What the assessment measures, shown to clients and candidates.
instructions: |
  Shown to the candidate before starting.
durationMinutes: 20
passScore: 70
lowPassScore: 50
categories:
  - id: knowledge
    name: Knowledge
questions:
  - id: q1
    type: single-choice
    category: knowledge
    prompt: Which option is right?
    options:
      - text: This one
        correct: true
      - text: That one
`;

type Permission = 'read' | 'review' | 'manage';

/** The signed-in user as the author of a new assessment's draft (as the commands name the actor). */
const authorOf = (request: FastifyRequest) => `user:${request.consoleUser!.user.email.toLowerCase()}`;

export interface EditorRouteDeps {
  db: Database;
  now: () => Date;
  /** The instance named (or the first the user may see), if the signed-in user may `permission` it (else 403). */
  instanceOf: (request: FastifyRequest, name: unknown, permission: Permission) => Instance;
  /** Sends a console page in the assessments section. */
  render: (request: FastifyRequest, reply: FastifyReply, instance: Instance, title: string, body: SafeHtml, status?: number) => unknown;
  /** Whether the signed-in user may manage the instance (edit its assessments). */
  mayManage: (request: FastifyRequest, instance: Instance) => boolean;
}

interface EditorState {
  instance: string;
  csrf: string;
  /** The assessment edited (its id), or null for a new one. */
  assessment: string | null;
  name: string;
  source: string;
  draft?: Draft;
  currentVersion?: number;
  errors?: ContentError[];
  summary?: ContentSummary;
  notice?: string;
}

const errorLine = (e: { line?: number; column?: number; path: string; message: string }) =>
  html`<li>${e.line ? html`<strong>Line ${e.line}${e.column ? `, column ${e.column}` : ''}:</strong> ` : ''}<code>${e.path || '(document)'}</code> ${e.message}</li>`;

/** The check's result: the problems in the importer's words with their lines, or that it would publish. */
export function checkPanel(errors: ContentError[] | undefined): SafeHtml {
  if (errors === undefined) return html`<p class="hint">Not checked yet.</p>`;
  if (errors.length === 0) return html`<p class="info">No problems: this would publish.</p>`;
  return html`<p class="error">${errors.length} problem${errors.length === 1 ? '' : 's'}; it would not publish:</p><ul class="check-errors">${errors.map(errorLine)}</ul>`;
}

const TYPE_NAMES: Record<string, string> = {
  'single-choice': 'Single choice',
  'multiple-choice': 'Multiple choice',
  'short-answer': 'Short answer',
  'free-text': 'Free text',
  likert: 'Likert',
  ranking: 'Ranking',
  coding: 'Coding',
};

/** The outline of valid content: settings, categories and weights, questions by type. */
export function outlinePanel(summary: ContentSummary | undefined): SafeHtml {
  if (!summary) return html`<p class="hint">Shown when the content has no problems.</p>`;
  return html`<dl class="figures outline">
<div><dt>Id</dt><dd>${summary.id}</dd></div>
<div><dt>Time limit</dt><dd>${summary.durationMinutes} min</dd></div>
<div><dt>Pass / low pass</dt><dd>${summary.passScore} % / ${summary.lowPassScore} %</dd></div>
<div><dt>Questions per attempt</dt><dd>${summary.attemptQuestions}${summary.typingTest ? ' + typing test' : ''}</dd></div>
${(summary.shuffleQuestions || summary.shuffleOptions) && html`<div><dt>Shuffled</dt><dd>${[summary.shuffleQuestions && 'questions', summary.shuffleOptions && 'options'].filter(Boolean).join(', ')}</dd></div>`}
</dl>
<table class="data outline-categories"><caption>Categories</caption>
<thead><tr><th scope="col">Category</th><th scope="col">Weight</th><th scope="col">Questions</th></tr></thead>
<tbody>${summary.categories.map(
    (c) =>
      html`<tr><th scope="row">${c.name} <span class="hint">(${c.id})</span></th><td>${c.weight}</td><td>${c.questions}${c.draw !== undefined ? ` (${c.draw} drawn)` : ''}${summary.typingTest?.category === c.id ? ' + typing' : ''}</td></tr>`,
  )}</tbody></table>
<p>Questions by type: ${Object.entries(summary.types)
    .map(([type, n]) => `${TYPE_NAMES[type] ?? type} ${n}`)
    .join(
      ', ',
    )}${summary.typingTest ? `; typing test (target ${summary.typingTest.targetWpm} wpm)` : ''}${summary.practice ? `; practice question (${TYPE_NAMES[summary.practice] ?? summary.practice})` : ''}.</p>`;
}

function editorBody(s: EditorState): SafeHtml {
  const action = s.assessment === null ? '/console/assessments/new' : `/console/assessments/${s.assessment}/edit`;
  const versions = s.assessment !== null && html` · <a href="/console/assessments/${s.assessment}/versions?instance=${s.instance}">Versions and changes</a>`;
  const draftNote = s.draft
    ? html`<p class="info">Draft saved by ${s.draft.savedBy.replace(/^user:/, '')} at ${when(s.draft.savedAt)}; candidates do not see it until it is published.${
        s.draft.basedOn !== null &&
        s.currentVersion !== undefined &&
        s.draft.basedOn !== s.currentVersion &&
        html` It started from version ${s.draft.basedOn}; version ${s.currentVersion} is published now: <a href="/console/assessments/${s.assessment}/versions?instance=${s.instance}&amp;from=${s.currentVersion}&amp;to=draft">compare</a>.`
      }</p>`
    : s.assessment !== null && html`<p class="hint">No draft: this is version ${s.currentVersion} as published.</p>`;
  return html`<p class="no-print"><a href="/console/assessments?instance=${s.instance}">Back to assessments</a>${versions}</p>
<h1>${s.assessment === null ? 'New assessment' : html`Edit ${s.name} <span class="hint">(${s.assessment})</span>`}</h1>
${s.notice && html`<p class="info" role="status">${s.notice}</p>`}
${draftNote}
${
  s.errors &&
  s.errors.length > 0 &&
  html`<div class="error-list" role="alert" id="editor-errors"><p class="error">Nothing was published: the content has ${s.errors.length} problem${s.errors.length === 1 ? '' : 's'}.</p></div>`
}
<div class="editor-layout">
<form method="post" action="${action}" class="editor-form" id="editor-form" data-validate="/console/assessments/validate">
<input type="hidden" name="_csrf" value="${s.csrf}">
<input type="hidden" name="instance" value="${s.instance}">
<input type="hidden" name="assessment" value="${s.assessment ?? ''}">
<label for="editor-source">Content (YAML)</label>
<p class="hint" id="editor-help">The whole assessment as YAML, in the format of <code>assessment import</code> (docs/content.md and docs/question-types.md); prompts and instructions are Markdown inside it. At most ${DRAFT_MAX_BYTES / 1024} KiB.</p>
<textarea id="editor-source" name="source" rows="30" spellcheck="false" class="yaml-source" aria-describedby="editor-help editor-check"${s.errors?.length ? html` aria-invalid="true"` : html``}>${s.source}</textarea>
<div class="editor-actions">
<button type="submit" name="action" value="save">Save draft</button>
<button type="submit" name="action" value="preview" formaction="/console/assessments/preview" formtarget="editor-preview" class="preview-button">Preview</button>
<button type="submit" name="action" value="publish" class="primary">Publish</button>
${s.draft && html`<button type="submit" name="action" value="discard" class="danger">Discard draft</button>`}
</div>
</form>
<aside class="editor-side" aria-label="Check and outline">
<section aria-labelledby="check-title"><h2 id="check-title">Check</h2><div id="editor-check" aria-live="polite">${checkPanel(s.errors)}</div></section>
<section aria-labelledby="outline-title"><h2 id="outline-title">Outline</h2><div id="editor-outline">${outlinePanel(s.summary)}</div></section>
</aside>
</div>
<section class="panel preview-panel" aria-labelledby="preview-title">
<h2 id="preview-title">Preview</h2>
<p class="hint">As a candidate sees it. Press Preview to show the text above (with JavaScript it follows as you type).</p>
<fieldset class="preview-widths"><legend>Width</legend>
<label class="choice"><input type="radio" name="preview-width" value="desktop" id="preview-desktop" checked> Desktop</label>
<label class="choice"><input type="radio" name="preview-width" value="phone" id="preview-phone"> Phone (390 px)</label>
</fieldset>
<div class="preview-frame"><iframe name="editor-preview" id="editor-preview" title="Preview of the assessment as a candidate sees it"></iframe></div>
</section>
<script src="/console/assets/content-editor.js" defer></script>`;
}

/** A page of its own (no console frame) for the preview iframe: the portal's question markup, through previewBody. */
function previewFrame(instance: string, content: AssessmentContent | undefined, errors: ContentError[]): SafeHtml {
  let body: SafeHtml;
  if (content) {
    const questions = content.questions.map((q, i) => questionField(q, undefined, `p${i + 1}-`, true));
    const practice = practiceOf(content);
    body = previewBody(instance, content, questions, content.typingTest?.passage, {
      notes: layoutNotes(content),
      practice: practice && questionField(practice, undefined, 'practice-', true),
    });
  } else {
    body = html`<h1>No preview yet</h1><p class="error">The content has ${errors.length} problem${errors.length === 1 ? '' : 's'}:</p><ul>${errors.map(errorLine)}</ul>`;
  }
  return html`<!doctype html>
<html lang="en">
${head(content ? `Preview of ${content.name}` : 'Preview')}
<body class="preview-page">
<main id="main">
${body}
</main>
</body>
</html>`;
}

export interface DiffView {
  from: string;
  to: string;
  lines: DiffLine[];
}

/** The changes, folded to a few lines around each; every text escaped. */
export function diffTable(view: DiffView): SafeHtml {
  const added = view.lines.filter((l) => l.kind === 'added').length;
  const removed = view.lines.filter((l) => l.kind === 'removed').length;
  if (added === 0 && removed === 0) return html`<p class="info">No changes between ${view.from} and ${view.to}.</p>`;
  const near = view.lines.map((_, i) => view.lines.slice(Math.max(0, i - DIFF_CONTEXT), i + DIFF_CONTEXT + 1).some((l) => l.kind !== 'same'));
  const rows: SafeHtml[] = [];
  for (let i = 0; i < view.lines.length; i++) {
    if (!near[i]) {
      let j = i;
      while (j < view.lines.length && !near[j]) j++;
      rows.push(html`<tr class="diff-fold"><td colspan="4">${j - i} unchanged line${j - i === 1 ? '' : 's'}</td></tr>`);
      i = j - 1;
      continue;
    }
    const l = view.lines[i]!;
    const mark = l.kind === 'added' ? '+' : l.kind === 'removed' ? '−' : '';
    const label = l.kind === 'added' ? 'added' : l.kind === 'removed' ? 'removed' : 'unchanged';
    rows.push(
      html`<tr class="diff-${l.kind}"><td class="line-no">${l.oldLine ?? ''}</td><td class="line-no">${l.newLine ?? ''}</td><td class="diff-mark"><span aria-hidden="true">${mark}</span><span class="visually-hidden">${label}</span></td><td><code>${l.text}</code></td></tr>`,
    );
  }
  return html`<div class="table-scroll"><table class="data diff">
<caption>Changes from ${view.from} to ${view.to}: ${added} line${added === 1 ? '' : 's'} added, ${removed} removed</caption>
<thead><tr><th scope="col">${view.from}</th><th scope="col">${view.to}</th><th scope="col"><span class="visually-hidden">Change</span></th><th scope="col">Line</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

function versionsBody(
  instance: string,
  assessment: { id: string; name: string },
  versions: VersionEntry[],
  options: { canManage: boolean; hasDraft: boolean; from: string; to: string; diff?: DiffView },
): SafeHtml {
  const choices = [...(options.hasDraft ? [{ value: 'draft', label: 'Draft' }] : []), ...versions.map((v) => ({ value: String(v.version), label: `Version ${v.version}` }))];
  const select = (name: string, label: string, chosen: string) =>
    html`<label for="diff-${name}">${label}</label> <select id="diff-${name}" name="${name}">${choices.map((c) => html`<option value="${c.value}"${c.value === chosen && html` selected`}>${c.label}</option>`)}</select>`;
  return html`<p class="no-print"><a href="/console/assessments?instance=${instance}">Back to assessments</a>${
    options.canManage && html` · <a href="/console/assessments/${assessment.id}/edit?instance=${instance}">Edit</a>`
  }</p>
<h1>Versions of ${assessment.name} <span class="hint">(${assessment.id})</span></h1>
<p>Each publication of changed content is a new version; candidates who started an attempt keep the version they started on.</p>
<div class="table-scroll"><table class="data versions">
<caption>${versions.length} version${versions.length === 1 ? '' : 's'}, newest first</caption>
<thead><tr><th scope="col">Version</th><th scope="col">Published</th><th scope="col">YAML</th></tr></thead>
<tbody>${versions.map(
    (v) =>
      html`<tr><th scope="row">${v.version}${v.current && ' (current)'}</th><td>${when(v.createdAt)}</td><td><a href="/console/assessments/${assessment.id}/versions/${v.version}/yaml?instance=${instance}" download="${assessment.id}-v${v.version}.yaml">Download version ${v.version}</a></td></tr>`,
  )}</tbody></table></div>
<h2>Changes</h2>
<form method="get" action="/console/assessments/${assessment.id}/versions" class="inline diff-form">
<input type="hidden" name="instance" value="${instance}">
${select('from', 'From', options.from)} ${select('to', 'to', options.to)}
<button type="submit">Show changes</button>
</form>
${options.diff && diffTable(options.diff)}`;
}

// The console's pages may not frame nor be framed. The editor frames its preview (frame-src), and
// the preview alone may be framed, by the console's own pages (frame-ancestors).
const csp = (reply: FastifyReply) => String(reply.getHeader('content-security-policy') ?? '');
const framesPreview = {
  onSend: async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('content-security-policy', `${csp(reply)}; frame-src 'self'`);
  },
};
const framedByConsole = {
  onSend: async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('content-security-policy', csp(reply).replace("frame-ancestors 'none'", "frame-ancestors 'self'"));
    reply.header('x-frame-options', 'SAMEORIGIN');
  },
};

export function registerEditorRoutes(scope: FastifyInstance, deps: EditorRouteDeps): void {
  const { db } = deps;

  /** The editor's target from the path (an assessment's id, or "new"), checked. */
  const targetOf = async (instance: Instance, id: string | null): Promise<DraftTarget & { uuid: string | null }> => {
    if (id === null) return { instance: { id: instance.id, name: instance.name }, assessment: null, uuid: null };
    const uuid = SLUG.test(id) ? await assessmentUuid(db, instance.id, id) : undefined;
    if (!uuid) throw notFound('No such assessment in this instance');
    return { instance: { id: instance.id, name: instance.name }, assessment: id, uuid };
  };

  async function editorPage(
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    id: string | null,
    given?: { source: string; errors: ContentError[] },
    notice?: string,
  ) {
    const target = await targetOf(instance, id);
    const draft = await findDraft(db, target, authorOf(request));
    let source = given?.source;
    let name = 'New assessment';
    let currentVersion: number | undefined;
    if (target.uuid !== null) {
      const content = await currentContent(db, target.uuid);
      name = content.name;
      currentVersion = (await listVersions(db, target.uuid)).find((v) => v.current)?.version;
      source ??= draft?.source ?? contentYaml(content);
    }
    source ??= draft?.source ?? NEW_TEMPLATE;
    let errors = given?.errors;
    let summary: ContentSummary | undefined;
    if (!given) {
      // The page opens with the text checked, so that the check panel is right without JavaScript too.
      try {
        const check = await runCommand(db, commandRequest(request, deps.now()), (ctx) => validateDraft(ctx, { ...target, source }), 'assessment_draft_check');
        errors = check.errors;
        summary = check.content && contentSummary(check.content);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
      }
    }
    const body = editorBody({
      instance: instance.name,
      csrf: request.consoleUser!.csrfToken,
      assessment: target.assessment,
      name,
      source,
      draft,
      currentVersion,
      errors,
      summary,
      notice,
    });
    return deps.render(request, reply, instance, target.assessment === null ? 'New assessment' : `Edit ${name}`, body, given ? 400 : 200);
  }

  const NOTICES: Record<string, string> = {
    saved: 'Draft saved. Candidates do not see it until it is published.',
    discarded: 'Draft discarded.',
  };
  const noticeOf = (q: { saved?: string; discarded?: string; published?: string; outcome?: string }) => {
    if (q.published !== undefined && /^\d{1,9}$/.test(q.published))
      return q.outcome === 'unchanged'
        ? `Nothing changed: version ${q.published} stays published.`
        : `Published version ${q.published}. Candidates invited from now on get it; those who started keep theirs.`;
    if (q.saved !== undefined) return NOTICES.saved;
    if (q.discarded !== undefined) return NOTICES.discarded;
    return undefined;
  };

  type EditorQuery = { instance?: string; saved?: string; discarded?: string; published?: string; outcome?: string };
  scope.get<{ Querystring: EditorQuery }>('/console/assessments/new', framesPreview, async (request, reply) =>
    editorPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), null, undefined, noticeOf(request.query)),
  );
  scope.get<{ Params: { id: string }; Querystring: EditorQuery }>('/console/assessments/:id/edit', framesPreview, async (request, reply) =>
    editorPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), request.params.id, undefined, noticeOf(request.query)),
  );

  async function editorPost(request: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply: FastifyReply, id: string | null) {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const target = await targetOf(instance, id);
    const here = (query: string) =>
      `${id === null ? '/console/assessments/new' : `/console/assessments/${encodeURIComponent(id)}/edit`}?instance=${encodeURIComponent(instance.name)}&${query}`;
    const source = body.source;
    const request_ = commandRequest(request, deps.now());
    try {
      switch (body.action) {
        case 'save':
          await runCommand(db, request_, (ctx) => saveDraft(ctx, { ...target, source }), 'assessment_draft_save');
          return reply.redirect(here('saved=1'), 303);
        case 'discard':
          await runCommand(db, request_, (ctx) => discardDraft(ctx, target), 'assessment_draft_discard');
          return reply.redirect(here('discarded=1'), 303);
        case 'publish': {
          const result = await runCommand(db, request_, (ctx) => publishDraft(ctx, { ...target, source: source ?? '' }), 'assessment_draft_publish');
          return reply.redirect(
            `/console/assessments/${encodeURIComponent(result.id)}/edit?instance=${encodeURIComponent(instance.name)}&published=${result.version}&outcome=${result.outcome}`,
            303,
          );
        }
        default:
          throw invalidInput([{ in: 'body', name: 'action', detail: 'must be save, discard or publish' }]);
      }
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields || error.fields[0]?.name === 'action') throw error;
      const errors = error.fields.map((f) => ({ path: f.in === 'content' ? f.name : f.name, line: f.line, column: f.column, message: f.detail }));
      // The text comes back to be fixed, unless it is larger than a draft may be.
      const back = typeof source === 'string' && Buffer.byteLength(source, 'utf8') <= DRAFT_MAX_BYTES ? source : '';
      return editorPage(request, reply, instance, id, { source: back, errors });
    }
  }

  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments/new', framesPreview, async (request, reply) => editorPost(request, reply, null));
  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/assessments/:id/edit', framesPreview, async (request, reply) =>
    editorPost(request, reply, request.params.id),
  );

  /** The text of a validate or preview request, checked as publishing would (reviewers refused). */
  async function check(request: FastifyRequest<{ Body: Record<string, string | undefined> }>) {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const target = await targetOf(instance, body.assessment ? body.assessment : null);
    const result = await runCommand(db, commandRequest(request, deps.now()), (ctx) => validateDraft(ctx, { ...target, source: body.source }), 'assessment_draft_check');
    return { instance, result };
  }

  // Validation as you type (content-editor.js): the problems with their lines, and the panels' markup.
  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments/validate', async (request, reply) => {
    try {
      const { result } = await check(request);
      const summary = result.content && contentSummary(result.content);
      return reply
        .type('application/json; charset=utf-8')
        .send({ errors: result.errors, summary: summary ?? null, check: checkPanel(result.errors).toString(), outline: outlinePanel(summary).toString() });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      const errors = error.fields.map((f) => ({ path: f.name, message: f.detail }));
      return reply
        .code(400)
        .type('application/json; charset=utf-8')
        .send({ errors, summary: null, check: checkPanel(errors).toString(), outline: outlinePanel(undefined).toString() });
    }
  });

  // The preview of the text posted, shown in the editor's iframe: this page alone may be framed, by the console itself.
  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments/preview', framedByConsole, async (request, reply) => {
    let page: SafeHtml;
    let status = 200;
    try {
      const { instance, result } = await check(request);
      page = previewFrame(instance.name, result.content, result.errors);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      page = previewFrame(
        '',
        undefined,
        error.fields.map((f) => ({ path: f.name, message: f.detail })),
      );
      status = 400;
    }
    return reply.code(status).type('text/html; charset=utf-8').send(page.toString());
  });

  // ---- versions and changes ------------------------------------------------------------------

  const versionParam = (value: string | undefined, versions: VersionEntry[], hasDraft: boolean, name: string): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if ((value === 'draft' && hasDraft) || versions.some((v) => String(v.version) === value)) return value;
    throw invalidInput([{ in: 'query', name, detail: hasDraft ? 'must be "draft" or a version of this assessment' : 'must be a version of this assessment' }]);
  };

  scope.get<{ Params: { id: string }; Querystring: { instance?: string; from?: string; to?: string } }>('/console/assessments/:id/versions', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'read');
    const target = await targetOf(instance, request.params.id);
    const canManage = deps.mayManage(request, instance);
    const draft = canManage ? await findDraft(db, target, authorOf(request)) : undefined;
    const versions = await listVersions(db, target.uuid!);
    const current = versions.find((v) => v.current)!.version;
    const to = versionParam(request.query.to, versions, draft !== undefined, 'to') ?? (draft ? 'draft' : String(current));
    const from = versionParam(request.query.from, versions, draft !== undefined, 'from') ?? String(draft ? current : Math.max(1, current - 1));
    const yamlOf = async (which: string) => (which === 'draft' ? draft!.source : contentYaml((await versionContent(db, target.uuid!, Number(which)))!));
    const label = (which: string) => (which === 'draft' ? 'the draft' : `version ${which}`);
    const diff = from === to ? undefined : { from: label(from), to: label(to), lines: diffText(await yamlOf(from), await yamlOf(to)) };
    const content = await currentContent(db, target.uuid!);
    return deps.render(
      request,
      reply,
      instance,
      `Versions of ${content.name}`,
      versionsBody(instance.name, { id: target.assessment!, name: content.name }, versions, { canManage, hasDraft: draft !== undefined, from, to, diff }),
    );
  });

  // A version's content as YAML (what the editor starts from): parsing it gives the same content.
  scope.get<{ Params: { id: string; version: string }; Querystring: { instance?: string } }>('/console/assessments/:id/versions/:version/yaml', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'read');
    const target = await targetOf(instance, request.params.id);
    const content = /^[1-9]\d{0,8}$/.test(request.params.version) ? await versionContent(db, target.uuid!, Number(request.params.version)) : undefined;
    if (!content) throw notFound('No such version of this assessment');
    return reply
      .type('application/yaml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${target.assessment}-v${request.params.version}.yaml"`)
      .send(contentYaml(content));
  });

  const script = readFileSync(path.join(ASSETS, 'content-editor.js'));
  scope.get('/console/assets/content-editor.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script),
  );
}
