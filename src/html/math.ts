// Formulas in content: TeX written between $…$ (inline) or $$…$$ (a block) is turned into MathML
// by Temml on the server, and MathML itself (from a QTI item) is kept as DOMPurify's MathML
// profile leaves it: MathML Core elements and their attributes, no style attribute (the pages'
// CSP forbids it), no link, nothing that runs. Browsers draw MathML themselves: no script is sent.
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import temml from 'temml';
import { DOMParser, type Element as XmlElement, type Node as XmlNode } from '@xmldom/xmldom';

let purifier: ReturnType<typeof createDOMPurify> | undefined;
function purify() {
  purifier ??= createDOMPurify(new JSDOM('').window as unknown as Parameters<typeof createDOMPurify>[0]);
  return purifier;
}

const cache = new Map<string, string>();
const remember = (key: string, make: () => string) => {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const made = make();
  if (cache.size > 2000) cache.clear();
  cache.set(key, made);
  return made;
};

/** MathML reduced to the safe subset: MathML elements and attributes only, no style, no href. */
export function sanitiseMathml(markup: string): string {
  return remember(`m:${markup}`, () => {
    const clean = purify().sanitize(markup, { USE_PROFILES: { mathMl: true }, FORBID_ATTR: ['style', 'href', 'xlink:href', 'src'] });
    return /^<math[\s>]/.test(clean.trim()) ? clean.trim() : '';
  });
}

/** TeX as MathML; throws (with Temml's message) when the TeX is not valid. */
export function texToMathml(tex: string, display: boolean): string {
  return remember(`${display ? 'D' : 'I'}:${tex}`, () => sanitiseMathml(temml.renderToString(tex, { displayMode: display, throwOnError: true })));
}

/** The problem with a formula's TeX, or undefined when it converts. */
export function texProblem(tex: string): string | undefined {
  try {
    temml.renderToString(tex, { throwOnError: true });
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).trim().slice(0, 200);
  }
}

/** The TeX of each formula in a Markdown text ($$…$$ first, then $…$ not touching spaces or digits after). */
export const FORMULA = /\$\$([^$]+?)\$\$|(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])/g;

const OPERATORS = new Set(['=', '+', '−', '-', '±', '∓', '×', '÷', '·', '<', '>', '≤', '≥', '≠', '≈', '→']);

/**
 * A formula's MathML as text a person reads, for what prints text alone (the report PDF's inline
 * formulas): powers as ^, indices as _, fractions as a/b, roots as √, never TeX.
 */
export function mathmlReadable(mathml: string): string {
  const doc = new DOMParser({ onError: () => undefined }).parseFromString(mathml.replace(/\sxmlns="[^"]*"/g, ''), 'text/xml');
  const group = (text: string) => (/^[\p{L}\p{N}.]+$/u.test(text) ? text : `(${text})`);
  const read = (node: XmlNode): string => {
    if (node.nodeType === 3) return node.nodeValue ?? '';
    if (node.nodeType !== 1) return '';
    const e = node as XmlElement;
    const kids: XmlElement[] = [];
    for (let c = e.firstChild; c; c = c.nextSibling) if (c.nodeType === 1) kids.push(c as XmlElement);
    const part = (i: number) => (kids[i] ? read(kids[i]!).trim() : '');
    switch (e.localName) {
      case 'mo': {
        const t = (e.textContent ?? '').trim();
        return OPERATORS.has(t) ? ` ${t} ` : t;
      }
      case 'mi':
      case 'mn':
      case 'mtext':
      case 'ms':
        return e.textContent ?? '';
      case 'msup':
        return `${part(0)}^${group(part(1))}`;
      case 'msub':
        return `${part(0)}_${group(part(1))}`;
      case 'msubsup':
        return `${part(0)}_${group(part(1))}^${group(part(2))}`;
      case 'mfrac':
        return `${group(part(0))}/${group(part(1))}`;
      case 'msqrt':
        return `√${group(
          kids
            .map((k) => read(k))
            .join('')
            .trim(),
        )}`;
      case 'mroot':
        return `${group(part(1))}√${group(part(0))}`;
      case 'semantics':
        return part(0);
      case 'annotation':
      case 'annotation-xml':
        return '';
      default:
        return kids.length > 0 || e.firstChild === null ? kids.map((k) => read(k)).join('') : (e.textContent ?? '');
    }
  };
  return doc.documentElement ? read(doc.documentElement).replace(/\s+/g, ' ').trim() : '';
}
