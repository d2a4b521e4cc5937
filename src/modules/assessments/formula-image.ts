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
import { markdownBlocks, type Formula } from '../../html/markdown.js';

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
 * What a formula may be for the report's PDF to draw it, checked at publish (formulaProblem) and
 * again before each drawing. `layers`: how deep the SVG's elements nest (libvips's SVG reader gives
 * up past 50 nested layers: 23 nested square roots); `widthPt`, `heightPt`: its size (a page is
 * about 500 × 750 pt; drawn three pixels a point, 2000 × 1000 pt is 18 million pixels, under
 * libvips's limit on pixels); `elements`: how many shapes it has, which bounds the time it takes
 * to lay out and draw (a 10 × 10 matrix of fractions, 1,525 elements, takes about a second);
 * `sourceChars`: the longest TeX or MathML of one formula.
 */
export const FORMULA_LIMITS = { layers: 40, widthPt: 2000, heightPt: 1000, elements: 3000, sourceChars: 20_000 } as const;

/** The most pixels a formula's picture is drawn with (its limits in points, three pixels a point). */
const PIXEL_LIMIT = FORMULA_LIMITS.widthPt * FORMULA_LIMITS.heightPt * PX_PER_PT * PX_PER_PT;

/** A formula the report's PDF cannot draw (FORMULA_LIMITS): printed as its text there. */
export class FormulaTooLarge extends Error {}

/** How deep the elements of an SVG nest (the root counted). */
function nesting(svg: string): number {
  let depth = 0;
  let deepest = 0;
  for (const tag of svg.matchAll(/<(\/?)[a-zA-Z][^>]*?(\/?)>/g)) {
    if (tag[1]) depth--;
    else deepest = Math.max(deepest, tag[2] ? depth + 1 : ++depth);
  }
  return deepest;
}

/** What makes a laid-out formula too large to draw, in words; undefined when it is within the limits. */
function beyondLimits(drawn: { svg: string; width: number; height: number }): string | undefined {
  const layers = nesting(drawn.svg);
  if (layers > FORMULA_LIMITS.layers) return `it nests ${layers} layers deep (at most ${FORMULA_LIMITS.layers})`;
  if (drawn.width > FORMULA_LIMITS.widthPt || drawn.height > FORMULA_LIMITS.heightPt)
    return `it is ${Math.round(drawn.width)} × ${Math.round(drawn.height)} pt (at most ${FORMULA_LIMITS.widthPt} × ${FORMULA_LIMITS.heightPt})`;
  const elements = drawn.svg.match(/<[a-zA-Z]/g)?.length ?? 0;
  if (elements > FORMULA_LIMITS.elements) return `it has ${elements} shapes (at most ${FORMULA_LIMITS.elements}): split it into smaller formulas`;
  return undefined;
}

/**
 * Why the report's PDF could not draw this formula (shown as a block, or inside a line), in
 * words; undefined when it can. A formula that does not convert at all is not refused here: TeX
 * that does not convert is refused on its own (texProblem), and the PDF prints the rest as text.
 */
export function formulaProblem(formula: Formula, display = true): string | undefined {
  return laidOut(formula, display).problem;
}

/** The formula laid out (undefined when it does not convert), or why it is beyond the limits. */
function laidOut(formula: Formula, display: boolean): { drawn?: ReturnType<typeof formulaSvg>; problem?: string } {
  const source = 'tex' in formula ? formula.tex : formula.mathml;
  if (source.length > FORMULA_LIMITS.sourceChars) return { problem: `it is ${source.length} characters long (at most ${FORMULA_LIMITS.sourceChars})` };
  const drawn = formulaSvg(formula, display);
  return { drawn, problem: drawn && beyondLimits(drawn) };
}

/** The formula laid out, when it converts; throws FormulaTooLarge when it is beyond the limits. */
function drawable(formula: Formula, display: boolean): ReturnType<typeof formulaSvg> {
  const { drawn, problem } = laidOut(formula, display);
  if (problem) throw new FormulaTooLarge(problem);
  return drawn;
}

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
  const drawn = drawable(formula, true);
  if (!drawn) return undefined;
  const image = await sharp(Buffer.from(drawn.svg), { limitInputPixels: PIXEL_LIMIT }).png().toBuffer({ resolveWithObject: true });
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
  const drawn = drawable(formula, false);
  if (!drawn) return undefined;
  const png = await sharp(Buffer.from(drawn.svg), { limitInputPixels: PIXEL_LIMIT }).png().toBuffer();
  return { png, width: drawn.width, height: drawn.height, depth: drawn.depth };
}

/**
 * Every formula of a Markdown text that the report's PDF draws as a picture, each once by the
 * name markdownBlocks gives its picture (`file`): shown as a block (`display`), or inside a line.
 */
export function formulasIn(text: string): { file: string; formula: Formula; display: boolean }[] {
  const found = new Map<string, { file: string; formula: Formula; display: boolean }>();
  for (const block of markdownBlocks(text)) {
    const lines = block.kind === 'paragraph' || block.kind === 'quote' ? [block.runs ?? []] : block.kind === 'list' ? (block.runs ?? []) : [];
    for (const line of lines) for (const run of line) if ('formula' in run && !found.has(run.file)) found.set(run.file, { file: run.file, formula: run.formula, display: false });
    if (block.kind === 'image' && 'formula' in block && !found.has(block.file)) found.set(block.file, { file: block.file, formula: block.formula, display: true });
  }
  return [...found.values()];
}
