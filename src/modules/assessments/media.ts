// Media files of assessment content (pictures, sound, video) as they are accepted and stored: the
// type is read from the bytes (magic numbers), never from the file's name; raster images are
// decoded and encoded again by libvips (sharp), so that only pixels are kept (no EXIF, no
// location, nothing after the image); SVG is kept only as DOMPurify leaves it (no script, no
// event handler, no reference outside the file); audio and video are kept as they are, after
// checking that nothing else (a page, a zip) hides in them. Each file is named by the sha256 of
// the bytes stored. Pure: no I/O but the decoders.
import { createHash } from 'node:crypto';
import createDOMPurify from 'dompurify';
import { JSDOM } from 'jsdom';
import sharp from 'sharp';

/** The kinds of media and their types as served. */
export const MEDIA_TYPES = {
  png: { kind: 'image', contentType: 'image/png' },
  jpg: { kind: 'image', contentType: 'image/jpeg' },
  webp: { kind: 'image', contentType: 'image/webp' },
  gif: { kind: 'image', contentType: 'image/gif' },
  svg: { kind: 'image', contentType: 'image/svg+xml' },
  mp3: { kind: 'audio', contentType: 'audio/mpeg' },
  ogg: { kind: 'audio', contentType: 'audio/ogg' },
  wav: { kind: 'audio', contentType: 'audio/wav' },
  mp4: { kind: 'video', contentType: 'video/mp4' },
  webm: { kind: 'video', contentType: 'video/webm' },
} as const;

export type MediaExtension = keyof typeof MEDIA_TYPES;
export type MediaKind = 'image' | 'audio' | 'video';

/** The largest file of each kind, in bytes (as given; a re-encoded image must fit too). */
export const MEDIA_MAX_BYTES: Record<MediaKind, number> = { image: 2 * 1024 * 1024, audio: 10 * 1024 * 1024, video: 25 * 1024 * 1024 };
/** All the media of one assessment together, in bytes. */
export const MEDIA_MAX_TOTAL_BYTES = 50 * 1024 * 1024;
/** The most media files one assessment may use. */
export const MEDIA_MAX_FILES = 100;
/** The most pixels an image may decode to (a small file may expand to gigabytes), and its longest side. */
export const IMAGE_MAX_PIXELS = 16 * 1024 * 1024;
export const IMAGE_MAX_SIDE = 8192;

export class MediaError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
  }
}

export interface StoredMedia {
  sha256: string;
  extension: MediaExtension;
  contentType: string;
  kind: MediaKind;
  bytes: Buffer;
  width?: number;
  height?: number;
}

const MB = (n: number) => `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MB`;

const startsWith = (bytes: Buffer, magic: number[] | string, at = 0) => {
  const m = typeof magic === 'string' ? Buffer.from(magic, 'latin1') : Buffer.from(magic);
  return bytes.length >= at + m.length && bytes.subarray(at, at + m.length).equals(m);
};

/** The type of a file from its first bytes; undefined when it is none of the accepted types. */
export function detectType(bytes: Buffer): MediaExtension | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpg';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'gif';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) return 'webp';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WAVE', 8)) return 'wav';
  if (startsWith(bytes, 'OggS')) return 'ogg';
  if (startsWith(bytes, 'ID3') || (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe6) === 0xe2)) return 'mp3';
  if (startsWith(bytes, 'ftyp', 4)) return 'mp4';
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return 'webm';
  // SVG is text: an XML declaration, comments or a doctype may come before the root element.
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE svg[^>]*>\s*)?<svg[\s>]/i.test(head)) return 'svg';
  return undefined;
}

// What must not hide in a media file: a page a browser could be made to render, or an archive.
const HIDDEN = [
  // Elements that make a page or run something, and a tag with an event handler (`<img src=x
  // onerror=…>`, `<svg onload=…>`): named events only, so that the chance of compressed sound or
  // video matching by accident stays negligible (a bare `<img ` would, in about one file in a thousand).
  {
    pattern:
      /<(script|html|body|iframe|object|embed)[\s>/]|<[a-z][a-z0-9-]*\s[^<>]{0,512}?\bon(error|load|click|focus|blur|begin|end|toggle|input|change|submit|wheel|(mouse|pointer|key|touch|drag|animation|transition)[a-z]+)\s*=/i,
    what: 'HTML markup',
  },
  { pattern: /%PDF-\d/, what: 'a PDF document' },
  // eslint-disable-next-line no-control-regex -- the signatures of a zip's entries and directory
  { pattern: /PK\x03\x04|PK\x05\x06/, what: 'a zip archive' },
];

/** A reason the bytes are more than one thing (a polyglot), or undefined. */
function hiddenContent(bytes: Buffer): string | undefined {
  const text = bytes.toString('latin1');
  return HIDDEN.find((h) => h.pattern.test(text))?.what;
}

let purifier: ReturnType<typeof createDOMPurify> | undefined;
function purify() {
  purifier ??= createDOMPurify(new JSDOM('').window as unknown as Parameters<typeof createDOMPurify>[0]);
  return purifier;
}

/** CSS as a browser reads it: escapes (`u\\72l(` is `url(`) turned into their characters, comments gone. */
function cssAsRead(css: string): string {
  return css
    .replace(/\\([0-9a-fA-F]{1,6})[ \t\n\r\f]?/g, (_, hex: string) => String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff) || 0xfffd))
    .replace(/\\([^\n])/g, '$1')
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, '');
}

/**
 * What in CSS (a style sheet, a style attribute, or a presentation attribute such as fill or
 * filter) would load something from outside the file: an @import, an image-set(), or a url() to
 * anything but an element of the file itself (`url(#id)`); undefined when nothing.
 */
function outsideReference(value: string): string | undefined {
  const css = cssAsRead(value);
  if (/@import/i.test(css)) return `an @import (${css.trim().slice(0, 60)})`;
  if (/(image-set|\bimage|cross-fade|element)\s*\(/i.test(css)) return `an image-set() or image() (${css.trim().slice(0, 60)})`;
  for (const url of css.matchAll(/url\s*\(\s*(['"]?)([^'")]*)\1\s*\)?/gi))
    if (!/^#[\w-]+$/.test(url[2]!.trim())) return `a reference outside the file (url(${url[2]!.trim().slice(0, 60)}))`;
  return undefined;
}

/** A length of SVG's root (width="…", height="…") in CSS pixels; undefined for a percentage or none. */
function pixels(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^\s*([\d.]+(?:e\d+)?)\s*(px|pt|pc|mm|cm|in|em|ex)?\s*$/i.exec(value);
  if (!match) return undefined;
  const per = { px: 1, pt: 4 / 3, pc: 16, mm: 96 / 25.4, cm: 96 / 2.54, in: 96, em: 16, ex: 8 }[(match[2] ?? 'px').toLowerCase() as 'px'];
  return Number(match[1]) * per;
}

/** Refuses an SVG whose size (width and height, or its viewBox where they are not given) is beyond an image's. */
function checkSvgSize(file: string, clean: string): void {
  const root = /^<svg\b[^>]*>/.exec(clean.trim())?.[0] ?? '';
  const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(root)?.[1];
  const box = attribute('viewBox')
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  const width = pixels(attribute('width')) ?? box?.[2] ?? 0;
  const height = pixels(attribute('height')) ?? box?.[3] ?? 0;
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE)
    throw new MediaError(file, `is ${Math.round(width)} × ${Math.round(height)} pixels; an image may be at most ${IMAGE_MAX_SIDE} pixels a side`);
}

/**
 * An SVG as DOMPurify's SVG profile leaves it: no script, no event handlers, no foreignObject, and
 * no link outside the file (href only to "#id"), nor any CSS that would load something (an
 * @import, a url() other than `url(#id)`, in a style sheet or any attribute, CSS escapes read as
 * a browser reads them); at most IMAGE_MAX_SIDE pixels a side. Refused, rather than cleaned,
 * when anything active was in it: an author should know that the figure was not what they meant.
 */
export function sanitiseSvg(file: string, source: string): string {
  if (/<!ENTITY/i.test(source)) throw new MediaError(file, 'is an SVG with an entity declaration: refused');
  const dompurify = purify();
  const outside: string[] = [];
  dompurify.addHook('uponSanitizeElement', (node, data) => {
    const found = data.tagName === 'style' ? outsideReference(node.textContent ?? '') : undefined;
    if (found) outside.push(`a style sheet with ${found}`);
  });
  dompurify.addHook('uponSanitizeAttribute', (_node, data) => {
    if ((data.attrName === 'href' || data.attrName === 'xlink:href') && !/^#[\w-]+$/.test(data.attrValue.trim())) {
      outside.push(`a link to "${data.attrValue.slice(0, 80)}"`);
      data.keepAttr = false;
      return;
    }
    const found = outsideReference(data.attrValue) ?? (data.attrName === 'style' && /expression/i.test(cssAsRead(data.attrValue)) ? 'an expression()' : undefined);
    if (found) {
      outside.push(`${data.attrName}="…" with ${found}`);
      data.keepAttr = false;
    }
  });
  let clean: string;
  try {
    const body = source.replace(/^\uFEFF?\s*<\?xml[^>]*\?>/, '').replace(/<!DOCTYPE svg[^>]*>/i, '');
    clean = dompurify.sanitize(body, { USE_PROFILES: { svg: true, svgFilters: true } });
  } finally {
    dompurify.removeAllHooks();
  }
  const removed = dompurify.removed.map((r) => ('element' in r ? `<${r.element.nodeName.toLowerCase()}>` : `${r.attribute?.name ?? 'an attribute'}`));
  removed.push(...outside);
  const active = removed.filter((r) => !/^<(metadata|title|desc|#comment|body|head|html)>$/.test(r) && !/^(xmlns(:\w+)?|version|xml:space)$/.test(r));
  if (active.length > 0) throw new MediaError(file, `is an SVG with content that could run or load something (${[...new Set(active)].slice(0, 5).join(', ')}): refused`);
  if (!/^<svg[\s>]/.test(clean.trim())) throw new MediaError(file, 'is not an SVG image that can be read');
  checkSvgSize(file, clean);
  if (!/\sxmlns="http:\/\/www\.w3\.org\/2000\/svg"/.test(clean.slice(0, clean.indexOf('>')))) clean = clean.replace(/^<svg/, '<svg xmlns="http://www.w3.org/2000/svg"');
  return `${clean.trim()}\n`;
}

/**
 * Checks one media file and returns what is stored: its type from its bytes, within the limits,
 * re-encoded or sanitised. Throws a MediaError naming the file and what is wrong.
 */
export async function acceptMedia(file: string, given: Uint8Array): Promise<StoredMedia> {
  const bytes = Buffer.from(given.buffer, given.byteOffset, given.byteLength);
  if (bytes.length === 0) throw new MediaError(file, 'is empty');
  const extension = detectType(bytes);
  if (!extension) {
    throw new MediaError(file, 'is not an accepted media type, judged by its bytes (PNG, JPEG, WebP, GIF, SVG images; MP3, OGG, WAV audio; MP4, WebM video)');
  }
  const { kind, contentType } = MEDIA_TYPES[extension];
  if (bytes.length > MEDIA_MAX_BYTES[kind]) throw new MediaError(file, `is ${MB(bytes.length)}; ${kind} files may be at most ${MB(MEDIA_MAX_BYTES[kind])}`);
  const stored = (out: Buffer, size?: { width: number; height: number }): StoredMedia => ({
    sha256: createHash('sha256').update(out).digest('hex'),
    extension,
    contentType,
    kind,
    bytes: out,
    ...size,
  });
  if (extension === 'svg') return stored(Buffer.from(sanitiseSvg(file, bytes.toString('utf8')), 'utf8'));
  const hidden = hiddenContent(bytes);
  if (hidden) throw new MediaError(file, `is a ${extension.toUpperCase()} file with ${hidden} inside it (a polyglot): refused`);
  if (kind !== 'image') return stored(bytes);
  return stored(...(await reencode(file, bytes, extension as 'png' | 'jpg' | 'webp' | 'gif')));
}

async function reencode(file: string, bytes: Buffer, extension: 'png' | 'jpg' | 'webp' | 'gif'): Promise<[Buffer, { width: number; height: number }]> {
  const animated = extension === 'gif' || extension === 'webp';
  try {
    const image = sharp(bytes, { limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'error', animated });
    // The header is read first: its size refuses a bomb before a single pixel is decoded.
    const meta = await image.metadata();
    const format = { png: 'png', jpg: 'jpeg', webp: 'webp', gif: 'gif' }[extension];
    if (meta.format !== format) throw new MediaError(file, `is not a ${extension.toUpperCase()} image that can be read`);
    const width = meta.width ?? 0;
    const height = meta.pageHeight ?? meta.height ?? 0;
    if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE || width * (meta.height ?? height) > IMAGE_MAX_PIXELS) {
      throw new MediaError(
        file,
        `is ${width} × ${height} pixels; an image may be at most ${IMAGE_MAX_SIDE} pixels a side and ${IMAGE_MAX_PIXELS.toLocaleString('en')} pixels in all (a decompression bomb?)`,
      );
    }
    const pipeline = animated ? image : image.rotate();
    const out =
      extension === 'png'
        ? pipeline.png({ compressionLevel: 9 })
        : extension === 'jpg'
          ? pipeline.jpeg({ quality: 85, mozjpeg: true })
          : extension === 'webp'
            ? pipeline.webp({ quality: 85 })
            : pipeline.gif();
    const { data, info } = await out.toBuffer({ resolveWithObject: true });
    if (data.length > MEDIA_MAX_BYTES.image) throw new MediaError(file, `is larger than ${MB(MEDIA_MAX_BYTES.image)} once encoded`);
    return [data, { width: info.width, height: info.pageHeight ?? info.height }];
  } catch (error) {
    if (error instanceof MediaError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) throw new MediaError(file, `decodes to more than ${IMAGE_MAX_PIXELS.toLocaleString('en')} pixels (a decompression bomb?)`);
    throw new MediaError(file, `could not be read as a ${extension.toUpperCase()} image`);
  }
}
