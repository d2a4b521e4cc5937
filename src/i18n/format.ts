// A small ICU MessageFormat subset for the catalogues: `{name}` placeholders, and
// `{count, plural, =0 {…} one {…} other {…}}` with `#` for the formatted number, chosen by
// Intl.PluralRules for the language. Numbers in placeholders are formatted with Intl.NumberFormat.
// Plurals may nest placeholders but not other plurals; a placeholder without a value stays
// visible as `{name}`, so a typo shows instead of vanishing.

export type Params = Record<string, string | number>;

interface Plural {
  name: string;
  branches: Map<string, string>;
}

type Part = string | { name: string } | Plural;

const cache = new Map<string, Part[]>();

/** The closing brace that matches the `{` at `open`. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  throw new Error(`Unbalanced braces in message: ${text}`);
}

function parsePlural(name: string, body: string, message: string): Plural {
  const branches = new Map<string, string>();
  let i = 0;
  while (i < body.length) {
    const selector = /^\s*(=\d+|zero|one|two|few|many|other)\s*\{/.exec(body.slice(i));
    if (!selector) {
      if (body.slice(i).trim() === '') break;
      throw new Error(`Bad plural branch in message: ${message}`);
    }
    const open = i + selector[0].length - 1;
    const end = closing(body, open);
    branches.set(selector[1]!, body.slice(open + 1, end));
    i = end + 1;
  }
  if (!branches.has('other')) throw new Error(`A plural needs an "other" branch: ${message}`);
  return { name, branches };
}

export function parse(message: string): Part[] {
  const known = cache.get(message);
  if (known) return known;
  const parts: Part[] = [];
  let i = 0;
  while (i < message.length) {
    const open = message.indexOf('{', i);
    if (open < 0) {
      parts.push(message.slice(i));
      break;
    }
    if (open > i) parts.push(message.slice(i, open));
    const end = closing(message, open);
    const inner = message.slice(open + 1, end);
    const plural = /^\s*([A-Za-z][A-Za-z0-9]*)\s*,\s*plural\s*,([\s\S]*)$/.exec(inner);
    if (plural) parts.push(parsePlural(plural[1]!, plural[2]!, message));
    else if (/^\s*[A-Za-z][A-Za-z0-9]*\s*$/.test(inner)) parts.push({ name: inner.trim() });
    else throw new Error(`Bad placeholder {${inner}} in message: ${message}`);
    i = end + 1;
  }
  cache.set(message, parts);
  return parts;
}

/** The names of a message's placeholders and plurals (the catalogue test compares them across languages). */
export function placeholders(message: string): Set<string> {
  const names = new Set<string>();
  for (const part of parse(message)) {
    if (typeof part === 'string') continue;
    names.add(part.name);
    if ('branches' in part) for (const branch of part.branches.values()) for (const inner of placeholders(branch)) names.add(inner);
  }
  return names;
}

const numberFormats = new Map<string, Intl.NumberFormat>();
const pluralRules = new Map<string, Intl.PluralRules>();
const memo = <T>(map: Map<string, T>, lang: string, make: () => T): T => {
  let found = map.get(lang);
  if (!found) map.set(lang, (found = make()));
  return found;
};

export const formatInteger = (lang: string, n: number) => memo(numberFormats, lang, () => new Intl.NumberFormat(lang)).format(n);

function value(lang: string, params: Params, name: string): string {
  const v = params[name];
  if (v === undefined) return `{${name}}`;
  return typeof v === 'number' ? formatInteger(lang, v) : v;
}

/** Formats a message with its parameters for a language (a BCP 47 tag Intl knows). */
export function formatMessage(lang: string, message: string, params: Params = {}): string {
  let out = '';
  for (const part of parse(message)) {
    if (typeof part === 'string') out += part;
    else if (!('branches' in part)) out += value(lang, params, part.name);
    else {
      const n = Number(params[part.name]);
      const rule = memo(pluralRules, lang, () => new Intl.PluralRules(lang)).select(n);
      const branch = part.branches.get(`=${n}`) ?? part.branches.get(rule) ?? part.branches.get('other')!;
      out += formatMessage(lang, branch.replace(/#/g, `{${part.name}}`), params);
    }
  }
  return out;
}
