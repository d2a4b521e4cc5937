// What an ATS is told of an invitation, read from its score record (the record as clients of
// GET /v1/score read it): a short readable state, and the result's figures once it is final.
import type { ScoreRecord } from '../modules/scores/format.js';
import type { InvitationState } from '../modules/invitations/machine.js';

export interface ResultFacts {
  /** complete | invited | in progress | awaiting review | cancelled | expired */
  status: 'complete' | 'invited' | 'in progress' | 'awaiting review' | 'cancelled' | 'expired';
  final: boolean;
  totalScore: number;
  scoreStatus: ScoreRecord['scoreStatus'];
  categories: { name: string; score: number }[];
  typingWpm: number;
  redFlag: boolean;
  /** Minutes from start to finish, when both happened. */
  minutesTaken?: number;
}

/** A record's time (`yyyy-MM-ddTHH:mm:ss.fffffff+00:00`, or the year-1 placeholder) in ms; undefined when it did not happen. */
const millis = (time: string): number | undefined => (time.startsWith('0001-') ? undefined : Date.parse(`${time.slice(0, 23)}Z`));

export function resultFacts(
  record: Pick<ScoreRecord, 'assessmentStatus' | 'scoreStatus' | 'totalScore' | 'categoryScores' | 'typingSpeed' | 'redFlag' | 'started' | 'finished'>,
  state: InvitationState,
): ResultFacts {
  const final = record.assessmentStatus === 'COMPLETED' && record.scoreStatus !== 'PENDING';
  const status: ResultFacts['status'] = final
    ? 'complete'
    : state === 'CANCELLED'
      ? 'cancelled'
      : state === 'EXPIRED'
        ? 'expired'
        : record.assessmentStatus === 'COMPLETED'
          ? 'awaiting review'
          : record.assessmentStatus === 'IN_PROGRESS'
            ? 'in progress'
            : 'invited';
  const started = millis(record.started);
  const finished = millis(record.finished);
  return {
    status,
    final,
    totalScore: Number(record.totalScore),
    scoreStatus: record.scoreStatus,
    categories: record.categoryScores.map((c) => ({ name: c.name, score: Number(c.score) })),
    typingWpm: Number(record.typingSpeed),
    redFlag: record.redFlag,
    ...(started !== undefined && finished !== undefined ? { minutesTaken: Math.max(0, Math.round((finished - started) / 60_000)) } : {}),
  };
}

/** The result's figures as flat, labelled strings (Greenhouse's metadata; the console). */
export function flatFacts(facts: ResultFacts): Record<string, string> {
  const flat: Record<string, string> = { Result: facts.scoreStatus, 'Total score': `${facts.totalScore}%` };
  for (const c of facts.categories) flat[`Category: ${c.name}`] = `${c.score}%`;
  if (facts.typingWpm > 0) flat['Typing speed (wpm)'] = String(facts.typingWpm);
  flat['Red flag'] = facts.redFlag ? 'yes: see the report' : 'no';
  if (facts.minutesTaken !== undefined) flat['Time taken (minutes)'] = String(facts.minutesTaken);
  return flat;
}

/** A one-line summary of a final result: the verdict, each category, the typing speed, the integrity flag. */
export function resultSummary(facts: ResultFacts): string {
  const parts = [`${facts.scoreStatus.replace('_', ' ')}: ${facts.totalScore}% overall`];
  for (const c of facts.categories) parts.push(`${c.name} ${c.score}%`);
  if (facts.typingWpm > 0) parts.push(`typing ${facts.typingWpm} words per minute`);
  if (facts.minutesTaken !== undefined) parts.push(`${facts.minutesTaken} minutes`);
  parts.push(facts.redFlag ? 'integrity flagged: see the report' : 'no integrity flags');
  return parts.join('; ');
}
