// Grading coding answers: once an attempt is finished (submitted, or by the clock), each coding
// answer's program is run in the sandbox against its question's hidden tests, outside any
// transaction, and the share of their points passed is recorded (recordCodingGrade), which
// rescores the attempt. Until then the attempt's score is PENDING, as with a free-text answer
// awaiting review. The submit route grades its attempt at once; the coding-grades job picks up
// whatever is left (attempts completed by the deadline sweep, a node that stopped midway).
import type { Database, Queryable } from '../../db/database.js';
import { runCommand, systemRequest } from '../../domain/command.js';
import type { Job } from '../../jobs/runner.js';
import type { QuestionContent } from '../assessments/content-schema.js';
import { runCode, type CodeRunner, type CodeTest, type RunOptions, type RunResult } from '../coding/sandbox.js';
import { ANSWER_HASH, recordCodingGrade } from './completion.js';
import { versionContent } from '../assessments/repository.js';
import { isCodingAnswer, type CodingAnswer } from './scoring.js';

type CodingQuestion = Extract<QuestionContent, { type: 'coding' }>;

export const DEFAULT_TIME_LIMIT_MS = 2000;
export const DEFAULT_MEMORY_LIMIT_MB = 64;

/** The tests of a coding question as the sandbox takes them (points stay here). */
export function sandboxTests(tests: CodingQuestion['tests']): CodeTest[] {
  return tests.map(({ stdin, expectedStdout, args, expected }) => ({
    ...(stdin !== undefined ? { stdin } : {}),
    ...(expectedStdout !== undefined ? { expectedStdout } : {}),
    ...(args !== undefined ? { args, expected: expected ?? null } : {}),
  }));
}

/**
 * Runs a program against a question's tests (its hidden ones unless told otherwise), in the
 * pool's lane `options` names (grading unless told otherwise; a candidate's examples name their
 * attempt as the owner: CodeRunner). No-break spaces (U+00A0) run as spaces: Chromium's editable
 * content, under the portal's editor, puts them where the candidate typed or pasted spaces, and
 * Python refuses them as a syntax error.
 */
export function runAgainst(
  question: CodingQuestion,
  answer: CodingAnswer,
  tests: CodingQuestion['tests'] = question.tests,
  runner?: CodeRunner,
  options: RunOptions = {},
): Promise<RunResult> {
  const request = {
    language: answer.language as 'javascript' | 'python',
    source: answer.source.replace(/\u00a0/g, ' '),
    ...(question.entry !== undefined ? { entry: question.entry } : {}),
    tests: sandboxTests(tests),
    timeLimitMs: question.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS,
    memoryLimitMb: question.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB,
  };
  return runner ? runner.run(request, options) : runCode(request, options);
}

/** The grade of a run of the hidden tests: the share (0-100) of their points passed. */
export function gradeOf(question: CodingQuestion, result: RunResult): { grade: number; summary: string } {
  let earned = 0;
  let possible = 0;
  question.tests.forEach((test, index) => {
    const points = test.points ?? 1;
    possible += points;
    if (result.tests[index]?.passed) earned += points;
  });
  const passed = result.tests.filter((t) => t.passed).length;
  return {
    grade: possible === 0 ? 0 : (100 * earned) / possible,
    summary: `${passed} of ${question.tests.length} hidden tests passed (${result.status})`,
  };
}

interface Ungraded {
  attemptId: string;
  assessmentId: string;
  version: number;
  questionId: string;
  value: unknown;
}

/** Coding answers of finished, current, unwithdrawn attempts without a grade of their value. */
async function ungraded(db: Queryable, attemptId: string | undefined, limit: number): Promise<Ungraded[]> {
  const { rows } = await db.query<Ungraded>(
    `SELECT a.id AS "attemptId", a.assessment_id AS "assessmentId", a.version, an.question_id AS "questionId", an.value
       FROM answers an JOIN attempts a ON a.id = an.attempt_id
      WHERE a.finished_at IS NOT NULL AND a.superseded_at IS NULL AND a.end_reason IS DISTINCT FROM 'cancelled'
        AND jsonb_typeof(an.value) = 'object' AND an.value ? 'source'
        AND (an.review_score IS NULL OR an.review_value_hash IS DISTINCT FROM ${ANSWER_HASH.replace('value', 'an.value')})
        AND ($1::uuid IS NULL OR a.id = $1::uuid)
      ORDER BY a.finished_at LIMIT $2`,
    [attemptId ?? null, limit],
  );
  return rows;
}

/**
 * Grades the ungraded coding answers of one attempt, or of any finished attempts (at most
 * `limit`); returns how many grades it recorded. Safe to run twice at once: a grade is bound to
 * the value it graded, and a second, equal one changes nothing.
 */
export async function gradeCodingAnswers(db: Database, options: { attemptId?: string; limit?: number; runner?: CodeRunner; now: Date }): Promise<number> {
  let recorded = 0;
  for (const row of await ungraded(db, options.attemptId, options.limit ?? 20)) {
    const content = await versionContent(db, row.assessmentId, row.version);
    const question = content.questions.find((q) => q.id === row.questionId);
    if (question?.type !== 'coding' || !isCodingAnswer(row.value, question.languages)) continue;
    const result = await runAgainst(question, row.value, question.tests, options.runner);
    const { grade, summary } = gradeOf(question, result);
    const done = await runCommand(db, systemRequest('coding-grades', options.now), (ctx) =>
      recordCodingGrade(ctx, { attemptId: row.attemptId, questionId: row.questionId, value: row.value as CodingAnswer, grade: Math.round(grade * 100) / 100, summary }),
    );
    if (done) recorded++;
  }
  return recorded;
}

/** The job that grades coding answers left ungraded (by the deadline sweep, or a stopped node). */
export function codingGradesJob(db: Database, everyMs: number): Job {
  return {
    name: 'coding-grades',
    everyMs,
    run: (now) => gradeCodingAnswers(db, { limit: 10, now }),
  };
}
