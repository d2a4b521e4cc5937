// The question builder: the same draft as the YAML editor (drafts.ts), edited through forms. Each
// form's fields are named by their path in the content (`options.1.text`), so the importer's errors
// (by path) land beside the field they are about. A form post is one edit of the draft: the
// settings, one question (new or changed), a move, a removal. The edit is checked with the
// importer's rules before it is saved; when it brings a problem in what it changed, nothing is
// saved and the form comes back with the problems beside their fields. What the form does not
// show (translations, pools, a practice question, a question's pilot time …) stays as it is.
import { parse } from 'yaml';
import type { Queryable } from '../../db/database.js';
import type { CommandContext } from '../../domain/command.js';
import { invalidInput, type DomainFieldError } from '../../domain/errors.js';
import { parseAssessment, type ContentError } from './content.js';
import { CODING_LANGUAGES, LIKERT_SCALES, QUESTION_TYPES } from './content-schema.js';
import { checkDraft, contentYaml, draftAuthor, findDraft, saveDraft, type Draft, type DraftTarget } from './drafts.js';
import { assessmentUuid, currentContent } from './repository.js';

/** A draft read as a plain document (what YAML gives), which the builder edits. */
export type DraftDocument = Record<string, unknown>;
type Obj = Record<string, unknown>;
/** A form's values by field name (the field's path in the content, relative to the question for a question). */
export type FormValues = Record<string, string>;
/** A problem with a form's field, by its name. */
export interface FormProblem {
  name: string;
  detail: string;
}

export type QuestionType = keyof typeof QUESTION_TYPES;
export const QUESTION_TYPE_LIST = Object.keys(QUESTION_TYPES) as QuestionType[];
export const isQuestionType = (value: unknown): value is QuestionType => typeof value === 'string' && Object.hasOwn(QUESTION_TYPES, value);

/** Blank rows a form offers after the filled ones, for adding an option, a category, a test. */
export const BLANK_ROWS = 2;
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;

/** What a new assessment starts from in the builder: nothing written yet but sensible defaults. */
export function newDocument(): DraftDocument {
  return { id: '', name: '', description: '', durationMinutes: 30, passScore: 70, lowPassScore: 50, categories: [{ id: 'general', name: 'General' }], questions: [] };
}

/** The draft's text as a document the builder can edit; undefined when it is not a YAML mapping (the file editor fixes it). */
export function draftDocument(source: string): DraftDocument | undefined {
  try {
    const value: unknown = parse(source, { maxAliasCount: 100 });
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const doc = value as DraftDocument;
    if (doc.questions !== undefined && !Array.isArray(doc.questions)) return undefined;
    if (doc.categories !== undefined && !Array.isArray(doc.categories)) return undefined;
    return doc;
  } catch {
    return undefined;
  }
}

/** The document as the draft's YAML, written as the file editor shows content (questions, then translations last). */
export const documentYaml = (doc: DraftDocument): string => contentYaml(doc as never);

export const questionsOf = (doc: DraftDocument): Obj[] => (Array.isArray(doc.questions) ? (doc.questions as Obj[]) : []);
export const categoriesOf = (doc: DraftDocument): Obj[] => (Array.isArray(doc.categories) ? (doc.categories as Obj[]) : []);

// ---- reading form values ----------------------------------------------------------------------

const str = (values: FormValues, name: string): string => (typeof values[name] === 'string' ? values[name]!.replace(/\r\n?/g, '\n') : '');
const trimmed = (values: FormValues, name: string) => str(values, name).trim();
const checked = (values: FormValues, name: string) => values[name] !== undefined && values[name] !== '';
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

/** The row numbers the form's fields name under `prefix` (`options.3.text` → 3), in order. */
function rowsOf(values: FormValues, prefix: string): number[] {
  const rows = new Set<number>();
  for (const key of Object.keys(values)) {
    const m = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.(\\d{1,3})\\.`).exec(key);
    if (m) rows.add(Number(m[1]));
  }
  return [...rows].sort((a, b) => a - b);
}

/** A row all of whose fields are empty (a blank row offered for adding one): left out. */
const blankRow = (values: FormValues, prefix: string, row: number, fields: string[]) => fields.every((f) => trimmed(values, `${prefix}.${row}.${f}`) === '');

class Reader {
  readonly problems: FormProblem[] = [];
  constructor(readonly values: FormValues) {}
  problem(name: string, detail: string) {
    this.problems.push({ name, detail });
  }
  /** A number field: undefined when blank (a required one is then a problem). */
  number(name: string, required: boolean, integer = false): number | undefined {
    const text = trimmed(this.values, name);
    if (text === '') {
      if (required) this.problem(name, 'is required: write a number');
      return undefined;
    }
    if (!(integer ? /^-?\d{1,9}$/ : /^-?\d{1,9}(\.\d{1,6})?$/).test(text)) {
      this.problem(name, integer ? `must be a whole number, is "${text.slice(0, 40)}"` : `must be a number, is "${text.slice(0, 40)}"`);
      return undefined;
    }
    return Number(text);
  }
  /** A JSON field: undefined when blank. */
  json(name: string): unknown {
    const text = trimmed(this.values, name);
    if (text === '') return undefined;
    try {
      return JSON.parse(text);
    } catch {
      this.problem(name, 'must be JSON, such as [1, 2] or "text" or {"a": 1}');
      return undefined;
    }
  }
}

/** The text written, or the text as it was when only its surrounding spaces or final line break differ (YAML block text ends with one). */
const keep = (old: unknown, value: string): string => (typeof old === 'string' && old.trim() === value.trim() ? old : value);

/** Sets `key` to `value`, or removes it when the value is undefined (an optional field left blank). */
function put(target: Obj, key: string, value: unknown) {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/** A checkbox for a field whose absence means false: unchecked keeps an explicit false, else removes the field. */
function putFlag(target: Obj, key: string, on: boolean) {
  if (on) target[key] = true;
  else if (target[key] !== false) delete target[key];
}

// ---- the settings ------------------------------------------------------------------------------

/** The settings form's values from the document. */
export function settingsValues(doc: DraftDocument): FormValues {
  const values: FormValues = {};
  for (const key of ['id', 'name', 'description', 'instructions', 'durationMinutes', 'passScore', 'lowPassScore']) values[key] = text(doc[key]);
  categoriesOf(doc).forEach((c, i) => {
    values[`categories.${i}.id`] = text(c.id);
    values[`categories.${i}.name`] = text(c.name);
    values[`categories.${i}.weight`] = text(c.weight);
  });
  if (doc.shuffleQuestions === true) values.shuffleQuestions = 'on';
  if (doc.shuffleOptions === true) values.shuffleOptions = 'on';
  const typing = doc.typingTest as Obj | undefined;
  if (typing && typeof typing === 'object') {
    values['typingTest.passage'] = text(typing.passage);
    values['typingTest.targetWpm'] = text(typing.targetWpm);
    values['typingTest.category'] = text(typing.category);
  }
  return values;
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** The document with the settings form's values; the id only for a new assessment (an assessment keeps its id). */
export function applySettings(doc: DraftDocument, values: FormValues, isNew: boolean): { doc: DraftDocument; problems: FormProblem[] } {
  const next: DraftDocument = structuredClone(doc);
  const r = new Reader(values);
  if (isNew) next.id = trimmed(values, 'id');
  next.name = keep(doc.name, trimmed(values, 'name'));
  next.description = keep(doc.description, trimmed(values, 'description'));
  put(next, 'instructions', keep(doc.instructions, str(values, 'instructions').trim()) || undefined);
  put(next, 'durationMinutes', r.number('durationMinutes', true, true));
  put(next, 'passScore', r.number('passScore', true));
  put(next, 'lowPassScore', r.number('lowPassScore', true));
  putFlag(next, 'shuffleQuestions', checked(values, 'shuffleQuestions'));
  putFlag(next, 'shuffleOptions', checked(values, 'shuffleOptions'));
  const before = categoriesOf(doc);
  const categories: Obj[] = [];
  const renamed = new Map<string, string>();
  for (const row of rowsOf(values, 'categories')) {
    if (blankRow(values, 'categories', row, ['id', 'name', 'weight'])) continue;
    const old = before[row];
    const category: Obj = { ...(old ?? {}), id: trimmed(values, `categories.${row}.id`), name: trimmed(values, `categories.${row}.name`) };
    put(category, 'weight', r.number(`categories.${row}.weight`, false));
    if (old && typeof old.id === 'string' && old.id !== category.id) renamed.set(old.id, category.id as string);
    categories.push(category);
  }
  next.categories = categories;
  // A category renamed takes its questions (and the typing test, and its pool) with it.
  if (renamed.size > 0) {
    for (const q of questionsOf(next)) if (typeof q.category === 'string' && renamed.has(q.category)) q.category = renamed.get(q.category);
    for (const p of Array.isArray(next.pools) ? (next.pools as Obj[]) : []) if (typeof p.category === 'string' && renamed.has(p.category)) p.category = renamed.get(p.category);
  }
  const passage = str(values, 'typingTest.passage').trim();
  const wpm = trimmed(values, 'typingTest.targetWpm');
  if (passage === '' && wpm === '') delete next.typingTest;
  else {
    const old = (doc.typingTest as Obj | undefined) ?? {};
    const typing: Obj = { ...old, category: trimmed(values, 'typingTest.category'), passage: keep(old.passage, passage) };
    put(typing, 'targetWpm', r.number('typingTest.targetWpm', true));
    if (typeof typing.category === 'string' && renamed.has(typing.category)) typing.category = renamed.get(typing.category);
    next.typingTest = typing;
  }
  return { doc: next, problems: r.problems };
}

// ---- a question --------------------------------------------------------------------------------

const LIKERT_CUSTOM = 'custom';
export const LIKERT_CHOICES = [...Object.keys(LIKERT_SCALES), LIKERT_CUSTOM];

/** A rubric level as one line of the form: `points | label | description`. */
const levelLine = (level: Obj) => [text(level.points), text(level.label), ...(level.description !== undefined ? [text(level.description)] : [])].join(' | ');

/** A question's form values. */
export function questionValues(q: Obj): FormValues {
  const values: FormValues = { id: text(q.id), category: text(q.category), prompt: text(q.prompt), points: text(q.points) };
  const options = Array.isArray(q.options) ? (q.options as Obj[]) : [];
  switch (q.type) {
    case 'single-choice':
    case 'multiple-choice':
      options.forEach((o, i) => {
        values[`options.${i}.text`] = text(o.text);
        if (o.correct === true) {
          if (q.type === 'single-choice') values.correct = String(i);
          else values[`options.${i}.correct`] = 'on';
        }
      });
      break;
    case 'short-answer':
      values.accept = (Array.isArray(q.accept) ? q.accept : []).map(text).join('\n');
      break;
    case 'free-text': {
      values.maxLength = text(q.maxLength);
      values.guidance = text(q.guidance);
      const criteria = q.rubric && typeof q.rubric === 'object' && Array.isArray((q.rubric as Obj).criteria) ? ((q.rubric as Obj).criteria as Obj[]) : [];
      criteria.forEach((c, i) => {
        values[`rubric.criteria.${i}.id`] = text(c.id);
        values[`rubric.criteria.${i}.name`] = text(c.name);
        values[`rubric.criteria.${i}.levels`] = (Array.isArray(c.levels) ? (c.levels as Obj[]) : []).map(levelLine).join('\n');
      });
      break;
    }
    case 'likert':
      if (Array.isArray(q.scale)) {
        values.scale = LIKERT_CUSTOM;
        values.labels = q.scale.map(text).join('\n');
      } else values.scale = text(q.scale);
      if (q.reverse === true) values.reverse = 'on';
      break;
    case 'ranking': {
      const key = Array.isArray(q.key) ? q.key.map(text) : [];
      options.forEach((o, i) => {
        values[`options.${i}.id`] = text(o.id);
        values[`options.${i}.text`] = text(o.text);
        const place = key.indexOf(text(o.id));
        values[`options.${i}.rank`] = place < 0 ? '' : String(place + 1);
      });
      break;
    }
    case 'coding': {
      const languages = Array.isArray(q.languages) ? q.languages.map(text) : [];
      for (const language of CODING_LANGUAGES) {
        if (languages.includes(language)) values[`languages.${language}`] = 'on';
        const starter = q.starterCode && typeof q.starterCode === 'object' ? (q.starterCode as Obj)[language] : undefined;
        values[`starterCode.${language}`] = text(starter);
      }
      values.entry = text(q.entry);
      values.timeLimitMs = text(q.timeLimitMs);
      values.memoryLimitMb = text(q.memoryLimitMb);
      for (const list of ['examples', 'tests'] as const) {
        (Array.isArray(q[list]) ? (q[list] as Obj[]) : []).forEach((t, i) => {
          values[`${list}.${i}.stdin`] = text(t.stdin);
          values[`${list}.${i}.expectedStdout`] = text(t.expectedStdout);
          values[`${list}.${i}.args`] = t.args === undefined ? '' : JSON.stringify(t.args);
          values[`${list}.${i}.expected`] = t.expected === undefined ? '' : JSON.stringify(t.expected);
          if (list === 'tests') values[`${list}.${i}.points`] = text(t.points);
        });
      }
      break;
    }
  }
  return values;
}

const TEST_FIELDS = ['stdin', 'expectedStdout', 'args', 'expected', 'points'];

/**
 * The question the form's values make: `existing` (the question edited, or a new one of `type`)
 * with the form's fields set, its other fields kept. The type is the existing question's.
 */
export function questionFromValues(type: QuestionType, values: FormValues, existing: Obj | undefined): { question: Obj; problems: FormProblem[] } {
  const q: Obj = existing ? structuredClone(existing) : {};
  const r = new Reader(values);
  q.id = trimmed(values, 'id');
  q.type = type;
  q.category = trimmed(values, 'category');
  q.prompt = keep(existing?.prompt, str(values, 'prompt').trim());
  put(q, 'points', r.number('points', false));
  switch (type) {
    case 'single-choice':
    case 'multiple-choice': {
      const options: Obj[] = [];
      const before = Array.isArray(existing?.options) ? (existing.options as Obj[]) : [];
      for (const row of rowsOf(values, 'options')) {
        const correct = type === 'single-choice' ? trimmed(values, 'correct') === String(row) : checked(values, `options.${row}.correct`);
        if (blankRow(values, 'options', row, ['text']) && !correct) continue;
        const option: Obj = { ...(before[row] ?? {}), text: keep(before[row]?.text, trimmed(values, `options.${row}.text`)) };
        putFlag(option, 'correct', correct);
        options.push(option);
      }
      q.options = options;
      break;
    }
    case 'short-answer':
      q.accept = lines(str(values, 'accept'));
      break;
    case 'free-text': {
      put(q, 'maxLength', r.number('maxLength', false, true));
      put(q, 'guidance', keep(existing?.guidance, str(values, 'guidance').trim()) || undefined);
      const criteria: Obj[] = [];
      for (const row of rowsOf(values, 'rubric.criteria')) {
        if (blankRow(values, 'rubric.criteria', row, ['id', 'name', 'levels'])) continue;
        const levels = lines(str(values, `rubric.criteria.${row}.levels`)).map((line) => {
          const [points, label, ...description] = line.split('|').map((p) => p.trim());
          const level: Obj = { label: label ?? '', points: Number.NaN };
          if (!/^\d{1,3}(\.\d{1,4})?$/.test(points ?? ''))
            r.problem(`rubric.criteria.${row}.levels`, `"${line.slice(0, 60)}" must start with its points, a number: 2 | Good | what it looks like`);
          else level.points = Number(points);
          if (description.length > 0 && description.join('|') !== '') level.description = description.join(' | ');
          return level;
        });
        criteria.push({ id: trimmed(values, `rubric.criteria.${row}.id`), name: trimmed(values, `rubric.criteria.${row}.name`), levels });
      }
      if (criteria.length === 0) delete q.rubric;
      else q.rubric = { ...(existing?.rubric && typeof existing.rubric === 'object' ? (existing.rubric as Obj) : {}), criteria };
      break;
    }
    case 'likert': {
      const scale = trimmed(values, 'scale');
      q.scale = scale === LIKERT_CUSTOM ? lines(str(values, 'labels')) : scale;
      putFlag(q, 'reverse', checked(values, 'reverse'));
      break;
    }
    case 'ranking': {
      const options: { option: Obj; rank: number | undefined; row: number }[] = [];
      for (const row of rowsOf(values, 'options')) {
        if (blankRow(values, 'options', row, ['id', 'text', 'rank'])) continue;
        const rank = r.number(`options.${row}.rank`, false, true);
        if (rank === undefined && trimmed(values, `options.${row}.rank`) === '') r.problem(`options.${row}.rank`, 'is required: its place in the best order (1 is the best)');
        options.push({ option: { id: trimmed(values, `options.${row}.id`), text: trimmed(values, `options.${row}.text`) }, rank, row });
      }
      const places = new Map<number, number>();
      for (const o of options) {
        if (o.rank === undefined) continue;
        if (places.has(o.rank)) r.problem(`options.${o.row}.rank`, `gives place ${o.rank} to a second option: each place once`);
        places.set(o.rank, o.row);
      }
      q.options = options.map((o) => o.option);
      q.key = [...options]
        .filter((o) => o.rank !== undefined)
        .sort((a, b) => a.rank! - b.rank!)
        .map((o) => o.option.id);
      break;
    }
    case 'coding': {
      q.languages = CODING_LANGUAGES.filter((language) => checked(values, `languages.${language}`));
      const starter: Obj = { ...(existing?.starterCode && typeof existing.starterCode === 'object' ? (existing.starterCode as Obj) : {}) };
      for (const language of CODING_LANGUAGES)
        put(starter, language, str(values, `starterCode.${language}`).replace(/\s+$/, '') ? str(values, `starterCode.${language}`) : undefined);
      put(q, 'starterCode', Object.keys(starter).length > 0 ? starter : undefined);
      put(q, 'entry', trimmed(values, 'entry') || undefined);
      put(q, 'timeLimitMs', r.number('timeLimitMs', false, true));
      put(q, 'memoryLimitMb', r.number('memoryLimitMb', false, true));
      for (const list of ['examples', 'tests'] as const) {
        const tests: Obj[] = [];
        for (const row of rowsOf(values, list)) {
          if (blankRow(values, list, row, TEST_FIELDS)) continue;
          const test: Obj = {};
          const at = `${list}.${row}`;
          const stdin = str(values, `${at}.stdin`);
          const stdout = str(values, `${at}.expectedStdout`);
          if (stdin !== '') test.stdin = stdin;
          if (stdout !== '') test.expectedStdout = stdout;
          const args = r.json(`${at}.args`);
          if (args !== undefined && !Array.isArray(args)) r.problem(`${at}.args`, 'must be a JSON list of the arguments, such as [2, 3]');
          put(test, 'args', args);
          put(test, 'expected', r.json(`${at}.expected`));
          if (list === 'tests') put(test, 'points', r.number(`${at}.points`, false));
          tests.push(test);
        }
        if (list === 'examples') put(q, 'examples', tests.length > 0 ? tests : undefined);
        else q.tests = tests;
      }
      break;
    }
  }
  return { question: q, problems: r.problems };
}

/** A new question's id: q1, q2 … the first the document does not use. */
export function freshQuestionId(doc: DraftDocument): string {
  const used = new Set(questionsOf(doc).map((q) => q.id));
  let n = questionsOf(doc).length + 1;
  while (used.has(`q${n}`)) n++;
  return `q${n}`;
}

/** The values of a new question's form of `type`: a fresh id, the first category, sensible starting rows. */
export function newQuestionValues(doc: DraftDocument, type: QuestionType): FormValues {
  const values: FormValues = { id: freshQuestionId(doc), category: text(categoriesOf(doc)[0]?.id), prompt: '' };
  if (type === 'likert') values.scale = 'agreement-5';
  if (type === 'coding') values['languages.javascript'] = 'on';
  return values;
}

// ---- mapping the importer's errors to the form's fields ----------------------------------------

/** The form field an error's path (relative to the form) is about: the longest field name that starts it. */
export function fieldOfPath(path: string, fields: Iterable<string>): string {
  const names = new Set(fields);
  const segments = path.split('.');
  for (let n = segments.length; n > 0; n--) {
    const candidate = segments.slice(0, n).join('.');
    if (names.has(candidate)) return candidate;
  }
  return segments.slice(0, 2).join('.') || '(question)';
}

const SETTINGS_ROOTS = new Set([
  'id',
  'name',
  'description',
  'instructions',
  'durationMinutes',
  'passScore',
  'lowPassScore',
  'categories',
  'typingTest',
  'shuffleQuestions',
  'shuffleOptions',
]);

/** Whether a settings error is the settings' own (a category yet without questions is not a reason to refuse them). */
const settingsError = (e: ContentError) => SETTINGS_ROOTS.has(e.path.split('.')[0]!) && !/^categories\.\d+$/.test(e.path);

/** A document of the given settings that is otherwise valid: one placeholder question per category, so that the importer's rules about settings run. */
function settingsProbe(doc: DraftDocument): DraftDocument {
  const probe = structuredClone(doc);
  const ids = categoriesOf(doc)
    .map((c) => c.id)
    .filter((id): id is string => typeof id === 'string' && SLUG.test(id));
  probe.questions = [...new Set(ids)].map((category, i) => ({
    id: `probe-${i}`,
    type: 'single-choice',
    category,
    prompt: 'Probe',
    options: [{ text: 'A', correct: true }, { text: 'B' }],
  }));
  delete probe.pools;
  delete probe.practice;
  delete probe.translations;
  return probe;
}

/** A valid document around the one question, so that the importer's rules about the question run whatever the rest holds. */
function questionProbe(doc: DraftDocument, question: Obj): DraftDocument {
  const ids = categoriesOf(doc)
    .map((c) => c.id)
    .filter((id): id is string => typeof id === 'string' && SLUG.test(id));
  const categories = [...new Set(ids)].map((id) => ({ id, name: id }));
  const probe: DraftDocument = { id: 'probe', name: 'Probe', description: 'Probe', durationMinutes: 10, passScore: 50, lowPassScore: 0, categories, questions: [question] };
  // Other categories would be without questions: give each a placeholder.
  for (const c of categories)
    if (c.id !== question.category)
      (probe.questions as Obj[]).push({ id: `probe-${c.id}`, type: 'single-choice', category: c.id, prompt: 'Probe', options: [{ text: 'A', correct: true }, { text: 'B' }] });
  if (categories.length === 0) probe.categories = [{ id: 'probe', name: 'Probe' }];
  return probe;
}

const errorsOf = (doc: DraftDocument): ContentError[] => {
  const parsed = parseAssessment(documentYaml(doc));
  return parsed.ok ? [] : parsed.errors;
};

const dedupe = (errors: ContentError[]) => {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(`${e.path}\u0000${e.message}`) && seen.add(`${e.path}\u0000${e.message}`));
};

/** The importer's errors about the settings of the document (with its questions, and in a probe that runs the rules about settings alone). */
export function settingsErrors(doc: DraftDocument): ContentError[] {
  return dedupe([...errorsOf(doc).filter(settingsError), ...errorsOf(settingsProbe(doc)).filter(settingsError)]).map(({ path, message }) => ({ path, message }));
}

/** The importer's errors about question `index` of the document, by path relative to the question. */
export function questionErrors(doc: DraftDocument, index: number): ContentError[] {
  const question = questionsOf(doc)[index];
  if (!question) return [];
  const own = (prefix: string) => (e: ContentError) => e.path === prefix || e.path.startsWith(`${prefix}.`);
  const relative = (prefix: string) => (e: ContentError) => ({ path: e.path.slice(prefix.length + 1) || '(question)', message: e.message });
  return dedupe([
    ...errorsOf(doc)
      .filter(own(`questions.${index}`))
      .map(relative(`questions.${index}`)),
    ...errorsOf(questionProbe(doc, question)).filter(own('questions.0')).map(relative('questions.0')),
  ]);
}

// ---- the command -------------------------------------------------------------------------------

export type BuilderEdit =
  | { kind: 'settings'; values: FormValues }
  /** `index`: the question changed, or null for a new one of `type` (added last). */
  | { kind: 'question'; index: number | null; type?: unknown; values: FormValues }
  | { kind: 'move'; index: number; to: number }
  | { kind: 'delete'; index: number };

/** The draft's document as the builder starts from it: the saved draft, else the published version, else a new document. */
export async function builderDocument(db: Queryable, target: DraftTarget, author: string): Promise<{ doc: DraftDocument | undefined; draft?: Draft }> {
  const draft = await findDraft(db, target, author);
  if (draft) return { doc: draftDocument(draft.source), draft };
  if (target.assessment === null) return { doc: newDocument() };
  const uuid = await assessmentUuid(db, target.instance.id, target.assessment);
  return { doc: draftDocument(contentYaml(await currentContent(db, uuid!))) };
}

const fieldProblems = (problems: FormProblem[], where: 'body' | 'content' = 'body'): DomainFieldError[] => problems.map((p) => ({ in: where, name: p.name, detail: p.detail }));

/**
 * One edit of the draft through the builder's forms, saved as the draft (saveDraft) when it brings
 * no problem in what it changed; else refused (invalid, each problem by its form field) with
 * nothing saved. Returns the draft saved and, for a question, its index.
 */
export async function editDraftByForm(ctx: CommandContext, input: DraftTarget & { edit: BuilderEdit }): Promise<{ draft: Draft; index?: number }> {
  const author = draftAuthor(ctx.actor);
  const { doc } = await builderDocument(ctx.tx, input, author);
  if (!doc) throw invalidInput([{ in: 'body', name: 'source', detail: 'the draft is not an assessment document the builder can read: edit it as a file' }]);
  const edit = input.edit;
  const questions = questionsOf(doc);
  const inRange = (index: unknown, name: string) => {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= questions.length)
      throw invalidInput([{ in: 'body', name, detail: `must be a question of the draft, 1 to ${questions.length}` }]);
  };
  let next: DraftDocument;
  let index: number | undefined;
  switch (edit.kind) {
    case 'settings': {
      const applied = applySettings(doc, edit.values, input.assessment === null);
      if (applied.problems.length > 0) throw invalidInput(fieldProblems(applied.problems));
      const errors = settingsErrors(applied.doc);
      if (errors.length > 0) throw invalidInput(errors.map((e) => ({ in: 'content', name: fieldOfPath(e.path, Object.keys(edit.values)), detail: e.message })));
      next = applied.doc;
      break;
    }
    case 'question': {
      let type: QuestionType;
      let existing: Obj | undefined;
      if (edit.index === null) {
        if (!isQuestionType(edit.type)) throw invalidInput([{ in: 'body', name: 'type', detail: `must be one of ${QUESTION_TYPE_LIST.join(', ')}` }]);
        type = edit.type;
        index = questions.length;
      } else {
        inRange(edit.index, 'question');
        existing = questions[edit.index];
        if (!isQuestionType(existing!.type)) throw invalidInput([{ in: 'body', name: 'type', detail: 'this question has no type the builder knows: edit it as a file' }]);
        type = existing!.type;
        index = edit.index;
      }
      const made = questionFromValues(type, edit.values, existing);
      if (made.problems.length > 0) throw invalidInput(fieldProblems(made.problems));
      next = structuredClone(doc);
      const list = questionsOf(next).slice();
      list[index] = made.question;
      next.questions = list;
      const errors = questionErrors(next, index);
      if (errors.length > 0) throw invalidInput(errors.map((e) => ({ in: 'content', name: fieldOfPath(e.path, Object.keys(edit.values)), detail: e.message })));
      break;
    }
    case 'move': {
      inRange(edit.index, 'question');
      inRange(edit.to, 'to');
      next = structuredClone(doc);
      const list = questionsOf(next).slice();
      const [moved] = list.splice(edit.index, 1);
      list.splice(edit.to, 0, moved!);
      next.questions = list;
      index = edit.to;
      break;
    }
    case 'delete': {
      inRange(edit.index, 'question');
      next = structuredClone(doc);
      next.questions = questionsOf(next).filter((_, i) => i !== edit.index);
      break;
    }
  }
  const draft = await saveDraft(ctx, { ...input, source: documentYaml(next) });
  return { draft, index };
}

/** The draft's errors as publishing would find them (checkDraft), for the builder's summary. */
export async function builderCheck(db: Queryable, target: DraftTarget, doc: DraftDocument) {
  return checkDraft(db, target, documentYaml(doc));
}
