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

export type Formula = { tex: string } | { mathml: string };

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
 * The formula as an SVG image, sized in points, or undefined when it does not convert (TeX with an
 * error, or MathML MathJax cannot read). MathML is sanitised first, as when it is shown.
 */
export function formulaSvg(formula: Formula): { svg: string; width: number; height: number } | undefined {
  const { tex, mathml } = jax();
  let svg: string;
  try {
    const node = 'tex' in formula ? tex.convert(formula.tex, { display: true }) : mathml.convert(sanitiseMathml(formula.mathml), { display: true });
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
  const sized = svg
    .replace(/\swidth="[\d.]+ex"/, ` width="${(width * PX_PER_PT).toFixed(1)}"`)
    .replace(/\sheight="[\d.]+ex"/, ` height="${(height * PX_PER_PT).toFixed(1)}"`)
    .replace(/\sstyle="[^"]*"/, '')
    .replace(/currentColor/g, '#1f2933');
  return { svg: sized, width, height };
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
