import { barChart } from '../charts.js';
import { when } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { FeedbackSummary } from '../../modules/attempts/feedback.js';
import { emptyState } from '../components.js';

export interface AssessmentView {
  id: string;
  name: string;
  /** What it measures, and (library content) for which roles and at what reading level. */
  description: string;
  roles?: string[];
  readingLevel?: string;
  version: number;
  questionCount: number;
  durationMinutes: number;
  typingTest: boolean;
  passScore: number;
  lowPassScore: number;
  distribution: { bins: number[]; passRate: number | null; count: number };
  /** Candidates' feedback after submitting; undefined when none gave any. */
  feedback?: FeedbackSummary;
}

/** Candidates' feedback on one assessment: average, count, distribution, latest comments. */
function feedbackPanel(instance: string, a: AssessmentView, unnamed: boolean): SafeHtml {
  const f = a.feedback;
  if (!f || f.count === 0) return html`<h3>Candidate feedback</h3><p>No candidate has given feedback yet.</p>`;
  return html`<h3>Candidate feedback</h3>
<dl class="figures">
<div><dt>Average rating</dt><dd>${f.average} of 5</dd></div>
<div><dt>Ratings</dt><dd>${f.count}</dd></div>
</dl>
${barChart(
  `${a.name}: candidates' ratings, 1 (poor) to 5 (very good)`,
  f.distribution.map((n, i) => ({ label: `${i + 1}`, value: n })),
)}
${
  f.comments.length > 0 &&
  html`<h4>Latest comments</h4>
<ul class="plain feedback-comments">${f.comments.map(
    (c) =>
      html`<li><p>${c.comment}</p><p class="hint">Rated ${c.rating} · ${when(c.at)}${
        !unnamed && html` · <a href="/console/candidates/${c.candidateId}?instance=${instance}">${c.candidateName ?? 'Erased candidate'}</a>`
      }</p></li>`,
  )}</ul>`
}`;
}

export interface ImportState {
  source: string;
  errors?: { line?: number; column?: number; name: string; detail: string }[];
  published?: string;
}

export function assessmentsBody(
  instance: string,
  items: AssessmentView[],
  options: { csrf: string; canManage: boolean; importState?: ImportState; othersUnnamed?: boolean; company?: string },
): SafeHtml {
  const state = options.importState;
  const importForm =
    options.canManage &&
    html`${state?.published && html`<p class="info" role="status">${state.published}</p>`}
<details class="panel fold import-fold"${state?.errors && html` open`}><summary><h2 id="import-heading">Publish from a file (YAML or JSON)</h2></summary>
<p>Paste a YAML or JSON document (the same format as <code>assessment import</code>), or choose a file. Publishing changed content makes a new version; candidates who started keep theirs.</p>
${
  state?.errors &&
  html`<div class="error-list" role="alert" id="import-errors"><p class="error">The document has ${state.errors.length} problem${state.errors.length === 1 ? '' : 's'}; nothing was published:</p>
<ul>${state.errors.map((e) => html`<li>${e.line ? html`<strong>Line ${e.line}${e.column ? `, column ${e.column}` : ''}:</strong> ` : ''}<code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`
}
<form method="post" action="/console/assessments" class="import-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${instance}">
<label for="import-file">File (optional)</label>
<input type="file" id="import-file" accept=".yaml,.yml,.json,application/json,text/yaml" data-fills="import-source">
<label for="import-source">Document</label>
<textarea id="import-source" class="wide" name="source" rows="14" spellcheck="false" required${state?.errors && html` aria-describedby="import-errors" aria-invalid="true"`}>${state?.source ?? ''}</textarea>
<button type="submit" class="primary">Check and publish</button>
</form>
</details>`;
  return html`<div class="page-header"><div><h1>Assessments of ${options.company ?? instance}</h1><p class="lead">${items.length === 1 ? 'One assessment' : `${items.length} assessments`} published.</p></div>
${options.canManage && html`<div class="actions"><a class="button primary" href="/console/assessments/new/build?instance=${instance}">New assessment</a><a class="button" href="/console/assessments/new?instance=${instance}">Write a new assessment in the editor</a><a class="button" href="/console/assessments/qti?instance=${instance}">Import a QTI package</a></div>`}</div>
${importForm}
${
  items.length === 0
    ? emptyState('No assessment is published yet.', 'Publish one above from a YAML or JSON document, or write one in the editor.')
    : items.map(
        (a) => html`<section class="panel" aria-labelledby="as-${a.id}">
<h2 id="as-${a.id}">${a.name} <span class="hint">(version ${a.version})</span></h2>
<p>${a.description}</p>
<dl class="figures">
<div><dt>Questions</dt><dd>${a.questionCount}${a.typingTest ? ' + typing test' : ''}</dd></div>
<div><dt>Time limit</dt><dd>${a.durationMinutes} min</dd></div>
${a.roles && html`<div><dt>For roles</dt><dd>${a.roles.join(', ')}</dd></div>`}
${a.readingLevel && html`<div><dt>Reading level</dt><dd>${a.readingLevel}</dd></div>`}
<div><dt>Pass / low pass</dt><dd>${a.passScore} % / ${a.lowPassScore} %</dd></div>
<div><dt>Completed and scored</dt><dd>${a.distribution.count}</dd></div>
<div><dt>Pass rate</dt><dd>${a.distribution.passRate === null ? '-' : `${a.distribution.passRate} %`}</dd></div>
<div><dt>Id (for the API and the CLI)</dt><dd><code>${a.id}</code></dd></div>
</dl>
${
  a.distribution.count > 0 &&
  barChart(
    `${a.name}: total scores of everyone who completed it`,
    a.distribution.bins.map((n, i) => ({ label: i === 9 ? '90–100 %' : `${i * 10}–${i * 10 + 9} %`, value: n })),
  )
}
${feedbackPanel(instance, a, options.othersUnnamed === true)}
<p><a href="/console/assessments/${a.id}/preview?instance=${instance}">Preview as a candidate sees it</a>${options.canManage && html` · <a href="/console/assessments/${a.id}/build?instance=${instance}">Edit<span class="visually-hidden"> ${a.name}</span></a> · <a href="/console/assessments/${a.id}/edit?instance=${instance}">Edit as file<span class="visually-hidden"> (${a.name})</span></a>`} · <a href="/console/assessments/${a.id}/versions?instance=${instance}">Versions and changes</a> · <a href="/console/assessments/${a.id}/qti?instance=${instance}" download>Export as QTI</a></p>
</section>`,
      )
}`;
}

export function previewBody(
  instance: string,
  content: { name: string; description: string; durationMinutes: number; instructions?: string; roles?: string[]; readingLevel?: string },
  questions: SafeHtml[],
  passage: string | undefined,
  fairness: { notes: string[]; practice?: SafeHtml } = { notes: [] },
): SafeHtml {
  return html`<p class="no-print"><a href="/console/assessments?instance=${instance}">Back to assessments</a></p>
<h1>Preview: ${content.name}</h1>
<p class="info">This is a preview: nothing you enter is saved, and no attempt is made.</p>
<p>${content.description}</p>
<p>Time limit: ${content.durationMinutes} minutes.</p>
${content.roles && html`<p>For roles: ${content.roles.join(', ')}.</p>`}
${content.readingLevel && html`<p>Reading level: ${content.readingLevel}.</p>`}
${content.instructions && html`<h2>Instructions</h2><p class="pre">${content.instructions}</p>`}
${fairness.notes.length > 0 && html`<p class="layout-notes">For each attempt: ${fairness.notes.map((n) => n.replace(' for this attempt', '').replace(' (as listed)', '')).join('; ')}. All the questions are listed here in the authored order.</p>`}
${fairness.practice && html`<h2>Practice question (before the clock starts; never scored)</h2><form class="preview-question" action="#" aria-label="Practice question">${fairness.practice}</form>`}
<ol class="answers preview">${questions.map((q, i) => html`<li class="answer"><h2 class="hint">Question ${i + 1} of ${questions.length + (passage ? 1 : 0)}</h2><form class="preview-question" action="#" aria-label="${`Question ${i + 1}`}">${q}</form></li>`)}</ol>
${passage && html`<h2>Typing test</h2><blockquote class="pre answer-text">${passage}</blockquote>`}`;
}
