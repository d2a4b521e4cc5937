// What one attempt shows, fixed when it starts: which questions (drawn from the pools), in which
// order, and in which order the options of each choice question. Made from the attempt's stored
// seed by a small deterministic generator, and stored on the attempt too, so that a reload, another
// node or a later release shows the candidate exactly what they saw. Pure: no I/O.
import { randomBytes } from 'node:crypto';
import type { AssessmentContent } from '../assessments/content-schema.js';
export { questionCount } from '../assessments/content-schema.js';

export interface AttemptLayout {
  /** The question ids this attempt is given, in the order it shows them. */
  questions: string[];
  /** Per choice question whose options are shuffled: the option indexes in the order shown. */
  options: Record<string, number[]>;
}

/** A fresh seed for a new attempt: 32 random bits, as a signed integer (a PostgreSQL integer). */
export const newSeed = (): number => randomBytes(4).readInt32BE(0);

/** mulberry32: a small, well-mixed 32-bit generator; the same seed gives the same numbers. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates with the given generator: a new array, every order equally likely. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The layout of an attempt with this seed. In order: each pool draws its questions (the others
 * are all given), the given questions are shuffled when `shuffleQuestions` is set (else they keep
 * the authored order), and the options of each single- and multiple-choice question are shuffled
 * when `shuffleOptions` is set. Likert scales and rankings keep their authored order: a scale's
 * order is its meaning, and a ranking's starting order is checked on import not to be its key.
 */
export function attemptLayout(content: AssessmentContent, seed: number): AttemptLayout {
  const random = mulberry32(seed);
  const drawn = new Set<string>();
  const pooled = new Map((content.pools ?? []).map((p) => [p.category, p.draw]));
  for (const category of content.categories) {
    const ids = content.questions.filter((q) => q.category === category.id).map((q) => q.id);
    const draw = pooled.get(category.id);
    for (const id of draw === undefined ? ids : shuffled(ids, random).slice(0, draw)) drawn.add(id);
  }
  const given = content.questions.filter((q) => drawn.has(q.id));
  const ordered = content.shuffleQuestions ? shuffled(given, random) : given;
  const options: Record<string, number[]> = {};
  if (content.shuffleOptions) {
    for (const q of ordered) {
      if (q.type === 'single-choice' || q.type === 'multiple-choice')
        options[q.id] = shuffled(
          q.options.map((_, i) => i),
          random,
        );
    }
  }
  return { questions: ordered.map((q) => q.id), options };
}

/** Every question in the authored order, options as written: attempts made before layouts. */
export const authoredLayout = (content: AssessmentContent): AttemptLayout => ({ questions: content.questions.map((q) => q.id), options: {} });

/** What the report says of how the attempt was put together; empty when nothing was shuffled or drawn. */
export function layoutNotes(content: AssessmentContent): string[] {
  const notes: string[] = [];
  for (const pool of content.pools ?? []) {
    const name = content.categories.find((c) => c.id === pool.category)?.name ?? pool.category;
    const size = content.questions.filter((q) => q.category === pool.category).length;
    notes.push(`${pool.draw} of the ${size} questions of ${name} were drawn at random for this attempt`);
  }
  if (content.shuffleQuestions) notes.push('the questions were shown in an order shuffled for this attempt (as listed)');
  if (content.shuffleOptions) notes.push('the options of choice questions were shown in an order shuffled for this attempt (as listed)');
  return notes;
}
