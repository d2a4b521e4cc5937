// Prompts are Markdown in this service and XHTML in QTI. Reading (import): XHTML converted back to
// Markdown for the subset prompts support: paragraphs and line breaks, emphasis, code, lists,
// tables, block quotes, http(s)/mailto links, media files of the package and MathML (as
// mathml-read.ts reads it). What is outside it (headings, ...) is kept as its text, or named, and
// reported. Writing is xhtml-write.ts.
import { posix } from 'node:path';
import type { Element, Node } from '@xmldom/xmldom';
import { keptMathml } from './mathml-read.js';
import { CDATA_NODE, ELEMENT_NODE, TEXT_NODE, attr, children, localName, nodesOf } from './xml.js';

/** Something of the XHTML that the Markdown could not keep. */
export type Dropped = (what: string) => void;

const ALLOWED_LINK = /^(?:https?:\/\/|mailto:)/i;

/** Alternative texts that only say "a picture" (in the languages packages come in): kept, and reported. */
const NO_DESCRIPTION = new Set([
  'image',
  'picture',
  'photo',
  'figure',
  'graphic',
  'img',
  'illustration',
  'afbeelding',
  'plaatje',
  'figuur',
  'bild',
  'abbildung',
  'grafik',
  'imagen',
  'foto',
  'figura',
  'imagem',
]);

/** Whether an image's alternative text says nothing of it: a word for "picture", or its file's name. */
function saysNothing(text: string, path: string): boolean {
  const word = text.toLowerCase().replace(/[\s.:]+$/, '');
  const file = posix.basename(path).toLowerCase();
  return NO_DESCRIPTION.has(word) || word === file || word === file.replace(/\.[a-z0-9]+$/, '');
}

/**
 * The package's files as an item's media see them: `base` is the item file's folder, `files` the
 * package; each file used is added to `used` (by its path in the package), and what cannot be kept
 * is `lost`: the item would lose its meaning, and is not imported.
 */
export interface MediaContext {
  base: string;
  files: ReadonlyMap<string, Uint8Array>;
  used: Map<string, Uint8Array>;
  lost: (what: string) => void;
}

/** XHTML content (the children of an element, or a list of nodes) as Markdown. */
export function xhtmlToMarkdown(nodes: Node[], dropped: Dropped, skip: (e: Element) => 'skip' | 'blank' | undefined = () => undefined, media?: MediaContext): string {
  const converter = new Converter(dropped, skip, media);
  return converter.blocks(nodes).join('\n\n').trim();
}

class Converter {
  constructor(
    private readonly dropped: Dropped,
    private readonly skip: (e: Element) => 'skip' | 'blank' | undefined,
    private readonly media?: MediaContext,
  ) {}

  /** `![text](path)` for a file of the package, or nothing (and the item lost) when it cannot be kept. */
  private mediaReference(what: string, src: string, text: string): string {
    const media = this.media;
    const shown = src.slice(0, 100) || 'without a source';
    if (!media) {
      this.dropped(`the ${what} "${shown}" is not imported here`);
      return '';
    }
    let path: string | undefined;
    try {
      path = src === '' || /^[a-z][a-z0-9+.-]*:/i.test(src) ? undefined : posix.normalize(posix.join(media.base, decodeURIComponent(src)));
    } catch {
      path = undefined;
    }
    const bytes = path !== undefined && !path.startsWith('../') ? media.files.get(path) : undefined;
    if (!bytes) {
      media.lost(`the ${what} "${shown}" is not a file of the package`);
      return '';
    }
    if (text === '') {
      media.lost(
        what === 'image' ? `the image "${shown}" has no alternative text (alt)` : `the ${what} "${shown}" has no description or transcript (title, aria-label or its text)`,
      );
      return '';
    }
    if (what === 'image' && saysNothing(text, path!)) {
      this.dropped(`the image "${shown}" is imported with the alternative text "${text.slice(0, 60)}", which does not say what it shows: describe it in the editor`);
    }
    media.used.set(path!, bytes);
    const target = path!.replace(/[\s()%]/g, (c) => encodeURIComponent(c));
    return `![${text
      .replace(/[[\]\\]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()}](${target})`;
  }

  blocks(nodes: Node[]): string[] {
    const out: string[] = [];
    let inline: Node[] = [];
    const flush = () => {
      const text = this.paragraph(inline);
      if (text !== '') out.push(text);
      inline = [];
    };
    for (const node of nodes) {
      if (node.nodeType !== ELEMENT_NODE) {
        if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_NODE) inline.push(node);
        continue;
      }
      const e = node as Element;
      const name = localName(e);
      const skipped = this.skip(e);
      if (skipped === 'skip') continue;
      if (skipped === 'blank') {
        inline.push(e);
        continue;
      }
      if (!BLOCK_ELEMENTS.has(name)) {
        inline.push(e);
        continue;
      }
      flush();
      const block = this.block(e, name);
      if (block !== '') out.push(block);
    }
    flush();
    return out;
  }

  private block(e: Element, name: string): string {
    switch (name) {
      case 'p':
        return this.paragraph(nodesOf(e));
      case 'ul':
      case 'ol':
        return this.list(e, name === 'ol');
      case 'pre': {
        const code = (e.textContent ?? '').replace(/\n$/, '');
        const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
        return `${fence}\n${code}\n${fence}`;
      }
      case 'blockquote':
        return this.blocks(nodesOf(e))
          .join('\n\n')
          .split('\n')
          .map((line) => (line === '' ? '>' : `> ${line}`))
          .join('\n');
      case 'table':
        return this.table(e);
      case 'hr':
        return '---';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6': {
        this.dropped(`a heading (<${name}>) became a bold paragraph: prompts have no headings`);
        const text = this.inline(nodesOf(e)).trim();
        return text === '' ? '' : `**${text}**`;
      }
      default:
        // div, section, and other containers: their content.
        return this.blocks(nodesOf(e)).join('\n\n');
    }
  }

  private paragraph(nodes: Node[]): string {
    return this.inline(nodes)
      .split('\n')
      .map((line) => escapeLineStart(line.replace(/ {2,}/g, ' ').trim()))
      .join('\n')
      .replace(/^\n+|\n+$/g, '');
  }

  private list(e: Element, ordered: boolean): string {
    let n = Number(attr(e, 'start') ?? '1');
    if (!Number.isInteger(n) || n < 0) n = 1;
    const items = children(e, 'li');
    const loose = items.some((li) => children(li, 'p').length > 0);
    return items
      .map((li) => {
        const marker = ordered ? `${n++}. ` : '- ';
        const body = this.blocks(nodesOf(li)).join('\n\n');
        const pad = ' '.repeat(marker.length);
        return `${marker}${body
          .split('\n')
          .map((line, i) => (i === 0 || line === '' ? line : `${pad}${line}`))
          .join('\n')}`;
      })
      .join(loose ? '\n\n' : '\n');
  }

  private table(e: Element): string {
    const rows: { cells: string[]; header: boolean; align: string[] }[] = [];
    const walk = (parent: Element) => {
      for (const c of children(parent)) {
        const name = localName(c);
        if (name === 'thead' || name === 'tbody' || name === 'tfoot') walk(c);
        else if (name === 'tr') {
          const cells = children(c).filter((cell) => ['th', 'td'].includes(localName(cell)));
          rows.push({
            cells: cells.map((cell) =>
              this.inline(nodesOf(cell))
                .replace(/\s*\n\s*/g, ' ')
                .trim()
                .replace(/\|/g, '\\|'),
            ),
            header: parent !== e && localName(parent) === 'thead',
            align: cells.map(
              (cell) => /align-(left|center|right)/.exec(attr(cell, 'class') ?? '')?.[1] ?? /text-align:\s*(left|center|right)/.exec(attr(cell, 'style') ?? '')?.[1] ?? '',
            ),
          });
        } else if (name === 'caption') {
          this.dropped('a table caption was left out');
        }
      }
    };
    walk(e);
    if (rows.length === 0) return '';
    const headerIndex = rows.findIndex((r) => r.header);
    const header = headerIndex >= 0 ? rows.splice(headerIndex, 1)[0]! : rows.shift()!;
    const width = Math.max(header.cells.length, ...rows.map((r) => r.cells.length));
    const pad = (cells: string[]) => [...cells, ...Array<string>(width - cells.length).fill('')];
    const line = (cells: string[]) => `| ${pad(cells).join(' | ')} |`;
    const rule = pad(header.align).map((a) => ({ left: ':--', center: ':-:', right: '--:' })[a] ?? '---');
    return [line(header.cells), `| ${rule.join(' | ')} |`, ...rows.map((r) => line(r.cells))].join('\n');
  }

  inline(nodes: Node[]): string {
    let out = '';
    for (const node of nodes) {
      if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_NODE) {
        out += escapeInline((node.nodeValue ?? '').replace(/\s+/g, ' '));
        continue;
      }
      if (node.nodeType !== ELEMENT_NODE) continue;
      const e = node as Element;
      const skipped = this.skip(e);
      if (skipped === 'skip') continue;
      if (skipped === 'blank') {
        out += ' \\_\\_\\_\\_\\_ ';
        continue;
      }
      const name = localName(e);
      switch (name) {
        case 'br':
          out += '\n';
          break;
        case 'em':
        case 'i':
        case 'cite':
        case 'dfn':
        case 'var':
          out += wrap(this.inline(nodesOf(e)), '*');
          break;
        case 'strong':
        case 'b':
          out += wrap(this.inline(nodesOf(e)), '**');
          break;
        case 'code':
        case 'kbd':
        case 'samp':
        case 'tt': {
          const code = (e.textContent ?? '').replace(/\s+/g, ' ');
          const ticks = '`'.repeat(longestRun(code, '`') + 1);
          const space = code.startsWith('`') || code.endsWith('`') ? ' ' : '';
          out += code === '' ? '' : `${ticks}${space}${code}${space}${ticks}`;
          break;
        }
        case 'a': {
          const href = (attr(e, 'href') ?? '').trim();
          const text = this.inline(nodesOf(e));
          if (ALLOWED_LINK.test(href) && !/[\s()<>]/.test(href)) out += `[${text}](${href})`;
          else {
            if (href !== '') this.dropped(`a link to "${href.slice(0, 100)}" became its text: prompts link to http(s) and mailto addresses only`);
            out += text;
          }
          break;
        }
        case 'img':
          out += this.mediaReference('image', (attr(e, 'src') ?? '').trim(), (attr(e, 'alt') ?? '').trim());
          break;
        case 'audio':
        case 'video':
        case 'object': {
          const source = children(e).find((c) => localName(c) === 'source');
          const src = (attr(e, 'src') ?? attr(e, 'data') ?? (source && attr(source, 'src')) ?? '').trim();
          const type = (attr(e, 'type') ?? (source && attr(source, 'type')) ?? '').toLowerCase();
          const what = name === 'object' ? (type.startsWith('audio') ? 'audio' : type.startsWith('image') ? 'image' : 'video') : name;
          const text = (attr(e, 'title') ?? attr(e, 'aria-label') ?? e.textContent ?? '').replace(/\s+/g, ' ').trim();
          out += this.mediaReference(what, src, text);
          break;
        }
        case 'math': {
          const kept = keptMathml(e);
          if (kept) out += kept;
          else if (this.media) this.media.lost('a formula (<math>) holds nothing that can be shown');
          else out += this.inline(nodesOf(e));
          break;
        }
        case 'span':
        case 'sub':
        case 'sup':
        case 'abbr':
        case 'small':
        case 'big':
        case 'q':
        case 'label':
        case 'bdo':
        case 'bdi':
        case 'u':
        case 'mark':
        case 'ins':
        case 'del':
        case 's':
        case 'p':
        case 'div':
          if (name === 'sub' || name === 'sup') this.dropped(`<${name}> text is kept without its raised or lowered position`);
          out += this.inline(nodesOf(e));
          if (name === 'p' || name === 'div') out += '\n';
          break;
        default:
          if (name === 'iframe') this.media?.lost('an <iframe> cannot be kept');
          else this.dropped(`<${name}> is kept as its text only`);
          if (name !== 'iframe') out += this.inline(nodesOf(e));
      }
    }
    return out;
  }
}

const BLOCK_ELEMENTS = new Set([
  'qti-content-body',
  'qti-media-interaction',
  'qti-prompt',
  'qti-rubric-block',
  'p',
  'ul',
  'ol',
  'pre',
  'blockquote',
  'table',
  'div',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'figure',
  'dl',
  'nav',
]);

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Emphasis around text, its outer spaces kept outside (Markdown emphasis cannot start or end with a space). */
function wrap(text: string, mark: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return text;
  const lead = text.startsWith(' ') ? ' ' : '';
  const trail = text.endsWith(' ') ? ' ' : '';
  return `${lead}${mark}${trimmed}${mark}${trail}`;
}

/** Text as Markdown that shows it as it is: the characters Markdown would read as syntax are escaped. */
function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]<>|~]/g, (c) => `\\${c}`).replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&');
}

/** A line that would start a list, a quote, a heading or a rule is escaped at its start. */
function escapeLineStart(line: string): string {
  if (/^[-+=#]/.test(line)) return `\\${line}`;
  const ordered = /^(\d{1,9})([.)])/.exec(line);
  if (ordered) return `${ordered[1]}\\${line.slice(ordered[1]!.length)}`;
  return line;
}
