// Formulas in content: TeX written between $…$ (inline) or $$…$$ (a block) is turned into MathML
// by Temml on the server, and MathML itself (from a QTI item) is kept as DOMPurify's MathML
// profile leaves it: MathML Core elements and their attributes, no style attribute (the pages'
// CSP forbids it), no link, nothing that runs. Browsers draw MathML themselves: no script is sent.
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import temml from 'temml';

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
