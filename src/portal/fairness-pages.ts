// The portal's practice question (before the clock starts) and the feedback after submitting.
// Their candidate-facing text is gathered in TEXT, to move into the message catalogues as it is.
import { html, type SafeHtml } from '../html/html.js';
import type { AssessmentContent, PracticeContent } from '../modules/assessments/content-schema.js';
import { FEEDBACK_COMMENT_MAX } from '../modules/attempts/feedback.js';
import { questionCredit, type AnswerValue } from '../modules/attempts/scoring.js';
import { layout, questionField } from './pages.js';

export const TEXT = {
  practiceHeading: 'Practice first',
  practiceIntro: 'You can try one practice question before you start. It is not timed, not scored, and your answer is not saved.',
  practiceLink: 'Try the practice question',
  practiceTitle: (name: string) => `Practice question · ${name}`,
  practicePageHeading: 'Practice question',
  practiceExplain:
    'This question is only for practice: it is not timed, not scored, and your answer is not saved. The clock starts only when you press Start the assessment.',
  practiceCheck: 'Check my answer',
  practiceNoAnswer: 'Give an answer first, then select Check my answer.',
  practiceCorrect: 'That is the answer we expected.',
  practiceExpected: (answers: string[]) =>
    answers.length === 1 ? `The answer we expected was “${answers[0]}”.` : `The answers we expected were ${answers.map((a) => `“${a}”`).join(', ')}.`,
  practiceExpectedOrder: (order: string[]) => `The order we expected was: ${order.map((o, i) => `${i + 1}. ${o}`).join('; ')}.`,
  practiceLikert: 'There is no right or wrong answer to a statement like this: choose the point that describes you best.',
  practiceFreeText: 'Answers like this one are read and scored by a person at the company.',
  practiceReady: 'When you are ready, start the assessment. The clock starts then.',
  practiceBack: 'Back to the introduction',
  start: 'Start the assessment',
  feedbackHeading: 'How was this assessment? (optional)',
  feedbackIntro: 'Your feedback helps the company improve its assessments. It does not change your result.',
  feedbackLegend: 'Your rating, from 1 (poor) to 5 (very good)',
  feedbackLabels: ['1 – poor', '2', '3', '4', '5 – very good'],
  feedbackComment: `Comment (optional, up to ${FEEDBACK_COMMENT_MAX.toLocaleString('en')} characters)`,
  feedbackSend: 'Send feedback',
  feedbackThanks: 'Thank you for your feedback.',
  feedbackAlready: 'You have already sent your feedback on this assessment, so nothing was changed. Thank you.',
  feedbackInvalidTitle: 'That did not work',
  feedbackNotFinished: 'Feedback can be given once the assessment is submitted.',
};

/** The intro page's invitation to the practice question. */
export function practiceInvite(slug: string): SafeHtml {
  return html`<section class="practice-invite" aria-labelledby="practice-heading">
<h2 id="practice-heading">${TEXT.practiceHeading}</h2>
<p>${TEXT.practiceIntro}</p>
<p><a class="button" href="/portal/a/${slug}/practice">${TEXT.practiceLink}</a></p>
</section>`;
}

/** What the candidate is told of their practice answer; `correct` null when no answer is right or wrong. */
export function practiceFeedback(question: PracticeContent, answer: AnswerValue): { correct: boolean | null; message: string } {
  switch (question.type) {
    case 'likert':
      return { correct: null, message: TEXT.practiceLikert };
    case 'free-text':
      return { correct: null, message: TEXT.practiceFreeText };
    case 'ranking': {
      const correct = questionCredit(question, answer, undefined) === 1;
      const key = question.key.map((id) => question.options.find((o) => o.id === id)?.text ?? id);
      return { correct, message: correct ? TEXT.practiceCorrect : TEXT.practiceExpectedOrder(key) };
    }
    case 'short-answer': {
      const correct = questionCredit(question, answer, undefined) === 1;
      return { correct, message: correct ? TEXT.practiceCorrect : TEXT.practiceExpected([question.accept[0]!]) };
    }
    default: {
      const correct = questionCredit(question, answer, undefined) === 1;
      return { correct, message: correct ? TEXT.practiceCorrect : TEXT.practiceExpected(question.options.filter((o) => o.correct).map((o) => o.text)) };
    }
  }
}

/** The practice question, with the feedback on the answer once checked; then Start. */
export function practicePage(
  content: AssessmentContent,
  question: PracticeContent,
  options: { csrf: string; slug: string; answer?: AnswerValue; feedback?: { correct: boolean | null; message: string }; notice?: string },
): SafeHtml {
  const { csrf, slug, answer, feedback, notice } = options;
  const said = feedback ?? (notice ? { correct: null, message: notice } : undefined);
  return layout({
    page: 'practice',
    csrf,
    title: TEXT.practiceTitle(content.name),
    body: html`<p><a href="/portal/a/${slug}">${TEXT.practiceBack}</a></p>
<h1>${TEXT.practicePageHeading}</h1>
<p class="info">${TEXT.practiceExplain}</p>
<form method="post" action="/portal/a/${slug}/practice" id="answer-form" data-practice="true" data-question="${question.id}" data-type="${question.type}">
<input type="hidden" name="_csrf" value="${csrf}">
${questionField(question, answer)}
<div class="actions"><button type="submit" name="go" value="check">${TEXT.practiceCheck}</button></div>
</form>
${
  said &&
  html`<div class="practice-feedback${said.correct === true ? ' correct' : said.correct === false ? ' expected' : ''}" id="practice-feedback" role="status" tabindex="-1">
<p>${said.message}</p>
${feedback && question.explanation && html`<p>${question.explanation}</p>`}
</div>`
}
<h2>${TEXT.start}</h2>
<p>${TEXT.practiceReady}</p>
<form method="post" action="/portal/a/${slug}/start">
<input type="hidden" name="_csrf" value="${csrf}">
<button type="submit" class="primary">${TEXT.start}</button>
</form>`,
  });
}

/** The completed page's feedback: the form, or the thanks once given. */
export function feedbackSection(slug: string, csrf: string, given: boolean): SafeHtml {
  if (given) return html`<p class="info" role="status">${TEXT.feedbackThanks}</p>`;
  return html`<section class="feedback" aria-labelledby="feedback-heading">
<h2 id="feedback-heading">${TEXT.feedbackHeading}</h2>
<p>${TEXT.feedbackIntro}</p>
<form method="post" action="/portal/a/${slug}/feedback">
<input type="hidden" name="_csrf" value="${csrf}">
<fieldset class="rating"><legend>${TEXT.feedbackLegend}</legend>
<div class="rating-points">${TEXT.feedbackLabels.map(
    (label, i) => html`<div class="point"><input type="radio" id="rating-${i + 1}" name="rating" value="${i + 1}" required><label for="rating-${i + 1}">${label}</label></div>`,
  )}</div>
</fieldset>
<label for="feedback-comment">${TEXT.feedbackComment}</label>
<textarea id="feedback-comment" name="comment" rows="4" maxlength="${FEEDBACK_COMMENT_MAX}"></textarea>
<div class="actions"><button type="submit">${TEXT.feedbackSend}</button></div>
</form>
</section>`;
}
