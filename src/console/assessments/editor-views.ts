// The editor's pages: the YAML form (a textarea that content-editor.js turns into CodeMirror), the
// check in the importer's words by line, the outline, the preview frame, and the versions with
// the line changes between two of them.
import { html, type SafeHtml } from '../../html/html.js';
import type { AssessmentContent } from '../../modules/assessments/content-schema.js';
import type { ContentError } from '../../modules/assessments/content.js';
import type { DiffLine } from '../../modules/assessments/diff.js';
import type { ContentSummary, Draft, UploadedMedia, VersionEntry } from '../../modules/assessments/drafts.js';
import { optionText } from '../../html/markdown.js';
import { IMAGE_MAX_PIXELS, MEDIA_MAX_BYTES, MEDIA_TYPES, type MediaExtension } from '../../modules/assessments/media.js';
import { fieldError } from '../components.js';
import { when } from '../format.js';
import { head } from '../layout.js';
import { DRAFT_MAX_BYTES } from '../../modules/assessments/drafts.js';
import { practiceOf } from '../../modules/assessments/content-schema.js';
import { layoutNotes } from '../../modules/attempts/layout.js';
import { questionField } from '../../views/questions.js';
import { previewBody } from './views.js';

/** Unchanged lines shown around each change in a diff; longer runs are folded. */
export const DIFF_CONTEXT = 3;
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

/** The signed-in user as the author of a new assessment's draft (as the commands name the actor). */
export interface EditorState {
  instance: string;
  csrf: string;
  /** The assessment edited (its id), or null for a new one. */
  assessment: string | null;
  name: string;
  source: string;
  draft?: Draft;
  currentVersion?: number;
  errors?: ContentError[];
  /** Fields the content's translations leave out (shown in English); never a reason not to publish. */
  warnings?: ContentError[];
  summary?: ContentSummary;
  notice?: string;
  media: EditorMedia;
  /** This response's style nonce: the editor's script names it, for CodeMirror's <style> element. */
  styleNonce: string;
}

/** The media panel of the editor: the file just uploaded (or why not), and the stored files the text names. */
export interface EditorMedia {
  uploaded?: UploadedMedia;
  errors?: { name: string; detail: string }[];
  files: { text: string; sha256: string; extension: MediaExtension }[];
}

const MB = 1024 * 1024;
const ACCEPT = Object.entries(MEDIA_TYPES)
  .flatMap(([extension, type]) => [`.${extension}`, type.contentType])
  .concat('.jpeg')
  .join(',');

/** The upload's fields, inside the editor's form (its button posts the form as multipart, the text with it, unsaved). */
function mediaFields(m: EditorMedia): SafeHtml {
  const invalid = (name: string) => (m.errors ?? []).some((e) => e.name === name);
  const describedBy = (name: string) => `media-help${invalid(name) ? ` media-${name}-error` : ''}`;
  return html`<fieldset class="editor-media" id="editor-media">
<legend>Add a picture, sound or video</legend>
<p class="hint" id="media-help">Pictures: PNG, JPEG, WebP, GIF or SVG, at most ${MEDIA_MAX_BYTES.image / MB} MB and ${IMAGE_MAX_PIXELS.toLocaleString('en')} pixels. Sound: MP3, OGG or WAV, at most ${MEDIA_MAX_BYTES.audio / MB} MB. Video: MP4 or WebM, at most ${MEDIA_MAX_BYTES.video / MB} MB. Uploading stores the file and keeps the text above as it is (not saved); then paste the reference it gives into a prompt, an option, a passage or guidance.</p>
${m.errors && m.errors.length > 0 && html`<p class="error" role="alert" id="media-errors">The file was not uploaded; nothing changed.</p>`}
<div class="field"><label for="media-file">File</label>
<input type="file" id="media-file" name="file" accept="${ACCEPT}" aria-describedby="${describedBy('file')}"${invalid('file') && html` aria-invalid="true"`}>
${fieldError(m.errors, 'file', 'media-file-error')}</div>
<div class="field"><label for="media-text">Alternative text (a picture) or transcript (a sound, a video)</label>
<textarea id="media-text" name="text" rows="2" aria-describedby="${describedBy('text')}"${invalid('text') && html` aria-invalid="true"`}></textarea>
${fieldError(m.errors, 'text', 'media-text-error')}</div>
<button type="submit" name="action" value="upload" formaction="/console/assessments/media" formenctype="multipart/form-data">Upload</button>
${
  m.uploaded &&
  html`<div class="media-uploaded" role="status"><p class="info">Uploaded. Paste this reference where it should show (in YAML, after other text or in a block such as <code>prompt: |</code>, as a line that starts with <code>!</code> means something else to YAML):</p>
<label for="media-reference">Reference to paste</label>
<textarea id="media-reference" class="media-reference" rows="3" readonly>${m.uploaded.reference}</textarea>
<div class="media-preview">${optionText(m.uploaded.reference)}</div></div>`
}
</fieldset>`;
}

/** The stored files the text names, each with its preview and its reference. */
function mediaList(m: EditorMedia): SafeHtml {
  return html`<section class="panel editor-media-list" aria-labelledby="media-title">
<h2 id="media-title">Media</h2>
${
  m.files.length === 0
    ? html`<p class="hint">The text names no stored picture, sound or video yet.</p>`
    : html`<p class="hint">${m.files.length} file${m.files.length === 1 ? '' : 's'} named in the text above, as candidates see ${m.files.length === 1 ? 'it' : 'them'}.</p>
<ul class="media-files">${m.files.map(
        (f) =>
          html`<li><div class="media-preview">${optionText(`![${f.text}](media:${f.sha256}.${f.extension})`)}</div>
<p><span class="hint">${MEDIA_TYPES[f.extension].kind === 'image' ? 'Alternative text' : 'Transcript or description'}:</span> ${f.text || html`<strong class="error">none</strong>`}</p>
<p><code class="media-reference">media:${f.sha256}.${f.extension}</code></p></li>`,
      )}</ul>`
}
</section>`;
}

export const errorLine = (e: { line?: number; column?: number; path: string; message: string }) =>
  html`<li>${e.line ? html`<strong>Line ${e.line}${e.column ? `, column ${e.column}` : ''}:</strong> ` : ''}<code>${e.path || '(document)'}</code> ${e.message}</li>`;

/** The check's result: the problems in the importer's words with their lines, or that it would publish. */
export function checkPanel(errors: ContentError[] | undefined, warnings: ContentError[] = []): SafeHtml {
  if (errors === undefined) return html`<p class="hint">Not checked yet.</p>`;
  if (errors.length === 0)
    return html`<p class="info">No problems: this would publish.</p>${
      warnings.length > 0 &&
      html`<p class="hint">${warnings.length} text${warnings.length === 1 ? '' : 's'} of the translations ${warnings.length === 1 ? 'is' : 'are'} missing (shown to those candidates in English):</p><ul class="check-warnings">${warnings.map(errorLine)}</ul>`
    }`;
  return html`<p class="error">${errors.length} problem${errors.length === 1 ? '' : 's'}; it would not publish:</p><ul class="check-errors">${errors.map(errorLine)}</ul>`;
}

export const TYPE_NAMES: Record<string, string> = {
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

export function editorBody(s: EditorState): SafeHtml {
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
${mediaFields(s.media)}
</form>
<aside class="editor-side" aria-label="Check and outline">
<section aria-labelledby="check-title"><h2 id="check-title">Check</h2><div id="editor-check" aria-live="polite">${checkPanel(s.errors, s.warnings)}</div></section>
<section aria-labelledby="outline-title"><h2 id="outline-title">Outline</h2><div id="editor-outline">${outlinePanel(s.summary)}</div></section>
</aside>
</div>
${mediaList(s.media)}
<section class="panel preview-panel" aria-labelledby="preview-title">
<h2 id="preview-title">Preview</h2>
<p class="hint">As a candidate sees it. Press Preview to show the text above (with JavaScript it follows as you type).</p>
<fieldset class="preview-widths"><legend>Width</legend>
<label class="choice"><input type="radio" name="preview-width" value="desktop" id="preview-desktop" checked> Desktop</label>
<label class="choice"><input type="radio" name="preview-width" value="phone" id="preview-phone"> Phone (390 px)</label>
</fieldset>
<div class="preview-frame"><iframe name="editor-preview" id="editor-preview" title="Preview of the assessment as a candidate sees it"></iframe></div>
</section>
<script src="/console/assets/content-editor.js" nonce="${s.styleNonce}" defer></script>`;
}

/** A page of its own (no console frame) for the preview iframe: the portal's question markup, through previewBody. */
export function previewFrame(instance: string, content: AssessmentContent | undefined, errors: ContentError[]): SafeHtml {
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

export function versionsBody(
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
