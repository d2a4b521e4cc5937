// Whose assessment this is: an instance's branding (display name, logo, accent colour, support
// contact, privacy notice), the checks its settings pass, and brandOf(), the one place that
// decides what a candidate is shown when some or all of it is not set. The portal, the e-mail,
// the console and the reports all take the company's name and contact from brandOf().
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { t, type Lang } from '../../i18n/i18n.js';
import type { Instance } from './repository.js';

export type BrandSource = Pick<Instance, 'name' | 'displayName' | 'mailFromName' | 'mailFromAddress' | 'accentColor' | 'supportEmail' | 'privacyUrl' | 'logoSha256'>;

export interface Brand {
  /** The instance's name (the path segment of its brand URLs). */
  instance: string;
  /** The company as candidates read it: the display name, else the sender name, else the instance name. */
  company: string;
  /** The sender name of its e-mail: the sender name when set explicitly, else the company. */
  senderName: string;
  /** '#RRGGBB', or null for the portal's own colour. */
  accentColor: string | null;
  /** The logo's URL path, with its hash in it (cached for a year); null: none. */
  logoPath: string | null;
  /** The per-instance stylesheet (the accent colour); null: no accent colour set. */
  themePath: string | null;
  /** Where candidates write with questions: the support e-mail, else the sender address; null: neither is set. */
  contactEmail: string | null;
  /** The company's privacy notice; null: none given. */
  privacyUrl: string | null;
}

export function brandOf(instance: BrandSource): Brand {
  const company = instance.displayName ?? instance.mailFromName ?? instance.name;
  const base = `/brand/${encodeURIComponent(instance.name)}`;
  return {
    instance: instance.name,
    company,
    senderName: instance.mailFromName ?? company,
    accentColor: instance.accentColor,
    logoPath: instance.logoSha256 ? `${base}/logo/${instance.logoSha256.slice(0, 16)}` : null,
    themePath: instance.accentColor ? `${base}/theme.css?v=${instance.accentColor.slice(1)}` : null,
    contactEmail: instance.supportEmail ?? instance.mailFromAddress,
    privacyUrl: instance.privacyUrl,
  };
}

/** Whom a candidate contacts, as one sentence: always someone, never "nobody". */
export function contactSentence(brand: Brand, lang: Lang = 'en'): string {
  return brand.contactEmail ? t(lang, 'brand.contactEmail', { email: brand.contactEmail }) : t(lang, 'brand.contactCompany', { company: brand.company });
}

// ---- the accent colour -----------------------------------------------------------------------

/** WCAG 2.x AA for normal text. */
export const AA_CONTRAST = 4.5;

const channel = (value: number) => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/** The contrast ratio of '#RRGGBB' against white (WCAG 2.x relative luminance), 1 to 21. */
export function contrastAgainstWhite(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  const luminance = 0.2126 * channel((n >> 16) & 255) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
  return 1.05 / (luminance + 0.05);
}

/** The stylesheet that gives the portal an instance's accent colour (the CSP forbids inline style). */
export function themeCss(accentColor: string): string {
  return `:root { --accent: ${accentColor}; }\n`;
}

// ---- checking settings -----------------------------------------------------------------------

export interface BrandingInput {
  displayName?: string | null;
  accentColor?: string | null;
  supportEmail?: string | null;
  privacyUrl?: string | null;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Checks what the schema cannot (a display name that is blank once trimmed, the accent colour's
 * contrast, a privacy URL's scheme) and normalises what is given: the name trimmed, the colour in
 * capitals, the URL as parsed. Undefined means not given, null clears.
 */
export function checkBranding<T extends BrandingInput>(input: T): { values: T; errors: { name: string; detail: string }[] } {
  const values = { ...input };
  const errors: { name: string; detail: string }[] = [];
  if (typeof input.displayName === 'string') {
    values.displayName = input.displayName.trim();
    if (values.displayName === '') errors.push({ name: 'displayName', detail: 'must not be blank' });
  }
  if (typeof input.accentColor === 'string') {
    const colour = input.accentColor.toUpperCase();
    if (!/^#[0-9A-F]{6}$/.test(colour)) errors.push({ name: 'accentColor', detail: 'must be a colour written #RRGGBB, for example #0B57D0' });
    else {
      const ratio = contrastAgainstWhite(colour);
      // Rounded down, so that a refused colour never reads as 4.5:1.
      if (ratio < AA_CONTRAST)
        errors.push({
          name: 'accentColor',
          detail: `${colour} has a contrast ratio of ${(Math.floor(ratio * 10) / 10).toFixed(1)}:1 against white; AA needs ${AA_CONTRAST}:1 (choose a darker colour)`,
        });
      values.accentColor = colour;
    }
  }
  if (typeof input.supportEmail === 'string') values.supportEmail = input.supportEmail.trim();
  if (typeof input.privacyUrl === 'string') {
    let url: URL | undefined;
    try {
      url = new URL(input.privacyUrl.trim());
    } catch {
      // reported below
    }
    if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname))) || url.username || url.password) {
      errors.push({ name: 'privacyUrl', detail: 'must be an https:// address (http:// only for localhost), without credentials' });
    } else values.privacyUrl = url.href;
  }
  return { values, errors };
}

// ---- the logo --------------------------------------------------------------------------------

/** The largest logo accepted, in bytes: a header image, not a photo. */
export const LOGO_MAX_BYTES = 200 * 1024;
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

/** The image type the bytes themselves say (their magic bytes), whatever the request declared. */
export function sniffImage(bytes: Buffer): LogoType | 'image/svg+xml' | 'image/gif' | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (bytes.length >= 6 && /^GIF8[79]a/.test(bytes.toString('latin1', 0, 6))) return 'image/gif';
  if (/^(\uFEFF)?\s*<(\?xml|svg|!--|!DOCTYPE svg)/i.test(bytes.toString('utf8', 0, Math.min(bytes.length, 512)))) return 'image/svg+xml';
  return undefined;
}

const SVG_REFUSED = 'SVG logos are refused: an SVG is a document that can carry scripts and links, and this service does not sanitise them. Upload a PNG, JPEG or WebP instead';

/** Checks an uploaded logo: its size, its declared type, and that its bytes are that type. */
export function checkLogo(
  declared: string | undefined,
  bytes: Buffer,
): { logo: { contentType: LogoType; bytes: Buffer; sha256: string } } | { status: 400 | 413 | 415; detail: string } {
  const type = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'image/svg+xml') return { status: 415, detail: SVG_REFUSED };
  if (!(LOGO_TYPES as readonly string[]).includes(type))
    return { status: 415, detail: `A logo is sent as image/png, image/jpeg or image/webp, not ${type || 'without a Content-Type'}` };
  if (bytes.length === 0) return { status: 400, detail: 'The logo is empty' };
  if (bytes.length > LOGO_MAX_BYTES) return { status: 413, detail: `The logo is ${Math.ceil(bytes.length / 1024)} KB; the limit is ${LOGO_MAX_BYTES / 1024} KB` };
  const actual = sniffImage(bytes);
  if (actual === 'image/svg+xml') return { status: 415, detail: SVG_REFUSED };
  if (actual !== type) return { status: 400, detail: `The logo was declared ${type} but its bytes ${actual ? `are ${actual}` : 'are not a PNG, JPEG or WebP image'}` };
  return { logo: { contentType: type as LogoType, bytes, sha256: createHash('sha256').update(bytes).digest('hex') } };
}

/** The most pixels a logo may decode to (a 4096 × 4096 image): a small file may expand to gigabytes. */
export const LOGO_MAX_PIXELS = 4096 * 4096;
/** A logo is stored at most this wide or high (it shows at a few hundred pixels at most). */
const LOGO_MAX_SIDE = 1024;

type Checked = Exclude<ReturnType<typeof checkLogo>, { status: number }>;
type Refused = Exclude<ReturnType<typeof checkLogo>, { logo: unknown }>;

/**
 * A logo as it is stored: checked (checkLogo), then decoded and encoded again by libvips (sharp)
 * in its own format. Only pixels survive: metadata (EXIF, GPS, comments) is dropped, and bytes
 * after or around the image (a PNG that is also a script, a polyglot) are not carried over. An
 * image that would decode to more than LOGO_MAX_PIXELS is refused before it is decoded (413), one
 * libvips cannot decode is refused (400), and one larger than LOGO_MAX_SIDE is scaled down.
 */
export async function acceptLogo(declared: string | undefined, bytes: Buffer): Promise<Checked | Refused> {
  const checked = checkLogo(declared, bytes);
  if ('detail' in checked) return checked;
  const type = checked.logo.contentType;
  let out: Buffer;
  try {
    const image = sharp(bytes, { limitInputPixels: LOGO_MAX_PIXELS, failOn: 'error', sequentialRead: true });
    const meta = await image.metadata();
    if ((meta.width ?? 0) * (meta.height ?? 0) > LOGO_MAX_PIXELS) {
      return { status: 413, detail: `The logo is ${meta.width} × ${meta.height} pixels; the limit is ${LOGO_MAX_PIXELS.toLocaleString('en')} pixels` };
    }
    const resized = image.rotate().resize({ width: LOGO_MAX_SIDE, height: LOGO_MAX_SIDE, fit: 'inside', withoutEnlargement: true });
    out = await (type === 'image/png' ? resized.png() : type === 'image/jpeg' ? resized.jpeg({ quality: 90 }) : resized.webp({ quality: 90 })).toBuffer();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) return { status: 413, detail: `The logo decodes to more than ${LOGO_MAX_PIXELS.toLocaleString('en')} pixels` };
    return { status: 400, detail: `The logo could not be read as an image (${type})` };
  }
  return { logo: { contentType: type, bytes: out, sha256: createHash('sha256').update(out).digest('hex') } };
}
