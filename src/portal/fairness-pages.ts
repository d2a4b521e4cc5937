// The portal's practice question (before the clock starts) and the feedback after submitting, in
// the candidate's language (keys practice.* and feedback.* of the catalogues).
import { markdown } from '../html/markdown.js';
import { html, type SafeHtml } from '../html/html.js';
import { formatNumber, t, type Lang } from '../i18n/i18n.js';
import { webcamOf, type AssessmentContent, type PracticeContent } from '../modules/assessments/content-schema.js';
import { FEEDBACK_COMMENT_MAX } from '../modules/attempts/feedback.js';
import { questionCredit, type AnswerValue } from '../modules/attempts/scoring.js';
import { languageNote, layout, type Page } from './pages.js';
import { questionField } from '../views/questions.js';
import { startForm } from './webcam-pages.js';

/** A list of answers as the language writes one ("a", "b" and "c"), each in quotes. */
const quotedList = (lang: Lang, items: string[]) => new Intl.ListFormat(lang, { type: 'conjunction' }).format(items.map((i) => t(lang, 'practice.quoted', { text: i })));

/** The intro page's invitation to the practice question. */
export function practiceInvite(lang: Lang, slug: string): SafeHtml {
  return html`<section class="practice-invite" aria-labelledby="practice-heading">
<h2 id="practice-heading">${t(lang, 'practice.heading')}</h2>
<p>${t(lang, 'practice.intro')}</p>
<p><a class="button" href="/portal/a/${slug}/practice">${t(lang, 'practice.link')}</a></p>
</section>`;
}

/** What the candidate is told of their practice answer; `correct` null when no answer is right or wrong. */
export function practiceFeedback(lang: Lang, question: PracticeContent, answer: AnswerValue): { correct: boolean | null; message: string } {
  const correctly = t(lang, 'practice.correct');
  const expected = (answers: string[]) =>
    answers.length === 1 ? t(lang, 'practice.expectedOne', { answer: answers[0]! }) : t(lang, 'practice.expectedMany', { answers: quotedList(lang, answers) });
  switch (question.type) {
    case 'likert':
      return { correct: null, message: t(lang, 'practice.likert') };
    case 'free-text':
    case 'coding':
      return { correct: null, message: t(lang, 'practice.freeText') };
    case 'ranking': {
      const correct = questionCredit(question, answer, undefined) === 1;
      const key = question.key.map((id) => question.options.find((o) => o.id === id)?.text ?? id);
      return { correct, message: correct ? correctly : t(lang, 'practice.expectedOrder', { order: key.map((o, i) => `${formatNumber(lang, i + 1)}. ${o}`).join('; ') }) };
    }
    case 'short-answer': {
      const correct = questionCredit(question, answer, undefined) === 1;
      return { correct, message: correct ? correctly : expected([question.accept[0]!]) };
    }
    default: {
      const correct = questionCredit(question, answer, undefined) === 1;
      return { correct, message: correct ? correctly : expected(question.options.filter((o) => o.correct).map((o) => o.text)) };
    }
  }
}

/** The practice question, with the feedback on the answer once checked; then Start. */
export function practicePage(
  lang: Lang,
  content: AssessmentContent,
  question: PracticeContent,
  options: {
    csrf: string;
    slug: string;
    answer?: AnswerValue;
    feedback?: { correct: boolean | null; message: string };
    notice?: string;
    /** The language the content is shown in, and why it is not the candidate's (src/portal/content-language.ts). */
    contentLang?: Lang;
    languageNotice?: string;
  },
): Page {
  const { csrf, slug, answer, feedback, notice, contentLang, languageNotice } = options;
  const said = feedback ?? (notice ? { correct: null, message: notice } : undefined);
  return layout({
    lang,
    page: 'practice',
    csrf,
    codeEditor: question.type === 'coding',
    title: t(lang, 'practice.title', { name: content.name }),
    body: (brand) => html`<p><a href="/portal/a/${slug}">${t(lang, 'practice.back')}</a></p>
<h1>${t(lang, 'practice.pageHeading')}</h1>
<p class="info">${t(lang, 'practice.explain', { start: t(lang, 'intro.start') })}</p>
${languageNote(languageNotice)}
<form method="post" action="/portal/a/${slug}/practice" id="answer-form" data-practice="true" data-question="${question.id}" data-type="${question.type}">
<input type="hidden" name="_csrf" value="${csrf}">
${questionField(question, answer, '', false, undefined, lang, contentLang)}
<div class="actions"><button type="submit" name="go" value="check">${t(lang, 'practice.check')}</button></div>
</form>
${
  said &&
  html`<div class="practice-feedback${said.correct === true ? ' correct' : said.correct === false ? ' expected' : ''}" id="practice-feedback" role="status" tabindex="-1">
<p>${said.message}</p>
${feedback && question.explanation && markdown(question.explanation)}
</div>`
}
<h2>${t(lang, 'intro.start')}</h2>
<p>${t(lang, 'practice.ready')}</p>
${startForm(lang, csrf, slug, webcamOf(content), brand)}`,
  });
}

/** The completed page's feedback: the form, or the thanks once given. */
export function feedbackSection(lang: Lang, slug: string, csrf: string, given: boolean): SafeHtml {
  if (given) return html`<p class="info" role="status">${t(lang, 'feedback.thanks')}</p>`;
  const labels = [t(lang, 'feedback.poor'), formatNumber(lang, 2), formatNumber(lang, 3), formatNumber(lang, 4), t(lang, 'feedback.good')];
  return html`<section class="feedback" aria-labelledby="feedback-heading">
<h2 id="feedback-heading">${t(lang, 'feedback.heading')}</h2>
<p>${t(lang, 'feedback.intro')}</p>
<form method="post" action="/portal/a/${slug}/feedback">
<input type="hidden" name="_csrf" value="${csrf}">
<fieldset class="rating"><legend>${t(lang, 'feedback.legend')}</legend>
<div class="rating-points">${labels.map(
    (label, i) => html`<div class="point"><input type="radio" id="rating-${i + 1}" name="rating" value="${i + 1}" required><label for="rating-${i + 1}">${label}</label></div>`,
  )}</div>
</fieldset>
<label for="feedback-comment">${t(lang, 'feedback.comment', { max: FEEDBACK_COMMENT_MAX })}</label>
<textarea id="feedback-comment" name="comment" rows="4" maxlength="${FEEDBACK_COMMENT_MAX}"></textarea>
<div class="actions"><button type="submit">${t(lang, 'feedback.send')}</button></div>
</form>
</section>`;
}
