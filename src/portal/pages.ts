// The candidate portal's pages: server-rendered HTML through the escaping template layer, no
// inline script or style (the Content-Security-Policy forbids both). portal.js adds saving as you
// go, the countdown, the typing test and the proctoring signals on top.
import { html, join, type SafeHtml } from '../html/html.js';
import { LANGUAGES, direction, formatNumber, formatPercent, scriptMessages, t, tHtml, type Lang } from '../i18n/i18n.js';
import { markdown } from '../html/markdown.js';
import { webcamOf, type AssessmentContent, type QuestionContent } from '../modules/assessments/content-schema.js';
import type { WebcamSchedule } from '../modules/snapshots/repository.js';
import { startForm, webcamNote } from './webcam-pages.js';
import type { AnswerValue } from '../modules/attempts/scoring.js';
import type { Brand } from '../modules/tenants/branding.js';
import { questionCount } from '../modules/attempts/layout.js';
import { questionField } from '../views/questions.js';
import { styleNonce } from '../http/page-headers.js';

interface Layout {
  lang: Lang;
  title: string;
  /** The page's content; a function when some of it names the brand (the webcam question names the company). */
  body: SafeHtml | ((brand: Brand | undefined) => SafeHtml);
  csrf?: string;
  page: string;
  /** The page's own path: with it, the footer offers the other languages and comes back here. */
  here?: string;
  /** Whether the page holds the code editor, whose styles need this response's style nonce. */
  codeEditor?: boolean;
}

/**
 * The footer's language switcher: a plain form (no script needed) whose buttons post the choice,
 * kept in a cookie, and come back to the same page.
 */
function languageSwitcher(lang: Lang, here: string): SafeHtml {
  const choices = (Object.entries(LANGUAGES) as [Lang, string][]).map(([code, name]) =>
    code === lang
      ? html`<li><span class="lang-current" lang="${code}" aria-current="true">${name}<span class="visually-hidden"> ${t(lang, 'layout.languageCurrent')}</span></span></li>`
      : html`<li><button type="submit" class="lang-choice" name="lang" value="${code}" lang="${code}">${name}</button></li>`,
  );
  return html`<form method="post" action="/portal/language"><input type="hidden" name="back" value="${here}">
<nav aria-label="${t(lang, 'layout.language')}"><ul class="languages">${choices}</ul></nav></form>`;
}

/**
 * A portal page, drawn once it is known whose candidate it is for: the portal kit's
 * `html(reply, page)` renders it in the brand of the request's session (none before a session is
 * known, on the landing page). The brand is handed over, not kept in request-scoped storage: an
 * AsyncLocalStorage, once entered, makes Node track every promise of the process, API reads
 * included (about 11 µs more CPU per score read, measured under the bench's load).
 */
export class Page {
  readonly #parts: Layout;
  /** The nonce this page's style elements carry (the code editor's), to be named in its policy. */
  readonly styleNonce: string | undefined;
  constructor(parts: Layout) {
    this.#parts = parts;
    this.styleNonce = parts.codeEditor ? styleNonce() : undefined;
  }
  render(brand: Brand | undefined): SafeHtml {
    return drawn(this.#parts, brand, this.styleNonce);
  }
}

export function layout(parts: Layout): Page {
  return new Page(parts);
}

function drawn({ lang, title, body, csrf, page, here }: Layout, brand: Brand | undefined, nonce: string | undefined): SafeHtml {
  const company = brand?.company ?? t(lang, 'layout.brand');
  return html`<!doctype html>
<html lang="${lang}" dir="${direction(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, interactive-widget=resizes-content">
${csrf && html`<meta name="csrf-token" content="${csrf}">`}
${nonce && html`<meta name="style-nonce" nonce="${nonce}">`}
<title>${title} · ${company}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/portal/assets/portal.css">
${brand?.themePath && html`<link rel="stylesheet" href="${brand.themePath}">`}
<script src="/portal/assets/portal.js" defer></script>
</head>
<body data-page="${page}" data-lang="${lang}" data-messages="${JSON.stringify(scriptMessages(lang))}">
<a class="skip" href="#main">${t(lang, 'layout.skip')}</a>
<header class="top"><p class="brand">${brand?.logoPath ? html`<img class="brand-logo" src="${brand.logoPath}" alt="${company}">` : company}</p></header>
<main id="main" tabindex="-1">
${typeof body === 'function' ? body(brand) : body}
</main>
${(brand || here !== undefined) && html`<footer class="site-footer foot">${brand && brandFooter(lang, brand)}${here !== undefined && languageSwitcher(lang, here)}</footer>`}
</body>
</html>`;
}

/** Whom to ask, on every page a candidate sees once their invitation is known; the privacy notice. */
function brandFooter(lang: Lang, brand: Brand): SafeHtml {
  const contact = brand.contactEmail
    ? tHtml(lang, 'brand.contactEmail', { email: html`<a href="mailto:${brand.contactEmail}">${brand.contactEmail}</a>` })
    : t(lang, 'brand.contactCompany', { company: brand.company });
  return html`<p>${contact}${brand.privacyUrl && html` <a href="${brand.privacyUrl}">${t(lang, 'brand.privacy', { company: brand.company })}</a>`}</p>`;
}

export function landingPage(lang: Lang): Page {
  return layout({
    lang,
    page: 'landing',
    title: t(lang, 'landing.title'),
    body: html`<h1>${t(lang, 'landing.heading')}</h1>
<p id="landing-status" role="status">${t(lang, 'landing.status')}</p>
<noscript><p>${t(lang, 'landing.noscript')}</p></noscript>`,
  });
}

/** A page that says one thing: a title and one or more paragraphs. */
export function messagePage(lang: Lang, title: string, message: string | string[], status: 'info' | 'error' = 'info', here?: string): Page {
  const paragraphs = Array.isArray(message) ? message : [message];
  return layout({
    lang,
    page: 'message',
    title,
    here,
    body: html`<h1>${title}</h1>
${paragraphs.map(
  (p, i) => html`<p${i === 0 && html` class="${status}"`}>${p}</p>
`,
)}`,
  });
}

/** What the invalid-link page says: what may be wrong, that older links still work, and what to do. */
export function invalidLinkPage(lang: Lang, here: string): Page {
  return messagePage(lang, t(lang, 'linkInvalid.title'), [t(lang, 'linkInvalid.why'), t(lang, 'linkInvalid.older'), t(lang, 'linkInvalid.todo')], 'error', here);
}

export interface DashboardItem {
  slug: string;
  name: string;
  durationMinutes: number;
  status: 'INVITED' | 'IN_PROGRESS' | 'COMPLETED' | 'WITHDRAWN' | 'EXPIRED';
  minutesLeft?: number;
}

export function dashboardPage(lang: Lang, firstName: string, items: DashboardItem[]): Page {
  const rows = items.map((item) => {
    const action =
      (item.status === 'INVITED' || item.status === 'IN_PROGRESS') &&
      html`<a class="button" href="/portal/a/${item.slug}">${t(lang, item.status === 'INVITED' ? 'dashboard.open' : 'dashboard.continue')}<span class="visually-hidden"> ${item.name}</span></a>`;
    const left = item.status === 'IN_PROGRESS' && item.minutesLeft !== undefined ? ` · ${t(lang, 'dashboard.minutesLeft', { minutes: Math.max(0, item.minutesLeft) })}` : '';
    return html`<li class="card">
<h2>${item.name}</h2>
<p>${t(lang, 'dashboard.minutes', { minutes: item.durationMinutes })} · <span class="status status-${item.status.toLowerCase()}">${t(lang, `status.${item.status}`)}</span>${left}</p>
${action}
</li>
`;
  });
  const done = items.every((i) => i.status === 'COMPLETED');
  // Closed ones (withdrawn, expired) are not "completed": nothing is left to do, but say it as it is.
  return layout({
    lang,
    page: 'dashboard',
    here: '/portal/',
    title: t(lang, 'dashboard.title'),
    body: html`<h1>${t(lang, 'dashboard.hello', { name: firstName })}</h1>
<p>${t(lang, done ? 'dashboard.allDone' : 'dashboard.intro')}</p>
<ul class="cards">
${rows}</ul>`,
  });
}

/**
 * Candidate-facing text with `{minutes}` replaced by this candidate's own time limit (with any
 * extra time), so that "You have {minutes} minutes" never contradicts the timer.
 */
export const withMinutes = (text: string, minutes: number) => text.replace(/\{minutes\}/g, String(minutes));

/** `minutes`: this candidate's time limit (with any extra time of their invite, never said why). */
/** `practice`: the practice question's invitation (src/portal/fairness-pages.ts), shown before Start. */
/** `languageNotice`: why the content is not in the candidate's language (src/portal/content-language.ts). */
export function introPage(lang: Lang, content: AssessmentContent, csrf: string, slug: string, minutes: number, practice?: SafeHtml, languageNotice?: string): Page {
  const items = questionCount(content) + (content.typingTest ? 1 : 0);
  return layout({
    lang,
    page: 'intro',
    csrf,
    here: `/portal/a/${slug}`,
    title: content.name,
    body: (brand) => html`<p><a href="/portal/">${t(lang, 'intro.back')}</a></p>
<h1>${content.name}</h1>
${languageNote(languageNotice)}
${markdown(withMinutes(content.description, minutes))}
<ul>
<li>${tHtml(lang, 'intro.timeLimit', { duration: html`<strong>${t(lang, 'intro.duration', { minutes })}</strong>` })}</li>
<li>${t(lang, content.typingTest ? 'intro.questionsTyping' : 'intro.questions', { count: items })}</li>
<li>${t(lang, 'intro.conduct')}</li>
</ul>
${content.instructions && html`<h2>${t(lang, 'intro.instructions')}</h2>${markdown(withMinutes(content.instructions, minutes))}`}
${practice}
${startForm(lang, csrf, slug, webcamOf(content), brand)}`,
  });
}

interface AttemptView {
  lang: Lang;
  slug: string;
  name: string;
  csrf: string;
  position: number;
  total: number;
  deadline: Date;
  /** The app's clock when the page was made: the timer starts from it. */
  now: Date;
  answered: Set<string>;
  questionIds: string[];
  hasTyping: boolean;
  /** Webcam snapshots of this attempt, when the candidate agreed to them. */
  webcam?: WebcamSchedule;
  /** The language the attempt's content is shown in, and why it is not the candidate's, if it is not. */
  contentLang?: Lang;
  languageNotice?: string;
}

/** Why the content is not in the candidate's language: said on every page of the assessment. */
export const languageNote = (notice: string | undefined): SafeHtml | undefined => (notice ? html`<p class="info language-notice">${notice}</p>` : undefined);

const currentStep = (current: boolean) => current && html` aria-current="step"`;

/**
 * One chip of the question list. Answered and open ones differ by more than colour: an answered
 * one is filled and carries a check mark, an open one is outlined with a dashed border, and each
 * says which it is to a screen reader.
 */
function step(view: AttemptView, n: number, answered: boolean, label: string): SafeHtml {
  const { lang } = view;
  return html`<li><a class="step ${answered ? 'answered' : 'open'}" href="/portal/a/${view.slug}?q=${n}"${currentStep(n === view.position)}>${answered && html`<span class="mark" aria-hidden="true">✓</span>`}${label}<span class="visually-hidden"> ${t(lang, answered ? 'nav.answered' : 'nav.notAnswered')}</span></a></li>`;
}

function progressNav(view: AttemptView): SafeHtml {
  const links = view.questionIds.map((id, index) => step(view, index + 1, view.answered.has(id), String(index + 1)));
  const typing = view.hasTyping && step(view, view.questionIds.length + 1, view.answered.has('typing'), t(view.lang, 'nav.typing'));
  return html`<nav aria-label="${t(view.lang, 'nav.label')}"><ol class="steps">${links}${typing}</ol></nav>`;
}

function header(view: AttemptView): SafeHtml {
  const { lang } = view;
  const answered = view.answered.size;
  const minutes = Math.max(0, Math.ceil((view.deadline.getTime() - view.now.getTime()) / 60000));
  return html`<div class="attempt-bar">
<p class="assessment-name">${view.name}</p>
<p class="timer" id="timer" data-deadline="${view.deadline.toISOString()}" data-now="${view.now.toISOString()}">${tHtml(lang, 'attempt.timeLeft', { time: html`<span id="timer-value">${t(lang, 'attempt.minutes', { minutes })}</span>` })}</p>
<p class="visually-hidden" id="time-notice" aria-live="assertive" aria-atomic="true"></p>
<p class="progress-text" id="progress-text">${t(lang, 'attempt.progress', { answered, total: view.total })}</p>
<progress max="${view.total}" value="${answered}" aria-labelledby="progress-text"></progress>
${webcamNote(lang, view.webcam, view.now)}
</div>
${languageNote(view.languageNotice)}`;
}

export function questionPage(view: AttemptView, question: QuestionContent, answer: AnswerValue | undefined, order?: readonly number[]): Page {
  const { lang } = view;
  const n = view.position;
  const last = n === view.total;
  const title = t(lang, 'question.title', { n, total: view.total });
  return layout({
    lang,
    page: 'question',
    csrf: view.csrf,
    here: `/portal/a/${view.slug}?q=${n}`,
    codeEditor: question.type === 'coding',
    title: `${title} · ${view.name}`,
    body: html`${header(view)}
<h1 class="question-number">${title}</h1>
<form method="post" action="/portal/a/${view.slug}/q/${n}" id="answer-form" data-question="${question.id}" data-type="${question.type}">
<input type="hidden" name="_csrf" value="${view.csrf}">
${questionField(question, answer, '', false, order, lang, view.contentLang)}
<p class="save-status" id="save-status" role="status" aria-live="polite"></p>
<div class="actions">
${n > 1 && html`<button type="submit" name="go" value="previous">${t(lang, 'question.previous')}</button>`}
<button type="submit" name="go" value="${last ? 'review' : 'next'}" class="primary">${t(lang, last ? 'question.review' : 'question.next')}</button>
</div>
</form>
${progressNav(view)}`,
  });
}

/** The typing test's result for the candidate: speed as a whole number, accuracy to one decimal, never rounded up. */
export function typingResultText(lang: Lang, done: { netWpm: number; accuracy: number }): string {
  return t(lang, 'typing.done', { wpm: formatNumber(lang, done.netWpm, 0), accuracy: formatPercent(lang, done.accuracy, 1) });
}

export function typingPage(view: AttemptView, passage: string, done: { netWpm: number; accuracy: number } | undefined, running: boolean): Page {
  const { lang } = view;
  const body = done
    ? html`<p class="info">${typingResultText(lang, done)}</p>
<p><a class="button primary" href="/portal/a/${view.slug}?q=review">${t(lang, 'review.heading')}</a></p>`
    : html`<p>${tHtml(lang, 'typing.instructions', { start: html`<strong>${t(lang, 'typing.start')}</strong>` })}</p>
<blockquote class="passage" id="passage" lang="${view.contentLang}" tabindex="0">${passage}</blockquote>
<noscript><p class="error">${t(lang, 'typing.noscript')}</p></noscript>
<div id="typing" data-slug="${view.slug}" data-running="${String(running)}">
<button type="button" id="typing-start" class="primary">${t(lang, 'typing.start')}</button>
<label for="typing-area">${t(lang, 'typing.label')}</label>
<textarea id="typing-area" rows="6" autocomplete="off" autocorrect="off" autocapitalize="off" spellcheck="false" disabled></textarea>
<button type="button" id="typing-finish" disabled>${t(lang, 'typing.finish')}</button>
<p id="typing-status" role="status" aria-live="polite"></p>
</div>`;
  return layout({
    lang,
    page: 'typing',
    csrf: view.csrf,
    here: `/portal/a/${view.slug}?q=${view.position}`,
    title: `${t(lang, 'typing.title')} · ${view.name}`,
    body: html`${header(view)}
<h1>${t(lang, 'typing.title')}</h1>
${body}
${progressNav(view)}`,
  });
}

/** The positions not answered yet: question numbers, the typing test last. */
export function unansweredSteps(view: Pick<AttemptView, 'questionIds' | 'answered' | 'hasTyping'>): number[] {
  const open = view.questionIds.map((id, i) => (view.answered.has(id) ? undefined : i + 1)).filter((n): n is number => n !== undefined);
  if (view.hasTyping && !view.answered.has('typing')) open.push(view.questionIds.length + 1);
  return open;
}

/** Links to the unanswered positions: "question 2, question 5, typing test". */
function openLinks(view: AttemptView, open: number[]): SafeHtml {
  const { lang } = view;
  return join(
    open.map(
      (n) =>
        html`<a href="/portal/a/${view.slug}?q=${n}">${n === view.questionIds.length + 1 && view.hasTyping ? t(lang, 'review.typingLink') : t(lang, 'review.questionLink', { n })}</a>`,
    ),
    t(lang, 'review.listSeparator'),
  );
}

export function reviewPage(view: AttemptView): Page {
  const { lang } = view;
  const open = unansweredSteps(view);
  return layout({
    lang,
    page: 'review',
    csrf: view.csrf,
    here: `/portal/a/${view.slug}?q=review`,
    title: `${t(lang, 'review.title')} · ${view.name}`,
    body: html`${header(view)}
<h1>${t(lang, 'review.heading')}</h1>
<p>${t(lang, 'review.answered', { answered: view.answered.size, total: view.total })}${open.length > 0 && html` ${tHtml(lang, 'review.open', { links: openLinks(view, open) })}`}</p>
<p>${t(lang, 'review.final')}</p>
<form method="post" action="/portal/a/${view.slug}/submit">
<input type="hidden" name="_csrf" value="${view.csrf}">
<input type="hidden" name="from" value="review">
<button type="submit" class="primary" id="submit">${t(lang, 'review.submit')}</button>
</form>
${progressNav(view)}`,
  });
}

/**
 * Submitting with gaps asks first, naming how many, as a page of its own (a plain form, so it
 * works without script and reads in order with a screen reader): submit anyway, or go back.
 */
export function confirmSubmitPage(view: AttemptView): Page {
  const { lang } = view;
  const open = unansweredSteps(view);
  return layout({
    lang,
    page: 'confirm',
    csrf: view.csrf,
    title: `${t(lang, 'confirm.title')} · ${view.name}`,
    body: html`${header(view)}
<h1>${t(lang, 'confirm.title')}</h1>
<p id="confirm-message">${t(lang, 'confirm.message', { count: open.length })}</p>
<p>${tHtml(lang, 'confirm.open', { links: openLinks(view, open) })}</p>
<p>${t(lang, 'review.final')}</p>
<form method="post" action="/portal/a/${view.slug}/submit" aria-describedby="confirm-message">
<input type="hidden" name="_csrf" value="${view.csrf}">
<div class="actions">
<button type="submit" class="primary" id="submit">${t(lang, 'confirm.submit')}</button>
<a class="button" href="/portal/a/${view.slug}?q=review">${t(lang, 'confirm.back')}</a>
</div>
</form>
${progressNav(view)}`,
  });
}

/** `feedback`: the optional feedback form, or the thanks for it (src/portal/fairness-pages.ts); `selfId`: the optional self-identification form (src/portal/self-id-pages.ts). */
export function completedPage(lang: Lang, name: string, feedback?: SafeHtml, selfId?: SafeHtml): Page {
  return layout({
    lang,
    page: 'completed',
    here: '/portal/',
    title: t(lang, 'completed.title', { name }),
    body: html`<h1>${t(lang, 'completed.heading', { name })}</h1>
<p>${t(lang, 'completed.thanks')}</p>
${feedback}
${selfId}
<p><a class="button" href="/portal/">${t(lang, 'intro.back')}</a></p>`,
  });
}
