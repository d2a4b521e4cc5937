// Normalised tokens of an answer, for comparing answers by their structure rather than their
// spelling: a program's identifiers become one placeholder, its literals one per kind, its
// comments and whitespace go; a text's words are lowercased. Each token keeps where it stands in
// the original (character offsets), so that matching parts can be shown. Pure: no I/O.

export type Language = 'javascript' | 'python' | 'text';

export interface Token {
  /** The normalised token: `V` an identifier, `N` a number, `S` a string, or the keyword or symbol itself. */
  t: string;
  /** Offset of its first character in the original text. */
  start: number;
  /** Offset just past its last character. */
  end: number;
}

const JS_KEYWORDS = new Set(
  (
    'await break case catch class const continue debugger default delete do else export extends false finally for function if import in ' +
    'instanceof let new null of return static super switch this throw true try typeof undefined var void while with yield async'
  ).split(' '),
);
const PY_KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from global if import in is ' +
    'lambda nonlocal not or pass raise return try while with yield match case'
  ).split(' '),
);

/** Operators of several characters, longest first, kept as one token. */
const OPERATORS = [
  '>>>=',
  '===',
  '!==',
  '**=',
  '...',
  '<<=',
  '>>=',
  '>>>',
  '//=',
  '=>',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '??',
  '?.',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '**',
  '<<',
  '>>',
  '//',
  '->',
  ':=',
];

/** The normalised tokens of a program (JavaScript or Python) or of a text. */
export function tokenize(source: string, language: Language): Token[] {
  return language === 'text' ? words(source) : code(source, language);
}

function words(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)) tokens.push({ t: m[0].toLowerCase(), start: m.index, end: m.index + m[0].length });
  return tokens;
}

function code(src: string, language: 'javascript' | 'python'): Token[] {
  const keywords = language === 'python' ? PY_KEYWORDS : JS_KEYWORDS;
  const tokens: Token[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    // Comments.
    if (language === 'python' ? c === '#' : src.startsWith('//', i)) {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (language === 'javascript' && src.startsWith('/*', i)) {
      const close = src.indexOf('*/', i + 2);
      i = close < 0 ? n : close + 2;
      continue;
    }
    const start = i;
    // Strings (a Python prefix such as f or rb is read as part of the string).
    const prefix = language === 'python' ? /^[rRbBuUfF]{0,2}(?:'''|"""|'|")/.exec(src.slice(i, i + 5)) : null;
    if (prefix || c === '"' || c === "'" || (language === 'javascript' && c === '`')) {
      const quote = prefix ? prefix[0].replace(/^[rRbBuUfF]*/, '') : c;
      i += prefix ? prefix[0].length : 1;
      while (i < n && !src.startsWith(quote, i)) {
        if (src[i] === '\\') i++;
        else if (quote.length === 1 && quote !== '`' && src[i] === '\n') break;
        i++;
      }
      i = Math.min(n, i + quote.length);
      tokens.push({ t: 'S', start, end: i });
      continue;
    }
    // Numbers.
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][+-]?\d+)?)[njJ]?/.exec(src.slice(i, i + 100));
      i += m ? Math.max(1, m[0].length) : 1;
      tokens.push({ t: 'N', start, end: i });
      continue;
    }
    // Identifiers and keywords.
    const word = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(src.slice(i, i + 256));
    if (word) {
      i += word[0].length;
      tokens.push({ t: keywords.has(word[0]) ? word[0] : 'V', start, end: i });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i)) ?? c;
    i += op.length;
    tokens.push({ t: op, start, end: i });
  }
  return tokens;
}
