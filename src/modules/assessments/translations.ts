// Content in the candidate's language: the optional `translations` block of an assessment, by
// language, holding the candidate-facing texts only (name, description, instructions, category
// names, prompts, option texts, Likert labels given as a list (per question, or once per language
// by label in scaleLabels), the practice question and its explanation, and the typing test's
// passage, written for the language and typed by its candidates). Ids, keys, correct flags, accepted answers and every number stay in the content
// itself, so scoring is the same in every language. The content's own text is English, the
// portal's default language; a field a translation leaves out shows in English.
import { DEFAULT_LANGUAGE, type Lang } from '../../i18n/i18n.js';
import type { AssessmentContent, PracticeContent, QuestionContent } from './content-schema.js';
import { TRANSLATION_LANGUAGES, type LanguageTranslation, type QuestionTranslation } from './translation-schema.js';

export { TRANSLATION_LANGUAGES };

/** The translations of validated content, by language. */
export const translationsOf = (content: AssessmentContent): Partial<Record<Lang, LanguageTranslation>> =>
  ((content as { translations?: Partial<Record<Lang, LanguageTranslation>> }).translations ?? {}) as Partial<Record<Lang, LanguageTranslation>>;

/** The languages the content can be shown in: English (its own text), then those it has a translation for. */
export function contentLanguages(content: AssessmentContent): Lang[] {
  const translated = translationsOf(content);
  return [DEFAULT_LANGUAGE, ...TRANSLATION_LANGUAGES.filter((lang) => translated[lang] !== undefined)];
}

/** The language the content is shown in for a candidate speaking `lang`: theirs if it has it, else English. */
export const shownLanguage = (content: AssessmentContent, lang: Lang): Lang => (contentLanguages(content).includes(lang) ? lang : DEFAULT_LANGUAGE);

/**
 * The letters a typing passage in each language may have beyond printable ASCII: those of its
 * alphabet, which its keyboards type (content.ts holds the English passage to ASCII).
 */
export const TYPING_LETTERS: Record<Lang, string> = { en: '', de: 'ÄÖÜäöüß', es: 'ÁÉÍÓÚÜÑáéíóúüñ¿¡' };

interface Problem {
  segments: (string | number)[];
  message: string;
}

/** Which fields of a question take a translation, with how many items each list has. */
function translatable(question: QuestionContent | PracticeContent, practice: boolean): { prompt: true; options?: number; scale?: number; explanation?: true } {
  const fields: { prompt: true; options?: number; scale?: number; explanation?: true } = { prompt: true };
  if (question.type === 'single-choice' || question.type === 'multiple-choice' || question.type === 'ranking') fields.options = question.options.length;
  if (question.type === 'likert' && typeof question.scale !== 'string') fields.scale = question.scale.length;
  if (practice && (question as PracticeContent).explanation !== undefined) fields.explanation = true;
  return fields;
}

function questionProblems(question: QuestionContent | PracticeContent, translation: QuestionTranslation, at: (string | number)[], practice: boolean): Problem[] {
  const problems: Problem[] = [];
  const fields = translatable(question, practice);
  const lists = [
    ['options', fields.options, 'option'],
    ['scale', fields.scale, 'label'],
  ] as const;
  for (const [field, count, noun] of lists) {
    const given = translation[field];
    if (given === undefined) continue;
    if (count === undefined) {
      problems.push({
        segments: [...at, field],
        message:
          field === 'scale' && question.type === 'likert'
            ? `the question uses the named scale "${String(question.scale)}", which the portal shows in the candidate's language already: remove it`
            : `the question (${question.type}) has no ${field} to translate: remove it`,
      });
    } else if (given.length !== count) {
      problems.push({ segments: [...at, field], message: `must have as many ${noun}s as the original, ${count}, in the same order; has ${given.length}` });
    } else {
      const seen = new Set<string>();
      given.forEach((text, index) => {
        if (seen.has(text)) problems.push({ segments: [...at, field, index], message: `repeats another ${noun}` });
        seen.add(text);
      });
    }
  }
  if (translation.explanation !== undefined && !fields.explanation) {
    problems.push({
      segments: [...at, 'explanation'],
      message: practice ? 'the practice question has no explanation to translate: remove it' : 'only the practice question has an explanation: remove it',
    });
  }
  return problems;
}

/**
 * What the schema cannot say of the translations: every category and question id translated exists,
 * lists have as many items as the original, a practice translation has a practice question.
 */
export function translationProblems(content: AssessmentContent): Problem[] {
  const problems: Problem[] = [];
  const categoryIds = new Set(content.categories.map((c) => c.id));
  const questions = new Map(content.questions.map((q) => [q.id, q]));
  for (const [lang, translation] of Object.entries(translationsOf(content)) as [Lang, LanguageTranslation][]) {
    const at = ['translations', lang];
    for (const id of Object.keys(translation.categories ?? {})) {
      if (!categoryIds.has(id)) problems.push({ segments: [...at, 'categories', id], message: `"${id}" is not a category of this assessment` });
    }
    const names = new Set<string>();
    for (const [id, name] of Object.entries(translation.categories ?? {})) {
      if (names.has(name)) problems.push({ segments: [...at, 'categories', id], message: `"${name}" names another category too` });
      names.add(name);
    }
    const listLabels = new Set(content.questions.flatMap((q) => (q.type === 'likert' && typeof q.scale !== 'string' ? q.scale : [])));
    for (const label of Object.keys(translation.scaleLabels ?? {})) {
      if (!listLabels.has(label))
        problems.push({ segments: [...at, 'scaleLabels', label], message: `"${label}" is not a label of a scale of this assessment (named scales are translated already)` });
    }
    for (const [id, translated] of Object.entries(translation.questions ?? {})) {
      const question = questions.get(id);
      if (!question) problems.push({ segments: [...at, 'questions', id], message: `"${id}" is not a question of this assessment` });
      else problems.push(...questionProblems(question, translated, [...at, 'questions', id], false));
    }
    if (translation.typingTest !== undefined) {
      if (!content.typingTest) problems.push({ segments: [...at, 'typingTest'], message: 'the assessment has no typing test to translate: remove it' });
      const allowed = TYPING_LETTERS[lang] ?? '';
      const other = [...translation.typingTest.passage].find((c) => !/[\x20-\x7e\n]/.test(c) && !allowed.includes(c));
      if (other !== undefined)
        problems.push({
          segments: [...at, 'typingTest', 'passage'],
          message: `must be plain printable ASCII${allowed ? ` and the letters ${allowed}` : ''}, so that every ${lang} keyboard can type it; has "${other}"`,
        });
    }
    if (translation.practice !== undefined) {
      const practice = content.practice as PracticeContent | undefined;
      if (!practice) problems.push({ segments: [...at, 'practice'], message: 'the assessment has no practice question to translate: remove it' });
      else problems.push(...questionProblems(practice, translation.practice, [...at, 'practice'], true));
    }
  }
  return problems;
}

/** A field a translation leaves out (shown in English then): where it would go, and what it translates. */
export interface MissingTranslation {
  lang: Lang;
  /** Where the translation would be written, such as `translations.de.questions.q1.options`. */
  segments: (string | number)[];
  /** The field of the content it translates, such as `questions.0.options`. */
  original: string;
}

/** Every candidate-facing field each translation leaves out, language by language. */
export function missingTranslations(content: AssessmentContent): MissingTranslation[] {
  const missing: MissingTranslation[] = [];
  for (const [lang, translation] of Object.entries(translationsOf(content)) as [Lang, LanguageTranslation][]) {
    const at = ['translations', lang];
    const miss = (segments: (string | number)[], original: string) => missing.push({ lang, segments: [...at, ...segments], original });
    if (translation.name === undefined) miss(['name'], 'name');
    if (translation.description === undefined) miss(['description'], 'description');
    if (content.instructions !== undefined && translation.instructions === undefined) miss(['instructions'], 'instructions');
    content.categories.forEach((category, index) => {
      if (translation.categories?.[category.id] === undefined) miss(['categories', category.id], `categories.${index}.name`);
    });
    const labelled = (q: QuestionContent | PracticeContent) =>
      q.type === 'likert' && typeof q.scale !== 'string' && q.scale.every((label) => translation.scaleLabels?.[label] !== undefined);
    const question = (q: QuestionContent | PracticeContent, given: QuestionTranslation | undefined, where: (string | number)[], original: string, practice: boolean) => {
      for (const field of Object.keys(translatable(q, practice)) as (keyof QuestionTranslation)[]) {
        if (given?.[field] === undefined && !(field === 'scale' && labelled(q))) miss([...where, field], `${original}.${field}`);
      }
    };
    content.questions.forEach((q, index) => question(q, translation.questions?.[q.id], ['questions', q.id], `questions.${index}`, false));
    const practice = content.practice as PracticeContent | undefined;
    if (practice) question(practice, translation.practice, ['practice'], 'practice', true);
    if (content.typingTest && translation.typingTest === undefined) miss(['typingTest', 'passage'], 'typingTest.passage');
  }
  return missing;
}

function localizedQuestion<Q extends QuestionContent | PracticeContent>(question: Q, translation: QuestionTranslation | undefined, labels: Record<string, string> = {}): Q {
  const out = { ...question } as Q & Record<string, unknown>;
  if (question.type === 'likert' && typeof question.scale !== 'string') out.scale = question.scale.map((label) => labels[label] ?? label);
  if (!translation) return out;
  if (translation.prompt !== undefined) out.prompt = translation.prompt;
  const options = translation.options;
  if (options && 'options' in question) out.options = question.options.map((option, i) => ({ ...option, text: options[i] ?? option.text }));
  if (translation.scale && question.type === 'likert' && typeof question.scale !== 'string') out.scale = translation.scale;
  if (translation.explanation !== undefined && (question as PracticeContent).explanation !== undefined) out.explanation = translation.explanation;
  return out;
}

/**
 * The content with its candidate-facing texts in `lang` where the translation gives them (English
 * where it does not, or for English). Only texts change: ids, order, keys, correct flags and
 * accepted answers are the content's own, so an answer means and scores the same in any language.
 */
export function localize(content: AssessmentContent, lang: Lang): AssessmentContent {
  const translation = translationsOf(content)[lang];
  if (!translation) return content;
  const practice = content.practice as PracticeContent | undefined;
  return {
    ...content,
    name: translation.name ?? content.name,
    description: translation.description ?? content.description,
    ...(content.instructions !== undefined ? { instructions: translation.instructions ?? content.instructions } : {}),
    categories: content.categories.map((c) => ({ ...c, name: translation.categories?.[c.id] ?? c.name })),
    questions: content.questions.map((q) => localizedQuestion(q, translation.questions?.[q.id], translation.scaleLabels)),
    ...(practice ? { practice: localizedQuestion(practice, translation.practice, translation.scaleLabels) as unknown as AssessmentContent['practice'] } : {}),
    ...(content.typingTest ? { typingTest: { ...content.typingTest, passage: translation.typingTest?.passage ?? content.typingTest.passage } } : {}),
  };
}
