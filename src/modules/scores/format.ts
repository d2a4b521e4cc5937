// The exact shapes of a score record's strings. Pure: no I/O.

export const NOT_YET = '0001-01-01T00:00:00.0000000+00:00';

/**
 * A point in time as `yyyy-MM-ddTHH:mm:ss.fffffff+00:00` (UTC, 7 fractional digits), from
 * microseconds since the Unix epoch (PostgreSQL's precision; the 7th digit is always 0).
 * null, for an event that has not happened, gives the year-1 placeholder.
 */
export function formatTimestamp(epochMicros: string | bigint | null): string {
  if (epochMicros === null) return NOT_YET;
  let millis: number;
  let subMillis: number;
  const exact = Number(epochMicros);
  if (Number.isSafeInteger(exact)) {
    // Every instant within ±285 years of 1970: plain numbers, several times faster than BigInt
    // (this runs twice per record of an export).
    millis = Math.floor(exact / 1000);
    subMillis = exact - millis * 1000;
  } else {
    const micros = BigInt(epochMicros);
    const whole = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
    millis = Number(whole);
    subMillis = Number(micros - whole * 1000n);
  }
  const iso = new Date(millis).toISOString(); // yyyy-MM-ddTHH:mm:ss.mmmZ
  if (!/^\d{4}-/.test(iso)) throw new RangeError(`timestamp out of range: ${epochMicros}`);
  return `${iso.slice(0, 23)}${subMillis.toString().padStart(3, '0')}0+00:00`;
}

/**
 * Rounds to two decimals, half away from zero, as a person reading the decimal digits would:
 * 1.005 gives 1.01 although its binary value is a hair below 1.005.
 */
export function round2(n: number): number {
  const rounded = (Math.sign(n) * Math.round(Math.abs(n) * 100 + 1e-7)) / 100;
  return Object.is(rounded, -0) ? 0 : rounded;
}

/** A percentage (or any measure) as a decimal string, at most two decimals, no trailing zeros. */
export function formatDecimal(value: number | string): string {
  const n = typeof value === 'string' ? Number(value) : value;
  if (!Number.isFinite(n)) throw new RangeError(`not a finite number: ${value}`);
  return String(round2(n));
}

export type AssessmentStatus = 'INVITED' | 'IN_PROGRESS' | 'COMPLETED';
export type ScoreStatus = 'PENDING' | 'LOW_PASS' | 'PASS' | 'FAIL';

/** An invitation as stored, with times as epoch microseconds. */
export interface InvitationRow {
  candidateId: string;
  assessmentId: string;
  assessmentName: string;
  assessmentStatus: AssessmentStatus;
  scoreStatus: ScoreStatus;
  completion: string | number;
  totalScore: string | number;
  typingWpm: string | number;
  categoryScores: { name: string; score: number | string }[];
  redFlag: boolean;
  startedMicros: string | null;
  finishedMicros: string | null;
}

export interface ScoreRecord {
  candidateId: string;
  assessmentId: string;
  assessmentName: string;
  assessmentStatus: AssessmentStatus;
  scoreStatus: ScoreStatus;
  completion: string;
  totalScore: string;
  typingSpeed: string;
  categoryScores: { name: string; score: string }[];
  redFlag: boolean;
  started: string;
  finished: string;
}

/** The published score record of an invitation, whatever its state. */
export function toScoreRecord(row: InvitationRow): ScoreRecord {
  const scored = row.assessmentStatus === 'COMPLETED' && row.scoreStatus !== 'PENDING';
  return {
    candidateId: row.candidateId,
    assessmentId: row.assessmentId,
    assessmentName: row.assessmentName,
    assessmentStatus: row.assessmentStatus,
    scoreStatus: row.scoreStatus,
    completion: formatDecimal(row.completion),
    totalScore: scored ? formatDecimal(row.totalScore) : '0',
    typingSpeed: formatDecimal(row.typingWpm),
    categoryScores: scored ? row.categoryScores.map((c) => ({ name: c.name, score: formatDecimal(c.score) })) : [],
    redFlag: row.redFlag,
    started: formatTimestamp(row.assessmentStatus === 'INVITED' ? null : row.startedMicros),
    finished: formatTimestamp(row.assessmentStatus === 'COMPLETED' ? row.finishedMicros : null),
  };
}
