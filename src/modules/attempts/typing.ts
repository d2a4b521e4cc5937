// The typing test's measures, computed by the server from what was typed and how long typing
// took (the server's own clock from the start of the test to its submission). Pure: no I/O.

export interface TypingMeasure {
  /** Characters typed. */
  typed: number;
  /** Typed characters that match the passage, after the best alignment. */
  correct: number;
  /** Uncorrected errors: the edit distance between what was typed and the passage it covers. */
  errors: number;
  /** (typed / characters per word) per minute. */
  grossWpm: number;
  /** Gross words per minute less errors per minute, never below 0. */
  netWpm: number;
  /** Correct characters as a share of characters typed, percent. */
  accuracy: number;
}

/**
 * Edit distance between `typed` and the best-matching beginning of `passage`, so that a
 * candidate who stopped early is not charged for what they did not reach, and one skipped or
 * doubled letter costs one error rather than every letter after it.
 */
export function alignmentErrors(typed: string, passage: string): number {
  const m = typed.length;
  const n = passage.length;
  let previous = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const current = new Array<number>(n + 1);
    current[0] = i;
    for (let j = 1; j <= n; j++) {
      const substitution = previous[j - 1]! + (typed[i - 1] === passage[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, previous[j]! + 1, current[j - 1]! + 1);
    }
    previous = current;
  }
  return Math.min(...previous);
}

/** Longest text accepted as typed, relative to the passage: bounds the alignment's cost. */
export const MAX_TYPED_FACTOR = 2;

/**
 * The characters (spaces and punctuation included) that count as one word of words per minute, by
 * the language of the passage: 5 for English, the usual standard word; 6 for German and 5.5 for
 * Spanish, whose texts take about 22% and 10% more characters a word than the same text in
 * English (the library's typing passages, written for each language: docs/library.md), so that a
 * typist who types the same text as fast scores about the same in any language.
 */
export const CHARACTERS_PER_WORD: Record<string, number> = { en: 5, de: 6, es: 5.5 };

export function measureTyping(passage: string, typed: string, durationMs: number, charactersPerWord = 5): TypingMeasure {
  const text = typed
    .replace(/\r\n?/g, '\n')
    .normalize('NFC')
    .slice(0, passage.length * MAX_TYPED_FACTOR);
  const minutes = Math.max(durationMs, 1000) / 60000;
  const errors = text.length === 0 ? 0 : alignmentErrors(text, passage.normalize('NFC'));
  const correct = Math.max(0, text.length - errors);
  const grossWpm = text.length / charactersPerWord / minutes;
  return {
    typed: text.length,
    correct,
    errors,
    grossWpm,
    netWpm: Math.max(0, grossWpm - errors / minutes),
    accuracy: text.length === 0 ? 0 : (100 * correct) / text.length,
  };
}
