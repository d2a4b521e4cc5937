// Fingerprints of a token sequence by winnowing (Schleimer, Wilkerson and Aiken, "Winnowing:
// local algorithms for document fingerprinting", SIGMOD 2003, the method of MOSS): hash every
// k-gram of tokens, slide a window of w hashes over them and keep the smallest of each window
// (the rightmost on a tie), once per position. Any match of at least w + k - 1 tokens shares at
// least one fingerprint; matches shorter than k tokens are never seen. Pure: no I/O.
import type { Token } from './tokenize.js';

export interface Fingerprint {
  /** A 32-bit signed hash of the k-gram's normalised tokens. */
  hash: number;
  /** Character offsets in the original text of the k-gram it stands for. */
  start: number;
  end: number;
}

/** 32-bit FNV-1a of a string, signed (a PostgreSQL integer). */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

/** Winnowed fingerprints of `tokens` with k-grams of `k` tokens and windows of `w` k-grams. */
export function winnow(tokens: Token[], k: number, w: number): Fingerprint[] {
  if (tokens.length < k) return [];
  const grams: Fingerprint[] = [];
  for (let i = 0; i + k <= tokens.length; i++) {
    grams.push({
      hash: hash32(
        tokens
          .slice(i, i + k)
          .map((t) => t.t)
          .join('\u0001'),
      ),
      start: tokens[i]!.start,
      end: tokens[i + k - 1]!.end,
    });
  }
  // Fewer k-grams than a window: the smallest of them all stands for the text.
  const width = Math.min(w, grams.length);
  const chosen: Fingerprint[] = [];
  let last = -1;
  for (let left = 0; left + width <= grams.length; left++) {
    let min = left;
    for (let j = left + 1; j < left + width; j++) if (grams[j]!.hash <= grams[min]!.hash) min = j;
    if (min !== last) {
      chosen.push(grams[min]!);
      last = min;
    }
  }
  return chosen;
}

/** The similarity of two sets of fingerprints: shared distinct hashes over all distinct hashes (Jaccard), 0 to 1. */
export function similarity(a: Iterable<number>, b: Iterable<number>): number {
  const left = new Set(a);
  const right = new Set(b);
  let shared = 0;
  for (const h of left) if (right.has(h)) shared++;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}
