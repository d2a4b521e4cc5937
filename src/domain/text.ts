// Rules about text that every surface and module shares.

/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), as a
 * character-class range for patterns. Refused in names: they make a name display other than it
 * reads ("Trojan Source"), e.g. a candidate whose shown name hides or reverses part of it.
 */
export const BIDI_CONTROLS = '\\u202a-\\u202e\\u2066-\\u2069';
export const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
export const BIDI_MESSAGE = 'must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)';
