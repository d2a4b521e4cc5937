// How a question is shown to a candidate: its prompt (Markdown) and its answer field, for every
// question type, in the candidate's language. The portal's question pages draw it, and the
// console's preview draws the same markup, so a recruiter previews exactly what candidates see.
import { html, type SafeHtml } from '../html/html.js';
import { markdown, optionText } from '../html/markdown.js';
import { t, type Lang, type MessageKey } from '../i18n/i18n.js';
import { scaleLabels, type QuestionContent } from '../modules/assessments/content-schema.js';
import { isPermutation, type AnswerValue } from '../modules/attempts/scoring.js';

const checked = (on: boolean) => on && html` checked`;

/** What the legend of a Likert item says: the two ends of its scale. */
function likertHint(lang: Lang, labels: readonly string[]): string {
  return t(lang, 'question.likert', { first: labels[0] ?? '', last: labels[labels.length - 1] ?? '' });
}

/** The named scales' labels in the candidate's language (a scale given as a list is the author's own text). */
const SCALE_KEYS: Record<string, MessageKey[]> = {
  'agreement-5': ['likert.stronglyDisagree', 'likert.disagree', 'likert.neither', 'likert.agree', 'likert.stronglyAgree'],
  'agreement-7': ['likert.stronglyDisagree', 'likert.disagree', 'likert.somewhatDisagree', 'likert.neither', 'likert.somewhatAgree', 'likert.agree', 'likert.stronglyAgree'],
  'frequency-5': ['likert.never', 'likert.rarely', 'likert.sometimes', 'likert.often', 'likert.always'],
};

export function scaleLabelsIn(lang: Lang, scale: string | readonly string[]): readonly string[] {
  const keys = typeof scale === 'string' && Object.hasOwn(SCALE_KEYS, scale) ? SCALE_KEYS[scale]! : undefined;
  return keys ? keys.map((key) => t(lang, key)) : scaleLabels(scale);
}

/**
 * The answer field of a question as the candidate sees it; the console's preview shows several on
 * one page, so their element ids take a prefix there, and its ranking buttons submit nothing.
 * The prompt is Markdown (src/html/markdown.ts): block markup that a legend or label may not
 * hold, so it stands before the field, which takes it as its name with aria-labelledby.
 */
/** Options with their indexes, in the order given (an attempt's shuffled order), else as written. */
function shown<T>(options: readonly T[], order: readonly number[] | undefined): [T, number][] {
  return (order ?? options.map((_, i) => i)).map((i) => [options[i]!, i]);
}

/**
 * `lang`: the page's language (hints, buttons); `contentLang`: the language of the question's own
 * text (its translation, or English), which named Likert scales follow and which is marked on the
 * text when it differs from the page's.
 */
export function questionField(
  question: QuestionContent,
  answer: AnswerValue | undefined,
  idPrefix = '',
  preview = false,
  order?: readonly number[],
  lang: Lang = 'en',
  contentLang: Lang = lang,
): SafeHtml {
  const id = (name: string) => `${idPrefix}${name}`;
  // The content's language on its text, for screen readers and hyphenation, where the page's differs.
  const textLang = contentLang !== lang && html` lang="${contentLang}"`;
  const prompt = html`<div class="prompt" id="${id('prompt')}"${textLang}>${markdown(question.prompt)}</div>
`;
  const group = (hint: string, body: SafeHtml[]) =>
    html`${prompt}<fieldset class="${question.type}" aria-labelledby="${id('prompt')} ${id('how')}"><legend id="${id('how')}" class="hint">${hint}</legend>
${body}</fieldset>`;
  switch (question.type) {
    // Options show in this attempt's order; each keeps its own index as its value, so an answer
    // means the same option whatever order it was shown in.
    case 'single-choice':
      return group(
        t(lang, 'question.single'),
        shown(question.options, order).map(
          ([
            o,
            i,
          ]) => html`<div class="option"><input type="radio" id="${id(`o${i}`)}" name="value" value="${i}"${checked(answer === i)}><label for="${id(`o${i}`)}"${textLang}>${optionText(o.text)}</label></div>
`,
        ),
      );
    case 'multiple-choice': {
      const chosen = new Set(Array.isArray(answer) ? answer : []);
      return group(
        t(lang, 'question.multiple'),
        shown(question.options, order).map(
          ([
            o,
            i,
          ]) => html`<div class="option"><input type="checkbox" id="${id(`o${i}`)}" name="value" value="${i}"${checked(chosen.has(i))}><label for="${id(`o${i}`)}"${textLang}>${optionText(o.text)}</label></div>
`,
        ),
      );
    }
    case 'likert': {
      // A native radio group: Tab enters it, the arrow keys move between the points.
      const labels = scaleLabelsIn(contentLang, question.scale);
      return group(likertHint(lang, labels), [
        html`<div class="scale" data-points="${labels.length}">
${labels.map(
  (
    label,
    i,
  ) => html`<div class="point"><input type="radio" id="${id(`o${i}`)}" name="value" value="${i}"${checked(answer === i)}><label for="${id(`o${i}`)}"${textLang}>${label}</label></div>
`,
)}</div>
`,
      ]);
    }
    case 'ranking': {
      // Without drag and drop: each option has Move up and Move down buttons. Without JavaScript
      // they submit the form, and the server moves the option and shows the question again;
      // portal.js moves it in place, says where it went, and saves the order.
      const n = question.options.length;
      const order = isPermutation(answer, n) ? answer : question.options.map((_, i) => i);
      const kind = preview ? 'button' : 'submit';
      return html`${prompt}<div class="ranking" role="group" aria-labelledby="${id('prompt')} ${id('how')}">
<p class="hint" id="${id('how')}">${t(lang, 'question.ranking')}</p>
<ol class="ranking-list" data-count="${n}">
${order.map((option, place) => {
  const text = question.options[option]!.text;
  return html`<li class="rank-item" data-option="${option}"><span class="rank-text"${textLang}>${text}</span><input type="hidden" name="value" value="${option}">
<span class="rank-moves"><button type="${kind}" class="rank-move" name="move" value="${option}:up" data-direction="up"${place === 0 && html` aria-disabled="true"`}>${t(lang, 'question.moveUp')}<span class="visually-hidden"> ${text}</span></button>
<button type="${kind}" class="rank-move" name="move" value="${option}:down" data-direction="down"${place === n - 1 && html` aria-disabled="true"`}>${t(lang, 'question.moveDown')}<span class="visually-hidden"> ${text}</span></button></span></li>
`;
})}</ol>
<p class="ranking-status" id="${id('ranking-status')}" role="status" aria-live="polite"></p>
</div>`;
    }
    case 'short-answer':
      return html`${prompt}<input type="text" id="${id('answer')}" name="value" maxlength="200" autocomplete="off" aria-labelledby="${id('prompt')}" value="${typeof answer === 'string' ? answer : ''}">`;
    case 'free-text':
      return html`${prompt}<textarea id="${id('answer')}" name="value" rows="8" maxlength="${question.maxLength ?? 4000}" aria-labelledby="${id('prompt')}">${typeof answer === 'string' ? answer : ''}</textarea>`;
    case 'coding': {
      // The program as plain text: a select of the languages and a monospace textarea, which a
      // form post saves like any answer.
      const saved = typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? answer : undefined;
      const language = saved?.language ?? question.languages[0]!;
      const source = saved?.source ?? question.starterCode?.[language] ?? '';
      return html`${prompt}<p class="hint" id="${id('how')}">${t(lang, 'question.coding')}</p>
<div class="coding" data-languages="${question.languages.join(' ')}">
<label for="${id('language')}">${t(lang, 'question.codingLanguage')}</label>
<select id="${id('language')}" name="language">${question.languages.map((l) => html`<option value="${l}"${l === language ? html` selected` : ''}>${l === 'javascript' ? 'JavaScript' : 'Python'}</option>`)}</select>
<label for="${id('answer')}">${t(lang, 'question.codingSource')}</label>
<textarea id="${id('answer')}" name="value" class="code" rows="16" spellcheck="false" autocapitalize="off" autocomplete="off" maxlength="${question.maxSourceLength ?? 20000}" aria-describedby="${id('how')}">${source}</textarea>
${codingExamples(question, lang, id)}</div>${
        preview
          ? html``
          : html`
<script src="/portal/assets/editor.js" defer></script>`
      }`;
    }
  }
}

/**
 * A coding question's visible examples, and (shown by portal.js, which runs them) the Run
 * examples button with the place its results are read out.
 */
function codingExamples(question: Extract<QuestionContent, { type: 'coding' }>, lang: Lang, id: (name: string) => string): SafeHtml {
  const examples = question.examples ?? [];
  if (examples.length === 0) return html``;
  const shownExample = (example: (typeof examples)[number]) =>
    question.entry !== undefined
      ? `${question.entry}(${(example.args ?? []).map((a) => JSON.stringify(a)).join(', ')}) → ${JSON.stringify(example.expected ?? null)}`
      : `${example.stdin ?? ''}\n→\n${example.expectedStdout ?? ''}`;
  return html`<h2 class="examples-title">${t(lang, 'question.codingExamples')}</h2>
<ol class="examples">${examples.map((example) => html`<li><pre><code>${shownExample(example)}</code></pre></li>`)}</ol>
<button type="button" class="run-examples" id="${id('run-examples')}" hidden data-passed="${t(lang, 'question.codingPassed')}" data-failed="${t(lang, 'question.codingFailed')}">${t(lang, 'question.codingRun')}</button>
<pre class="run-output" id="${id('run-output')}" role="status" aria-live="polite"></pre>
`;
}
