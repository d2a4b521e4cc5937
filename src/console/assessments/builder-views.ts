// The question builder's pages: the assessment's settings and its questions (each with Edit, Move
// up, Move down and Delete, and dragged into place when scripts run), a question's form of its
// type, and the draft previewed as candidates see it. Every control is a field of a plain form
// (no script needed); fields are named by their path in the content, so the importer's problems
// show beside the field they are about, and all of them in a summary at the top.
import { html, type SafeHtml } from '../../html/html.js';
import { BLANK_ROWS, LIKERT_CHOICES, QUESTION_TYPE_LIST, type FormProblem, type FormValues, type QuestionType } from '../../modules/assessments/builder.js';
import { CODING_LANGUAGES, LIKERT_SCALES } from '../../modules/assessments/content-schema.js';
import type { ContentError } from '../../modules/assessments/content.js';
import type { Draft } from '../../modules/assessments/drafts.js';
import { fieldError } from '../components.js';
import { when } from '../format.js';
import { TYPE_NAMES } from './editor-views.js';

/** Where the builder of an assessment (or of a new one) lives. */
export const builderPath = (assessment: string | null) => (assessment === null ? '/console/assessments/new/build' : `/console/assessments/${assessment}/build`);

const fieldId = (name: string) => `f-${name.replace(/[^A-Za-z0-9-]/g, '-')}`;

const TYPE_HINTS: Record<QuestionType, string> = {
  'single-choice': 'One right answer among 2 to 12 options.',
  'multiple-choice': 'One or more right answers; partial credit.',
  'short-answer': 'A word or number, compared with the accepted answers.',
  'free-text': 'A written answer, scored by reviewers with a rubric.',
  likert: 'A statement rated on a 5- or 7-point scale.',
  ranking: 'Put 3 to 8 options in the best order.',
  coding: 'A program, run against hidden tests.',
};

const LANGUAGE_NAMES: Record<string, string> = { javascript: 'JavaScript', python: 'Python' };

/** A form's context: the values shown, the problems by field name. */
interface FormState {
  values: FormValues;
  problems: FormProblem[];
}

const value = (s: FormState, name: string) => s.values[name] ?? '';
const invalid = (s: FormState, name: string) => s.problems.some((p) => p.name === name);

/** The attributes of a control: id, name, what describes it, whether it is invalid. */
function attributes(s: FormState, name: string, hint: boolean): SafeHtml {
  const id = fieldId(name);
  const describedBy = [hint ? `${id}-hint` : '', invalid(s, name) ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html` id="${id}" name="${name}"${describedBy !== '' && html` aria-describedby="${describedBy}"`}${invalid(s, name) && html` aria-invalid="true"`}`;
}

interface Control {
  label: string | SafeHtml;
  hint?: string | SafeHtml;
  kind?: 'text' | 'number' | 'textarea' | 'code';
  rows?: number;
  required?: boolean;
  className?: string;
  inputmode?: 'numeric' | 'decimal';
}

/** A labelled text control with its hint and its problems beside it. */
function input(s: FormState, name: string, c: Control): SafeHtml {
  const id = fieldId(name);
  const a = attributes(s, name, c.hint !== undefined);
  const required = c.required && html` required`;
  const control =
    c.kind === 'textarea' || c.kind === 'code'
      ? html`<textarea${a} rows="${c.rows ?? 3}"${c.kind === 'code' && html` spellcheck="false" class="code-source"`}${required}>${value(s, name)}</textarea>`
      : html`<input type="text"${a} value="${value(s, name)}"${c.inputmode && html` inputmode="${c.inputmode}"`}${required}>`;
  return html`<div class="field${c.className ? ` ${c.className}` : ''}"><label for="${id}">${c.label}</label>${c.hint && html`<p class="hint field-hint" id="${id}-hint">${c.hint}</p>`}${control}${fieldError(s.problems, name, `${id}-error`)}</div>`;
}

/** A checkbox with its label after it. */
function checkbox(s: FormState, name: string, label: string | SafeHtml): SafeHtml {
  const id = fieldId(name);
  return html`<div class="field"><label class="choice" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="on"${value(s, name) !== '' && html` checked`}> ${label}</label>${fieldError(s.problems, name, `${id}-error`)}</div>`;
}

/** A group's own problems (about a list as a whole, such as "exactly one correct option"). */
const groupError = (s: FormState, name: string) => fieldError(s.problems, name, `${fieldId(name)}-error`);

/** How many rows a list shows: those filled, then blank ones to add with (at least `least`). */
function rowCount(values: FormValues, prefix: string, least: number): number {
  let filled = 0;
  for (const key of Object.keys(values)) {
    const m = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d{1,3})\\.`).exec(key);
    if (m && values[key]!.trim() !== '') filled = Math.max(filled, Number(m[1]) + 1);
  }
  return Math.max(least, filled + BLANK_ROWS);
}
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const FIELD_LABELS: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^categories\.(\d+)\.(id|name|weight)$/, (m) => `Category ${Number(m[1]) + 1} ${m[2]}`],
  [/^categories\.(\d+)$/, (m) => `Category ${Number(m[1]) + 1}`],
  [/^options\.(\d+)\.text$/, (m) => `Option ${Number(m[1]) + 1}`],
  [/^options\.(\d+)\.(id|rank)$/, (m) => `Option ${Number(m[1]) + 1} ${m[2] === 'rank' ? 'place' : 'id'}`],
  [/^options\.(\d+)$/, (m) => `Option ${Number(m[1]) + 1}`],
  [/^rubric\.criteria\.(\d+)\.(id|name|levels)$/, (m) => `Criterion ${Number(m[1]) + 1} ${m[2]}`],
  [
    /^(tests|examples)\.(\d+)\.(stdin|expectedStdout|args|expected|points)$/,
    (m) =>
      `${m[1] === 'tests' ? 'Hidden test' : 'Example'} ${Number(m[2]) + 1} ${{ stdin: 'input', expectedStdout: 'expected output', args: 'arguments', expected: 'expected result', points: 'points' }[m[3]!]}`,
  ],
  [/^(tests|examples)\.(\d+)$/, (m) => `${m[1] === 'tests' ? 'Hidden test' : 'Example'} ${Number(m[2]) + 1}`],
  [/^starterCode\.(\w+)$/, (m) => `${LANGUAGE_NAMES[m[1]!] ?? m[1]} starter code`],
  [/^typingTest\.(passage|targetWpm|category)$/, (m) => `Typing test ${{ passage: 'passage', targetWpm: 'target', category: 'category' }[m[1]!]}`],
];
const PLAIN_LABELS: Record<string, string> = {
  id: 'Id',
  name: 'Name',
  description: 'Description',
  instructions: 'Instructions',
  durationMinutes: 'Time limit',
  passScore: 'Pass score',
  lowPassScore: 'Low pass score',
  categories: 'Categories',
  prompt: 'Prompt',
  category: 'Category',
  points: 'Points',
  options: 'Options',
  key: 'The best order',
  accept: 'Accepted answers',
  guidance: 'Guidance',
  maxLength: 'Longest answer',
  scale: 'Scale',
  labels: 'My own labels',
  languages: 'Languages',
  entry: 'Entry function',
  tests: 'Hidden tests',
  examples: 'Examples',
  timeLimitMs: 'Time limit per run',
  memoryLimitMb: 'Memory per run',
};

/** A field's name as its form shows it (the content path for what has no label). */
export function fieldLabel(name: string): string {
  if (PLAIN_LABELS[name]) return PLAIN_LABELS[name];
  for (const [pattern, label] of FIELD_LABELS) {
    const m = pattern.exec(name);
    if (m) return label(m);
  }
  return name;
}

/** The problems of a refused form (or of the draft as it is), at the top, each linking to its field. */
function problemSummary(title: string, problems: FormProblem[], known: (name: string) => boolean): SafeHtml | false {
  // A control is linked to; a group (the options, the categories) by its error beside it.
  const anchor = (name: string) => (known(name) ? fieldId(name) : `${fieldId(name)}-error`);
  return (
    problems.length > 0 &&
    html`<div class="error-summary" role="alert" id="builder-errors" tabindex="-1"><p class="error">${title}</p><ul>${problems.map(
      (p) => html`<li><a href="#${anchor(p.name)}">${fieldLabel(p.name)}</a> ${p.detail}</li>`,
    )}</ul></div>`
  );
}

export interface BuilderQuestion {
  number: number;
  id: string;
  type: string;
  category: string;
  prompt: string;
  problems: number;
}

export interface BuilderState {
  instance: string;
  csrf: string;
  assessment: string | null;
  name: string;
  settings: FormState;
  questions: BuilderQuestion[];
  categories: string[];
  draft?: Draft;
  currentVersion?: number;
  /** Every problem of the draft as publishing would find it (by content path). */
  draftErrors?: ContentError[];
  /** The problems of a refused settings form (the form then shows what was posted). */
  refused?: boolean;
  notice?: string;
  /** The draft is not a document the builder reads (edited as a file into something else). */
  unreadable?: boolean;
}

const linkTo = (s: { instance: string; assessment: string | null }, tail = '') => `${builderPath(s.assessment)}${tail}?instance=${encodeURIComponent(s.instance)}`;
const fileEditor = (s: { instance: string; assessment: string | null }) =>
  `${s.assessment === null ? '/console/assessments/new' : `/console/assessments/${s.assessment}/edit`}?instance=${encodeURIComponent(s.instance)}`;

function hidden(s: { csrf: string; instance: string }): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${s.csrf}"><input type="hidden" name="instance" value="${s.instance}">`;
}

function draftNote(s: BuilderState): SafeHtml | false {
  if (s.draft)
    return html`<p class="hint">Draft saved by ${s.draft.savedBy.replace(/^user:/, '')} at ${when(s.draft.savedAt)}; each form saves it, and candidates do not see it until it is published.</p>`;
  return s.assessment !== null
    ? html`<p class="hint">No draft: this is version ${s.currentVersion} as published. Each form you save makes a draft; candidates do not see it until it is published.</p>`
    : html`<p class="hint">Nothing saved yet. Each form you save keeps the draft; candidates see nothing until it is published.</p>`;
}

/** Links of every builder page: the preview, the same draft as a file, the versions. */
function pageLinks(s: { instance: string; assessment: string | null }): SafeHtml {
  return html`<p class="no-print builder-links"><a href="/console/assessments?instance=${s.instance}">Back to assessments</a> · <a href="${linkTo(s, '/preview')}">Preview as a candidate sees it</a> · <a href="${fileEditor(s)}">Edit as file (YAML)</a>${
    s.assessment !== null && html` · <a href="/console/assessments/${s.assessment}/versions?instance=${s.instance}">Versions and changes</a>`
  }</p>`;
}

function settingsForm(s: BuilderState): SafeHtml {
  const st = s.settings;
  const categories = rowCount(st.values, 'categories', 1);
  const typingOpen = value(st, 'typingTest.passage') !== '' || st.problems.some((p) => p.name.startsWith('typingTest'));
  return html`<section class="panel" aria-labelledby="settings-title">
<h2 id="settings-title">Assessment</h2>
<form method="post" action="${builderPath(s.assessment)}" class="builder-form" novalidate>
${hidden(s)}
<input type="hidden" name="action" value="settings">
${s.assessment === null && input(st, 'id', { label: 'Id', hint: 'How clients name it (invites, scores): lowercase letters, digits and hyphens, starting with a letter. It cannot change once published.', required: true })}
${input(st, 'name', { label: 'Name', required: true })}
${input(st, 'description', { label: 'Description', hint: 'What it measures, shown to clients and candidates.', kind: 'textarea', rows: 2, required: true })}
${input(st, 'instructions', { label: 'Instructions (optional)', hint: 'Shown to the candidate before starting; Markdown.', kind: 'textarea', rows: 3 })}
<div class="builder-row">
${input(st, 'durationMinutes', { label: 'Time limit (minutes)', inputmode: 'numeric', required: true, className: 'narrow' })}
${input(st, 'passScore', { label: 'Pass score (%)', inputmode: 'decimal', required: true, className: 'narrow' })}
${input(st, 'lowPassScore', { label: 'Low pass score (%)', inputmode: 'decimal', required: true, className: 'narrow' })}
</div>
${checkbox(st, 'shuffleQuestions', 'Shuffle the questions for each candidate')}
${checkbox(st, 'shuffleOptions', 'Shuffle the options of choice questions for each candidate')}
<fieldset class="builder-rows" aria-describedby="categories-hint">
<legend>Categories</legend>
<p class="hint" id="categories-hint">Each question counts towards one category; a category's weight (default 1) is its share of the total score. Leave a row empty to remove it.</p>
${groupError(st, 'categories')}
${range(categories).map(
  (i) => html`<div class="builder-row">
${input(st, `categories.${i}.id`, { label: html`Category ${i + 1} id` })}
${input(st, `categories.${i}.name`, { label: html`Category ${i + 1} name` })}
${input(st, `categories.${i}.weight`, { label: html`Category ${i + 1} weight`, inputmode: 'decimal', className: 'narrow' })}
</div>`,
)}
</fieldset>
<details class="builder-typing"${typingOpen && html` open`}><summary>Typing test (optional)</summary>
${input(st, 'typingTest.passage', { label: 'Passage to type', hint: 'Plain ASCII text of 50 to 3000 characters. Leave it and the target empty for no typing test.', kind: 'textarea', rows: 3 })}
<div class="builder-row">
${input(st, 'typingTest.targetWpm', { label: 'Target (words per minute)', inputmode: 'decimal', className: 'narrow' })}
${input(st, 'typingTest.category', { label: 'Typing test category id' })}
</div>
</details>
<div class="actions"><button type="submit" class="primary">Save settings</button></div>
</form>
</section>`;
}

function questionList(s: BuilderState): SafeHtml {
  const n = s.questions.length;
  return html`<section class="panel" aria-labelledby="questions-title">
<h2 id="questions-title">Questions</h2>
${
  n === 0
    ? html`<p class="empty"><strong>No question yet.</strong> Choose a type below and add the first.</p>`
    : html`<p class="hint" id="reorder-hint">Move a question with its Move up and Move down buttons${html`<span class="drag-hint" hidden>, or drag it by its handle</span>`}.</p>
<ol class="builder-questions" id="builder-questions" data-move="${builderPath(s.assessment)}" aria-describedby="reorder-hint">${s.questions.map(
        (q) => html`<li class="builder-question" id="question-${q.number}" data-index="${q.number - 1}">
<span class="drag-handle" aria-hidden="true" hidden>⠿</span>
<div class="builder-question-text">
<h3><span class="hint">Question ${q.number} · ${TYPE_NAMES[q.type] ?? q.type} · ${q.category}</span></h3>
<p class="builder-prompt">${q.prompt || html`<em>No prompt yet</em>`}</p>
${q.problems > 0 && html`<p class="error">${q.problems} problem${q.problems === 1 ? '' : 's'}: it would not publish yet.</p>`}
</div>
<form method="post" action="${builderPath(s.assessment)}" class="builder-question-actions">
${hidden(s)}<input type="hidden" name="question" value="${q.number}">
<a class="button" href="${linkTo(s, `/questions/${q.number}`)}">Edit<span class="visually-hidden"> question ${q.number}</span></a>
<button type="submit" name="action" value="up"${q.number === 1 && html` disabled`}>Move up<span class="visually-hidden"> question ${q.number}</span></button>
<button type="submit" name="action" value="down"${q.number === n && html` disabled`}>Move down<span class="visually-hidden"> question ${q.number}</span></button>
<button type="submit" name="action" value="delete" class="danger">Delete<span class="visually-hidden"> question ${q.number}</span></button>
</form>
</li>`,
      )}</ol>`
}
<form method="get" action="${linkTo(s, '/questions/new').split('?')[0]}" class="builder-add">
<input type="hidden" name="instance" value="${s.instance}">
<div class="field"><label for="add-type">Question type</label>
<select id="add-type" name="type" aria-describedby="add-type-hint">${QUESTION_TYPE_LIST.map((t) => html`<option value="${t}">${TYPE_NAMES[t]}</option>`)}</select>
<p class="hint" id="add-type-hint">${QUESTION_TYPE_LIST.map((t) => `${TYPE_NAMES[t]}: ${TYPE_HINTS[t]}`).join(' ')}</p></div>
<button type="submit">Add question</button>
</form>
</section>`;
}

export function builderBody(s: BuilderState): SafeHtml {
  const errors = s.draftErrors ?? [];
  const settingsFields = new Set(Object.keys(s.settings.values));
  return html`${pageLinks(s)}
<h1>${s.assessment === null ? 'New assessment' : html`Build ${s.name} <span class="hint">(${s.assessment})</span>`}</h1>
${s.notice && html`<p class="info" role="status">${s.notice}</p>`}
${draftNote(s)}
${
  s.unreadable
    ? html`<p class="error" role="alert">The draft is not an assessment document the builder can read (it was edited as a file). <a href="${fileEditor(s)}">Edit it as a file</a> to fix it, or discard it there.</p>`
    : html`${
        s.refused
          ? problemSummary('The settings were not saved:', s.settings.problems, (name) => settingsFields.has(name) || name === 'id')
          : errors.length > 0 &&
            html`<div class="error-summary" id="builder-errors"><p class="error">The draft would not publish yet: ${errors.length} problem${errors.length === 1 ? '' : 's'}.</p><ul>${errors.map(
              (e) => {
                const q = /^questions\.(\d+)(?:\.|$)/.exec(e.path);
                return html`<li>${q ? html`<a href="${linkTo(s, `/questions/${Number(q[1]) + 1}`)}">Question ${Number(q[1]) + 1}</a> <code>${e.path.replace(/^questions\.\d+\.?/, '')}</code>` : html`<code>${e.path || '(document)'}</code>`} ${e.message}</li>`;
              },
            )}</ul></div>`
      }
${settingsForm(s)}
${questionList(s)}
<section class="panel" aria-labelledby="publish-title">
<h2 id="publish-title">Publish</h2>
<p>Publishing makes the draft a new version: candidates invited from then on get it; those who started keep theirs.</p>
<form method="post" action="${builderPath(s.assessment)}" class="actions">
${hidden(s)}
<button type="submit" name="action" value="publish" class="primary">Publish</button>
${s.draft && html`<button type="submit" name="action" value="discard" class="danger">Discard draft</button>`}
</form>
</section>
<script src="/console/assets/assessment-builder.js" defer></script>`
}`;
}

// ---- a question ------------------------------------------------------------------------------

export interface QuestionPageState {
  instance: string;
  csrf: string;
  assessment: string | null;
  name: string;
  /** The question's number (1-based), or null for a new one. */
  number: number | null;
  type: QuestionType;
  form: FormState;
  categories: string[];
  refused?: boolean;
  /** A file just uploaded (its reference, added to the prompt, not saved yet), or why not. */
  media?: { uploaded?: string; problems?: FormProblem[] };
}

/** The upload of a picture, sound or video into the prompt: inside the question's form, posted with it as multipart (nothing saved). */
function mediaFields(s: QuestionPageState, action: string): SafeHtml {
  const m: FormState = { values: {}, problems: s.media?.problems ?? [] };
  return html`<fieldset class="builder-rows" id="builder-media">
<legend>Add a picture, sound or video to the prompt</legend>
<p class="hint" id="builder-media-hint">PNG, JPEG, WebP, GIF or SVG; MP3, OGG or WAV; MP4 or WebM (limits in docs/media.md). Uploading stores the file and adds its reference at the end of the prompt, with the form as it is: save the question to keep it.</p>
${s.media?.problems && s.media.problems.length > 0 && html`<p class="error" role="alert">The file was not uploaded; nothing changed.</p>`}
${s.media?.uploaded && html`<p class="info" role="status">Uploaded, and added at the end of the prompt as <code>${s.media.uploaded}</code>. Save the question to keep it.</p>`}
<div class="field"><label for="f-file">File</label><input type="file"${attributes(m, 'file', false)}>${fieldError(m.problems, 'file', `${fieldId('file')}-error`)}</div>
${input(m, 'media-text', { label: 'Alternative text (a picture) or transcript (a sound, a video)', hint: 'Required: what the picture shows, or what the sound or video says, for candidates who cannot see or hear it.', kind: 'textarea', rows: 2 })}
<button type="submit" formaction="${action}/media" formenctype="multipart/form-data">Upload and add to the prompt</button>
</fieldset>`;
}

function choiceRows(s: FormState, type: 'single-choice' | 'multiple-choice'): SafeHtml {
  const rows = rowCount(s.values, 'options', 4);
  return html`<fieldset class="builder-rows"${invalid(s, 'options') && html` aria-describedby="${fieldId('options')}-error"`}>
<legend>Options</legend>
<p class="hint">${type === 'single-choice' ? 'Mark the one right answer.' : 'Tick every right answer (at least one, not all).'} Leave an option empty to remove it.</p>
${groupError(s, 'options')}
${range(rows).map((i) => {
  const mark =
    type === 'single-choice'
      ? html`<label class="choice" for="${fieldId(`correct-${i}`)}"><input type="radio" id="${fieldId(`correct-${i}`)}" name="correct" value="${i}"${value(s, 'correct') === String(i) && html` checked`}> Option ${i + 1} is the right answer</label>`
      : html`<label class="choice" for="${fieldId(`options.${i}.correct`)}"><input type="checkbox" id="${fieldId(`options.${i}.correct`)}" name="options.${i}.correct" value="on"${value(s, `options.${i}.correct`) !== '' && html` checked`}> Option ${i + 1} is a right answer</label>`;
  return html`<div class="builder-option">${input(s, `options.${i}.text`, { label: `Option ${i + 1}`, className: 'grow' })}${mark}${fieldError(s.problems, `options.${i}`, `${fieldId(`options.${i}`)}-error`)}</div>`;
})}
</fieldset>`;
}

function rankingRows(s: FormState): SafeHtml {
  const rows = rowCount(s.values, 'options', 4);
  return html`<fieldset class="builder-rows">
<legend>Options and the best order</legend>
<p class="hint">Each option has an id (lowercase, unique in the question) and its place in the best order (1 is the best). Candidates see them in the order listed here, which must not be the best order.</p>
${groupError(s, 'options')}${groupError(s, 'key')}
${range(rows).map(
  (i) => html`<div class="builder-row">
${input(s, `options.${i}.text`, { label: `Option ${i + 1}`, className: 'grow' })}
${input(s, `options.${i}.id`, { label: `Option ${i + 1} id`, className: 'narrow' })}
${input(s, `options.${i}.rank`, { label: `Option ${i + 1} place`, inputmode: 'numeric', className: 'narrow' })}
</div>${fieldError(s.problems, `options.${i}`, `${fieldId(`options.${i}`)}-error`)}`,
)}
</fieldset>`;
}

function rubricRows(s: FormState): SafeHtml {
  const rows = rowCount(s.values, 'rubric.criteria', 1);
  return html`<fieldset class="builder-rows">
<legend>Rubric (optional)</legend>
<p class="hint" id="rubric-hint">Reviewers score each criterion by choosing one of its levels. Write each level on its own line, lowest first, as <code>points | label | what an answer at this level looks like</code>, such as <code>0 | Missing | No example given</code>.</p>
${groupError(s, 'rubric')}${groupError(s, 'rubric.criteria')}
${range(rows).map(
  (i) => html`<fieldset class="builder-criterion"><legend>Criterion ${i + 1}</legend>
<div class="builder-row">
${input(s, `rubric.criteria.${i}.name`, { label: html`<span class="visually-hidden">Criterion ${i + 1} </span>Name`, className: 'grow' })}
${input(s, `rubric.criteria.${i}.id`, { label: html`<span class="visually-hidden">Criterion ${i + 1} </span>Id`, className: 'narrow' })}
</div>
${input(s, `rubric.criteria.${i}.levels`, { label: html`<span class="visually-hidden">Criterion ${i + 1} </span>Levels`, hint: 'One per line, lowest first: points | label | description.', kind: 'textarea', rows: 4 })}
</fieldset>`,
)}
</fieldset>`;
}

function testRows(s: FormState, list: 'examples' | 'tests'): SafeHtml {
  const rows = rowCount(s.values, list, list === 'tests' ? 2 : 1);
  const calls = value(s, 'entry').trim() !== '';
  const noun = list === 'tests' ? 'Hidden test' : 'Example';
  return html`<fieldset class="builder-rows">
<legend>${list === 'tests' ? 'Hidden tests' : 'Examples (optional)'}</legend>
<p class="hint">${
    list === 'tests'
      ? 'Run when the attempt is submitted; the score is the share of their points passed. Never shown to the candidate.'
      : 'Shown to the candidate, who may run them; never scored.'
  } With an entry function, it is called with the arguments (a JSON list) and must return the expected result (JSON); without one, the program reads the input and must print the expected output. Leave a row empty to remove it.</p>
${groupError(s, list)}
${range(rows).map((i) => {
  const at = `${list}.${i}`;
  const hasCall = value(s, `${at}.args`) !== '' || value(s, `${at}.expected`) !== '';
  const hasStdio = value(s, `${at}.stdin`) !== '' || value(s, `${at}.expectedStdout`) !== '';
  // An empty row of a question without an entry function yet offers both kinds.
  const showCall = calls || hasCall || !hasStdio;
  const showStdio = (!calls && !hasCall) || hasStdio;
  return html`<fieldset class="builder-criterion"><legend>${noun} ${i + 1}</legend>${groupError(s, at)}
<div class="builder-row">
${showStdio && html`${input(s, `${at}.stdin`, { label: html`<span class="visually-hidden">${noun} ${i + 1} </span>Input`, kind: 'code', rows: 2, className: 'grow' })}${input(s, `${at}.expectedStdout`, { label: html`<span class="visually-hidden">${noun} ${i + 1} </span>Expected output`, kind: 'code', rows: 2, className: 'grow' })}`}
${showCall && html`${input(s, `${at}.args`, { label: html`<span class="visually-hidden">${noun} ${i + 1} </span>Arguments (JSON list)`, className: 'grow' })}${input(s, `${at}.expected`, { label: html`<span class="visually-hidden">${noun} ${i + 1} </span>Expected result (JSON)`, className: 'grow' })}`}
${list === 'tests' && input(s, `${at}.points`, { label: html`<span class="visually-hidden">${noun} ${i + 1} </span>Points`, inputmode: 'decimal', className: 'narrow' })}
</div></fieldset>`;
})}
</fieldset>`;
}

function typeFields(s: FormState, type: QuestionType): SafeHtml {
  switch (type) {
    case 'single-choice':
    case 'multiple-choice':
      return choiceRows(s, type);
    case 'short-answer':
      return input(s, 'accept', { label: 'Accepted answers', hint: 'One per line; compared ignoring case, spaces and thousands separators.', kind: 'textarea', rows: 3 });
    case 'free-text':
      return html`${input(s, 'guidance', { label: 'Guidance for reviewers (optional)', hint: 'What a good answer shows; never shown to the candidate.', kind: 'textarea', rows: 3 })}
${input(s, 'maxLength', { label: 'Longest answer (characters, optional)', hint: 'Default 4000.', inputmode: 'numeric', className: 'narrow' })}
${rubricRows(s)}`;
    case 'likert': {
      const id = fieldId('scale');
      const current = value(s, 'scale');
      return html`<div class="field"><label for="${id}">Scale</label>
<select${attributes(s, 'scale', false)}>${LIKERT_CHOICES.map(
        (c) =>
          html`<option value="${c}"${c === current && html` selected`}>${c === 'custom' ? 'My own labels (below)' : `${c}: ${LIKERT_SCALES[c as keyof typeof LIKERT_SCALES].join(', ')}`}</option>`,
      )}</select>${fieldError(s.problems, 'scale', `${id}-error`)}</div>
${input(s, 'labels', { label: 'My own labels', hint: 'With "My own labels": 5 or 7 labels, one per line, lowest first.', kind: 'textarea', rows: 5 })}
${checkbox(s, 'reverse', 'Reverse-keyed: agreeing scores lowest')}`;
    }
    case 'ranking':
      return rankingRows(s);
    case 'coding':
      return html`<fieldset class="builder-rows"><legend>Languages</legend>${groupError(s, 'languages')}${CODING_LANGUAGES.map((l) => checkbox(s, `languages.${l}`, LANGUAGE_NAMES[l] ?? l))}</fieldset>
${input(s, 'entry', { label: 'Entry function (optional)', hint: 'The function the tests call, such as sum. Without one, each test runs the program with its input.' })}
${CODING_LANGUAGES.map((l) => input(s, `starterCode.${l}`, { label: `${LANGUAGE_NAMES[l] ?? l} starter code (optional)`, kind: 'code', rows: 5 }))}
${testRows(s, 'examples')}
${testRows(s, 'tests')}
<div class="builder-row">
${input(s, 'timeLimitMs', { label: 'Time limit per run (ms, optional)', hint: 'Default 2000.', inputmode: 'numeric', className: 'narrow' })}
${input(s, 'memoryLimitMb', { label: 'Memory per run (MB, optional)', hint: 'Default 64.', inputmode: 'numeric', className: 'narrow' })}
</div>`;
  }
}

export function questionBody(s: QuestionPageState): SafeHtml {
  const f = s.form;
  const known = new Set(Object.keys(f.values));
  const action = `${builderPath(s.assessment)}/questions/${s.number ?? 'new'}`;
  const title = s.number === null ? `New ${TYPE_NAMES[s.type]!.toLowerCase()} question` : `Question ${s.number}: ${TYPE_NAMES[s.type]}`;
  const categoryId = fieldId('category');
  const category = value(f, 'category');
  const categories = s.categories.includes(category) || category === '' ? s.categories : [...s.categories, category];
  return html`${pageLinks(s)}
<p class="no-print"><a href="${linkTo(s)}${s.number !== null ? `#question-${s.number}` : ''}">Back to ${s.assessment === null ? 'the new assessment' : s.name}</a></p>
<h1>${title}</h1>
<p class="hint">${TYPE_HINTS[s.type]}</p>
${
  s.refused
    ? problemSummary('The question was not saved:', f.problems, (name) => known.has(name))
    : f.problems.length > 0 && problemSummary('This question would not publish yet:', f.problems, (name) => known.has(name))
}
<form method="post" action="${action}" class="panel builder-form" novalidate>
${hidden(s)}
${s.number === null && html`<input type="hidden" name="type" value="${s.type}">`}
${input(f, 'prompt', { label: 'Prompt', hint: 'The question as the candidate reads it; Markdown (bold, lists, code, pictures).', kind: 'textarea', rows: 4, required: true })}
<div class="builder-row">
<div class="field"><label for="${categoryId}">Category</label><select${attributes(f, 'category', false)}>${categories.map((c) => html`<option value="${c}"${c === category && html` selected`}>${c}</option>`)}</select>${fieldError(f.problems, 'category', `${categoryId}-error`)}</div>
${input(f, 'id', { label: 'Question id', hint: 'Unique in the assessment; scores and answers name it.', className: 'narrow' })}
${input(f, 'points', { label: 'Points (optional)', hint: 'Its weight in its category; default 1.', inputmode: 'decimal', className: 'narrow' })}
</div>
${typeFields(f, s.type)}
<div class="actions"><button type="submit" class="primary">Save question</button> <a href="${linkTo(s)}">Cancel</a></div>
${mediaFields(s, action)}
</form>`;
}

/** The preview's page around the portal's rendering (previewBody), with the way back. */
export function builderPreviewNote(s: { instance: string; assessment: string | null }, errors: ContentError[]): SafeHtml {
  return html`<p class="no-print"><a href="${linkTo(s)}">Back to the builder</a></p>
${errors.length > 0 && html`<p class="error">The draft has ${errors.length} problem${errors.length === 1 ? '' : 's'}: the questions that are written are shown.</p>`}`;
}
