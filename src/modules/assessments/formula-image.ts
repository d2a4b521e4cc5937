// Formulas drawn as formulas where no browser draws MathML (the report's PDF): TeX, or MathML as
// QTI items carry it, laid out by MathJax (its SVG output, on its DOM-less adaptor, the glyphs as
// paths so that no font is needed) and drawn into a PNG by libvips (sharp). Pure: no I/O.
import { liteAdaptor } from 'mathjax-full/js/adaptors/liteAdaptor.js';
import { RegisterHTMLHandler } from 'mathjax-full/js/handlers/html.js';
import { MathML } from 'mathjax-full/js/input/mathml.js';
import { TeX } from 'mathjax-full/js/input/tex.js';
import { AllPackages } from 'mathjax-full/js/input/tex/AllPackages.js';
import { mathjax } from 'mathjax-full/js/mathjax.js';
import { SVG } from 'mathjax-full/js/output/svg.js';
import sharp from 'sharp';
import { sanitiseMathml } from '../../html/math.js';
import type { Formula } from '../../html/markdown.js';

const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
let documents: { tex: ReturnType<typeof mathjax.document>; mathml: ReturnType<typeof mathjax.document> } | undefined;
function jax() {
  documents ??= {
    tex: mathjax.document('', { InputJax: new TeX({ packages: AllPackages.filter((p) => p !== 'require' && p !== 'autoload') }), OutputJax: new SVG({ fontCache: 'none' }) }),
    mathml: mathjax.document('', { InputJax: new MathML(), OutputJax: new SVG({ fontCache: 'none' }) }),
  };
  return documents;
}

/** Points per ex of the drawn formula (10 pt text), and pixels per point of the PNG. */
const PT_PER_EX = 4.6;
const PX_PER_PT = 3;

/**
 * The formula as an SVG image, sized in points, with how far it reaches below the baseline
 * (`depth`), or undefined when it does not convert (TeX with an error, or MathML MathJax cannot
 * read). MathML is sanitised first, as when it is shown. `display`: laid out as a block (TeX's
 * display style) rather than inside a line of text.
 */
export function formulaSvg(formula: Formula, display = true): { svg: string; width: number; height: number; depth: number } | undefined {
  const { tex, mathml } = jax();
  let svg: string;
  try {
    const node = 'tex' in formula ? tex.convert(formula.tex, { display }) : mathml.convert(sanitiseMathml(formula.mathml), { display });
    svg = adaptor.innerHTML(node);
  } catch {
    return undefined;
  }
  // MathJax writes a TeX error as red text in the SVG, rather than throwing.
  if (!svg.startsWith('<svg') || /data-mjx-error|merror/.test(svg)) return undefined;
  const ex = (name: string) => Number(new RegExp(`\\s${name}="([\\d.]+)ex"`).exec(svg)?.[1]);
  const width = ex('width') * PT_PER_EX;
  const height = ex('height') * PT_PER_EX;
  if (!(width > 0 && height > 0)) return undefined;
  // MathJax sets the baseline with the style it is drawn with: vertical-align: -<depth>ex.
  const depth = Math.max(0, -Number(/vertical-align:\s*(-?[\d.]+)ex/.exec(svg)?.[1] ?? 0) * PT_PER_EX);
  const sized = svg
    .replace(/\swidth="[\d.]+ex"/, ` width="${(width * PX_PER_PT).toFixed(1)}"`)
    .replace(/\sheight="[\d.]+ex"/, ` height="${(height * PX_PER_PT).toFixed(1)}"`)
    .replace(/\sstyle="[^"]*"/, '')
    .replace(/currentColor/g, '#1f2933');
  return { svg: sized, width, height, depth };
}

/**
 * The formula as a PNG for a page `frame` points wide: drawn at the size of the text around it
 * (three pixels a point), the rest of the frame's width left transparent, so that a picture fitted
 * to the frame's width shows the formula at its own size. Undefined when it does not convert.
 */
export async function formulaPng(formula: Formula, frame = 320): Promise<Uint8Array | undefined> {
  const drawn = formulaSvg(formula);
  if (!drawn) return undefined;
  const image = await sharp(Buffer.from(drawn.svg)).png().toBuffer({ resolveWithObject: true });
  const right = Math.max(0, Math.round(frame * PX_PER_PT) - image.info.width);
  return sharp(image.data)
    .extend({ right, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png()
    .toBuffer();
}

/**
 * A formula inside a line of text as a PNG (three pixels a point, nothing around it), with its
 * size in points and how far it reaches below the baseline, for the line to be drawn around it.
 * Undefined when it does not convert.
 */
export async function inlineFormulaPng(formula: Formula): Promise<{ png: Uint8Array; width: number; height: number; depth: number } | undefined> {
  const drawn = formulaSvg(formula, false);
  if (!drawn) return undefined;
  const png = await sharp(Buffer.from(drawn.svg)).png().toBuffer();
  return { png, width: drawn.width, height: drawn.height, depth: drawn.depth };
}
