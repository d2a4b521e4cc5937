// Reads assessment content (YAML, or JSON, which is YAML too), validates it against the content
// schema and the rules a schema cannot say, and reports each problem with its path and line.
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { LineCounter, isMap, isNode, isPair, isScalar, parseDocument, type Document } from 'yaml';
import { Type } from 'typebox';
import { AssessmentContent, LIKERT_SCALES, QUESTION_TYPES, type QuestionContent } from './content-schema.js';
import { LANGUAGES } from '../../i18n/i18n.js';
import { LONE_SURROGATE_MESSAGE, loneSurrogatePath } from '../../domain/text.js';
import { TRANSLATION_LANGUAGES, missingTranslations, translationProblems } from './translations.js';

export interface ContentError {
  /** Dotted path into the document, such as `questions.3.options`; empty for the document itself. */
  path: string;
  line?: number;
  column?: number;
  message: string;
}

/**
 * Valid content may still have warnings: the fields each translation leaves out (shown in English
 * to its candidates), language by language. They never stop a publish.
 */
export type ParsedContent = { ok: true; content: AssessmentContent; hash: string; warnings: ContentError[] } | { ok: false; errors: ContentError[] };

// verbose: errors carry the data they are about, so that "has 2" can be said.
const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
// The document is checked in two steps so that a question's errors come from the schema of its
// own type, not from every branch of a union.
const checkDocument = ajv.compile(
  Type.Object(
    {
      ...AssessmentContent.properties,
      questions: Type.Array(Type.Object({ type: Type.Union(Object.keys(QUESTION_TYPES).map((t) => Type.Literal(t))) }, { additionalProperties: true }), {
        minItems: 1,
        maxItems: 500,
      }),
    },
    { additionalProperties: false },
  ),
);
const checkQuestion = Object.fromEntries(Object.entries(QUESTION_TYPES).map(([type, schema]) => [type, ajv.compile(schema)])) as Record<string, ValidateFunction>;

const MAX_SOURCE_BYTES = 512 * 1024;

// What a refused document's errors may repeat of it: a document full of errors (or with one huge
// line quoted in each) must not make an error answer many times its own size.
export const MAX_REPORTED_ERRORS = 50;
const MAX_ERROR_TEXT = 300;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Parses and checks an assessment document. A refused one has at most MAX_REPORTED_ERRORS errors
 * (then one saying how many more), each message and path clipped to a few hundred characters.
 */
export function parseAssessment(source: string): ParsedContent {
  const parsed = parseUncapped(source);
  if (parsed.ok) return parsed;
  const errors = parsed.errors.slice(0, MAX_REPORTED_ERRORS).map((e) => ({ ...e, path: clip(e.path, MAX_ERROR_TEXT), message: clip(e.message, MAX_ERROR_TEXT) }));
  const more = parsed.errors.length - errors.length;
  if (more > 0) errors.push({ path: '', message: `and ${more} more error${more === 1 ? '' : 's'}` });
  return { ok: false, errors };
}

function parseUncapped(source: string): ParsedContent {
  if (Buffer.byteLength(source, 'utf8') > MAX_SOURCE_BYTES) {
    return { ok: false, errors: [{ path: '', message: `is larger than ${MAX_SOURCE_BYTES / 1024} KiB` }] };
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((error) => {
        const at = lineCounter.linePos(error.pos[0]);
        return { path: '', line: at.line, column: at.col, message: error.message.split('\n')[0]! };
      }),
    };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, errors: [{ path: '', message: (error as Error).message }] };
  }
  const locate = (segments: (string | number)[]) => position(doc, lineCounter, segments);
  const unreadable = loneSurrogatePath(value);
  if (unreadable) return { ok: false, errors: [{ path: unreadable.join('.'), ...locate(unreadable), message: LONE_SURROGATE_MESSAGE }] };

  if (!checkDocument(value)) return { ok: false, errors: describe(checkDocument.errors ?? [], [], locate) };
  const content = value as AssessmentContent;
  const errors: ContentError[] = [];
  content.questions.forEach((question, index) => {
    const check = checkQuestion[question.type]!;
    if (!check(question)) errors.push(...describe(check.errors ?? [], ['questions', index], locate));
  });
  if (content.practice) errors.push(...practiceErrors(content, locate));
  if (errors.length === 0) errors.push(...semanticErrors(content, locate));
  if (errors.length === 0) {
    for (const problem of translationProblems(content)) errors.push({ path: problem.segments.join('.'), ...locate(problem.segments), message: problem.message });
  }
  if (errors.length > 0) return { ok: false, errors };
  const warnings = missingTranslations(content).map((m) => ({
    path: m.segments.join('.'),
    ...locate(m.segments),
    message: `is missing: the ${LANGUAGES[m.lang]} (${m.lang}) text of ${m.original}, shown in English until it is given`,
  }));
  return { ok: true, content, hash: createHash('sha256').update(JSON.stringify(content)).digest('hex'), warnings };
}

type Locate = (segments: (string | number)[]) => { line?: number; column?: number };

function describe(errors: ErrorObject[], prefix: (string | number)[], locate: Locate): ContentError[] {
  const seen = new Set<string>();
  const out: ContentError[] = [];
  // A union failure reports each failed branch too; its own summary says it better.
  const unions = errors.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath);
  for (const error of errors) {
    if (error.keyword !== 'anyOf' && unions.some((p) => error.instancePath === p || error.instancePath.startsWith(`${p}/`))) continue;
    const segments = [
      ...prefix,
      ...error.instancePath
        .split('/')
        .slice(1)
        .map((s) => (/^\d+$/.test(s) ? Number(s) : s)),
    ];
    let message = error.message ?? 'is invalid';
    let where = segments;
    const count = Array.isArray(error.data) ? `, has ${error.data.length}` : '';
    if (error.keyword === 'minItems') {
      message = `must have at least ${String(error.params.limit)} item${error.params.limit === 1 ? '' : 's'}${count}`;
    } else if (error.keyword === 'maxItems') {
      message = `must have at most ${String(error.params.limit)} items${count}`;
    } else if (error.keyword === 'required') {
      message = `is missing "${String(error.params.missingProperty)}"`;
    } else if (error.keyword === 'additionalProperties' && segments.length === 1 && segments[0] === 'translations') {
      where = [...segments, String(error.params.additionalProperty)];
      message = `"${String(error.params.additionalProperty)}" is not a language content is translated into: use ${TRANSLATION_LANGUAGES.join(' or ')} (the content's own text is English)`;
    } else if (error.keyword === 'additionalProperties') {
      where = [...segments, String(error.params.additionalProperty)];
      message = `"${String(error.params.additionalProperty)}" is not a known field`;
    } else if (error.keyword === 'const' || error.keyword === 'enum') {
      message = `must be one of ${JSON.stringify(error.params.allowedValues ?? [error.params.allowedValue])}`;
    } else if (error.keyword === 'anyOf' && segments.at(-1) === 'scale') {
      message = `must be the name of a scale (${Object.keys(LIKERT_SCALES).join(', ')}) or a list of 5 or 7 labels`;
    } else if (error.keyword === 'anyOf') {
      message = `must be one of: ${Object.keys(QUESTION_TYPES).join(', ')}`;
    }
    const path = where.join('.');
    if (seen.has(`${path}|${message}`)) continue;
    seen.add(`${path}|${message}`);
    out.push({ path, ...locate(where), message });
  }
  return out;
}

function semanticErrors(content: AssessmentContent, locate: Locate): ContentError[] {
  const errors: ContentError[] = [];
  const add = (segments: (string | number)[], message: string) => errors.push({ path: segments.join('.'), ...locate(segments), message });

  if (content.lowPassScore > content.passScore) add(['lowPassScore'], 'must not be above passScore');

  const categoryIds = new Set<string>();
  content.categories.forEach((category, index) => {
    if (categoryIds.has(category.id)) add(['categories', index, 'id'], `"${category.id}" is used by another category`);
    categoryIds.add(category.id);
  });
  const categoryNames = new Set<string>();
  content.categories.forEach((category, index) => {
    if (categoryNames.has(category.name)) add(['categories', index, 'name'], `"${category.name}" names another category too`);
    categoryNames.add(category.name);
  });

  const used = new Set<string>();
  const questionIds = new Set<string>();
  content.questions.forEach((question, index) => {
    const at = ['questions', index] as (string | number)[];
    if (questionIds.has(question.id)) add([...at, 'id'], `"${question.id}" is used by another question`);
    questionIds.add(question.id);
    if (!categoryIds.has(question.category)) add([...at, 'category'], `"${question.category}" is not a category of this assessment`);
    used.add(question.category);
    errors.push(...questionErrors(question, at, locate));
  });
  if (content.typingTest) {
    if (!categoryIds.has(content.typingTest.category)) {
      add(['typingTest', 'category'], `"${content.typingTest.category}" is not a category of this assessment`);
    }
    used.add(content.typingTest.category);
    if (/[^\x20-\x7e\n]/.test(content.typingTest.passage)) {
      add(['typingTest', 'passage'], 'must be plain printable ASCII, so that every keyboard can type it');
    }
  }
  content.categories.forEach((category, index) => {
    if (!used.has(category.id)) add(['categories', index], `category "${category.id}" has no questions`);
  });
  if (content.norms) {
    if (!content.norms.total && Object.keys(content.norms.categories ?? {}).length === 0) add(['norms'], 'must give the total, categories, or both');
    for (const id of Object.keys(content.norms.categories ?? {})) {
      if (!categoryIds.has(id)) add(['norms', 'categories', id], `"${id}" is not a category of this assessment`);
    }
  }
  const pooled = new Set<string>();
  (content.pools ?? []).forEach((pool, index) => {
    const at = ['pools', index];
    if (!categoryIds.has(pool.category)) add([...at, 'category'], `"${pool.category}" is not a category of this assessment`);
    else if (pooled.has(pool.category)) add([...at, 'category'], `"${pool.category}" has another pool already`);
    pooled.add(pool.category);
    const size = content.questions.filter((q) => q.category === pool.category).length;
    if (pool.draw < 1) add([...at, 'draw'], `must be at least 1, is ${pool.draw}`);
    else if (categoryIds.has(pool.category) && pool.draw > size) {
      add([...at, 'draw'], `must be at most ${size}, the number of questions in category "${pool.category}", is ${pool.draw}`);
    }
  });
  return errors;
}

/**
 * The practice question is checked as a question of its type that counts towards no category:
 * `category` and `points` are refused, `id` defaults to "practice" (set on the content).
 */
function practiceErrors(content: AssessmentContent, locate: Locate): ContentError[] {
  const errors: ContentError[] = [];
  const add = (segments: (string | number)[], message: string) => errors.push({ path: segments.join('.'), ...locate(segments), message });
  const practice = content.practice as Record<string, unknown>;
  // A coding question is no practice: its tests run in the sandbox, which the practice does not.
  const practiceTypes = Object.keys(QUESTION_TYPES).filter((type) => type !== 'coding');
  const check = practiceTypes.includes(String(practice.type)) ? checkQuestion[String(practice.type)]! : undefined;
  if (!check) {
    add(['practice', 'type'], `must be one of: ${practiceTypes.join(', ')}`);
    return errors;
  }
  for (const field of ['category', 'points']) {
    if (field in practice) add(['practice', field], `a practice question is never scored, so it takes no "${field}": remove it`);
  }
  if (errors.length > 0) return errors;
  const { explanation, ...question } = practice;
  const candidate = { id: 'practice', ...question, category: 'practice' };
  if (!check(candidate)) return describe(check.errors ?? [], ['practice'], locate);
  errors.push(...questionErrors(candidate as QuestionContent, ['practice'], locate));
  if (errors.length === 0) {
    const { category: _category, ...kept } = candidate;
    content.practice = { ...kept, ...(explanation === undefined ? {} : { explanation }) } as unknown as AssessmentContent['practice'];
  }
  return errors;
}

function questionErrors(question: QuestionContent, at: (string | number)[], locate: Locate): ContentError[] {
  const errors: ContentError[] = [];
  const add = (segments: (string | number)[], message: string) => errors.push({ path: segments.join('.'), ...locate(segments), message });
  if (question.type === 'single-choice' || question.type === 'multiple-choice') {
    const texts = new Set<string>();
    question.options.forEach((option, index) => {
      if (texts.has(option.text)) add([...at, 'options', index], 'repeats another option');
      texts.add(option.text);
    });
    const correct = question.options.filter((option) => option.correct).length;
    if (question.type === 'single-choice' && correct !== 1) add([...at, 'options'], `must have exactly one correct option, has ${correct}`);
    if (question.type === 'multiple-choice' && correct === 0) add([...at, 'options'], 'must have at least one correct option');
    if (question.type === 'multiple-choice' && correct === question.options.length) add([...at, 'options'], 'must have at least one incorrect option');
  }
  if (question.type === 'likert') {
    if (typeof question.scale === 'string') {
      if (!Object.hasOwn(LIKERT_SCALES, question.scale)) {
        add([...at, 'scale'], `"${question.scale}" is not a scale: use one of ${Object.keys(LIKERT_SCALES).join(', ')}, or a list of 5 or 7 labels`);
      }
    } else {
      const points = question.scale.length;
      if (points !== 5 && points !== 7) add([...at, 'scale'], `must have 5 or 7 points, has ${points}`);
      const labels = new Set<string>();
      question.scale.forEach((label, index) => {
        if (labels.has(label)) add([...at, 'scale', index], `repeats the label "${label}"`);
        labels.add(label);
      });
    }
  }
  if (question.type === 'ranking') {
    const ids = new Set<string>();
    const texts = new Set<string>();
    question.options.forEach((option, index) => {
      if (ids.has(option.id)) add([...at, 'options', index, 'id'], `"${option.id}" is used by another option`);
      if (texts.has(option.text)) add([...at, 'options', index], 'repeats another option');
      ids.add(option.id);
      texts.add(option.text);
    });
    // The key must be a permutation of the option ids: each once, nothing else.
    const keyed = new Set<string>();
    question.key.forEach((id, index) => {
      if (!ids.has(id)) add([...at, 'key', index], `"${id}" is not an option id of this question`);
      else if (keyed.has(id)) add([...at, 'key', index], `lists "${id}" twice`);
      keyed.add(id);
    });
    const missing = [...ids].filter((id) => !keyed.has(id));
    if (missing.length > 0) add([...at, 'key'], `must list every option once; missing ${missing.map((id) => `"${id}"`).join(', ')}`);
    const valid = ids.size === question.options.length && keyed.size === question.key.length && missing.length === 0 && question.key.length === ids.size;
    if (valid && question.options.every((option, index) => question.key[index] === option.id)) {
      add([...at, 'options'], 'are listed in the order of the key, so the candidate would start from the answer: list them in another order');
    }
  }
  if (question.type === 'free-text' && question.rubric) {
    const ids = new Set<string>();
    question.rubric.criteria.forEach((criterion, index) => {
      const where = [...at, 'rubric', 'criteria', index];
      if (ids.has(criterion.id)) add([...where, 'id'], `"${criterion.id}" is used by another criterion`);
      ids.add(criterion.id);
      const labels = new Set<string>();
      criterion.levels.forEach((level, n) => {
        if (labels.has(level.label)) add([...where, 'levels', n, 'label'], `repeats the label "${level.label}" of another level of this criterion`);
        labels.add(level.label);
      });
      if (Math.max(...criterion.levels.map((level) => level.points)) <= 0) add([...where, 'levels'], 'must have a level with more than 0 points');
    });
  }
  if (question.type === 'coding') {
    const languages = new Set<string>();
    question.languages.forEach((language, index) => {
      if (languages.has(language)) add([...at, 'languages', index], `lists "${language}" twice`);
      languages.add(language);
    });
    for (const language of Object.keys(question.starterCode ?? {})) {
      if (!languages.has(language)) add([...at, 'starterCode', language], `"${language}" is not one of the question's languages`);
    }
    const checkTests = (field: 'examples' | 'tests') =>
      (question[field] ?? []).forEach((test, index) => {
        const where = [...at, field, index];
        if (question.entry !== undefined) {
          if (test.args === undefined || !('expected' in test)) add(where, `calls ${question.entry}: give "args" (a list) and "expected"`);
          if (test.stdin !== undefined || test.expectedStdout !== undefined)
            add(where, 'with an entry function, a test takes "args" and "expected", not "stdin" or "expectedStdout"');
        } else {
          if (test.expectedStdout === undefined) add(where, 'runs the program: give "expectedStdout" (and "stdin" if it reads input), or give the question an "entry" function');
          if (test.args !== undefined || 'expected' in test) add(where, '"args" and "expected" need the question\'s "entry" function');
        }
        if (field === 'examples' && test.points !== undefined) add([...where, 'points'], 'an example is never scored, so it takes no "points"');
      });
    checkTests('examples');
    checkTests('tests');
  }
  return errors;
}

function position(doc: Document, lineCounter: LineCounter, segments: (string | number)[]): { line?: number; column?: number } {
  // Walk down as far as the document goes, so that a missing field points at its parent.
  for (let depth = segments.length; depth >= 0; depth--) {
    const parent = depth > 0 ? doc.getIn(segments.slice(0, depth - 1), true) : undefined;
    const key = segments[depth - 1];
    if (depth > 0 && isMap(parent)) {
      const pair = parent.items.find((item) => isPair(item) && isScalar(item.key) && item.key.value === key);
      if (pair && isNode(pair.key) && pair.key.range) return at(lineCounter, pair.key.range[0]);
    }
    const node = depth > 0 ? doc.getIn(segments.slice(0, depth), true) : doc.contents;
    if (isNode(node) && node.range) return at(lineCounter, node.range[0]);
  }
  return {};
}

function at(lineCounter: LineCounter, offset: number) {
  const pos = lineCounter.linePos(offset);
  return { line: pos.line, column: pos.col };
}
