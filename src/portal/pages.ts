// The candidate portal's pages: server-rendered HTML through the escaping template layer, no
// inline script or style (the Content-Security-Policy forbids both). portal.js adds saving as you
// go, the countdown, the typing test and the proctoring signals on top.
import { html, type SafeHtml } from '../html/html.js';
import { markdown } from '../html/markdown.js';
import { scaleLabels, type AssessmentContent, type QuestionContent } from '../modules/assessments/content-schema.js';
import { isPermutation, type AnswerValue } from '../modules/attempts/scoring.js';
import type { Brand } from '../modules/tenants/branding.js';
import { portalBrand } from './brand.js';
import { questionCount } from '../modules/attempts/layout.js';

interface Layout {
  title: string;
  body: SafeHtml;
  csrf?: string;
  page: string;
}

export function layout({ title, body, csrf, page }: Layout): SafeHtml {
  // Whose assessment this is (brandOf): unknown only before the session is (the landing page).
  const brand = portalBrand();
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${csrf && html`<meta name="csrf-token" content="${csrf}">`}
<title>${title} · ${brand?.company ?? 'Assessments'}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/portal/assets/portal.css">
${brand?.themePath && html`<link rel="stylesheet" href="${brand.themePath}">`}
<script src="/portal/assets/portal.js" defer></script>
</head>
<body data-page="${page}">
<a class="skip" href="#main">Skip to content</a>
<header class="top"><p class="brand">${brand?.logoPath ? html`<img class="brand-logo" src="${brand.logoPath}" alt="${brand.company}">` : (brand?.company ?? 'Assessments')}</p></header>
<main id="main" tabindex="-1">
${body}
</main>
${brand && brandFooter(brand)}
</body>
</html>`;
}

/** Whom to ask, on every page a candidate sees once their invitation is known; the privacy notice. */
function brandFooter(brand: Brand): SafeHtml {
  const contact = brand.contactEmail ? html`<a href="mailto:${brand.contactEmail}">${brand.contactEmail}</a>` : html`${brand.company}, who invited you`;
  return html`<footer class="site-footer">
<p>Questions? Contact ${contact}.${brand.privacyUrl && html` <a href="${brand.privacyUrl}">Privacy notice of ${brand.company}</a>`}</p>
</footer>`;
}

export function landingPage(): SafeHtml {
  return layout({
    page: 'landing',
    title: 'Opening your assessments',
    body: html`<h1>Opening your assessments…</h1>
<p id="landing-status" role="status">One moment while we check your invitation link.</p>
<noscript><p>This portal needs JavaScript. Please enable it and open the link from your invitation e-mail again.</p></noscript>`,
  });
}

export function messagePage(title: string, message: string, status: 'info' | 'error' = 'info'): SafeHtml {
  return layout({
    page: 'message',
    title,
    body: html`<h1>${title}</h1>
<p class="${status}">${message}</p>`,
  });
}

export const INVALID_LINK = {
  title: 'This link does not work',
  message:
    'The invitation link has expired, was replaced, or is not complete. Open the latest invitation e-mail and use its link, or ask the company that invited you to send a new invitation.',
};

export interface DashboardItem {
  slug: string;
  name: string;
  durationMinutes: number;
  status: 'INVITED' | 'IN_PROGRESS' | 'COMPLETED' | 'WITHDRAWN' | 'EXPIRED';
  minutesLeft?: number;
}

const STATUS_TEXT = { INVITED: 'Not started', IN_PROGRESS: 'In progress', COMPLETED: 'Completed', WITHDRAWN: 'Withdrawn by the company', EXPIRED: 'No longer open' };

export function dashboardPage(firstName: string, items: DashboardItem[]): SafeHtml {
  const rows = items.map((item) => {
    const action =
      (item.status === 'INVITED' || item.status === 'IN_PROGRESS') &&
      html`<a class="button" href="/portal/a/${item.slug}">${item.status === 'INVITED' ? 'Open' : 'Continue'}<span class="visually-hidden"> ${item.name}</span></a>`;
    const left = item.status === 'IN_PROGRESS' && item.minutesLeft !== undefined ? ` · about ${item.minutesLeft} min left` : '';
    return html`<li class="card">
<h2>${item.name}</h2>
<p>${item.durationMinutes} minutes · <span class="status status-${item.status.toLowerCase()}">${STATUS_TEXT[item.status]}</span>${left}</p>
${action}
</li>
`;
  });
  const done = items.every((i) => i.status === 'COMPLETED');
  // Closed ones (withdrawn, expired) are not "completed": nothing is left to do, but say it as it is.
  return layout({
    page: 'dashboard',
    title: 'Your assessments',
    body: html`<h1>Hello ${firstName}</h1>
<p>${done ? 'You have completed every assessment. Thank you! You can close this page.' : 'Here are the assessments you are invited to. Each one is timed from the moment you start it.'}</p>
<ul class="cards">
${rows}</ul>`,
  });
}

/** `minutes`: this candidate's time limit (with any extra time of their invite, never said why). */
/** `practice`: the practice question's invitation (src/portal/practice.ts), shown before Start. */
export function introPage(content: AssessmentContent, csrf: string, slug: string, minutes: number, practice?: SafeHtml): SafeHtml {
  const items = questionCount(content) + (content.typingTest ? 1 : 0);
  return layout({
    page: 'intro',
    csrf,
    title: content.name,
    body: html`<p><a href="/portal/">Back to your assessments</a></p>
<h1>${content.name}</h1>
<p>${content.description}</p>
<ul>
<li>Time limit: <strong>${minutes} minutes</strong>, counted from when you press Start. The clock keeps running if you close the page.</li>
<li>${items} question${items === 1 ? '' : 's'}${content.typingTest ? ', including a typing test' : ''}. Your answers are saved as you go.</li>
<li>Please work on your own, stay on this page, and do not paste answers: these are recorded.</li>
</ul>
${content.instructions && html`<h2>Instructions</h2><p class="pre">${content.instructions}</p>`}
${practice}
<form method="post" action="/portal/a/${slug}/start">
<input type="hidden" name="_csrf" value="${csrf}">
<button type="submit" class="primary">Start the assessment</button>
</form>`,
  });
}

interface AttemptView {
  slug: string;
  name: string;
  csrf: string;
  position: number;
  total: number;
  deadline: Date;
  answered: Set<string>;
  questionIds: string[];
  hasTyping: boolean;
}

const currentStep = (current: boolean) => current && html` aria-current="step"`;

function progressNav(view: AttemptView): SafeHtml {
  const links = view.questionIds.map((id, index) => {
    const n = index + 1;
    const answered = view.answered.has(id);
    return html`<li><a class="step ${answered ? 'answered' : 'open'}" href="/portal/a/${view.slug}?q=${n}"${currentStep(n === view.position)}>${n}<span class="visually-hidden"> ${answered ? '(answered)' : '(not answered)'}</span></a></li>`;
  });
  const typingStep = view.questionIds.length + 1;
  const typing =
    view.hasTyping &&
    html`<li><a class="step ${view.answered.has('typing') ? 'answered' : 'open'}" href="/portal/a/${view.slug}?q=${typingStep}"${currentStep(view.position === typingStep)}>Typing</a></li>`;
  return html`<nav aria-label="Questions"><ol class="steps">${links}${typing}</ol></nav>`;
}

function header(view: AttemptView): SafeHtml {
  const answered = view.answered.size;
  return html`<div class="attempt-bar">
<p class="assessment-name">${view.name}</p>
<p class="timer" id="timer" data-deadline="${view.deadline.toISOString()}" data-now="${new Date().toISOString()}">Time left: <span id="timer-value">${Math.max(0, Math.ceil((view.deadline.getTime() - Date.now()) / 60000))} min</span></p>
<p class="visually-hidden" id="time-notice" aria-live="assertive" aria-atomic="true"></p>
<p class="progress-text" id="progress-text">${answered} of ${view.total} answered</p>
<progress max="${view.total}" value="${answered}" aria-labelledby="progress-text"></progress>
</div>`;
}

const checked = (on: boolean) => on && html` checked`;

/** What the legend of a Likert item says: the two ends of its scale. */
function likertHint(labels: readonly string[]): string {
  return `Choose one point of the scale, from “${labels[0]}” to “${labels[labels.length - 1]}”`;
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

export function questionField(question: QuestionContent, answer: AnswerValue | undefined, idPrefix = '', preview = false, order?: readonly number[]): SafeHtml {
  const id = (name: string) => `${idPrefix}${name}`;
  const prompt = html`<div class="prompt" id="${id('prompt')}">${markdown(question.prompt)}</div>
`;
  const group = (hint: string, body: SafeHtml[]) =>
    html`${prompt}<fieldset class="${question.type}" aria-labelledby="${id('prompt')} ${id('how')}"><legend id="${id('how')}" class="hint">${hint}</legend>
${body}</fieldset>`;
  switch (question.type) {
    // Options show in this attempt's order; each keeps its own index as its value, so an answer
    // means the same option whatever order it was shown in.
    case 'single-choice':
      return group(
        'Choose one answer',
        shown(question.options, order).map(
          ([o, i]) => html`<div class="option"><input type="radio" id="${id(`o${i}`)}" name="value" value="${i}"${checked(answer === i)}><label for="${id(`o${i}`)}">${o.text}</label></div>
`,
        ),
      );
    case 'multiple-choice': {
      const chosen = new Set(Array.isArray(answer) ? answer : []);
      return group(
        'Select all that apply',
        shown(question.options, order).map(
          ([o, i]) => html`<div class="option"><input type="checkbox" id="${id(`o${i}`)}" name="value" value="${i}"${checked(chosen.has(i))}><label for="${id(`o${i}`)}">${o.text}</label></div>
`,
        ),
      );
    }
    case 'likert': {
      // A native radio group: Tab enters it, the arrow keys move between the points.
      const labels = scaleLabels(question.scale);
      return group(
        likertHint(labels),
        [html`<div class="scale" data-points="${labels.length}">
${labels.map(
  (label, i) => html`<div class="point"><input type="radio" id="${id(`o${i}`)}" name="value" value="${i}"${checked(answer === i)}><label for="${id(`o${i}`)}">${label}</label></div>
`,
)}</div>
`],
      );
    }
    case 'ranking': {
      // Without drag and drop: each option has Move up and Move down buttons. Without JavaScript
      // they submit the form, and the server moves the option and shows the question again;
      // portal.js moves it in place, says where it went, and saves the order.
      const n = question.options.length;
      const order = isPermutation(answer, n) ? answer : question.options.map((_, i) => i);
      const kind = preview ? 'button' : 'submit';
      return html`${prompt}<div class="ranking" role="group" aria-labelledby="${id('prompt')} ${id('how')}">
<p class="hint" id="${id('how')}">Put the options in order, the first at the top, with the Move up and Move down buttons.</p>
<ol class="ranking-list" data-count="${n}">
${order.map((option, place) => {
  const text = question.options[option]!.text;
  return html`<li class="rank-item" data-option="${option}"><span class="rank-text">${text}</span><input type="hidden" name="value" value="${option}">
<span class="rank-moves"><button type="${kind}" class="rank-move" name="move" value="${option}:up" data-direction="up"${place === 0 && html` aria-disabled="true"`}>Move up<span class="visually-hidden"> ${text}</span></button>
<button type="${kind}" class="rank-move" name="move" value="${option}:down" data-direction="down"${place === n - 1 && html` aria-disabled="true"`}>Move down<span class="visually-hidden"> ${text}</span></button></span></li>
`;
})}</ol>
<p class="ranking-status" id="${id('ranking-status')}" role="status" aria-live="polite"></p>
</div>`;
    }
    case 'short-answer':
      return html`${prompt}<input type="text" id="${id('answer')}" name="value" maxlength="200" autocomplete="off" aria-labelledby="${id('prompt')}" value="${typeof answer === 'string' ? answer : ''}">`;
    case 'free-text':
      return html`${prompt}<textarea id="${id('answer')}" name="value" rows="8" maxlength="${question.maxLength ?? 4000}" aria-labelledby="${id('prompt')}">${typeof answer === 'string' ? answer : ''}</textarea>`;
  }
}

export function questionPage(view: AttemptView, question: QuestionContent, answer: AnswerValue | undefined, order?: readonly number[]): SafeHtml {
  const n = view.position;
  const last = n === view.total;
  return layout({
    page: 'question',
    csrf: view.csrf,
    title: `Question ${n} of ${view.total} · ${view.name}`,
    body: html`${header(view)}
<h1 class="question-number">Question ${n} of ${view.total}</h1>
<form method="post" action="/portal/a/${view.slug}/q/${n}" id="answer-form" data-question="${question.id}" data-type="${question.type}">
<input type="hidden" name="_csrf" value="${view.csrf}">
${questionField(question, answer, '', false, order)}
<p class="save-status" id="save-status" role="status" aria-live="polite"></p>
<div class="actions">
${n > 1 && html`<button type="submit" name="go" value="previous">Previous</button>`}
<button type="submit" name="go" value="${last ? 'review' : 'next'}" class="primary">${last ? 'Save and review' : 'Save and next'}</button>
</div>
</form>
${progressNav(view)}`,
  });
}

export function typingPage(view: AttemptView, passage: string, done: { netWpm: number; accuracy: number } | undefined, running: boolean): SafeHtml {
  const body = done
    ? html`<p class="info">Typing test done: ${done.netWpm.toFixed(0)} words per minute, ${done.accuracy.toFixed(0)}% accuracy.</p>
<p><a class="button primary" href="/portal/a/${view.slug}?q=review">Review and submit</a></p>`
    : html`<p>Type the passage below into the box as accurately as you can. The typing clock starts when you press <strong>Start typing</strong>. Pasting is not allowed.</p>
<blockquote class="passage" id="passage" lang="en">${passage}</blockquote>
<noscript><p class="error">The typing test needs JavaScript.</p></noscript>
<div id="typing" data-slug="${view.slug}" data-running="${String(running)}">
<button type="button" id="typing-start" class="primary">Start typing</button>
<label for="typing-area">Your typing</label>
<textarea id="typing-area" rows="6" autocomplete="off" autocorrect="off" autocapitalize="off" spellcheck="false" disabled></textarea>
<button type="button" id="typing-finish" disabled>Finish typing test</button>
<p id="typing-status" role="status" aria-live="polite"></p>
</div>`;
  return layout({
    page: 'typing',
    csrf: view.csrf,
    title: `Typing test · ${view.name}`,
    body: html`${header(view)}
<h1>Typing test</h1>
${body}
${progressNav(view)}`,
  });
}

export function reviewPage(view: AttemptView): SafeHtml {
  const open = view.questionIds.map((id, i) => (view.answered.has(id) ? undefined : i + 1)).filter((n): n is number => n !== undefined);
  if (view.hasTyping && !view.answered.has('typing')) open.push(view.questionIds.length + 1);
  const links = open.map(
    (n, i) =>
      html`${i > 0 && ', '}<a href="/portal/a/${view.slug}?q=${n}">${n === view.questionIds.length + 1 && view.hasTyping ? 'typing test' : `question ${n}`}</a>`,
  );
  return layout({
    page: 'review',
    csrf: view.csrf,
    title: `Review · ${view.name}`,
    body: html`${header(view)}
<h1>Review and submit</h1>
<p>You have answered ${view.answered.size} of ${view.total}.${open.length > 0 && html` Not answered yet: ${links}.`}</p>
<p>After you submit, your answers can no longer change.</p>
<form method="post" action="/portal/a/${view.slug}/submit">
<input type="hidden" name="_csrf" value="${view.csrf}">
<button type="submit" class="primary" id="submit">Submit the assessment</button>
</form>
${progressNav(view)}`,
  });
}

/** `feedback`: the optional feedback form, or the thanks for it (src/portal/feedback.ts). */
export function completedPage(name: string, feedback?: SafeHtml): SafeHtml {
  return layout({
    page: 'completed',
    title: `${name} completed`,
    body: html`<h1>${name}: completed</h1>
<p>Thank you. Your answers have been submitted.</p>
${feedback}
<p><a class="button" href="/portal/">Back to your assessments</a></p>`,
  });
}
