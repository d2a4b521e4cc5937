// The questions of voluntary self-identification: the default set (the US EEO categories: sex,
// race/ethnicity as EEO-1 has it, and the age band of the Age Discrimination in Employment Act,
// 40 or older), an instance's own set checked, and both as a candidate sees them in their
// language, with "prefer not to say" added to every question.
import { invalidInput, type DomainFieldError } from '../../domain/errors.js';
import { t, type Lang, type MessageKey } from '../../i18n/i18n.js';

export interface SelfIdOption {
  id: string;
  label: string;
}

export interface SelfIdQuestion {
  id: string;
  label: string;
  options: SelfIdOption[];
}

/** The choice offered on every question, never part of a question's own options. */
export const PREFER_NOT = 'prefer-not-to-say';
export const QUESTIONS_MAX = 10;
export const OPTIONS_MIN = 2;
export const OPTIONS_MAX = 20;
export const LABEL_MAX = 200;
/** An id as stored and posted: lower case letters, digits and -, starting with a letter or digit. */
const ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
// Control characters and bidirectional overrides (a label that reads otherwise than it is stored).
// eslint-disable-next-line no-control-regex -- these are the characters refused
const REFUSED_IN_LABEL = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

const DEFAULT_IDS: [string, string[]][] = [
  ['sex', ['female', 'male', 'another']],
  ['race-ethnicity', ['hispanic-latino', 'white', 'black', 'pacific-islander', 'asian', 'native-american', 'two-or-more']],
  ['age-band', ['40-plus', 'under-40']],
];

/** The default questions in a language of the portal (English for the console and the API). */
export function defaultQuestions(lang: Lang = 'en'): SelfIdQuestion[] {
  return DEFAULT_IDS.map(([id, options]) => ({
    id,
    label: t(lang, `selfId.q.${id}` as MessageKey),
    options: options.map((option) => ({ id: option, label: t(lang, `selfId.o.${id}.${option}` as MessageKey) })),
  }));
}

/**
 * The questions as a candidate sees them: the default set in their language, or the instance's
 * own (in the words the instance gave), each with "prefer not to say" last.
 */
export function shownQuestions(own: SelfIdQuestion[] | null, lang: Lang): SelfIdQuestion[] {
  return (own ?? defaultQuestions(lang)).map((q) => ({ ...q, options: [...q.options, { id: PREFER_NOT, label: t(lang, 'selfId.preferNot') }] }));
}

function checkLabel(value: unknown, name: string, errors: DomainFieldError[]): string {
  if (typeof value !== 'string' || value.trim() === '') {
    errors.push({ in: 'body', name, detail: 'must be text of 1-200 characters' });
    return '';
  }
  const label = value.trim();
  if (label.length > LABEL_MAX) errors.push({ in: 'body', name, detail: `is ${label.length} characters; at most ${LABEL_MAX}` });
  if (REFUSED_IN_LABEL.test(label)) errors.push({ in: 'body', name, detail: 'must be one line without control or bidirectional override characters' });
  return label;
}

function checkId(value: unknown, name: string, errors: DomainFieldError[]): string {
  if (typeof value !== 'string' || !ID.test(value)) {
    errors.push({ in: 'body', name, detail: 'must be 1-40 characters of a-z, 0-9 and -, starting with a letter or digit' });
    return '';
  }
  return value;
}

/**
 * An instance's own questions, checked: 1-10 questions, each with an id, a label and 2-20
 * options of their own (ids unique; "prefer not to say" is added by the service, so it may not be
 * one of them). Returns them trimmed, or throws an invalid error naming every field refused.
 */
export function checkQuestions(input: unknown): SelfIdQuestion[] {
  const errors: DomainFieldError[] = [];
  if (!Array.isArray(input) || input.length === 0 || input.length > QUESTIONS_MAX)
    throw invalidInput([{ in: 'body', name: 'questions', detail: `must list 1-${QUESTIONS_MAX} questions` }]);
  const questions: SelfIdQuestion[] = [];
  const questionIds = new Set<string>();
  input.forEach((raw: unknown, i) => {
    const at = `questions[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      errors.push({ in: 'body', name: at, detail: 'must be a question: id, label and options' });
      return;
    }
    const q = raw as Record<string, unknown>;
    const extra = Object.keys(q).filter((k) => !['id', 'label', 'options'].includes(k));
    if (extra.length > 0) errors.push({ in: 'body', name: at, detail: `has fields no question has: ${extra.slice(0, 5).join(', ')}` });
    const id = checkId(q.id, `${at}.id`, errors);
    if (id !== '' && questionIds.has(id)) errors.push({ in: 'body', name: `${at}.id`, detail: `"${id}" is the id of another question` });
    questionIds.add(id);
    const label = checkLabel(q.label, `${at}.label`, errors);
    const options: SelfIdOption[] = [];
    if (!Array.isArray(q.options) || q.options.length < OPTIONS_MIN || q.options.length > OPTIONS_MAX) {
      errors.push({
        in: 'body',
        name: `${at}.options`,
        detail: `must list ${OPTIONS_MIN}-${OPTIONS_MAX} options ("prefer not to say" is added to every question and is not counted)`,
      });
    } else {
      const optionIds = new Set<string>();
      q.options.forEach((rawOption: unknown, j) => {
        const oat = `${at}.options[${j}]`;
        if (typeof rawOption !== 'object' || rawOption === null || Array.isArray(rawOption)) {
          errors.push({ in: 'body', name: oat, detail: 'must be an option: id and label' });
          return;
        }
        const o = rawOption as Record<string, unknown>;
        const oextra = Object.keys(o).filter((k) => !['id', 'label'].includes(k));
        if (oextra.length > 0) errors.push({ in: 'body', name: oat, detail: `has fields no option has: ${oextra.slice(0, 5).join(', ')}` });
        const optionId = checkId(o.id, `${oat}.id`, errors);
        if (optionId === PREFER_NOT) errors.push({ in: 'body', name: `${oat}.id`, detail: `"${PREFER_NOT}" is added to every question by the service: leave it out` });
        else if (optionId !== '' && optionIds.has(optionId)) errors.push({ in: 'body', name: `${oat}.id`, detail: `"${optionId}" is the id of another option of this question` });
        optionIds.add(optionId);
        options.push({ id: optionId, label: checkLabel(o.label, `${oat}.label`, errors) });
      });
    }
    questions.push({ id, label, options });
  });
  if (errors.length > 0) throw invalidInput(errors.slice(0, 20));
  return questions;
}
