// Prompts are Markdown in this service and XHTML in QTI. Writing (export): the Markdown rendered by
// the service's own renderer (src/html/markdown.ts, as XHTML), turned into the elements of a QTI
// document: stored media named by their files in the package, formulas as MathML in its namespace.
// Reading (import) is xhtml-read.ts.
import type { Element, Node } from '@xmldom/xmldom';
import { markdownXhtml } from '../../../html/markdown.js';
import { CDATA_NODE, ELEMENT_NODE, TEXT_NODE, attr, children, el, localName, nodesOf, parseXml, type XmlChild, type XmlElement } from './xml.js';

/**
 * The Markdown as XHTML elements for a QTI document. A stored media file is written as an <img>,
 * <audio> or <video> naming `media/<sha256>.<ext>` from the package's root (`toRoot`: the way up
 * from the document's folder), its text as `alt` or `title`; `used` collects the files named.
 * Formulas are MathML in its namespace.
 */
export function markdownToXhtml(markdown: string, toRoot = '../', used?: Set<string>): XmlChild[] {
  const root = parseXml(`<root>${markdownXhtml(markdown)}</root>`, '(prompt)');
  return convertChildren(root, { toRoot, used });
}

const STORED_SRC = /^\/portal\/media\/([0-9a-f]{64}\.[a-z0-9]{3,4})$/;
const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';

function mathElement(e: Element, top: boolean): XmlElement {
  const attrs: Record<string, string> = top ? { xmlns: MATHML_NS } : {};
  for (let i = 0; i < e.attributes.length; i++) {
    const a = e.attributes.item(i)!;
    if (a.name !== 'xmlns') attrs[a.name] = a.value;
  }
  const kids = nodesOf(e).flatMap((n): XmlChild[] => (n.nodeType === ELEMENT_NODE ? [mathElement(n as Element, false)] : n.nodeType === TEXT_NODE ? [n.nodeValue ?? ''] : []));
  return el(localName(e), attrs, kids);
}

function convertChildren(element: Element, media: { toRoot: string; used?: Set<string> }): XmlChild[] {
  const nodes = nodesOf(element);
  // Whitespace between blocks is the serializer's to write; within text it is kept.
  const hasBlock = nodes.some(isBlock);
  const out: XmlChild[] = [];
  for (const node of nodes) {
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_NODE) {
      const text = node.nodeValue ?? '';
      if (!(hasBlock && text.trim() === '')) out.push(text);
    } else if (node.nodeType === ELEMENT_NODE) {
      const e = node as Element;
      const name = localName(e);
      if (name === 'math') {
        out.push(mathElement(e, true));
        continue;
      }
      const stored = (child: Element | undefined) => {
        const file = child && STORED_SRC.exec(attr(child, 'src') ?? '')?.[1];
        if (file) media.used?.add(file);
        return file && `${media.toRoot}media/${file}`;
      };
      if (name === 'img' && stored(e)) {
        out.push(el('img', { src: stored(e)!, alt: attr(e, 'alt') ?? '' }));
        continue;
      }
      if (name === 'span' && /\bmedia\b/.test(attr(e, 'class') ?? '')) {
        const player = children(e).find((c) => ['audio', 'video'].includes(localName(c)));
        const src = stored(player);
        if (player && src) out.push(el(localName(player), { src, controls: 'controls', title: attr(player, 'aria-label') ?? '' }));
        continue;
      }
      const attrs: Record<string, string> = {};
      for (const attrName of ['href', 'class', 'start']) {
        const value = attr(e, attrName);
        if (value !== undefined) attrs[attrName] = value;
      }
      out.push(el(name, attrs, convertChildren(e, media)));
    }
  }
  return out;
}

const BLOCKS = new Set(['p', 'ul', 'ol', 'li', 'pre', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'hr']);
const isBlock = (node: Node) => node.nodeType === ELEMENT_NODE && BLOCKS.has(localName(node as Element));
