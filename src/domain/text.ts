// Rules about text that every surface and module shares.

/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), as a
 * character-class range for patterns. Refused in names: they make a name display other than it
 * reads ("Trojan Source"), e.g. a candidate whose shown name hides or reverses part of it.
 */
export const BIDI_CONTROLS = '\\u202a-\\u202e\\u2066-\\u2069';
export const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
export const BIDI_MESSAGE = 'must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)';

/**
 * Half of a UTF-16 surrogate pair alone, which is no character. JSON and YAML can write one as an
 * escape ("\udfff"); PostgreSQL refuses it inside jsonb and writes it into text as U+FFFD, so
 * text holding one is refused where it comes in.
 */
export const LONE_SURROGATE = /\p{Cs}/u;
export const LONE_SURROGATE_MESSAGE = 'holds half of a UTF-16 surrogate pair alone (an escape such as \\udfff without its other half), which is no character';

/** Where the first string (a key or a value) in `value` holds half a surrogate pair alone, as keys and indexes from the top; null when none does. */
export function loneSurrogatePath(value: unknown): (string | number)[] | null {
  const stack: [unknown, (string | number)[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return at;
    } else if (typeof v === 'object' && v !== null) {
      const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        if (typeof k === 'string' && LONE_SURROGATE.test(k)) return [...at, k];
        stack.push([x, [...at, k]]);
      }
    }
  }
  return null;
}
