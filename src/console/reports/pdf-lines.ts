// Lines of the report PDF that hold formulas, set here rather than by pdfkit (which sets text
// alone), and what every line of the PDF shares: its fonts and the characters they can show.
import { existsSync } from 'node:fs';
import type { InlineRun } from '../../html/markdown.js';

export const DEJAVU = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
export const DEJAVU_BOLD = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
export const HAS_DEJAVU = existsSync(DEJAVU) && existsSync(DEJAVU_BOLD);
/** Formulas are drawn into pictures at three pixels a point (modules/assessments/formula-image.ts). */
const FORMULA_PX_PER_PT = 3;

/** Helvetica shows Latin-1 and a few more (WinAnsi); anything else would print as garbage. */
export function printable(text: string): string {
  if (HAS_DEJAVU) return text;
  return text.normalize('NFC').replace(/[^\n\t\x20-\x7e\xa0-\xff€‘’“”–—•…]/g, '?');
}

/** pdfkit's openImage (documented, missing from its type declarations): a picture read once, with its size in points, to draw with image(). */
export interface OpensImages {
  openImage(source: Buffer): PDFKit.Mixins.ImageSrc & { width: number; height: number };
}

/** Where a line is set: the formulas' pictures and depths by name, the text's left edge and width, the page's lowest line, the colour. */
export interface FormulaPage {
  images: Record<string, Uint8Array>;
  depths: Record<string, number>;
  left: number;
  width: number;
  bottom: number;
  color: string;
}

/**
 * Text holding formulas, laid out here (pdfkit sets text alone): each formula's picture stands in
 * the line, as far below the baseline as the formula reaches, and the line is as tall as what it
 * holds. Its readable text is laid over it, invisible, so that the PDF's text (copied, searched,
 * extracted) reads as the line does, and is its alternative text; without a picture it is printed.
 * Words and formulas not parted by a space stay together; a line breaks between them.
 */
export function lineWithFormulas(doc: PDFKit.PDFDocument, runs: InlineRun[], page: FormulaPage): void {
  const { images, depths, left, width, bottom, color } = page;
  doc.font('body').fontSize(10).fillColor(color);
  type Part = { text: string } | { alt: string; picture: ReturnType<OpensImages['openImage']>; width: number; height: number; depth: number };
  const partWidth = (part: Part) => ('text' in part ? doc.widthOfString(part.text) : part.width);
  // Units (what a line never breaks inside), between spaces and line breaks.
  const units: (Part[] | ' ' | '\n')[] = [];
  let unit: Part[] | undefined;
  const add = (part: Part) => {
    if (!unit) units.push((unit = []));
    const last = unit.at(-1);
    if (last && 'text' in last && 'text' in part) last.text += part.text;
    else unit.push(part);
  };
  for (const run of runs) {
    const bytes = 'formula' in run ? images[run.file] : undefined;
    if ('formula' in run && bytes) {
      const picture = (doc as unknown as OpensImages).openImage(Buffer.from(bytes));
      // At its size, or narrowed to the width of the page.
      const scale = Math.min(1 / FORMULA_PX_PER_PT, width / picture.width);
      const depth = Math.min(picture.height * scale, (depths[run.file] ?? 0) * scale * FORMULA_PX_PER_PT);
      add({ alt: printable(run.alt), picture, width: picture.width * scale, height: picture.height * scale, depth });
      continue;
    }
    for (const piece of printable('text' in run ? run.text : run.alt).split(/(\s+)/)) {
      if (piece === '') continue;
      if (!/^\s+$/.test(piece)) {
        // A word wider than the page is broken where it reaches the edge, as pdfkit breaks it.
        let rest = piece;
        while (rest.length > 1 && doc.widthOfString(rest) > width) {
          let fits = 1;
          while (fits < rest.length && doc.widthOfString(rest.slice(0, fits + 1)) <= width) fits++;
          add({ text: rest.slice(0, fits) });
          unit = undefined;
          rest = rest.slice(fits);
        }
        add({ text: rest });
      } else {
        unit = undefined;
        for (let n = piece.split('\n').length - 1; n > 0; n--) units.push('\n');
        if (!piece.includes('\n')) units.push(' ');
      }
    }
  }
  // Lines: units that fit the width (a unit wider than it alone on its line), spaces between.
  const lines: (Part | ' ')[][] = [[]];
  let used = 0;
  for (const u of units) {
    const line = lines.at(-1)!;
    if (u === '\n') {
      lines.push([]);
      used = 0;
    } else if (u === ' ') {
      if (line.length > 0) {
        line.push(' ');
        used += doc.widthOfString(' ');
      }
    } else {
      const w = u.reduce((sum, part) => sum + partWidth(part), 0);
      if (used + w > width && line.length > 0) {
        while (line.at(-1) === ' ') line.pop();
        lines.push([...u]);
        used = w;
      } else {
        line.push(...u);
        used += w;
      }
    }
  }
  const font = (doc as unknown as { _font: { ascender: number; descender: number; lineGap: number } })._font;
  const [ascender, descender, gap] = [font.ascender, -font.descender, font.lineGap].map((units) => (units * 10) / 1000) as [number, number, number];
  for (const line of lines) {
    const formulas = line.filter((p) => p !== ' ' && 'picture' in p);
    const above = Math.max(ascender, ...formulas.map((f) => f.height - f.depth));
    const below = Math.max(descender, ...formulas.map((f) => f.depth));
    if (doc.y + above + below > bottom) doc.addPage();
    const baseline = doc.y + above;
    let x = left;
    let pending = '';
    const flush = () => {
      if (pending === '') return;
      doc.font('body').fontSize(10).fillColor(color).text(pending, x, baseline, { lineBreak: false, baseline: 'alphabetic' });
      x += doc.widthOfString(pending);
      pending = '';
    };
    for (const part of line) {
      if (part === ' ') pending += ' ';
      else if ('text' in part) pending += part.text;
      else {
        flush();
        doc.markContent('Span', { alt: part.alt });
        doc.image(part.picture, x, baseline - (part.height - part.depth), { width: part.width, height: part.height });
        doc.save();
        doc
          .font('body')
          .fontSize(10)
          .fillColor(color, 0)
          .text(part.alt, x, baseline, {
            lineBreak: false,
            baseline: 'alphabetic',
            horizontalScaling: (100 * part.width) / Math.max(1, doc.widthOfString(part.alt)),
          } as PDFKit.Mixins.TextOptions);
        doc.restore();
        doc.endMarkedContent();
        x += part.width;
      }
    }
    flush();
    doc.x = left;
    doc.y = baseline + below + gap;
  }
}
