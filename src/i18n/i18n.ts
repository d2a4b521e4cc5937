// The candidate's language: the message catalogues (messages/<lang>.json, English the reference
// that every other must match key for key), a typed t(), choosing a language, and Intl formats.
// Adding a language: a messages/<code>.json with every key of en.json (the catalogue test says
// which are missing), and its code and name in LANGUAGES.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { html, trustedHtml, type SafeHtml } from '../html/html.js';
import { formatMessage, type Params } from './format.js';

/** The languages with a catalogue, each named in itself (for the switcher). */
export const LANGUAGES = { en: 'English', de: 'Deutsch', es: 'Español' } as const;
export type Lang = keyof typeof LANGUAGES;
export const DEFAULT_LANGUAGE: Lang = 'en';

export type MessageKey = keyof typeof import('./messages/en.json');

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'messages');

/** A catalogue as its file has it (the catalogue test checks them against English). */
export function loadCatalogue(lang: string): Record<string, string> {
  return JSON.parse(readFileSync(path.join(DIR, `${lang}.json`), 'utf8')) as Record<string, string>;
}

const CATALOGUES = Object.fromEntries(Object.keys(LANGUAGES).map((lang) => [lang, loadCatalogue(lang)])) as Record<Lang, Record<MessageKey, string>>;

export const isLang = (value: unknown): value is Lang => typeof value === 'string' && Object.hasOwn(LANGUAGES, value);

/** Scripts written right to left; none ships yet, but the layout follows `dir`. */
const RTL = new Set(['ar', 'fa', 'he', 'ur', 'ps', 'sd', 'yi', 'dv', 'ckb', 'ug']);
export const isRtl = (lang: string): boolean => RTL.has(primary(lang));
export const direction = (lang: string): 'rtl' | 'ltr' => (isRtl(lang) ? 'rtl' : 'ltr');

const primary = (tag: string) => tag.trim().toLowerCase().split(/[-_]/)[0] ?? '';

/** The catalogue for a BCP 47 tag by its primary subtag (de-AT: de); undefined when there is none. */
export function supported(tag: string | null | undefined): Lang | undefined {
  if (!tag) return undefined;
  const lang = primary(tag);
  return isLang(lang) ? lang : undefined;
}

/** The best catalogue an Accept-Language header asks for, by its q-values; undefined when none fits. */
export function fromAcceptLanguage(header: string | undefined): Lang | undefined {
  if (!header) return undefined;
  const ranges = header
    .split(',')
    .map((range, index) => {
      const [tag, ...rest] = range.trim().split(';');
      const q = rest.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag!.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => r.tag !== '' && r.tag !== '*' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    const lang = supported(range.tag);
    if (lang) return lang;
  }
  return undefined;
}

/** The language an Accept-Language header asks for first (by q-value), supported or not; undefined when it names none. */
export function preferredTag(header: string | undefined): string | undefined {
  const ranges = (header ?? '')
    .split(',')
    .map((range, index) => {
      const [tag, ...rest] = range.trim().split(';');
      const q = rest.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
      return { tag: tag!.trim(), q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8})*$/.test(r.tag) && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranges[0]?.tag;
}

/** The primary subtag of a language tag, lower case (de-AT: de). */
export const primaryTag = (tag: string): string => primary(tag);

/** A language's name in the language of the page ("Deutsch" is "German" in English); the tag itself when it has none. */
export function languageName(lang: Lang, tag: string): string {
  try {
    return new Intl.DisplayNames([lang], { type: 'language' }).of(primary(tag)) ?? tag;
  } catch {
    return tag;
  }
}

/**
 * The language of a page or e-mail: the first supported of the candidates given, in order of
 * precedence (the candidate's own choice, the invitation's language, the browser's, the
 * instance's default), else English.
 */
export function chooseLanguage(...candidates: (Lang | string | null | undefined)[]): Lang {
  for (const candidate of candidates) {
    const lang = supported(candidate);
    if (lang) return lang;
  }
  return DEFAULT_LANGUAGE;
}

/** A message of the language's catalogue, its placeholders filled (numbers formatted for the language). */
export function t(lang: Lang, key: MessageKey, params?: Params): string {
  return formatMessage(lang, CATALOGUES[lang][key] ?? CATALOGUES.en[key], params);
}

/**
 * A message as markup: its text escaped, and the parameters that are markup (a link, a <strong>)
 * put in as they are. Plain parameters are escaped like the text.
 */
export function tHtml(lang: Lang, key: MessageKey, params: Record<string, string | number | SafeHtml>): SafeHtml {
  const plain: Params = {};
  const markup: SafeHtml[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' || typeof value === 'number') plain[name] = value;
    else plain[name] = `\uE000${markup.push(value) - 1}\uE001`;
  }
  const escaped = html`${t(lang, key, plain)}`.toString();
  return trustedHtml(escaped.replace(/\uE000(\d+)\uE001/g, (_, i: string) => markup[Number(i)]!.toString()));
}

/** The messages portal.js shows, for its language (it reads them from the page, not from a request). */
export function scriptMessages(lang: Lang): Record<string, string> {
  const catalogue = CATALOGUES[lang];
  return Object.fromEntries(
    Object.entries(catalogue)
      .filter(([key]) => key.startsWith('script.'))
      .map(([key, value]) => [key.slice('script.'.length), value]),
  );
}

/** A number for the language: `digits` decimals, never rounded up (99.96 % shows as 99.9 %, not 100.0 %). */
export function formatPercent(lang: Lang, percent: number, digits = 1): string {
  const factor = 10 ** digits;
  const floored = Math.floor(percent * factor + 1e-9) / factor;
  return new Intl.NumberFormat(lang, { style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(floored / 100);
}

export function formatNumber(lang: Lang, n: number, digits = 0): string {
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
}

/** A moment as a date and time for the language, in UTC, with the zone named: "7 December 2026 at 10:00 (UTC)". */
/**
 * A moment as a candidate reads it: date and time in the time zone given (an IANA name; UTC by
 * default), followed by the zone and its offset at that moment, "(Europe/Berlin, UTC+01:00)".
 */
export function formatDateTime(lang: Lang, when: Date, timeZone = 'UTC'): string {
  const text = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeStyle: 'short', timeZone }).format(when);
  if (timeZone === 'UTC') return `${text} (UTC)`;
  const offset = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longOffset' }).formatToParts(when).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  return `${text} (${timeZone}, ${offset === 'GMT' ? 'UTC' : offset.replace('GMT', 'UTC')})`;
}

export function formatDate(lang: Lang, when: Date): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(when);
}
