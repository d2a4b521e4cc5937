// Reading (import) the formulas of QTI XHTML: a <math> element as the MathML a prompt keeps (the
// Markdown holds it as written, html/markdown.ts): one line, no namespace prefixes, MathML 3's
// <mfenced> as the brackets it shows, then the subset that is shown (html/math.ts). The rest of the
// XHTML is read by xhtml-read.ts.
import type { Element, Node } from '@xmldom/xmldom';
import { sanitiseMathml } from '../../../html/math.js';
import { CDATA_NODE, ELEMENT_NODE, TEXT_NODE, localName, nodesOf } from './xml.js';

/** A <math> element as kept in a prompt (the sanitised subset: another tool's class and style go); '' when nothing of it can be shown. */
export function keptMathml(element: Element): string {
  return sanitiseMathml(mathml(element));
}

/** A <math> element as MathML markup without namespace prefixes, on one line (markdown.ts keeps it). */
function mathml(element: Element): string {
  const write = (node: Node): string => {
    // Whitespace between MathML's elements means nothing (and would differ after a round trip).
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_NODE)
      return (node.nodeValue ?? '').replace(/^\s+$/, '').replace(/\s+/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    if (node.nodeType !== ELEMENT_NODE) return '';
    const e = node as Element;
    const name = localName(e);
    if (name === 'mfenced') return fenced(e, write);
    const attrs: string[] = [];
    for (let i = 0; i < e.attributes.length; i++) {
      const a = e.attributes.item(i)!;
      if (a.name === 'xmlns' || a.name.startsWith('xmlns:') || a.name.includes(':')) continue;
      attrs.push(` ${a.name}="${a.value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')}"`);
    }
    return `<${name}${attrs.join('')}>${nodesOf(e).map(write).join('')}</${name}>`;
  };
  return write(element);
}

/**
 * <mfenced> (MathML 3, written by many QTI tools) as the brackets it shows: MathML Core, which
 * browsers render, has no <mfenced> and would show its content without them.
 */
function fenced(e: Element, write: (node: Node) => string): string {
  const mo = (text: string) => (text ? `<mo>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</mo>` : '');
  const open = e.getAttribute('open') ?? '(';
  const close = e.getAttribute('close') ?? ')';
  const separators = [...(e.getAttribute('separators') ?? ',').replace(/\s/g, '')];
  const parts = nodesOf(e).filter((n) => n.nodeType === ELEMENT_NODE);
  const inner = parts.map((part, i) => (i > 0 ? mo(separators[Math.min(i - 1, separators.length - 1)] ?? '') : '') + write(part)).join('');
  return `<mrow>${mo(open)}${inner}${mo(close)}</mrow>`;
}
