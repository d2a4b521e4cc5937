// One QTI item read as a question of this service (choice, text entry, extended text, order;
// Likert as a choice without a key), or why it cannot be: the interaction it uses, what in it
// does not map. import.ts reads the package around it and reports both.
import type { Element } from '@xmldom/xmldom';
import { LIKERT_SCALES } from '../content-schema.js';
import { MAP_RESPONSE, MATCH_CORRECT, type ItemExtension } from './format.js';
import { posix } from 'node:path';
import { xhtmlToMarkdown, type MediaContext } from './xhtml-read.js';
import { markdownToXhtml } from './xhtml-write.js';
import { attr, child, children, descendants, el, localName, nodesOf, parseXml, serializeXml, textOf } from './xml.js';

export type Question = Record<string, unknown> & { id: string; type: string; prompt: string };

/** A slug (this service's identifiers) from a QTI identifier. */
export function slugOf(identifier: string): string {
  let slug = identifier
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(slug)) slug = `q-${slug}`.replace(/-+$/, '');
  return slug.slice(0, 64).replace(/-+$/, '') || 'item';
}

/** The canonical Markdown of a Markdown text: what import would make of its export. */
function canonical(markdown: string): string {
  const root = parseXml(serializeXml(el('root', {}, markdownToXhtml(markdown))), '(prompt)');
  return xhtmlToMarkdown(nodesOf(root), () => undefined);
}

/** The extension's exact Markdown when the XHTML still says what it rendered (else the package was edited: the XHTML wins). */
export const exactOr = (converted: string, exact: unknown): string => (typeof exact === 'string' && canonical(exact) === converted ? exact : converted);

const SUPPORTED = new Set(['qti-choice-interaction', 'qti-text-entry-interaction', 'qti-extended-text-interaction', 'qti-order-interaction']);
const WHY_UNSUPPORTED: Record<string, string> = {
  'qti-hotspot-interaction': 'this service has no questions answered by clicking an image',
  'qti-graphic-order-interaction': 'this service has no questions answered on an image',
  'qti-graphic-associate-interaction': 'this service has no questions answered on an image',
  'qti-graphic-gap-match-interaction': 'this service has no questions answered on an image',
  'qti-select-point-interaction': 'this service has no questions answered by clicking an image',
  'qti-position-object-interaction': 'this service has no questions answered on an image',
  'qti-match-interaction': 'this service has no matching questions',
  'qti-associate-interaction': 'this service has no matching questions',
  'qti-gap-match-interaction': 'this service has no drag-into-gaps questions',
  'qti-inline-choice-interaction': 'this service has no drop-down gap questions',
  'qti-hottext-interaction': 'this service has no questions answered by selecting text',
  'qti-slider-interaction': 'this service has no slider questions',
  'qti-upload-interaction': 'this service takes no file uploads from candidates',
  'qti-drawing-interaction': 'this service has no drawing questions',
  'qti-media-interaction': 'this service has no media questions',
  'qti-custom-interaction': 'custom interactions run code of another tool',
  'qti-portable-custom-interaction': 'portable custom interactions run code of another tool',
  'qti-end-attempt-interaction': 'this service has no end-attempt buttons',
};

export function orderedQuestion(question: Question, id: string): Question {
  const { id: _id, type, points, pilotSeconds, prompt, ...rest } = question;
  return { id, type, ...(points === undefined ? {} : { points }), ...(pilotSeconds === undefined ? {} : { pilotSeconds }), prompt, ...rest } as Question;
}

/** A question; an introduction (an item with text and nothing to answer), as Markdown; or why it is not imported. */
type ItemResult = { question: Question; shuffle?: boolean } | { introduction: string } | { what: string; why: string };

/**
 * An item as a question, or why it is not imported. `files`: the package, whose pictures, sound,
 * video and formulas the prompt keeps (the files used are returned); an item whose media cannot be
 * kept would lose its meaning, and is not imported. The files the prompt names are added to `used`.
 */
export function readItem(
  root: Element,
  file: string,
  extension: ItemExtension,
  note: (what: string) => void,
  files?: ReadonlyMap<string, Uint8Array>,
  used: Map<string, Uint8Array> = new Map(),
): ItemResult {
  const lost: string[] = [];
  const media: MediaContext | undefined = files && { base: posix.dirname(file) === '.' ? '' : posix.dirname(file), files, used, lost: (what) => lost.push(what) };
  if (attr(root, 'adaptive') === 'true') return { what: 'an adaptive item', why: 'its scoring changes over several tries; a question here is answered once' };
  if (children(root, 'qti-template-declaration').length > 0 || child(root, 'qti-template-processing')) {
    return { what: 'a template item', why: 'its values are generated for each candidate; a question here is the same for everyone' };
  }
  const body = child(root, 'qti-item-body');
  if (!body) return { what: 'an item without <qti-item-body>', why: 'there is nothing to show' };
  // A media interaction beside a question (listen or watch, then answer) is its sound or video in
  // the prompt: only how often it may be played is lost.
  const found = allInteractions(body);
  const players = found.filter((e) => localName(e) === 'qti-media-interaction');
  const interactions = players.length > 0 && players.length < found.length ? found.filter((e) => !players.includes(e)) : found;
  if (interactions !== found)
    note(
      'its media interaction is shown in the prompt as its sound or video, which candidates may play as often as they like (min-plays, max-plays and the play count are not kept)',
    );
  if (interactions.length === 0) {
    // An introduction (a text before the questions): the assessment's instructions, not a question.
    const text = xhtmlToMarkdown(nodesOf(body), (what) => note(`introduction: ${what}`), undefined, media);
    if (lost.length > 0) return { what: 'its introduction', why: `${[...new Set(lost)].join('; ')}: the text would lose its meaning without it` };
    return text === '' ? { what: 'an item without interaction', why: 'there is nothing to answer or to read' } : { introduction: text };
  }
  if (interactions.length > 1)
    return { what: `${interactions.length} interactions (${[...new Set(interactions.map(localName))].join(', ')})`, why: 'a question here has one answer' };
  const interaction = interactions[0]!;
  const kind = localName(interaction);
  if (!SUPPORTED.has(kind)) return { what: `<${kind}>`, why: WHY_UNSUPPORTED[kind] ?? 'this interaction is not supported' };
  for (const name of ['qti-modal-feedback', 'qti-feedback-block', 'qti-feedback-inline']) {
    if (descendants(root, name).length > 0 || children(root, name).length > 0) note(`feedback (<${name}>) is not imported: candidates here get no feedback during an assessment`);
  }
  const responseId = attr(interaction, 'response-identifier') ?? 'RESPONSE';
  const declaration = children(root, 'qti-response-declaration').find((d) => attr(d, 'identifier') === responseId);
  if (!declaration) return { what: `<${kind}>`, why: `no response declaration "${responseId}"` };
  const correct = (child(declaration, 'qti-correct-response') ? children(child(declaration, 'qti-correct-response')!, 'qti-value') : []).map((v) => (v.textContent ?? '').trim());
  const mapping = child(declaration, 'qti-mapping');
  const entries = mapping
    ? children(mapping, 'qti-map-entry').map((e) => ({ key: attr(e, 'map-key') ?? '', value: Number(attr(e, 'mapped-value')), caseSensitive: attr(e, 'case-sensitive') }))
    : [];
  const processing = child(root, 'qti-response-processing');
  const template = processing && attr(processing, 'template');
  const customProcessing = processing !== undefined && template === undefined && children(processing).length > 0;
  const scoringNote = () => customProcessing && note("its own response processing is replaced by this service's scoring of the question type");

  // The prompt: the item body without the interaction, feedback and scorer's rubric, then the interaction's prompt.
  const dropped = (what: string) => note(`prompt: ${what}`);
  const skip = (e: Element): 'skip' | 'blank' | undefined => {
    const name = localName(e);
    if (e === interaction) return kind === 'qti-text-entry-interaction' && textOf(e.parentNode as Element) !== '' ? 'blank' : 'skip';
    if (name.startsWith('qti-feedback') || name === 'qti-modal-feedback' || name === 'qti-printed-variable' || name === 'qti-template-block' || name === 'qti-template-inline')
      return 'skip';
    if (name === 'qti-rubric-block' && !(attr(e, 'view') ?? 'candidate').split(/\s+/).includes('candidate')) return 'skip';
    return undefined;
  };
  const parts = [xhtmlToMarkdown(nodesOf(body), dropped, skip, media)];
  const qtiPrompt = child(interaction, 'qti-prompt');
  if (qtiPrompt) parts.push(xhtmlToMarkdown(nodesOf(qtiPrompt), dropped, undefined, media));
  if (lost.length > 0) return { what: 'its prompt', why: `${[...new Set(lost)].join('; ')}: the question would lose its meaning without it` };
  let prompt = exactOr(parts.filter((p) => p !== '').join('\n\n'), extension.prompt);
  if (prompt === '') prompt = attr(root, 'title') ?? '';
  if (prompt === '') return { what: `<${kind}>`, why: 'the item has no prompt' };
  if (prompt.length > 4000) return { what: 'its prompt', why: `is ${prompt.length} characters long; a prompt here may have at most 4000` };
  const question = (type: string, fields: Record<string, unknown>): Question => ({ id: '', type, prompt, ...fields });

  if (kind === 'qti-choice-interaction' || kind === 'qti-order-interaction') {
    const choices = children(interaction, 'qti-simple-choice');
    const options: { id: string; text: string }[] = [];
    for (const choice of choices) {
      const ident = attr(choice, 'identifier') ?? '';
      // A formula or sound as its text would be wrong; a picture is kept as its alternative text, and said.
      if (['math', 'object', 'audio', 'video'].some((name) => descendants(choice, name).length > 0))
        return { what: `option ${ident}`, why: 'holds a formula or media, which an imported option cannot keep (options here are text)' };
      const pictures = descendants(choice, 'img');
      if (pictures.some((img) => (attr(img, 'alt') ?? '').trim() === ''))
        return { what: `option ${ident}`, why: 'shows a picture without alternative text (alt), which is what an imported option keeps (options here are text)' };
      const text = optionText(choice);
      if (pictures.length > 0)
        note(
          text === textOf(choice)
            ? `option ${ident}: its picture is left out, its words saying what its alternative text says (options here are plain text)`
            : `option ${ident}: its picture is kept as its alternative text, the option reading "${text.slice(0, 80)}" (options here are plain text)`,
        );
      if (text === '') return { what: `option ${ident}`, why: 'has no text (options here are plain text)' };
      if (text.length > 500) return { what: `option ${ident}`, why: `is ${text.length} characters long; an option here may have at most 500` };
      options.push({ id: ident, text });
    }
    const shuffle = attr(interaction, 'shuffle') === 'true';
    if (kind === 'qti-order-interaction') {
      if (options.length < 3 || options.length > 8) return { what: `${options.length} options to order`, why: 'a ranking here orders 3 to 8 options' };
      const ids = options.map((o) => o.id);
      if (correct.length !== ids.length || new Set(correct).size !== ids.length || !correct.every((c) => ids.includes(c))) {
        return { what: 'its correct response', why: 'a ranking here needs a key that orders every option once' };
      }
      scoringNote();
      if (extension.type !== 'ranking') note("scored by this service's ranking rule: partial credit by distance from the key (Spearman footrule), not all-or-nothing");
      const slugs = new Map<string, string>();
      for (const o of options) {
        let slug = slugOf(o.id);
        while ([...slugs.values()].includes(slug)) slug = `${slug.slice(0, 60)}-${slugs.size + 1}`;
        slugs.set(o.id, slug);
      }
      let listed = options.map((o) => ({ id: slugs.get(o.id)!, text: o.text }));
      const key = correct.map((c) => slugs.get(c)!);
      if (listed.every((o, i) => o.id === key[i])) {
        listed = [...listed.slice(1), listed[0]!];
        note("its options were listed in the key's order; the first is moved to the end (candidates here start from the order listed)");
      }
      return { question: question('ranking', { options: listed, key }) };
    }
    if (options.length < 2 || options.length > 12) return { what: `${options.length} options`, why: 'a choice question here has 2 to 12 options' };
    const cardinality = attr(declaration, 'cardinality') ?? 'single';
    const likertLabels = likertScale(extension, options);
    if (correct.length === 0 && (extension.type === 'likert' || (cardinality === 'single' && (options.length === 5 || options.length === 7)))) {
      // No key: a rating scale. Reverse-keyed when the mapping scores the first point highest.
      const first = entries.find((e) => e.key === options[0]!.id)?.value ?? 0;
      const last = entries.find((e) => e.key === options.at(-1)!.id)?.value ?? 0;
      const reverse = typeof extension.reverse === 'boolean' ? extension.reverse : first > last;
      if (extension.type !== 'likert') note(`no correct response: imported as a Likert item of ${options.length} points${reverse ? ', reverse-keyed' : ''}`);
      if (options.length !== 5 && options.length !== 7) return { what: `a rating scale of ${options.length} points`, why: 'a Likert item here has 5 or 7 points' };
      return { question: question('likert', { scale: likertLabels, ...(extension.reverse !== undefined || reverse ? { reverse } : {}) }) };
    }
    let keyed = correct;
    if (keyed.length === 0 && entries.some((e) => e.value > 0)) {
      const best = Math.max(...entries.map((e) => e.value));
      keyed = cardinality === 'single' ? entries.filter((e) => e.value === best).map((e) => e.key) : entries.filter((e) => e.value > 0).map((e) => e.key);
      note('no correct response: the options its mapping scores highest are taken as correct');
    }
    if (keyed.length === 0) return { what: 'a choice without correct response', why: 'there is nothing to score by (a rating scale of 5 or 7 points imports as a Likert item)' };
    const unknown = keyed.filter((k) => !options.some((o) => o.id === k));
    if (unknown.length > 0) return { what: 'its correct response', why: `names ${unknown.join(', ')}, which is no option` };
    scoringNote();
    if (cardinality === 'single') {
      if (keyed.length !== 1) return { what: 'its correct response', why: `names ${keyed.length} options for a single choice` };
      return { question: question('single-choice', { options: options.map((o) => ({ text: o.text, ...(o.id === keyed[0] ? { correct: true } : {}) })) }), shuffle };
    }
    if (keyed.length === options.length) return { what: 'its correct response', why: 'names every option; a multiple choice here needs an incorrect option' };
    if (template && template !== MAP_RESPONSE && template.endsWith('match_correct.xml'))
      note('all-or-nothing in the package: here multiple choice earns partial credit (correct chosen − wrong chosen) / correct');
    return { question: question('multiple-choice', { options: options.map((o) => ({ text: o.text, ...(keyed.includes(o.id) ? { correct: true } : {}) })) }), shuffle };
  }

  if (kind === 'qti-text-entry-interaction') {
    const best = entries.length > 0 ? Math.max(...entries.map((e) => e.value)) : 0;
    const accept = [...correct];
    for (const e of entries) {
      if (e.value === best && best > 0) accept.push(e.key);
      else if (e.value > 0) note(`the answer "${e.key}" is worth ${e.value} of ${best} there; here an answer earns all or nothing, so it is not accepted`);
    }
    if (entries.some((e) => e.caseSensitive === 'true')) note('answers are compared without regard to case here');
    if (attr(interaction, 'pattern-mask')) note('its pattern mask is not imported');
    const unique = [...new Set(accept.map((a) => a.trim()).filter((a) => a !== ''))];
    if (unique.length === 0) return { what: 'a text entry without correct response', why: 'there is no accepted answer to score by' };
    if (unique.length > 20) return { what: `${unique.length} accepted answers`, why: 'a short answer here accepts at most 20' };
    const long = unique.find((a) => a.length > 200);
    if (long) return { what: 'an accepted answer', why: 'is longer than 200 characters' };
    if (template && template !== MAP_RESPONSE && template !== MATCH_CORRECT) scoringNote();
    scoringNote();
    return { question: question('short-answer', { accept: unique }) };
  }

  // Extended text: a free-text answer a reviewer scores.
  if (correct.length > 0 || entries.length > 0) note('its correct response or mapping is not imported: a free-text answer here is scored by a reviewer');
  const fields: Record<string, unknown> = {};
  if (typeof extension.maxLength === 'number') fields.maxLength = extension.maxLength;
  const scorer = descendants(body, 'qti-rubric-block').filter((b) => (attr(b, 'view') ?? '').split(/\s+/).includes('scorer'));
  if (extension.rubric !== undefined) fields.rubric = extension.rubric;
  if (scorer.length > 0) {
    // The guidance: the scorer's blocks (the rubric tables of this service's export aside).
    const guidanceNodes = scorer.flatMap((b) => {
      const bodyOf = child(b, 'qti-content-body') ?? b;
      return nodesOf(bodyOf).filter((n) => !(extension.rubric !== undefined && n.nodeType === 1 && localName(n as Element) === 'table'));
    });
    const converted = xhtmlToMarkdown(guidanceNodes, (what) => note(`scorer's guidance: ${what}`));
    const guidance = exactOr(converted, extension.guidance);
    if (guidance !== '') fields.guidance = guidance.slice(0, 4000);
  }
  return { question: question('free-text', fields) };
}

function allInteractions(body: Element): Element[] {
  const out: Element[] = [];
  const walk = (e: Element) => {
    for (const c of children(e)) {
      const name = localName(c);
      if (name.endsWith('-interaction')) out.push(c);
      else walk(c);
    }
  };
  walk(body);
  return out;
}

function likertScale(extension: ItemExtension, options: { text: string }[]): string | string[] {
  const labels = options.map((o) => o.text);
  if (typeof extension.scale === 'string' && Object.hasOwn(LIKERT_SCALES, extension.scale)) {
    const named = LIKERT_SCALES[extension.scale as keyof typeof LIKERT_SCALES] as readonly string[];
    if (named.length === labels.length && named.every((l, i) => l === labels[i])) return extension.scale;
  }
  return labels;
}

/**
 * An option's text, each picture in it given by its alternative text: in place of the picture
 * when the option has no words, after the words in brackets when it says more than they do.
 */
function optionText(choice: Element): string {
  const words = textOf(choice);
  const said = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
      .replace(/^(the|a|an) /, '');
  const alts = descendants(choice, 'img')
    .map((img) => (attr(img, 'alt') ?? '').replace(/\s+/g, ' ').trim())
    .filter((alt) => words === '' || !said(words).includes(said(alt)));
  if (words === '') return alts.join(' ');
  return alts.length > 0 ? `${words} (${alts.join('; ')})` : words;
}
