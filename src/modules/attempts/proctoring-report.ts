// The proctoring view of a candidate's attempts (the admin API's): each attempt with every signal
// and the rules they tripped; and what a report's counts hold beyond the stored signals.
import type { Queryable } from '../../db/database.js';
import { redFlagReasonsOf, type SignalKind } from './proctoring.js';
import { countsOfTally, signalsOf, type DismissedKinds, type SignalTally, type StoredSignal } from './signals.js';
import type { SimilarPair } from '../integrity/similarity.js';

export interface AttemptSummary {
  attemptId: string;
  assessmentId: string;
  version: number;
  startedAt: Date;
  deadlineAt: Date;
  finishedAt: Date | null;
  endReason: string | null;
  typingNetWpm: number | null;
  typingAccuracy: number | null;
  redFlag: boolean;
  redFlagReasons: string[];
  /** Kinds of signal a reviewer dismissed as a whole, with who, when and why. */
  dismissedKinds: DismissedKinds;
  /** The pictures the prompts show, as PNG or JPEG for the PDF, by their stored name (`<sha256>.<ext>`). */
  images?: Record<string, Uint8Array>;
  /** Answers of other candidates to the same questions that are alike (docs/integrity.md), with the question's prompt. */
  similar: (SimilarPair & { prompt: string })[];
  signals: StoredSignal[];
}

/** A candidate's attempts in an instance, with every signal (one query for all of them) and the rules they tripped. */
export async function attemptsOfCandidate(db: Queryable, instanceId: string, candidateId: string): Promise<AttemptSummary[]> {
  const { rows } = await db.query<Omit<AttemptSummary, 'redFlagReasons' | 'signals'> & SignalTally>(
    `SELECT t.id AS "attemptId", t.signal_counts AS counts, t.dismissed_kinds AS "dismissedKinds", s.slug AS "assessmentId", t.version, t.started_at AS "startedAt", t.deadline_at AS "deadlineAt",
            t.finished_at AS "finishedAt", t.end_reason AS "endReason", t.typing_wpm::float8 AS "typingNetWpm",
            t.typing_accuracy::float8 AS "typingAccuracy", i.red_flag AS "redFlag"
       FROM attempts t JOIN invitations i ON i.id = t.invitation_id JOIN assessments s ON s.id = i.assessment_id
      WHERE i.instance_id = $1 AND i.candidate_id = $2 ORDER BY t.started_at`,
    [instanceId, candidateId],
  );
  const signals = await Promise.all(rows.map((r) => signalsOf(db, r.attemptId)));
  return rows.map((row, n) => {
    const own = signals[n]!;
    const dismissed: Partial<Record<SignalKind, number>> = {};
    for (const s of own) if (s.dismissed) dismissed[s.kind] = (dismissed[s.kind] ?? 0) + 1;
    const { counts, dismissed: _d, ...summary } = { ...row, dismissed };
    return { ...summary, redFlagReasons: redFlagReasonsOf(countsOfTally({ counts, dismissed, dismissedKinds: row.dismissedKinds })), signals: own };
  });
}

/** What the counts hold beyond the stored signals, by kind (the signals a report can list). */
export function notStoredOf(counts: Partial<Record<SignalKind, number>>, stored: { kind: string }[]): { kind: string; count: number }[] {
  return Object.entries(counts)
    .map(([kind, count]) => ({ kind, count: (count ?? 0) - stored.filter((s) => s.kind === kind).length }))
    .filter((k) => k.count > 0)
    .sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
}
