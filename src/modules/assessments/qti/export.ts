// Export: an assessment's content as a QTI 3.0 content package (docs/qti.md has the mapping).
// One item file per question, one assessment test (a section per category), and the manifest,
// whose metadata carries what QTI has no element for (this service's extension, as JSON).
import { invalidInput } from '../../../domain/errors.js';
import { practiceOf, scaleLabels, type AssessmentContent, type QuestionContent } from '../content-schema.js';
import {
  ALL_SECTION,
  CP_NS,
  CP_SCHEMA,
  EXTENSION_NS,
  ITEM_TYPE,
  LOM_NS,
  MAIN_PART,
  MAP_RESPONSE,
  MATCH_CORRECT,
  PRACTICE_PART,
  QTI_NS,
  QTI_SCHEMA,
  TEST_TYPE,
  XSI_NS,
  isoDuration,
  type ItemExtension,
  type TestExtension,
} from './format.js';
import { markdownToXhtml } from './xhtml-write.js';
import { el, serializeXml, type XmlElement } from './xml.js';
import { writeZip } from './zip.js';

/** What the export left out, and why. */
export interface ExportOmission {
  what: string;
  why: string;
}

export interface QtiExport {
  zip: Uint8Array;
  /** The files of the package, by path (for tests and for reading). */
  files: Map<string, string>;
  /** The media files of the package (media/<sha256>.<ext>), by path. */
  media: Map<string, Uint8Array>;
  omitted: ExportOmission[];
}

const TEST_FILE = 'assessment.xml';
const itemFile = (id: string) => `items/${id}.xml`;
const PRACTICE_FILE = 'practice/practice.xml';

/** Numbers written as QTI values: no exponent, no float noise. */
const num = (n: number) => String(Number(n.toPrecision(12)));

/**
 * The content as a QTI package; `media`: the stored files it names, by `<sha256>.<ext>` (a file
 * named but not given is left out, and said).
 */
export function exportQti(content: AssessmentContent, media: ReadonlyMap<string, Uint8Array> = new Map()): QtiExport {
  const omitted: ExportOmission[] = [];
  const questions = content.questions.filter((q) => {
    if (q.type !== 'coding') return true;
    omitted.push({ what: `coding question "${q.id}"`, why: 'QTI has no interaction that runs a program against hidden tests' });
    return false;
  });
  if (content.typingTest) omitted.push({ what: 'the typing test', why: 'QTI has no typing-speed interaction' });
  if (content.proctoring?.webcam) omitted.push({ what: 'webcam snapshots (proctoring)', why: 'proctoring settings are not part of QTI content' });
  if (content.translations && Object.keys(content.translations).length > 0)
    omitted.push({ what: `the translations (${Object.keys(content.translations).join(', ')})`, why: 'a QTI package holds one language; export each language as its own package' });
  if (content.norms) omitted.push({ what: 'the published norms', why: 'QTI content has no place for a norm table' });
  const categories = content.categories.filter((c) => {
    if (questions.some((q) => q.category === c.id)) return true;
    omitted.push({ what: `category "${c.id}"`, why: 'none of its questions can be exported (coding questions or the typing test only)' });
    return false;
  });
  if (questions.length === 0)
    throw invalidInput([{ in: 'path', name: 'id', detail: 'has no question that QTI can hold (coding questions and the typing test do not map): nothing to export' }]);

  const files = new Map<string, string>();
  const resources: XmlElement[] = [];
  const itemResource = (identifier: string, href: string, extension: ItemExtension, pilotSeconds?: number) =>
    el(
      'resource',
      { identifier, type: ITEM_TYPE, href },
      el(
        'metadata',
        {},
        pilotSeconds !== undefined && el('imsmd:lom', {}, el('imsmd:educational', {}, el('imsmd:typicalLearningTime', {}, el('imsmd:duration', {}, isoDuration(pilotSeconds))))),
        el('ac:extension', {}, JSON.stringify(extension)),
      ),
      el('file', { href }),
    );

  for (const question of questions) {
    files.set(itemFile(question.id), serializeXml(itemXml(question, content.shuffleOptions === true)));
    resources.push(itemResource(`item-${question.id}`, itemFile(question.id), itemExtension(question), question.pilotSeconds));
  }
  const practice = practiceOf(content);
  if (practice) {
    const { explanation, ...rest } = practice;
    const question = { ...rest, category: '' } as QuestionContent;
    files.set(PRACTICE_FILE, serializeXml(itemXml(question, content.shuffleOptions === true)));
    resources.push(itemResource('item-practice', PRACTICE_FILE, { ...itemExtension(question), practice: true, ...(explanation === undefined ? {} : { explanation }) }));
  }

  const pools = new Map((content.pools ?? []).map((p) => [p.category, p.draw]));
  const weights = Object.fromEntries(categories.filter((c) => c.weight !== undefined).map((c) => [c.id, c.weight!]));
  const testExtension: TestExtension = {
    ...(content.instructions === undefined ? {} : { instructions: content.instructions }),
    ...(content.roles === undefined ? {} : { roles: content.roles }),
    ...(content.readingLevel === undefined ? {} : { readingLevel: content.readingLevel }),
    ...(Object.keys(weights).length === 0 ? {} : { categoryWeights: weights }),
    ...(content.shuffleOptions === undefined ? {} : { shuffleOptions: content.shuffleOptions }),
    questionOrder: questions.map((q) => q.id),
  };
  const outcome = (identifier: string, value?: number) =>
    el('qti-outcome-declaration', { identifier, cardinality: 'single', 'base-type': 'float' }, value !== undefined && el('qti-default-value', {}, el('qti-value', {}, num(value))));
  const test = el(
    'qti-assessment-test',
    { xmlns: QTI_NS, 'xmlns:xsi': XSI_NS, 'xsi:schemaLocation': QTI_SCHEMA, identifier: content.id, title: content.name, 'tool-name': 'Assessment Connect' },
    outcome('SCORE'),
    outcome('PASS_SCORE', content.passScore),
    outcome('LOW_PASS_SCORE', content.lowPassScore),
    practice &&
      el(
        'qti-test-part',
        { identifier: PRACTICE_PART, 'navigation-mode': 'linear', 'submission-mode': 'individual' },
        el(
          'qti-assessment-section',
          { identifier: PRACTICE_PART, title: 'Practice question', visible: true },
          el('qti-assessment-item-ref', { identifier: PRACTICE_PART, href: PRACTICE_FILE }),
        ),
      ),
    el(
      'qti-test-part',
      { identifier: MAIN_PART, 'navigation-mode': 'nonlinear', 'submission-mode': 'simultaneous' },
      el('qti-time-limits', { 'max-time': content.durationMinutes * 60, 'allow-late-submission': false }),
      el(
        'qti-assessment-section',
        { identifier: ALL_SECTION, title: content.name, visible: true },
        content.shuffleQuestions !== undefined && el('qti-ordering', { shuffle: content.shuffleQuestions }),
        content.instructions !== undefined &&
          el('qti-rubric-block', { view: 'candidate', use: 'instructions' }, el('qti-content-body', {}, el('div', {}, markdownToXhtml(content.instructions, '')))),
        categories.map((category) =>
          el(
            'qti-assessment-section',
            { identifier: category.id, title: category.name, visible: false, 'keep-together': false },
            pools.has(category.id) && el('qti-selection', { select: pools.get(category.id) }),
            questions
              .filter((q) => q.category === category.id)
              .map((q) =>
                el(
                  'qti-assessment-item-ref',
                  { identifier: q.id, href: itemFile(q.id) },
                  q.points !== undefined && el('qti-weight', { identifier: 'WEIGHT', value: num(q.points) }),
                ),
              ),
          ),
        ),
      ),
    ),
  );
  files.set(TEST_FILE, serializeXml(test));

  const manifest = el(
    'manifest',
    { xmlns: CP_NS, 'xmlns:imsmd': LOM_NS, 'xmlns:ac': EXTENSION_NS, 'xmlns:xsi': XSI_NS, 'xsi:schemaLocation': CP_SCHEMA, identifier: `package-${content.id}` },
    el(
      'metadata',
      {},
      el('schema', {}, 'QTI Package'),
      el('schemaversion', {}, '3.0.0'),
      el(
        'imsmd:lom',
        {},
        el(
          'imsmd:general',
          {},
          el('imsmd:identifier', {}, el('imsmd:entry', {}, content.id)),
          el('imsmd:title', {}, el('imsmd:string', {}, content.name)),
          el('imsmd:description', {}, el('imsmd:string', {}, content.description)),
        ),
      ),
    ),
    el('organizations', {}),
    el(
      'resources',
      {},
      el(
        'resource',
        { identifier: 'test', type: TEST_TYPE, href: TEST_FILE },
        el('metadata', {}, el('ac:extension', {}, JSON.stringify(testExtension))),
        el('file', { href: TEST_FILE }),
        resources.map((r) => el('dependency', { identifierref: r.attrs.identifier })),
      ),
      resources,
    ),
  );
  files.set('imsmanifest.xml', serializeXml(manifest));
  // The media files the documents name, beside them in media/.
  const mediaFiles = new Map<string, Uint8Array>();
  for (const text of files.values()) {
    for (const [, name] of text.matchAll(/media\/([0-9a-f]{64}\.[a-z0-9]{3,4})/g)) {
      const bytes = media.get(name!);
      if (bytes) mediaFiles.set(`media/${name}`, bytes);
      else if (!mediaFiles.has(`media/${name}`)) omitted.push({ what: `the media file ${name}`, why: 'it is not stored here' });
    }
  }
  return { zip: writeZip(new Map<string, string | Uint8Array>([...files, ...mediaFiles])), files, media: mediaFiles, omitted };
}

function itemExtension(question: QuestionContent): ItemExtension {
  const extension: ItemExtension = { type: question.type, prompt: question.prompt };
  if (question.type === 'free-text') {
    if (question.maxLength !== undefined) extension.maxLength = question.maxLength;
    if (question.guidance !== undefined) extension.guidance = question.guidance;
    if (question.rubric !== undefined) extension.rubric = question.rubric;
  }
  if (question.type === 'likert') {
    extension.scale = typeof question.scale === 'string' ? question.scale : [...question.scale];
    if (question.reverse !== undefined) extension.reverse = question.reverse;
  }
  return extension;
}

const responseDeclaration = (cardinality: string, baseType: string, ...content: (XmlElement | false | undefined)[]) =>
  el('qti-response-declaration', { identifier: 'RESPONSE', cardinality, 'base-type': baseType }, ...content);
const correctResponse = (values: string[]) =>
  el(
    'qti-correct-response',
    {},
    values.map((v) => el('qti-value', {}, v)),
  );
const mapping = (entries: [string, number][], bounds: { lower?: number; upper?: number }, caseSensitive?: boolean) =>
  el(
    'qti-mapping',
    { 'default-value': 0, 'lower-bound': bounds.lower, 'upper-bound': bounds.upper },
    entries.map(([key, value]) => el('qti-map-entry', { 'map-key': key, 'mapped-value': num(value), 'case-sensitive': caseSensitive })),
  );
const prompt = (markdown: string) => el('qti-prompt', {}, markdownToXhtml(markdown));
const choiceId = (index: number) => `choice-${index + 1}`;

function itemXml(question: QuestionContent, shuffleOptions: boolean): XmlElement {
  let declaration: XmlElement;
  let body: (XmlElement | string)[];
  let processing: string | undefined;
  let scoredBy: string | undefined;
  switch (question.type) {
    case 'single-choice':
    case 'multiple-choice': {
      const correct = question.options.flatMap((o, i) => (o.correct ? [choiceId(i)] : []));
      const single = question.type === 'single-choice';
      declaration = responseDeclaration(
        single ? 'single' : 'multiple',
        'identifier',
        correctResponse(correct),
        // Partial credit as this service scores it: each correct option chosen +1/k, each wrong one -1/k, never below 0.
        !single &&
          mapping(
            question.options.map((o, i) => [choiceId(i), (o.correct ? 1 : -1) / correct.length]),
            { lower: 0, upper: 1 },
          ),
      );
      body = [
        el(
          'qti-choice-interaction',
          { 'response-identifier': 'RESPONSE', 'max-choices': single ? 1 : question.options.length, 'min-choices': 0, shuffle: shuffleOptions },
          prompt(question.prompt),
          question.options.map((o, i) => el('qti-simple-choice', { identifier: choiceId(i) }, o.text)),
        ),
      ];
      processing = single ? MATCH_CORRECT : MAP_RESPONSE;
      break;
    }
    case 'short-answer':
      declaration = responseDeclaration(
        'single',
        'string',
        correctResponse([question.accept[0]!]),
        mapping(
          question.accept.map((a) => [a, 1]),
          { upper: 1 },
          false,
        ),
      );
      body = [el('div', {}, markdownToXhtml(question.prompt)), el('p', {}, el('qti-text-entry-interaction', { 'response-identifier': 'RESPONSE', 'expected-length': 20 }))];
      processing = MAP_RESPONSE;
      break;
    case 'free-text': {
      declaration = responseDeclaration('single', 'string');
      const scorer = question.guidance !== undefined || question.rubric !== undefined;
      body = [
        scorer &&
          el(
            'qti-rubric-block',
            { view: 'scorer', use: 'scoring' },
            el(
              'qti-content-body',
              {},
              question.guidance !== undefined && el('div', {}, markdownToXhtml(question.guidance)),
              question.rubric?.criteria.map((criterion) =>
                el(
                  'table',
                  {},
                  el('caption', {}, criterion.name),
                  el('thead', {}, el('tr', {}, el('th', {}, 'Level'), el('th', {}, 'Points'), el('th', {}, 'Description'))),
                  el(
                    'tbody',
                    {},
                    criterion.levels.map((level) => el('tr', {}, el('td', {}, level.label), el('td', {}, num(level.points)), el('td', {}, level.description ?? ''))),
                  ),
                ),
              ),
            ),
          ),
        el('qti-extended-text-interaction', { 'response-identifier': 'RESPONSE', 'expected-length': question.maxLength }, prompt(question.prompt)),
      ].filter((x): x is XmlElement => x !== false);
      scoredBy = 'human';
      break;
    }
    case 'likert': {
      const labels = scaleLabels(question.scale);
      const k = labels.length;
      // No key: a Likert item has no correct answer. Its credit by point is the mapping (reverse-keyed: highest first).
      declaration = responseDeclaration(
        'single',
        'identifier',
        mapping(
          labels.map((_, i) => [`point-${i + 1}`, (question.reverse ? k - 1 - i : i) / (k - 1)]),
          { lower: 0, upper: 1 },
        ),
      );
      body = [
        el(
          'qti-choice-interaction',
          { 'response-identifier': 'RESPONSE', 'max-choices': 1, 'min-choices': 0, shuffle: false, class: 'qti-orientation-horizontal' },
          prompt(question.prompt),
          labels.map((label, i) => el('qti-simple-choice', { identifier: `point-${i + 1}` }, label)),
        ),
      ];
      processing = MAP_RESPONSE;
      break;
    }
    case 'ranking':
      declaration = responseDeclaration('ordered', 'identifier', correctResponse(question.key));
      body = [
        el(
          'qti-order-interaction',
          { 'response-identifier': 'RESPONSE', shuffle: false },
          prompt(question.prompt),
          question.options.map((o) => el('qti-simple-choice', { identifier: o.id }, o.text)),
        ),
      ];
      processing = MATCH_CORRECT;
      break;
    case 'coding':
      throw new Error('coding questions are not exported');
  }
  return el(
    'qti-assessment-item',
    { xmlns: QTI_NS, 'xmlns:xsi': XSI_NS, 'xsi:schemaLocation': QTI_SCHEMA, identifier: question.id, title: question.id, adaptive: false, 'time-dependent': false },
    declaration,
    el(
      'qti-outcome-declaration',
      { identifier: 'SCORE', cardinality: 'single', 'base-type': 'float', 'external-scored': scoredBy },
      el('qti-default-value', {}, el('qti-value', {}, '0')),
    ),
    el('qti-item-body', {}, body),
    processing !== undefined && el('qti-response-processing', { template: processing }),
  );
}
