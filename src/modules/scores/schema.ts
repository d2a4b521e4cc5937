// The published score record as a JSON schema (the OpenAPI document's, and the serializer's), and
// the one function that turns an invitation row into the record's JSON text: the answers of
// GET /v1/score, the stored read model and the tests all use it.
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { toScoreRecord, type InvitationRow } from './format.js';

const NonEmpty = (description: string, examples: string[]) => Type.String({ minLength: 1, description, examples });
const Percent = (description: string, examples: string[]) =>
  Type.String({
    minLength: 1,
    pattern: '^(100|[0-9]{1,2})(\\.[0-9]{1,2})?$',
    description: `${description}: a percentage as a decimal string with at most two decimals and no trailing zeros, e.g. "87.5", "100", "0"`,
    examples,
  });
const Timestamp = (description: string, examples: string[]) =>
  Type.String({
    minLength: 1,
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{7}\\+00:00$',
    description: `${description}, in UTC with 7 fractional digits (yyyy-MM-ddTHH:mm:ss.fffffff+00:00); 0001-01-01T00:00:00.0000000+00:00 until it has happened`,
    examples,
  });

export const CategoryScore = Type.Object(
  { name: NonEmpty('Category name', ['Written communication']), score: Percent('Score in this category', ['90']) },
  { $id: 'CategoryScore', additionalProperties: false },
);

/** The published score record, field for field: all required, no others. */
export const ScoreRecord = Type.Object(
  {
    candidateId: NonEmpty('Candidate identifier', ['9d7e6c95-b46b-46da-979a-dca23f37f114']),
    assessmentId: NonEmpty('Assessment identifier', ['customer-support']),
    assessmentName: NonEmpty('Assessment name', ['Customer Support Essentials']),
    assessmentStatus: Type.Union([Type.Literal('INVITED'), Type.Literal('IN_PROGRESS'), Type.Literal('COMPLETED')], {
      examples: ['COMPLETED'],
      description: 'INVITED until the candidate starts, IN_PROGRESS, then COMPLETED when submitted or when the time limit ran out',
    }),
    scoreStatus: Type.Union([Type.Literal('PENDING'), Type.Literal('LOW_PASS'), Type.Literal('PASS'), Type.Literal('FAIL')], {
      examples: ['PASS'],
      description:
        "PENDING until completed and fully scored (answers awaiting manual review keep it PENDING); then PASS at or above the assessment's pass score, LOW_PASS at or above its low-pass score, else FAIL",
    }),
    completion: Percent('Share of questions answered', ['100']),
    totalScore: Percent('Weighted total score, "0" while pending', ['86.25']),
    typingSpeed: Type.String({
      examples: ['0'],
      minLength: 1,
      pattern: '^[0-9]+(\\.[0-9]{1,2})?$',
      description: 'Net words per minute of the typing test, computed by the server; "0" when there is none or it was not taken',
    }),
    categoryScores: Type.Array(CategoryScore, {
      description: "One per category in the assessment's order once scored; empty before",
      examples: [
        [
          { name: 'Written communication', score: '90' },
          { name: 'Policy & product reasoning', score: '80' },
          { name: 'De-escalation & empathy', score: '87.5' },
        ],
      ],
    }),
    redFlag: Type.Boolean({ description: 'true when the proctoring rules (see docs/content.md, "Proctoring and the red flag") flagged the attempt', examples: [false] }),
    started: Timestamp('When the candidate started', ['2026-11-23T10:21:02.5310000+00:00']),
    finished: Timestamp('When the attempt ended', ['2026-11-23T10:39:48.0770000+00:00']),
  },
  { $id: 'ScoreRecord', additionalProperties: false },
);

const stringify = fastJson(ScoreRecord as object);

/** The score record of an invitation as JSON text, exactly as GET /v1/score writes it. */
export function recordJson(row: InvitationRow): string {
  return stringify(toScoreRecord(row));
}
