// What the console shows of one candidate's assessment: the score record exactly as the API
// gives it, and behind it the attempt, every question with the answer given and what was
// correct, reviews, the proctoring timeline with the rules that raised the red flag, and where
// the total stands among everyone who completed the same version. This file is the report's
// shape and its loading; each question is shaped by report-questions.ts, and the admin API's
// proctoring view of a candidate's attempts is proctoring-report.ts.
import type { Queryable } from '../../db/database.js';
import { MIN_NORM_GROUP, normAndAverages, publishedByName, type Norm } from '../scores/norms.js';
import { scorePage } from '../scores/repository.js';
import { toScoreRecord, type ScoreRecord } from '../scores/format.js';
import { redFlagReasonsOf, riskOf, type RiskLevel } from './proctoring.js';
import { notStoredOf } from './proctoring-report.js';
import { REVIEW_CURRENT } from './completion.js';
import { layoutOf } from './repository.js';
import { versionContent } from '../assessments/repository.js';
import { questionReports, type AnswerRow, type QuestionReport } from './report-questions.js';
import { countsOfTally, signalTallyOf, signalsOf, type DismissedKinds, type StoredSignal } from './signals.js';
import { layoutNotes, type AttemptLayout } from './layout.js';
import { similarAnswers, type SimilarPair } from '../integrity/similarity.js';

export interface AssessmentReport {
  record: ScoreRecord;
  assessmentName: string;
  passScore: number;
  lowPassScore: number;
  attempt: {
    id: string;
    version: number;
    startedAt: Date;
    deadlineAt: Date;
    finishedAt: Date | null;
    endReason: string | null;
    typingWpm: number | null;
    typingAccuracy: number | null;
    firstAddress: string | null;
    firstAgent: string | null;
    /** The language the content was shown in (en, de, es), chosen at the start. */
    language: string;
  } | null;
  /** The questions this candidate was given, in the order they saw them; options in that order too. */
  questions: QuestionReport[];
  /** How the attempt was put together: questions drawn from pools, shuffled orders; empty when neither. */
  layoutNotes: string[];
  signals: StoredSignal[];
  /** Signals counted but not stored as rows (beyond MAX_STORED_SIGNALS), by kind; empty when none. */
  notStored: { kind: string; count: number }[];
  redFlagReasons: string[];
  /** The risk level from the signals not dismissed, with its reasons (docs/integrity.md); the red flag is "high". */
  risk: { level: RiskLevel; reasons: string[] };
  /** Kinds of signal a reviewer dismissed as a whole, with who, when and why. */
  dismissedKinds: DismissedKinds;
  /** Answers of other candidates to the same questions that are alike (docs/integrity.md), with the question's prompt. */
  similar: (SimilarPair & { prompt: string })[];
  /** The total's percentile against the norm group (`norm`); null until scored, or without a norm group yet. */
  percentile: number | null;
  /** The norm group the percentiles are read against (published norms, or the instance's own candidates), with each category's percentile. */
  norm: Norm;
  /** How many completed and scored attempts of the same version the percentile and averages come from. */
  cohort: number;
  /** The average score of each category over the cohort. */
  categoryAverages: Record<string, number>;
  /** Extra time of the invite (an accommodation), percent of the time limit; for the operator only. */
  extraTimePercent: number;
  /** Where the invitation came from (api, console, greenhouse, ashby), the client's reference, and the ATS requests behind it; for the operator only. */
  origin: { source: string; externalReference: string | null; ats: { partner: string; id: string; external: Record<string, unknown> }[] };
  /** Earlier attempts that a retake replaced, oldest first, with the record as it stood then. */
  earlier: {
    startedAt: Date;
    finishedAt: Date | null;
    endReason: string | null;
    supersededAt: Date;
    record: { assessmentStatus: string; scoreStatus: string; totalScore: number } | null;
  }[];
}

interface AttemptRow {
  id: string;
  version: number;
  assessmentUuid: string;
  startedAt: Date;
  deadlineAt: Date;
  finishedAt: Date | null;
  endReason: string | null;
  typingWpm: number | null;
  typingAccuracy: number | null;
  firstAddress: string | null;
  firstAgent: string | null;
  language: string;
  passScore: number;
  lowPassScore: number;
  layout: AttemptLayout | null;
}

/** The reports of a candidate's assessments (only of `assessmentIds` when given). */
export async function assessmentReports(db: Queryable, instanceIds: string[], candidateId: string, assessmentIds?: string[]): Promise<AssessmentReport[]> {
  const rows = await scorePage(db, { instanceIds, candidateIds: [candidateId], assessmentIds }, '0', 200);
  const reports: AssessmentReport[] = [];
  for (const row of rows) {
    const record = toScoreRecord(row);
    const { rows: history } = await db.query<{ extraTimePercent: number; earlier: AssessmentReport['earlier'] } & AssessmentReport['origin']>(
      `SELECT i.extra_time_percent AS "extraTimePercent", i.source, i.external_reference AS "externalReference",
              COALESCE((SELECT jsonb_agg(jsonb_build_object('partner', l.partner, 'id', l.public_id, 'external', l.external) ORDER BY l.id)
                          FROM partner_links l WHERE l.invitation_id = i.id), '[]'::jsonb) AS ats,
              COALESCE((SELECT jsonb_agg(jsonb_build_object('startedAt', t.started_at, 'finishedAt', t.finished_at, 'endReason', t.end_reason,
                                                            'supersededAt', t.superseded_at, 'record', t.result) ORDER BY t.started_at)
                          FROM attempts t WHERE t.invitation_id = i.id AND t.superseded_at IS NOT NULL), '[]'::jsonb) AS earlier
         FROM invitations i WHERE i.id = $1`,
      [row.id],
    );
    const { source, externalReference, ats } = history[0]!;
    const extra = { extraTimePercent: history[0]!.extraTimePercent, earlier: history[0]!.earlier, origin: { source, externalReference, ats } };
    const { rows: attempts } = await db.query<AttemptRow>(
      `SELECT t.id, t.version, t.assessment_id AS "assessmentUuid", t.started_at AS "startedAt", t.deadline_at AS "deadlineAt",
              t.finished_at AS "finishedAt", t.end_reason AS "endReason", t.typing_wpm::float8 AS "typingWpm", t.typing_accuracy::float8 AS "typingAccuracy",
              t.first_address AS "firstAddress", t.first_agent AS "firstAgent", t.content_language AS language, s.pass_score::float8 AS "passScore", s.low_pass_score::float8 AS "lowPassScore", t.layout
         FROM attempts t JOIN assessments s ON s.id = t.assessment_id WHERE t.invitation_id = $1 AND t.superseded_at IS NULL`,
      [row.id],
    );
    const attempt = attempts[0];
    if (!attempt) {
      const { rows: thresholds } = await db.query<{ passScore: number; lowPassScore: number }>(
        `SELECT s.pass_score::float8 AS "passScore", s.low_pass_score::float8 AS "lowPassScore" FROM invitations i JOIN assessments s ON s.id = i.assessment_id WHERE i.id = $1`,
        [row.id],
      );
      reports.push({
        record,
        assessmentName: row.assessmentName,
        ...thresholds[0]!,
        attempt: null,
        questions: [],
        layoutNotes: [],
        signals: [],
        notStored: [],
        redFlagReasons: [],
        risk: { level: 'low', reasons: [] },
        dismissedKinds: {},
        similar: [],
        percentile: null,
        cohort: 0,
        categoryAverages: {},
        norm: { kind: 'none', group: 'none yet', source: null, size: 0, total: null, categories: {}, needed: MIN_COHORT },
        ...extra,
      });
      continue;
    }
    const content = await versionContent(db, attempt.assessmentUuid, attempt.version);
    const { rows: answerRows } = await db.query<AnswerRow>(
      `SELECT question_id AS "questionId", value, CASE WHEN ${REVIEW_CURRENT} THEN review_score::float8 END AS "reviewScore",
              CASE WHEN ${REVIEW_CURRENT} THEN reviewed_at END AS "reviewedAt", CASE WHEN ${REVIEW_CURRENT} THEN reviewed_by END AS reviewer,
              CASE WHEN ${REVIEW_CURRENT} THEN review_comment END AS "reviewComment",
              coalesce((SELECT json_agg(json_build_object('reviewer', r.reviewer, 'score', r.score::float8, 'criteria', r.criteria, 'comment', r.comment, 'reviewedAt', r.reviewed_at) ORDER BY r.reviewed_at, r.id)
                          FROM answer_reviews r WHERE r.attempt_id = answers.attempt_id AND r.question_id = answers.question_id), '[]') AS reviews,
              (SELECT json_build_object('score', x.score::float8, 'comment', x.comment, 'settledBy', x.settled_by, 'settledAt', x.settled_at)
                 FROM review_settlements x WHERE x.attempt_id = answers.attempt_id AND x.question_id = answers.question_id) AS settlement
         FROM answers WHERE attempt_id = $1`,
      [attempt.id],
    );
    const questions = questionReports(content, layoutOf(attempt, content), new Map(answerRows.map((a) => [a.questionId, a])));
    const signals = await signalsOf(db, attempt.id);
    const tally = await signalTallyOf(db, attempt.id);
    const counts = tally.counts;
    const scored = record.assessmentStatus === 'COMPLETED' && record.scoreStatus !== 'PENDING';
    const { norm, categoryAverages } = await normAndAverages(db, {
      assessmentId: attempt.assessmentUuid,
      version: attempt.version,
      total: scored ? Number(record.totalScore) : null,
      categories: scored ? record.categoryScores.map((c) => ({ name: c.name, score: Number(c.score) })) : [],
      published: publishedByName(content.norms, content.categories),
    });
    const similar = (await similarAnswers(db, attempt.id)).map((pair) => ({ ...pair, prompt: content.questions.find((q) => q.id === pair.questionId)?.prompt ?? pair.questionId }));
    const { assessmentUuid: _uuid, passScore, lowPassScore, layout, ...kept } = attempt;
    reports.push({
      record,
      assessmentName: row.assessmentName,
      passScore,
      lowPassScore,
      attempt: kept,
      questions,
      layoutNotes: layout ? layoutNotes(content) : [],
      signals,
      notStored: notStoredOf(counts, signals),
      redFlagReasons: redFlagReasonsOf(countsOfTally(tally)),
      risk: riskOf(countsOfTally(tally)),
      dismissedKinds: tally.dismissedKinds,
      similar,
      cohort: norm.size,
      categoryAverages,
      percentile: norm.total,
      norm,
      ...extra,
    });
  }
  return reports;
}

/** The fewest completed and scored attempts of one version an instance's own norm is made of. */
export const MIN_COHORT = MIN_NORM_GROUP;
