// The pictures of a report's PDF, drawn on the PDF's worker thread (pdf-worker.ts), never on the
// thread that serves requests: the prompts' stored pictures a PDF cannot show as they are (WebP,
// GIF, SVG) drawn into PNGs, and their formulas laid out by MathJax and drawn (formula-image.ts).
// A published version's pictures never change, and every picture is named by what it is made of
// (its stored file's sha256, or the formula's): so each is drawn once and kept here, in memory, up
// to KEPT_BYTES (the least recently used go first), and every later PDF of any report that shows
// it takes it from here. A picture that cannot be drawn (beyond the limits, a broken file) is left
// out, so that the PDF prints its text, and said in `unreadable` for the log; so is every picture
// still to draw once a PDF has spent BUDGET_MS on drawing. A report never fails for a picture.
import sharp from 'sharp';
import { formulaPng, formulasIn, inlineFormulaPng } from '../../modules/assessments/formula-image.js';
import { monotonicMs } from '../../domain/clock.js';
import type { ReportPictures } from './pdf.js';

/** The most one PDF spends drawing pictures not drawn before; the rest are printed as their text. */
const BUDGET_MS = 10_000;
/** The most the kept pictures take in memory. */
const KEPT_BYTES = 64 * 1024 * 1024;
/** The most pixels a stored picture is drawn from (as when it was accepted). */
const PIXEL_LIMIT = 16 * 1024 * 1024;

/** A picture the PDF prints as its text instead, and why. */
export interface Unreadable {
  file: string;
  reason: string;
}

type Kept = { png: Uint8Array; depth?: number } | { reason: string };
const kept = new Map<string, Kept>();
let keptBytes = 0;

function keep(file: string, picture: Kept): void {
  const size = 'png' in picture ? picture.png.byteLength : 64;
  kept.set(file, picture);
  keptBytes += size;
  for (const [oldest, value] of kept) {
    if (keptBytes <= KEPT_BYTES) break;
    kept.delete(oldest);
    keptBytes -= 'png' in value ? value.png.byteLength : 64;
  }
}

/** The kept picture, marked as the most recently used. */
function keptPicture(file: string): Kept | undefined {
  const picture = kept.get(file);
  if (picture) {
    kept.delete(file);
    kept.set(file, picture);
  }
  return picture;
}

/**
 * The pictures these prompts show: `media` the stored files they name, as stored, by stored name
 * (storedPictures). `drawn`: how many were drawn now; `reused`: how many were kept from before.
 */
export async function reportPictures(texts: string[], media: Record<string, Uint8Array>): Promise<ReportPictures & { unreadable: Unreadable[]; drawn: number; reused: number }> {
  const out: ReportPictures & { unreadable: Unreadable[]; drawn: number; reused: number } = { images: {}, depths: {}, unreadable: [], drawn: 0, reused: 0 };
  const deadline = monotonicMs() + BUDGET_MS;
  const seen = new Set<string>();
  const take = async (file: string, draw: () => Promise<Kept | undefined>) => {
    if (seen.has(file)) return;
    seen.add(file);
    let picture = keptPicture(file);
    if (picture) out.reused++;
    else if (monotonicMs() > deadline) {
      out.unreadable.push({ file, reason: `not drawn: this PDF spent its ${BUDGET_MS / 1000} s of drawing pictures` });
      return;
    } else {
      try {
        picture = await draw();
      } catch (error) {
        picture = { reason: error instanceof Error ? error.message.split('\n').join(' ') : String(error) };
      }
      picture ??= { reason: 'MathJax could not lay it out' };
      out.drawn++;
      keep(file, picture);
    }
    if ('reason' in picture) out.unreadable.push({ file, reason: picture.reason });
    else {
      out.images[file] = picture.png;
      if (picture.depth !== undefined) out.depths[file] = picture.depth;
    }
  };
  for (const [file, bytes] of Object.entries(media)) {
    if (file.endsWith('.png') || file.endsWith('.jpg')) out.images[file] = bytes;
    else await take(file, async () => ({ png: await sharp(bytes, { limitInputPixels: PIXEL_LIMIT }).png().toBuffer() }));
  }
  for (const text of texts)
    for (const { file, formula, display } of formulasIn(text)) {
      await take(file, async () => {
        if (display) {
          const png = await formulaPng(formula);
          return png && { png };
        }
        const drawn = await inlineFormulaPng(formula);
        return drawn && { png: drawn.png, depth: drawn.depth };
      });
    }
  return out;
}
