// Import: a QTI 3.0 content package (from this service, TAO, Moodle or any QTI tool) read as this
// service's assessment content, with a report naming every item imported and everything that did
// not map (file, item, what and why): nothing is dropped silently. docs/qti.md has the mapping.
import type { Element } from '@xmldom/xmldom';
import { invalidInput, type DomainFieldError } from '../../../domain/errors.js';
import { parseAssessment } from '../content.js';
import type { AssessmentContent } from '../content-schema.js';
import { EXTENSION_NS, ITEM_TYPE, TEST_TYPE, secondsOf, type ItemExtension, type TestExtension } from './format.js';
import { xhtmlToMarkdown } from './xhtml-read.js';
import { PackageError, attr, child, children, descendants, localName, nodesOf, parseXml, textOf } from './xml.js';
import { readZip, safePath } from './zip.js';
import { exactOr, orderedQuestion, readItem, slugOf, type Question } from './item.js';

export const MAX_ITEMS = 500;

/** An identifier made for machines: a UUID, or a long run of hex digits. */
const unreadable = (identifier: string) => /[0-9a-f]{8}-[0-9a-f]{4}-|[0-9a-f]{12,}|\d{6,}/i.test(identifier) || !/[a-z]{3,}/i.test(identifier);
/** Whether an identifier names what the title says (shares a word with it): "test" or "_2019juyhgjgjhg" does not name "Oefentoets biologie". */
const namesTitle = (identifier: string, title: string | undefined) => {
  if (!title) return true;
  const words = new Set(slugOf(title).split('-'));
  return slugOf(identifier)
    .split('-')
    .some((word) => word.length >= 3 && words.has(word));
};

export interface QtiReport {
  /** The assessment the package became (absent when it was refused). */
  assessment?: { id: string; name: string; questions: number };
  imported: { file: string; item: string; question: string; type: string }[];
  notImported: { file: string; item?: string; what: string; why: string }[];
  /** What changed or was left out within what was imported. */
  notes: { file: string; item?: string; what: string }[];
}

export interface QtiReading {
  content: AssessmentContent;
  hash: string;
  /** The package's files the content's Markdown names (pictures, sound, video), by their paths in it. */
  media: Map<string, Uint8Array>;
  report: QtiReport;
}

const DEFAULT_DURATION_MINUTES = 30;
const DEFAULT_PASS = 60;
const DEFAULT_LOW_PASS = 50;

function decode(bytes: Uint8Array, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new PackageError(file, 'is not UTF-8 text');
  }
}

/** Reads a package; refused (an invalid-input error naming file and problem) when it cannot be read or nothing in it imports. */
export function readQtiPackage(bytes: Uint8Array, fileName = 'package.zip', chosenId?: string): QtiReading {
  try {
    return read(bytes, fileName, chosenId);
  } catch (error) {
    if (error instanceof PackageError) throw invalidInput([{ in: 'body', name: error.file, detail: error.message }], `The QTI package was refused: ${error.file} ${error.message}`);
    throw error;
  }
}

interface Resource {
  identifier: string;
  type: string;
  href?: string;
  metadata?: Element;
}

function read(bytes: Uint8Array, fileName: string, chosenId?: string): QtiReading {
  const files = readZip(bytes);
  const manifestBytes = files.get('imsmanifest.xml');
  if (!manifestBytes) throw new PackageError(fileName, 'has no imsmanifest.xml at its root: it is not an IMS content package');
  const manifest = parseXml(decode(manifestBytes, 'imsmanifest.xml'), 'imsmanifest.xml');
  if (localName(manifest) !== 'manifest') throw new PackageError('imsmanifest.xml', `has the root element <${manifest.nodeName}>, not <manifest>`);

  const report: QtiReport = { imported: [], notImported: [], notes: [] };
  const media = new Map<string, Uint8Array>();
  const note = (file: string, item: string | undefined, what: string) => {
    if (!report.notes.some((n) => n.file === file && n.item === item && n.what === what)) report.notes.push({ file, ...(item === undefined ? {} : { item }), what });
  };
  const resources: Resource[] = descendants(manifest, 'resource').map((r) => {
    const href = attr(r, 'href');
    return {
      identifier: attr(r, 'identifier') ?? '',
      type: attr(r, 'type') ?? '',
      href: href === undefined ? undefined : safePath(href, 'imsmanifest.xml'),
      metadata: child(r, 'metadata'),
    };
  });
  const qti2 = resources.filter((r) => /^imsqti_(item|test|assessment)_xmlv2/.test(r.type));
  const tests = resources.filter((r) => r.type === TEST_TYPE);
  const itemResources = resources.filter((r) => r.type === ITEM_TYPE);
  if (tests.length === 0 && itemResources.length === 0) {
    if (qti2.length > 0) throw new PackageError('imsmanifest.xml', 'lists QTI 2.x resources only: this service reads QTI 3.0 packages (convert the package to QTI 3.0 first)');
    throw new PackageError('imsmanifest.xml', `lists no QTI 3.0 item or test (resources of type ${ITEM_TYPE} or ${TEST_TYPE})`);
  }
  for (const r of resources) {
    if (r.type !== TEST_TYPE && r.type !== ITEM_TYPE && /^imsqti/.test(r.type)) note('imsmanifest.xml', r.identifier, `the resource of type ${r.type} is not read`);
  }
  const extensionOf = (r: Resource | undefined): Record<string, unknown> => {
    const e = r?.metadata && children(r.metadata).find((c) => localName(c) === 'extension' && c.namespaceURI === EXTENSION_NS);
    if (!e) return {};
    try {
      const value = JSON.parse(e.textContent ?? '') as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    } catch {
      note('imsmanifest.xml', r.identifier, 'its Assessment Connect extension metadata is not JSON: left out');
      return {};
    }
  };
  const byHref = new Map(itemResources.filter((r) => r.href).map((r) => [r.href!, r]));
  const fileText = (path: string, from: string): string => {
    const data = files.get(path);
    if (!data) throw new PackageError(from, `refers to ${path}, which is not in the package`);
    return decode(data, path);
  };

  // The items in the test's order, each with the sections around it.
  interface Ref {
    href: string;
    sections: Element[];
    weight?: string;
  }
  let refs: Ref[] = [];
  let test: Element | undefined;
  let testFile = '';
  if (tests.length > 0) {
    if (tests.length > 1) note('imsmanifest.xml', undefined, `the package has ${tests.length} tests: the first (${tests[0]!.href}) is imported`);
    testFile = tests[0]!.href ?? '';
    if (!testFile) throw new PackageError('imsmanifest.xml', 'names a test resource without href');
    test = parseXml(fileText(testFile, 'imsmanifest.xml'), testFile);
    if (localName(test) !== 'qti-assessment-test') throw new PackageError(testFile, `has the root element <${test.nodeName}>, not <qti-assessment-test> (QTI 3.0)`);
    const base = testFile.includes('/') ? testFile.slice(0, testFile.lastIndexOf('/') + 1) : '';
    const walk = (section: Element, chain: Element[]) => {
      for (const c of children(section)) {
        const name = localName(c);
        if (name === 'qti-assessment-section') walk(c, [...chain, c]);
        else if (name === 'qti-assessment-item-ref') {
          const href = attr(c, 'href');
          if (!href) {
            note(testFile, attr(c, 'identifier'), 'an item reference without href is left out');
            continue;
          }
          refs.push({ href: safePath(base + href, testFile), sections: chain, weight: attr(child(c, 'qti-weight') ?? c, 'value') });
        } else if (name === 'qti-assessment-section-ref') note(testFile, attr(c, 'identifier'), 'a section reference (another file) is not followed');
        else if (['qti-pre-condition', 'qti-branch-rule'].includes(name))
          note(testFile, attr(section, 'identifier'), `<${name}> is not imported: every attempt here takes every question (or its pools' draw)`);
      }
    };
    for (const part of children(test, 'qti-test-part')) walk(part, []);
    if (child(test, 'qti-outcome-processing'))
      note(testFile, undefined, "the test's outcome processing is not imported: this service computes category and total scores by its own rules");
    for (const f of descendants(test, 'qti-test-feedback')) note(testFile, attr(f, 'identifier'), 'test feedback is not imported: this service shows no feedback after a test');
  } else {
    refs = itemResources.filter((r) => r.href).map((r) => ({ href: r.href!, sections: [] }));
    note('imsmanifest.xml', undefined, 'the package has no test: its items are imported in the order of the manifest, in one category');
  }
  if (refs.length > MAX_ITEMS) throw new PackageError(testFile || 'imsmanifest.xml', `has ${refs.length} items; a package may have at most ${MAX_ITEMS}`);

  const testExtension = extensionOf(tests[0]) as TestExtension;
  const lomText = (root: Element | undefined, path: string[]): string | undefined => {
    let at: Element | undefined = root;
    for (const name of path) at = at && children(at).find((c) => localName(c) === name);
    return at ? textOf(at) || undefined : undefined;
  };
  const manifestMetadata = child(manifest, 'metadata');

  const questions: (Question & { category: string })[] = [];
  const categories: { id: string; name: string; section?: Element }[] = [];
  const sectionCategory = new Map<Element | undefined, string>();
  const usedIds = new Set<string>();
  const shuffles = new Set<boolean>();
  let practice: Question | undefined;
  /** The texts of the items with nothing to answer (an introduction), in the test's order: the instructions. */
  const introductions: string[] = [];
  let shuffleQuestions: boolean | undefined;

  for (const ref of refs) {
    const resource = byHref.get(ref.href);
    const file = ref.href;
    let root: Element;
    try {
      root = parseXml(fileText(file, testFile || 'imsmanifest.xml'), file);
    } catch (error) {
      if (!(error instanceof PackageError)) throw error;
      throw error;
    }
    const itemId = attr(root, 'identifier') ?? file;
    if (localName(root) !== 'qti-assessment-item') {
      report.notImported.push({
        file,
        item: itemId,
        what: `<${root.nodeName}>`,
        why: root.nodeName === 'assessmentItem' ? 'a QTI 2.x item: this service reads QTI 3.0' : 'not a QTI 3.0 item',
      });
      continue;
    }
    const extension = extensionOf(resource) as ItemExtension;
    const pilot = lomText(resource?.metadata, ['lom', 'educational', 'typicalLearningTime', 'duration']);
    const result = readItem(root, file, extension, (what) => note(file, itemId, what), files, media);
    if ('why' in result) {
      report.notImported.push({ file, item: itemId, what: result.what, why: result.why });
      continue;
    }
    if ('introduction' in result) {
      introductions.push(result.introduction);
      report.imported.push({ file, item: itemId, question: 'instructions', type: 'introduction (an item with nothing to answer)' });
      continue;
    }
    const question = result.question;
    if (result.shuffle !== undefined) shuffles.add(result.shuffle);
    if (pilot !== undefined) {
      const seconds = secondsOf(pilot);
      if (seconds !== undefined && Number.isInteger(seconds) && seconds >= 1 && seconds <= 3600) question.pilotSeconds = seconds;
      else note(file, itemId, `its typical learning time "${pilot}" is not whole seconds from 1 to 3600: left out`);
    }
    if (extension.practice === true && !practice) {
      const { pilotSeconds: _pilot, ...rest } = question;
      practice = { ...rest, id: slugOf(itemId), ...(typeof extension.explanation === 'string' ? { explanation: extension.explanation } : {}) };
      report.imported.push({ file, item: itemId, question: 'practice', type: `${question.type} (practice question)` });
      continue;
    }
    let id = slugOf(itemId);
    if (usedIds.has(id)) {
      let n = 2;
      while (usedIds.has(`${id.slice(0, 60)}-${n}`)) n++;
      id = `${id.slice(0, 60)}-${n}`;
    }
    usedIds.add(id);
    if (id !== itemId) note(file, itemId, `its identifier became the question id "${id}"`);
    // The category: the innermost section around the item.
    const section = ref.sections.at(-1);
    if (!sectionCategory.has(section)) {
      const sectionId = section ? (attr(section, 'identifier') ?? 'section') : (lomText(manifestMetadata, ['lom', 'general', 'title', 'string']) ?? 'questions');
      let categoryId = slugOf(sectionId);
      while (categories.some((c) => c.id === categoryId)) categoryId = `${categoryId.slice(0, 60)}-${categories.length + 1}`;
      let name = (section ? attr(section, 'title') || sectionId : 'Questions').slice(0, 100);
      while (categories.some((c) => c.name === name)) name = `${name.slice(0, 90)} (${categories.length + 1})`;
      categories.push({ id: categoryId, name, section });
      sectionCategory.set(section, categoryId);
    }
    if (ref.weight !== undefined) {
      const points = Number(ref.weight);
      if (Number.isFinite(points) && points > 0 && points <= 100) question.points = points;
      else note(file, itemId, `its weight ${ref.weight} is not from above 0 to 100: left out (weight 1)`);
    }
    for (const s of ref.sections) {
      const ordering = child(s, 'qti-ordering');
      if (ordering) shuffleQuestions = shuffleQuestions === true || attr(ordering, 'shuffle') === 'true';
    }
    questions.push({ ...orderedQuestion(question, id), category: sectionCategory.get(section)! });
    report.imported.push({ file, item: itemId, question: id, type: question.type });
  }

  if (questions.length === 0) {
    const fields: DomainFieldError[] = report.notImported.map((n) => ({ in: 'body', name: `${n.file}${n.item ? `#${n.item}` : ''}`, detail: `${n.what}: ${n.why}` }));
    throw invalidInput(
      fields.length > 0 ? fields : [{ in: 'body', name: fileName, detail: 'has no item' }],
      `Nothing in the package can be imported (${report.notImported.length} item${report.notImported.length === 1 ? '' : 's'} not importable)`,
    );
  }

  // Pools: a section's selection draws from the category's questions.
  const pools: { category: string; draw: number }[] = [];
  for (const category of categories) {
    const selection = category.section && child(category.section, 'qti-selection');
    if (!selection) continue;
    const select = Number(attr(selection, 'select'));
    const size = questions.filter((q) => q.category === category.id).length;
    if (!Number.isInteger(select) || select < 1)
      note(testFile, attr(category.section!, 'identifier'), `its selection "${attr(selection, 'select')}" is not a number of items: every question is given`);
    else {
      if (select > size) note(testFile, attr(category.section!, 'identifier'), `its selection of ${select} items is more than the ${size} imported: ${size} are drawn`);
      if (select < size) pools.push({ category: category.id, draw: Math.min(select, size) });
      else if (select === size && attr(category.section!, 'identifier') === category.id) pools.push({ category: category.id, draw: select });
      if (attr(selection, 'with-replacement') === 'true')
        note(testFile, attr(category.section!, 'identifier'), 'selection with replacement is not supported: each question is drawn at most once');
    }
  }
  // The authored order across categories (sections group by category), when the extension has it.
  const order = Array.isArray(testExtension.questionOrder) ? testExtension.questionOrder : [];
  if (questions.every((q) => order.includes(q.id))) questions.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
  const weights = testExtension.categoryWeights ?? {};
  const usedCategories = categories
    .filter((c) => questions.some((q) => q.category === c.id))
    .map((c) => ({ id: c.id, name: c.name, ...(typeof weights[c.id] === 'number' ? { weight: weights[c.id] } : {}) }));

  // The test's settings.
  const title = test ? attr(test, 'title') : undefined;
  const manifestTitle = lomText(manifestMetadata, ['lom', 'general', 'title', 'string']);
  // The id: the one chosen, else the test's identifier when people can read it, else its title as a slug.
  const identifier = (test && attr(test, 'identifier')) ?? lomText(manifestMetadata, ['lom', 'general', 'identifier', 'entry']);
  const readable = identifier !== undefined && !unreadable(identifier) && namesTitle(identifier, title || manifestTitle) ? slugOf(identifier) : undefined;
  const id = chosenId ?? readable ?? slugOf(title || manifestTitle || identifier || 'imported');
  if (!chosenId && !readable && identifier !== undefined)
    note(testFile || 'imsmanifest.xml', undefined, `its identifier "${identifier.slice(0, 80)}" is not readable or does not name the test: the id "${id}" is made from its title`);
  const name = (title || manifestTitle || id).slice(0, 200);
  let description = lomText(manifestMetadata, ['lom', 'general', 'description', 'string']) ?? lomText(tests[0]?.metadata, ['lom', 'general', 'description', 'string']);
  if (!description) {
    description = name;
    note('imsmanifest.xml', undefined, 'the package has no description: its name is set; write one for candidates');
  }
  if (description.length > 2000) {
    description = `${description.slice(0, 1999)}…`;
    note('imsmanifest.xml', undefined, 'its description is cut to 2000 characters');
  }
  const limits = test ? [test, ...children(test, 'qti-test-part')].map((e) => child(e, 'qti-time-limits')).find((l) => l && attr(l, 'max-time') !== undefined) : undefined;
  let durationMinutes = DEFAULT_DURATION_MINUTES;
  const maxTime = limits && Number(attr(limits, 'max-time'));
  if (maxTime !== undefined && Number.isFinite(maxTime) && maxTime > 0) {
    durationMinutes = Math.min(480, Math.max(1, Math.ceil(maxTime / 60)));
    if (durationMinutes * 60 !== maxTime) note(testFile, undefined, `its time limit of ${maxTime} seconds is ${durationMinutes} minutes here (whole minutes, 1 to 480)`);
  } else note(testFile || 'imsmanifest.xml', undefined, `the test has no time limit: ${DEFAULT_DURATION_MINUTES} minutes is set (every assessment here is timed)`);
  const threshold = (identifier: string, fallback: number) => {
    const declaration = test && children(test, 'qti-outcome-declaration').find((d) => attr(d, 'identifier') === identifier);
    const value = declaration && Number(textOf(child(declaration, 'qti-default-value') ?? declaration));
    if (value !== undefined && Number.isFinite(value) && value >= 0 && value <= 100) return value;
    note(testFile || 'imsmanifest.xml', undefined, `no ${identifier} outcome (0 to 100): ${fallback} % is set`);
    return fallback;
  };
  const passScore = threshold('PASS_SCORE', DEFAULT_PASS);
  const lowPassScore = threshold('LOW_PASS_SCORE', Math.min(DEFAULT_LOW_PASS, passScore));

  let instructions: string | undefined;
  const candidateBlocks = test ? descendants(test, 'qti-rubric-block').filter((b) => (attr(b, 'view') ?? 'candidate').split(/\s+/).includes('candidate')) : [];
  if (candidateBlocks.length > 0) {
    const converted = candidateBlocks.map((b) => xhtmlToMarkdown(nodesOf(b), (what) => note(testFile, undefined, `instructions: ${what}`))).join('\n\n');
    instructions = exactOr(converted, testExtension.instructions);
  }
  // An introduction item is read before the questions: it follows the test's own instructions.
  if (introductions.length > 0) instructions = [instructions, ...introductions].filter((t) => t).join('\n\n');
  if (instructions && instructions.length > 4000) note(testFile || 'imsmanifest.xml', undefined, `the instructions are cut to 4000 characters (they were ${instructions.length})`);
  if (test)
    for (const b of descendants(test, 'qti-rubric-block').filter((b) => !candidateBlocks.includes(b)))
      note(testFile, undefined, `a rubric block for ${attr(b, 'view')} is not imported`);

  let shuffleOptions = testExtension.shuffleOptions;
  if (shuffleOptions === undefined && shuffles.has(true)) {
    shuffleOptions = true;
    if (shuffles.has(false))
      note(testFile || 'imsmanifest.xml', undefined, 'some choice interactions shuffle and some do not: here the options of every choice question are shuffled');
  }

  const content = {
    id,
    name,
    description,
    ...(instructions ? { instructions: instructions.slice(0, 4000) } : {}),
    ...(Array.isArray(testExtension.roles) ? { roles: testExtension.roles } : {}),
    ...(typeof testExtension.readingLevel === 'string' ? { readingLevel: testExtension.readingLevel } : {}),
    durationMinutes,
    passScore,
    lowPassScore,
    categories: usedCategories,
    questions,
    ...(shuffleQuestions === undefined ? {} : { shuffleQuestions }),
    ...(shuffleOptions === undefined ? {} : { shuffleOptions }),
    ...(pools.length > 0 ? { pools } : {}),
    ...(practice ? { practice: { ...orderedQuestion(practice, practice.id) } } : {}),
  };
  const parsed = parseAssessment(JSON.stringify(content));
  if (!parsed.ok) {
    throw invalidInput(
      parsed.errors.map((e) => ({ in: 'content' as const, name: e.path || '(document)', detail: e.message })),
      `The package's content breaks ${parsed.errors.length} rule${parsed.errors.length === 1 ? '' : 's'} of assessments here: ${parsed.errors
        .slice(0, 3)
        .map((e) => `${e.path || '(document)'} ${e.message}`)
        .join('; ')}`,
    );
  }
  report.assessment = { id: parsed.content.id, name: parsed.content.name, questions: parsed.content.questions.length };
  return { content: parsed.content, hash: parsed.hash, media, report };
}

/** The question's fields in the order the service writes them. */
