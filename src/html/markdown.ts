// Question prompts in a Markdown subset: paragraphs (a single line break stays a line break),
// lists, emphasis, tables, inline and block code, block quotes, and links to http(s) and mailto
// addresses only. This is the ONE place where rendered Markdown enters the template layer.
//
// Why trustedHtml is sound here: markdown-it runs with `html: false`, so raw HTML in a prompt
// (`<script>`, `<img onerror=…>`) is text and comes out escaped; every text and attribute value
// it writes is escaped by markdown-it itself; links it refuses (javascript:, data:, relative …)
// stay plain text. Headings are off (a prompt must not add to the page's outline), and table
// alignment is written as a class instead of markdown-it's inline style attribute, which the CSP
// forbids. An image is only a media file the service stores (`![text](media:<sha256>.<ext>)`,
// as publishing writes it): an <img> with the text as its alternative, or an <audio> or <video>
// with controls and the text as its visible description; any other image is its text.
import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { html, trustedHtml, type SafeHtml } from './html.js';
import { mathmlReadable, sanitiseMathml, texToMathml } from './math.js';

/** A token markdown-it parses. */
type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

const ALLOWED_LINK = /^(?:https?:\/\/|mailto:)/i;
/** A stored media file as published content names it (see modules/assessments/media-store.ts). */
const MEDIA_REFERENCE = /^media:([0-9a-f]{64})\.(png|jpg|webp|gif|svg|mp3|ogg|wav|mp4|webm)$/;
const MEDIA_KIND: Record<string, 'audio' | 'video' | undefined> = { mp3: 'audio', ogg: 'audio', wav: 'audio', mp4: 'video', webm: 'video' };

/** The address the service serves a stored media file at. */
export const mediaPath = (sha256: string, extension: string) => `/portal/media/${sha256}.${extension}`;

const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false, breaks: true });
md.disable(['heading', 'lheading', 'html_block', 'html_inline']);
md.validateLink = (url: string) => ALLOWED_LINK.test(url.trim()) || MEDIA_REFERENCE.test(url.trim());

md.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index]!;
  const text = self.renderInlineAsText(token.children ?? [], options, env);
  const media = MEDIA_REFERENCE.exec(String(token.attrGet('src') ?? ''));
  if (!media) return html`${text}`.toString();
  const src = mediaPath(media[1]!, media[2]!);
  const kind = MEDIA_KIND[media[2]!];
  if (kind === 'audio') {
    return html`<span class="media audio"><audio controls preload="metadata" src="${src}" aria-label="${text}"></audio><span class="media-description">${text}</span></span>`.toString();
  }
  if (kind === 'video') {
    return html`<span class="media video"><video controls preload="metadata" src="${src}" aria-label="${text}"></video><span class="media-description">${text}</span></span>`.toString();
  }
  const img = html`<img class="media" src="${src}" alt="${text}" loading="lazy">`.toString();
  return options.xhtmlOut ? img.replace(/>$/, ' />') : img;
};

for (const rule of ['th_open', 'td_open'] as const) {
  md.renderer.rules[rule] = (tokens, index, options, _env, self) => {
    const token = tokens[index]!;
    const style = String(token.attrGet('style') ?? '');
    if (style) {
      const align = /text-align:(left|center|right)/.exec(style)?.[1];
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
      if (align) token.attrJoin('class', `align-${align}`);
    }
    return self.renderToken(tokens, index, options);
  };
}

// markdown-it asks validateLink only about a destination it has: `[text]()` and `[text](<>)`
// become links to "" (this page). Such a link, or any whose address is not allowed, is its text.
md.core.ruler.push('only_allowed_links', (state) => {
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    let dropping = false;
    block.children = block.children.filter((token) => {
      if (token.type === 'link_open' && !ALLOWED_LINK.test(String(token.attrGet('href') ?? '').trim())) {
        dropping = true;
        return false;
      }
      if (token.type === 'link_close' && dropping) {
        dropping = false;
        return false;
      }
      return true;
    });
  }
});

// A link opens in a new tab: following it must not leave a timed assessment.
md.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index]!;
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, index, options);
};

// Formulas: $$TeX$$ (a block) and $TeX$ (inline; not when a space or a digit touches the inside
// of a dollar, so "$5 and $10" stays text), and MathML as written in <math>…</math> (from QTI):
// each drawn as sanitised MathML (math.ts). TeX that does not convert shows as code.
md.inline.ruler.before('escape', 'math', (state, silent) => {
  const src = state.src;
  const start = state.pos;
  if (src.startsWith('<math', start) && /^<math[\s>]/.test(src.slice(start, start + 6))) {
    const end = src.indexOf('</math>', start);
    if (end < 0) return false;
    if (!silent) state.push('math_mathml', 'math', 0).content = src.slice(start, end + 7);
    state.pos = end + 7;
    return true;
  }
  if (src.charCodeAt(start) !== 0x24 /* $ */ || (start > 0 && /[\\\w$]/.test(src[start - 1]!))) return false;
  const display = src.startsWith('$$', start);
  const open = display ? 2 : 1;
  const end = src.indexOf(display ? '$$' : '$', start + open);
  if (end < 0) return false;
  const tex = src.slice(start + open, end);
  if (tex.trim() === '' || (!display && (/^\s|\s$/.test(tex) || tex.includes('\n') || /[\w$]/.test(src[end + 1] ?? '')))) return false;
  if (!silent) {
    const token = state.push('math_tex', 'math', 0);
    token.content = tex;
    token.meta = { display };
  }
  state.pos = end + open;
  return true;
});
md.renderer.rules.math_tex = (tokens, index) => {
  const token = tokens[index]!;
  try {
    return texToMathml(token.content, Boolean((token.meta as { display?: boolean } | undefined)?.display));
  } catch {
    return html`<code>${token.content}</code>`.toString();
  }
};
md.renderer.rules.math_mathml = (tokens, index) => sanitiseMathml(tokens[index]!.content);

/**
 * An option's text, which is plain text (never Markdown) but for the stored media files it names
 * (`![text](media:<sha256>.<ext>)`), drawn as in a prompt: a picture as an option.
 */
export function optionText(text: string): SafeHtml {
  const parts: SafeHtml[] = [];
  let last = 0;
  for (const match of text.matchAll(/!\[([^\]\n]*)\]\((media:[0-9a-f]{64}\.[a-z0-9]{3,4})\)/g)) {
    parts.push(html`${text.slice(last, match.index)}`);
    parts.push(trustedHtml(md.renderInline(match[0])));
    last = match.index + match[0].length;
  }
  parts.push(html`${text.slice(last)}`);
  return html`${parts}`;
}

/** A prompt's Markdown as markup for an `html` template. */
export function markdown(text: string): SafeHtml {
  return trustedHtml(md.render(text));
}

/**
 * The same rendering as XHTML (empty elements closed: `<br />`), for documents that are XML: the
 * prompts of exported QTI packages. Text, never markup for a page: it is parsed as XML there.
 */
export function markdownXhtml(text: string): string {
  return md.renderer.render(md.parse(text, {}), { ...md.options, xhtmlOut: true }, {});
}

/** A formula as content writes it: TeX, or MathML (from QTI). */
export type Formula = { tex: string } | { mathml: string };

/**
 * A piece of a line of text: text, or a formula inside the line, to be drawn as a picture at the
 * line's height (`file`: a name of its own, `formula-<sha256>.png`), else printed as `alt` (the
 * text a person reads: a^2, a/b, √x).
 */
export type InlineRun = { text: string } | { file: string; alt: string; formula: Formula };

/** A block of Markdown as plain text, for what draws text itself (the report PDF). */
export type MarkdownBlock =
  /** `runs`: the same text in pieces, given when it holds an inline formula. */
  | { kind: 'paragraph'; text: string; runs?: InlineRun[] }
  /** `runs`: each item in pieces, given when an item holds an inline formula. */
  | { kind: 'list'; ordered: boolean; items: string[]; quoted?: boolean; runs?: InlineRun[][] }
  | { kind: 'table'; header: string[]; rows: string[][]; align: ('left' | 'center' | 'right' | null)[] }
  | { kind: 'code'; text: string }
  | { kind: 'quote'; text: string; runs?: InlineRun[] }
  /** A stored picture (`<sha256>.<ext>`), after the paragraph that shows it. */
  | { kind: 'image'; file: string; alt: string }
  /**
   * A formula shown as a block (`$$…$$`, or `<math display="block">` alone in its paragraph), to be
   * drawn as a picture (`file`: a name of its own, `formula-<sha256>.png`), else printed as `alt`
   * (its TeX, or the text of its MathML).
   */
  | { kind: 'image'; file: string; alt: string; formula: Formula };

/** The same subset, parsed the same way, as blocks of plain text (emphasis dropped, links as their text). */
export function markdownBlocks(text: string): MarkdownBlock[] {
  const tokens = md.parse(text, {});
  /** The inline text of token i in pieces: text, and the formulas inside it. */
  const runs = (i: number): InlineRun[] => {
    const out: InlineRun[] = [];
    for (const c of tokens[i]?.children ?? []) {
      // An inline formula is a picture in the line; printed, it is text a person reads (a^2, a/b, √x), never its TeX.
      if (c.type === 'math_tex') out.push(inlineFormula({ tex: c.content }, texReadable(c.content)));
      else if (c.type === 'math_mathml') out.push(inlineFormula({ mathml: c.content }, mathmlText(c.content)));
      else {
        const text = piece(c);
        const last = out.at(-1);
        if (last && 'text' in last) last.text += text;
        else if (text !== '') out.push({ text });
      }
    }
    return out;
  };
  const inline = (i: number) => textOf(runs(i));
  /** A piece of inline text that is no formula, as text. */
  const piece = (c: Token): string => {
    if (c.type === 'softbreak' || c.type === 'hardbreak') return '\n';
    if (c.type === 'text' || c.type === 'code_inline') return c.content;
    // What draws text alone says what a picture, a sound or a formula is, rather than drop it.
    if (c.type === 'image') {
      const src = String(c.attrGet('src'));
      const alt = c.children?.map((x) => x.content).join('') ?? '';
      const stored = MEDIA_REFERENCE.exec(src);
      if (stored && !MEDIA_KIND[stored[2]!]) {
        pictures.push({ kind: 'image', file: `${stored[1]}.${stored[2]}`, alt });
        return '';
      }
      return `[${/\.(mp3|ogg|wav)$/.test(src) ? 'Audio' : /\.(mp4|webm)$/.test(src) ? 'Video' : 'Image'}: ${alt}]`;
    }
    return '';
  };
  const blocks: MarkdownBlock[] = [];
  // The pictures of the inline text being read, drawn after its block.
  let pictures: MarkdownBlock[] = [];
  let list: { ordered: boolean; items: string[]; runs: InlineRun[][]; level: number; quoted: boolean } | undefined;
  let table: { header: string[]; rows: string[][]; align: ('left' | 'center' | 'right' | null)[]; row?: string[]; inHead: boolean } | undefined;
  let quoteDepth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    switch (t.type) {
      case 'bullet_list_open':
      case 'ordered_list_open':
        if (!list) list = { ordered: t.type === 'ordered_list_open', items: [], runs: [], level: t.level, quoted: quoteDepth > 0 };
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        // The list ends where it began (inside a quote, its level is the quote's).
        if (list && t.level === list.level) {
          const formulas = list.runs.some((item) => item.some((r) => 'formula' in r)) ? { runs: list.runs } : {};
          blocks.push({ kind: 'list', ordered: list.ordered, items: list.items, ...(list.quoted ? { quoted: true } : {}), ...formulas });
          list = undefined;
        }
        break;
      case 'table_open':
        table = { header: [], rows: [], align: [], inHead: false };
        break;
      case 'thead_open':
        table!.inHead = true;
        break;
      case 'thead_close':
        table!.inHead = false;
        break;
      case 'tr_open':
        table!.row = [];
        break;
      case 'tr_close':
        if (table!.inHead) table!.header = table!.row!;
        else table!.rows.push(table!.row!);
        break;
      case 'th_open':
      case 'td_open': {
        const style = String(t.attrGet('style') ?? '');
        if (t.type === 'th_open') table!.align.push((/text-align:(left|center|right)/.exec(style)?.[1] as 'left' | 'center' | 'right' | undefined) ?? null);
        table!.row!.push(inline(i + 1));
        break;
      }
      case 'table_close':
        blocks.push({ kind: 'table', header: table!.header, rows: table!.rows, align: table!.align });
        table = undefined;
        break;
      case 'blockquote_open':
        quoteDepth++;
        break;
      case 'blockquote_close':
        quoteDepth--;
        break;
      case 'fence':
      case 'code_block':
        blocks.push({ kind: 'code', text: t.content.replace(/\n$/, '') });
        break;
      case 'inline':
        if (table) break;
        pictures = [];
        if (list) {
          const pieces = runs(i);
          list.items.push(textOf(pieces));
          list.runs.push(pieces);
        } else if (displayFormula(t) && quoteDepth === 0) blocks.push(displayFormula(t)!);
        else {
          const pieces = trimmed(runs(i));
          const line = textOf(pieces);
          const formulas = pieces.some((r) => 'formula' in r) ? { runs: pieces } : {};
          if (line !== '') blocks.push(quoteDepth > 0 ? { kind: 'quote', text: line, ...formulas } : { kind: 'paragraph', text: line, ...formulas });
        }
        blocks.push(...pictures);
        break;
    }
  }
  return blocks;
}

const mathmlText = (mathml: string) =>
  mathml
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

const textOf = (runs: InlineRun[]) => runs.map((r) => ('text' in r ? r.text : r.alt)).join('');

/** The runs without the white space at the start of the first and the end of the last. */
function trimmed(runs: InlineRun[]): InlineRun[] {
  const out = runs.map((r) => ({ ...r }));
  const first = out[0];
  if (first && 'text' in first) first.text = first.text.trimStart();
  const last = out.at(-1);
  if (last && 'text' in last) last.text = last.text.trimEnd();
  return out.filter((r) => !('text' in r) || r.text !== '');
}

/** A formula inside a line of text, named apart from the same formula shown as a block. */
function inlineFormula(formula: Formula, alt: string): InlineRun {
  const file = `formula-${createHash('sha256')
    .update(JSON.stringify({ ...formula, inline: true }))
    .digest('hex')}.png`;
  return { file, alt, formula };
}

/** The formula an inline run is, when it is one formula shown as a block and nothing else. */
function displayFormula(token: { children: { type: string; content: string; meta?: unknown }[] | null }): MarkdownBlock | undefined {
  const parts = (token.children ?? []).filter((c) => !(c.type === 'softbreak' || c.type === 'hardbreak' || (c.type === 'text' && c.content.trim() === '')));
  const only = parts.length === 1 ? parts[0]! : undefined;
  let formula: Formula;
  if (only?.type === 'math_tex' && (only.meta as { display?: boolean } | undefined)?.display) formula = { tex: only.content };
  else if (only?.type === 'math_mathml' && /^<math\b[^>]*\sdisplay\s*=\s*["']block["']/.test(only.content)) formula = { mathml: only.content };
  else return undefined;
  const file = `formula-${createHash('sha256').update(JSON.stringify(formula)).digest('hex')}.png`;
  return { kind: 'image', file, alt: 'tex' in formula ? formula.tex : mathmlText(formula.mathml), formula };
}

/** A formula as text a person reads (a^2, a/b, √x), for where it cannot be drawn. */
export const formulaText = (formula: Formula): string => ('tex' in formula ? texReadable(formula.tex) : mathmlReadable(formula.mathml) || mathmlText(formula.mathml));

/** Inline TeX as readable text (mathmlReadable); TeX that does not convert is printed as written. */
function texReadable(tex: string): string {
  try {
    return mathmlReadable(texToMathml(tex, false)) || tex;
  } catch {
    return tex;
  }
}
