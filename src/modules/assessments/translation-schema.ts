// The schema of the `translations` block of assessment content (translations.ts checks it against
// the content and applies it): by language, the candidate-facing texts only.
import { Type, type Static } from 'typebox';
import { DEFAULT_LANGUAGE, LANGUAGES, type Lang } from '../../i18n/i18n.js';

/** The languages content may be translated into: those the portal speaks, but its own (English). */
export const TRANSLATION_LANGUAGES = (Object.keys(LANGUAGES) as Lang[]).filter((lang) => lang !== DEFAULT_LANGUAGE);

const Text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, description });

const QuestionTranslation = Type.Object(
  {
    prompt: Type.Optional(Text(4000, 'The prompt in this language (Markdown, as the original)')),
    options: Type.Optional(Type.Array(Text(500, 'An option text'), { minItems: 1, maxItems: 12, description: 'The option texts, in the order of the original options (as many)' })),
    scale: Type.Optional(
      Type.Array(Text(60, 'A point of the scale, lowest first'), { minItems: 1, maxItems: 12, description: "A Likert list scale's labels, as many as the original's" }),
    ),
    explanation: Type.Optional(Text(2000, "The practice question's explanation")),
  },
  { additionalProperties: false },
);

export const LanguageTranslation = Type.Object(
  {
    name: Type.Optional(Text(200, 'Assessment name')),
    description: Type.Optional(Text(2000, 'What the assessment measures')),
    instructions: Type.Optional(Text(4000, 'Shown to the candidate before starting')),
    categories: Type.Optional(Type.Record(Type.String(), Text(100, 'A category name'), { description: 'Category names by category id' })),
    scaleLabels: Type.Optional(
      Type.Record(Type.String(), Text(60, 'The label in this language'), {
        description:
          "Labels of Likert scales given as lists, by their text in the content: used by every question whose scale has them, unless the question's translation gives its own scale",
      }),
    ),
    questions: Type.Optional(Type.Record(Type.String(), QuestionTranslation, { description: 'Question texts by question id' })),
    practice: Type.Optional(QuestionTranslation),
    typingTest: Type.Optional(
      Type.Object(
        {
          passage: Text(5000, "The typing test's passage written in this language (plain ASCII and the language's own letters), typed by candidates who take it in this language"),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const Translations = Type.Object(Object.fromEntries(TRANSLATION_LANGUAGES.map((lang) => [lang, Type.Optional(LanguageTranslation)])), {
  additionalProperties: false,
  description: `The candidate-facing texts in other languages (${TRANSLATION_LANGUAGES.join(', ')}); docs/content.md#translations`,
});

export type LanguageTranslation = Static<typeof LanguageTranslation>;
export type QuestionTranslation = Static<typeof QuestionTranslation>;
