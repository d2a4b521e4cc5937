// Similar answers: the coding and free-text answers of an attempt compared with those of every
// other candidate of the same question (same assessment, same instance). Each answer's winnowed
// fingerprints are stored when its attempt completes (storeFingerprints, in the completion's
// transaction); a report looks its answers' fingerprints up in the index of the others
// (similarAnswers). The rules and numbers are in docs/integrity.md; change both together.
import type { Queryable } from '../../db/database.js';
import { tokenize, type Language } from './tokenize.js';
import { winnow, type Fingerprint } from './winnow.js';

export const SIMILARITY = {
  /** k-gram length in tokens of a program (identifiers and literals normalised). */
  codeK: 5,
  /** k-gram length in words of a free text. */
  textK: 4,
  /** Window of k-grams that winnowing keeps one fingerprint of. */
  window: 4,
  /** Answers with fewer distinct fingerprints are too short to say anything: never compared. */
  minFingerprints: 4,
  /** Shared fingerprints over all fingerprints of the two answers (Jaccard) from which a pair is shown. */
  threshold: 0.5,
  /** Pairs shown per report at most, the most similar first. */
  maxPairs: 20,
} as const;

/** The fingerprints of an answer, less those of code every candidate was given (the starter code). */
export function fingerprintsOf(text: string, language: Language, given: string[] = []): Fingerprint[] {
  const k = language === 'text' ? SIMILARITY.textK : SIMILARITY.codeK;
  const common = new Set(given.flatMap((g) => winnow(tokenize(g, language), k, SIMILARITY.window).map((f) => f.hash)));
  return winnow(tokenize(text, language), k, SIMILARITY.window).filter((f) => !common.has(f.hash));
}

export interface AnswerToFingerprint {
  questionId: string;
  language: Language;
  text: string;
  /** Code every candidate started from, whose fingerprints are no evidence. */
  given?: string[];
}

/**
 * Stores the fingerprints of completed attempts' answers (in the completing transaction),
 * replacing any they had, in three statements however many attempts there are (the deadline sweep
 * completes batches). Answers too short to compare are left out.
 */
export async function storeFingerprints(tx: Queryable, attempts: { attemptId: string; answers: AnswerToFingerprint[] }[]): Promise<void> {
  if (attempts.length === 0) return;
  const ids = attempts.map((a) => a.attemptId);
  await tx.query('WITH prints AS (DELETE FROM answer_fingerprints WHERE attempt_id = ANY($1::uuid[])) DELETE FROM fingerprinted_answers WHERE attempt_id = ANY($1::uuid[])', [ids]);
  const prints = { attempt: [] as string[], question: [] as string[], hash: [] as number[], start: [] as number[], end: [] as number[] };
  const sets = { attempt: [] as string[], question: [] as string[], language: [] as string[], size: [] as number[] };
  for (const { attemptId, answers } of attempts) {
    for (const answer of answers) {
      const found = fingerprintsOf(answer.text, answer.language, answer.given);
      const size = new Set(found.map((p) => p.hash)).size;
      if (size < SIMILARITY.minFingerprints) continue;
      sets.attempt.push(attemptId);
      sets.question.push(answer.questionId);
      sets.language.push(answer.language);
      sets.size.push(size);
      for (const p of found) {
        prints.attempt.push(attemptId);
        prints.question.push(answer.questionId);
        prints.hash.push(p.hash);
        prints.start.push(p.start);
        prints.end.push(p.end);
      }
    }
  }
  if (sets.attempt.length === 0) return;
  await tx.query(
    `INSERT INTO answer_fingerprints (instance_id, assessment_id, question_id, hash, attempt_id, start_at, end_at)
     SELECT i.instance_id, a.assessment_id, f.q, f.h, a.id, f.s, f.e
       FROM unnest($1::uuid[], $2::text[], $3::int[], $4::int[], $5::int[]) AS f(t, q, h, s, e)
       JOIN attempts a ON a.id = f.t JOIN invitations i ON i.id = a.invitation_id`,
    [prints.attempt, prints.question, prints.hash, prints.start, prints.end],
  );
  await tx.query(
    `INSERT INTO fingerprinted_answers (attempt_id, question_id, language, distinct_hashes)
     SELECT f.t, f.q, f.l, f.n FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[]) AS f(t, q, l, n)`,
    [sets.attempt, sets.question, sets.language, sets.size],
  );
}

/** Erasure: the fingerprints of a candidate's answers go with the answers. */
export async function eraseFingerprintsOfCandidate(tx: Queryable, candidateId: string): Promise<void> {
  const attempts = `SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`;
  await tx.query(`DELETE FROM answer_fingerprints WHERE attempt_id IN (${attempts})`, [candidateId]);
  await tx.query(`DELETE FROM fingerprinted_answers WHERE attempt_id IN (${attempts})`, [candidateId]);
}

/** A stretch of an answer, marked when the other answer shares it. */
export interface Segment {
  text: string;
  shared: boolean;
}

export interface SimilarPair {
  questionId: string;
  /** Jaccard similarity of the two answers' fingerprints, 0-1. */
  score: number;
  shared: number;
  other: { attemptId: string; candidateId: string; candidateName: string | null };
  mine: Segment[];
  theirs: Segment[];
}

/**
 * The answers of other candidates (their current attempts) to the same questions that are at least
 * SIMILARITY.threshold similar to this attempt's, most similar first, each with both answers cut
 * into shared and unshared stretches. Only the index of fingerprints is searched.
 */
export async function similarAnswers(db: Queryable, attemptId: string): Promise<SimilarPair[]> {
  const { rows } = await db.query<{ questionId: string; otherAttempt: string; shared: number; score: number; candidateId: string; candidateName: string | null }>(
    `WITH mine AS (SELECT DISTINCT instance_id, assessment_id, question_id, hash FROM answer_fingerprints WHERE attempt_id = $1),
          hits AS (
            SELECT f.question_id, f.attempt_id, count(DISTINCT f.hash)::int AS shared
              FROM mine m JOIN answer_fingerprints f
                ON f.instance_id = m.instance_id AND f.assessment_id = m.assessment_id AND f.question_id = m.question_id AND f.hash = m.hash
             WHERE f.attempt_id <> $1 GROUP BY f.question_id, f.attempt_id),
          scored AS (
            SELECT h.question_id, h.attempt_id, h.shared, h.shared::float8 / (x.distinct_hashes + y.distinct_hashes - h.shared) AS score
              FROM hits h JOIN fingerprinted_answers x ON x.attempt_id = $1 AND x.question_id = h.question_id
              JOIN fingerprinted_answers y ON y.attempt_id = h.attempt_id AND y.question_id = h.question_id)
     SELECT s.question_id AS "questionId", s.attempt_id AS "otherAttempt", s.shared, s.score, i.candidate_id AS "candidateId",
            CASE WHEN c.email IS NULL THEN NULL ELSE c.first_name || ' ' || c.last_name END AS "candidateName"
       FROM scored s JOIN attempts t ON t.id = s.attempt_id JOIN invitations i ON i.id = t.invitation_id JOIN candidates c ON c.id = i.candidate_id
      WHERE s.score >= $2 AND t.superseded_at IS NULL
        AND i.candidate_id <> (SELECT i2.candidate_id FROM attempts t2 JOIN invitations i2 ON i2.id = t2.invitation_id WHERE t2.id = $1)
      ORDER BY s.score DESC, s.question_id, s.attempt_id LIMIT $3`,
    [attemptId, SIMILARITY.threshold, SIMILARITY.maxPairs],
  );
  const pairs: SimilarPair[] = [];
  for (const row of rows) {
    const [mine, theirs] = await Promise.all([sharedSegments(db, attemptId, row.otherAttempt, row.questionId), sharedSegments(db, row.otherAttempt, attemptId, row.questionId)]);
    pairs.push({
      questionId: row.questionId,
      score: Math.round(row.score * 100) / 100,
      shared: row.shared,
      other: { attemptId: row.otherAttempt, candidateId: row.candidateId, candidateName: row.candidateName },
      mine,
      theirs,
    });
  }
  return pairs;
}

/** The answer of `attemptId` to the question, cut at the fingerprints it shares with the other attempt's. */
async function sharedSegments(db: Queryable, attemptId: string, otherId: string, questionId: string): Promise<Segment[]> {
  const { rows } = await db.query<{ value: unknown; ranges: [number, number][] | null }>(
    `SELECT a.value,
            (SELECT jsonb_agg(jsonb_build_array(f.start_at, f.end_at) ORDER BY f.start_at) FROM answer_fingerprints f
              WHERE f.attempt_id = $1 AND f.question_id = $3
                AND f.hash IN (SELECT g.hash FROM answer_fingerprints g WHERE g.attempt_id = $2 AND g.question_id = $3)) AS ranges
       FROM answers a WHERE a.attempt_id = $1 AND a.question_id = $3`,
    [attemptId, otherId, questionId],
  );
  const value = rows[0]?.value;
  const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null && 'source' in value ? String((value as { source: unknown }).source) : '';
  return segments(text, rows[0]?.ranges ?? []);
}

/** Cuts a text into stretches, marking those covered by any of the (possibly overlapping) ranges. */
export function segments(text: string, ranges: [number, number][]): Segment[] {
  const merged: [number, number][] = [];
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  const out: Segment[] = [];
  let at = 0;
  for (const [start, end] of merged) {
    if (start > at) out.push({ text: text.slice(at, start), shared: false });
    out.push({ text: text.slice(Math.max(at, start), end), shared: true });
    at = Math.max(at, end);
  }
  if (at < text.length) out.push({ text: text.slice(at), shared: false });
  return out;
}
