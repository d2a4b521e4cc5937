// The assessment content format: what an operator writes in YAML or JSON and imports.
// This schema validates imports; semantic rules that JSON Schema cannot express (references
// between categories and questions, exactly one correct option, ...) live in content.ts.
import { Type, type Static } from 'typebox';
import { Translations } from './translation-schema.js';

const Slug = (description: string) => Type.String({ pattern: '^[a-z][a-z0-9-]{0,63}$', description });

const Text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, description });

export const Category = Type.Object(
  {
    id: Slug('Identifier of the category within the assessment, referenced by questions'),
    name: Text(100, 'Name shown in categoryScores'),
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, default: 1, description: 'Relative weight in the total score (default 1)' })),
  },
  { additionalProperties: false },
);

const Option = Type.Object(
  {
    text: Text(500, 'Option text'),
    correct: Type.Optional(Type.Boolean({ description: 'Marks a correct option' })),
  },
  { additionalProperties: false },
);

const common = {
  id: Slug('Identifier of the question within the assessment'),
  category: Slug('Category id this question counts towards'),
  prompt: Text(4000, 'The question as shown to the candidate, in a Markdown subset (docs/question-types.md)'),
  points: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Weight within its category (default 1)' })),
  pilotSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3600,
      description:
        "Pilot time: the seconds a candidate is expected to need for the question (a pilot group's median, or the author's timed estimate until a pilot is run), for planning the duration; never shown to the candidate",
    }),
  ),
};

const choiceQuestion = <T extends 'single-choice' | 'multiple-choice'>(type: T, description: string) =>
  Type.Object(
    {
      ...common,
      type: Type.Literal(type, { description }),
      options: Type.Array(Option, { minItems: 2, maxItems: 12 }),
    },
    { additionalProperties: false },
  );

export const SingleChoiceQuestion = choiceQuestion('single-choice', 'Exactly one option is correct');
export const MultipleChoiceQuestion = choiceQuestion('multiple-choice', 'One or more options are correct; partial credit applies');

export const ShortAnswerQuestion = Type.Object(
  {
    ...common,
    type: Type.Literal('short-answer'),
    accept: Type.Array(Text(200, 'An accepted answer'), {
      minItems: 1,
      maxItems: 20,
      description: 'Accepted answers, compared after normalisation (case, spaces, thousands separators)',
    }),
  },
  { additionalProperties: false },
);

const RubricLevel = Type.Object(
  {
    label: Text(60, 'The level as reviewers choose it, unique within its criterion'),
    points: Type.Number({ minimum: 0, maximum: 100, description: 'Points the level earns' }),
    description: Type.Optional(Text(500, 'What an answer at this level looks like')),
  },
  { additionalProperties: false },
);

const RubricCriterion = Type.Object(
  {
    id: Slug('Identifier of the criterion within the question'),
    name: Text(100, 'The criterion as reviewers read it'),
    levels: Type.Array(RubricLevel, { minItems: 2, maxItems: 10, description: 'The levels a reviewer chooses from, lowest first' }),
  },
  { additionalProperties: false },
);

export const Rubric = Type.Object(
  {
    criteria: Type.Array(RubricCriterion, { minItems: 1, maxItems: 12, description: 'Each scored on its own; the answer earns the points chosen over the most points possible' }),
  },
  { additionalProperties: false, description: 'How reviewers score the answer, criterion by criterion (never shown to the candidate)' },
);

export type RubricContent = Static<typeof Rubric>;

export const FreeTextQuestion = Type.Object(
  {
    ...common,
    type: Type.Literal('free-text'),
    maxLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 20000, description: 'Longest answer accepted (default 4000)' })),
    guidance: Type.Optional(Text(4000, 'What a reviewer should look for (never shown to the candidate)')),
    rubric: Type.Optional(Rubric),
  },
  { additionalProperties: false },
);

/** The named Likert scales, their points from the lowest (scored 1) to the highest (scored k). */
export const LIKERT_SCALES = {
  'agreement-5': ['Strongly disagree', 'Disagree', 'Neither agree nor disagree', 'Agree', 'Strongly agree'],
  'agreement-7': ['Strongly disagree', 'Disagree', 'Somewhat disagree', 'Neither agree nor disagree', 'Somewhat agree', 'Agree', 'Strongly agree'],
  'frequency-5': ['Never', 'Rarely', 'Sometimes', 'Often', 'Always'],
} as const satisfies Record<string, readonly string[]>;

export const LikertQuestion = Type.Object(
  {
    ...common,
    type: Type.Literal('likert', { description: 'A statement rated on a 5- or 7-point scale; scored by its key (docs/question-types.md)' }),
    // Which names exist and how many labels a list has are checked in content.ts, for clearer messages.
    scale: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Array(Text(60, 'A point of the scale, lowest first'), { minItems: 1, maxItems: 12 })], {
      description: `A named scale (${Object.keys(LIKERT_SCALES).join(', ')}) or a list of 5 or 7 labels, lowest first`,
    }),
    reverse: Type.Optional(Type.Boolean({ description: 'Reverse-keyed: the lowest point scores highest (default false)' })),
  },
  { additionalProperties: false },
);

const RankingOption = Type.Object(
  {
    id: Slug('Identifier of the option within the question, used by key'),
    text: Text(500, 'Option text'),
  },
  { additionalProperties: false },
);

export const RankingQuestion = Type.Object(
  {
    ...common,
    type: Type.Literal('ranking', { description: 'Order 3 to 8 options; credit by agreement with the key (docs/question-types.md)' }),
    options: Type.Array(RankingOption, { minItems: 3, maxItems: 8, description: 'Shown in this order, which must not be the key' }),
    key: Type.Array(Slug('An option id'), { minItems: 1, maxItems: 8, description: 'Every option id once, best first' }),
  },
  { additionalProperties: false },
);

/** The languages a coding question may allow (the sandbox's runtimes: docs/coding-questions.md). */
export const CODING_LANGUAGES = ['javascript', 'python'] as const;
const CodingLanguage = Type.Union(
  CODING_LANGUAGES.map((language) => Type.Literal(language)),
  { description: `One of ${CODING_LANGUAGES.join(', ')}` },
);

/**
 * A test of a coding question: input/output (stdin, expectedStdout) for a program, or a call
 * (args, expected) of the question's entry function. content.ts checks which kind fits the question.
 */
const CodingTest = Type.Object(
  {
    stdin: Type.Optional(Type.String({ maxLength: 100000, description: 'Standard input of the program' })),
    expectedStdout: Type.Optional(Type.String({ maxLength: 100000, description: 'What the program must print (trailing spaces and blank lines ignored)' })),
    args: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 20, description: 'JSON arguments of the entry function' })),
    expected: Type.Optional(Type.Unknown({ description: 'The JSON the entry function must return' })),
    points: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: "Weight of a hidden test among the question's hidden tests (default 1)" })),
  },
  { additionalProperties: false },
);

export const CodingQuestion = Type.Object(
  {
    ...common,
    type: Type.Literal('coding', { description: 'A program, run in the sandbox against hidden tests; credit is the share of their points passed' }),
    languages: Type.Array(CodingLanguage, { minItems: 1, maxItems: 2, description: 'The languages the candidate may write in' }),
    starterCode: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 20000 }), { description: 'The code the editor starts with, by language' })),
    entry: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$', description: 'The function the tests call; without it each test runs the program with stdin' })),
    examples: Type.Optional(Type.Array(CodingTest, { maxItems: 10, description: 'Tests shown to the candidate, who may run them; never scored' })),
    tests: Type.Array(CodingTest, { minItems: 1, maxItems: 50, description: 'Hidden tests, run when the attempt is submitted' }),
    timeLimitMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 10000, description: 'Time limit of each test run (default 2000)' })),
    memoryLimitMb: Type.Optional(Type.Integer({ minimum: 16, maximum: 512, description: 'Memory the program may use in each run (default 64)' })),
    maxSourceLength: Type.Optional(Type.Integer({ minimum: 100, maximum: 50000, description: 'Longest program accepted, in characters (default 20000)' })),
  },
  { additionalProperties: false },
);

/** The labels of a Likert scale, lowest first; none for an unknown name (content.ts refuses those). */
export function scaleLabels(scale: string | readonly string[]): readonly string[] {
  if (typeof scale !== 'string') return scale;
  return Object.hasOwn(LIKERT_SCALES, scale) ? LIKERT_SCALES[scale as keyof typeof LIKERT_SCALES] : [];
}

export const QUESTION_TYPES = {
  'single-choice': SingleChoiceQuestion,
  'multiple-choice': MultipleChoiceQuestion,
  'short-answer': ShortAnswerQuestion,
  'free-text': FreeTextQuestion,
  likert: LikertQuestion,
  ranking: RankingQuestion,
  coding: CodingQuestion,
} as const;

export const Question = Type.Union([SingleChoiceQuestion, MultipleChoiceQuestion, ShortAnswerQuestion, FreeTextQuestion, LikertQuestion, RankingQuestion, CodingQuestion]);

export const TypingTest = Type.Object(
  {
    category: Slug('Category id the typing score counts towards'),
    passage: Type.String({ minLength: 50, maxLength: 3000, description: 'The passage the candidate types' }),
    targetWpm: Type.Number({ minimum: 5, maximum: 200, description: 'Net words per minute that earns the full typing score' }),
    points: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Weight within its category (default 1)' })),
    pilotSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'Pilot time of the typing test, in seconds, as for a question' })),
  },
  { additionalProperties: false },
);

/** A question pool: each attempt is given `draw` questions drawn at random from the category's questions. */
export const Pool = Type.Object(
  {
    category: Slug('Category whose questions form the pool'),
    draw: Type.Integer({ description: 'How many of its questions each attempt is given (1 to the number it has)' }),
  },
  { additionalProperties: false },
);

/**
 * The practice question: one question of any type, shown before the clock starts, answered with
 * feedback, never stored nor scored. It counts towards no category (content.ts checks it as a
 * question of its type, refusing `category` and `points`).
 */
export const PracticeQuestion = Type.Object(
  {
    type: Type.String({ description: `A question type: ${Object.keys(QUESTION_TYPES).join(', ')}` }),
    explanation: Type.Optional(Text(2000, 'Shown with the feedback after the candidate answers')),
  },
  { additionalProperties: true, description: 'A question of any type without category and points; id is optional' },
);

/** Webcam snapshots during the attempt (off unless given): a still image every `intervalSeconds`, after the candidate agrees. */
export const WEBCAM_DEFAULT_INTERVAL_SECONDS = 60;
export const WebcamSetting = Type.Object(
  {
    intervalSeconds: Type.Optional(
      Type.Integer({ minimum: 30, maximum: 600, description: `Seconds between two snapshots, 30 to 600 (default ${WEBCAM_DEFAULT_INTERVAL_SECONDS})` }),
    ),
  },
  { additionalProperties: false, description: 'Webcam snapshots: the candidate is asked first and may decline (docs/integrity.md)' },
);

export const ProctoringSetting = Type.Object(
  { webcam: Type.Optional(WebcamSetting) },
  { additionalProperties: false, description: 'Proctoring settings beyond the signals every attempt records' },
);

/** A score's distribution in a norm group: mean and standard deviation on the service's 0-100 scale. */
const NormStatistic = Type.Object(
  {
    mean: Type.Number({ minimum: 0, maximum: 100, description: 'The mean score (0-100) in the norm group' }),
    sd: Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'The standard deviation of the score in the norm group' }),
  },
  { additionalProperties: false },
);

export const PublishedNorms = Type.Object(
  {
    group: Text(300, 'The norm group, named next to every percentile read against it: the sample, its size, when'),
    source: Text(500, 'Where the figures were published (a citation, an address)'),
    total: Type.Optional(NormStatistic),
    categories: Type.Optional(Type.Record(Type.String(), NormStatistic, { description: 'By category id' })),
  },
  {
    additionalProperties: false,
    description:
      "Published norms: the mean and standard deviation of the total and of categories in a cited sample, converted to this scale. Percentiles are read from the normal distribution; without them, percentiles are against the instance's own candidates once there are enough.",
  },
);

export const AssessmentContent = Type.Object(
  {
    id: Slug('Assessment identifier used by clients (assessments[] in invites, assessmentIds in scores)'),
    name: Text(200, 'Assessment name'),
    description: Text(2000, 'What the assessment measures, shown to clients and candidates'),
    instructions: Type.Optional(Text(4000, 'Shown to the candidate before starting')),
    roles: Type.Optional(Type.Array(Text(100, 'A role the assessment suits'), { minItems: 1, maxItems: 20, description: 'The roles the assessment is written for' })),
    readingLevel: Type.Optional(Text(40, 'The reading level of the questions, such as "CEFR B1" or "grade 8"')),
    durationMinutes: Type.Integer({ minimum: 1, maximum: 480, description: 'Time limit, enforced by the server' }),
    passScore: Type.Number({ minimum: 0, maximum: 100, description: 'Total score (percent) at or above which the result is PASS' }),
    lowPassScore: Type.Number({ minimum: 0, maximum: 100, description: 'Total score (percent) at or above which the result is LOW_PASS' }),
    categories: Type.Array(Category, { minItems: 1, maxItems: 20 }),
    questions: Type.Array(Question, { minItems: 1, maxItems: 500 }),
    typingTest: Type.Optional(TypingTest),
    shuffleQuestions: Type.Optional(Type.Boolean({ description: 'Each attempt shows the questions in its own order (fixed for the attempt)' })),
    shuffleOptions: Type.Optional(
      Type.Boolean({ description: 'Each attempt shows the options of single- and multiple-choice questions in its own order (never Likert scales, nor rankings)' }),
    ),
    pools: Type.Optional(Type.Array(Pool, { minItems: 1, maxItems: 20, description: 'Categories whose questions are drawn per attempt' })),
    practice: Type.Optional(PracticeQuestion),
    proctoring: Type.Optional(ProctoringSetting),
    norms: Type.Optional(PublishedNorms),
    translations: Type.Optional(Translations),
  },
  { additionalProperties: false },
);

export type AssessmentContent = Static<typeof AssessmentContent>;
export type QuestionContent = Static<typeof Question>;
/** The practice question once validated: a question of its type, with an explanation perhaps. */
export type PracticeContent = QuestionContent & { explanation?: string };
/** The practice question of validated content, typed as the question it was checked to be. */
export const practiceOf = (content: AssessmentContent): PracticeContent | undefined => content.practice as PracticeContent | undefined;

/** How many questions an attempt is given: a pooled category gives its draw (the typing test not counted). */
export function questionCount(content: AssessmentContent): number {
  const pooled = new Map((content.pools ?? []).map((p) => [p.category, p.draw]));
  return content.categories.reduce((total, c) => total + (pooled.get(c.id) ?? content.questions.filter((q) => q.category === c.id).length), 0);
}

/** The webcam setting of validated content: its interval in seconds, or undefined when snapshots are off. */
export function webcamOf(content: AssessmentContent): { intervalSeconds: number } | undefined {
  const webcam = content.proctoring?.webcam;
  return webcam && { intervalSeconds: webcam.intervalSeconds ?? WEBCAM_DEFAULT_INTERVAL_SECONDS };
}
