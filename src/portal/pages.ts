// The candidate portal's pages: server-rendered HTML, every value escaped, no inline script or
// style (the Content-Security-Policy forbids both). portal.js adds saving as you go, the
// countdown, the typing test and the proctoring signals on top.
import type { AssessmentContent, QuestionContent } from '../modules/assessments/content-schema.js';
import type { AnswerValue } from '../modules/attempts/scoring.js';

export const escapeHtml = (value: unknown) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

interface Layout {
  title: string;
  body: string;
  csrf?: string;
  page: string;
}

export function layout({ title, body, csrf, page }: Layout): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${csrf ? `<meta name="csrf-token" content="${escapeHtml(csrf)}">` : ''}
<title>${escapeHtml(title)} · Assessments</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/portal/assets/portal.css">
<script src="/portal/assets/portal.js" defer></script>
</head>
<body data-page="${escapeHtml(page)}">
<a class="skip" href="#main">Skip to content</a>
<header class="top"><p class="brand">Assessments</p></header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`;
}

export function landingPage(): string {
  return layout({
    page: 'landing',
    title: 'Opening your assessments',
    body: `<h1>Opening your assessments…</h1>
<p id="landing-status" role="status">One moment while we check your invitation link.</p>
<noscript><p>This portal needs JavaScript. Please enable it and open the link from your invitation e-mail again.</p></noscript>`,
  });
}

export function messagePage(title: string, message: string, status: 'info' | 'error' = 'info'): string {
  return layout({
    page: 'message',
    title,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="${status}">${escapeHtml(message)}</p>`,
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
  status: 'INVITED' | 'IN_PROGRESS' | 'COMPLETED';
  minutesLeft?: number;
}

const STATUS_TEXT = { INVITED: 'Not started', IN_PROGRESS: 'In progress', COMPLETED: 'Completed' };

export function dashboardPage(firstName: string, items: DashboardItem[]): string {
  const rows = items
    .map((item) => {
      const action =
        item.status === 'COMPLETED'
          ? ''
          : `<a class="button" href="/portal/a/${escapeHtml(item.slug)}">${item.status === 'INVITED' ? 'Open' : 'Continue'}<span class="visually-hidden"> ${escapeHtml(item.name)}</span></a>`;
      const left = item.status === 'IN_PROGRESS' && item.minutesLeft !== undefined ? ` · about ${item.minutesLeft} min left` : '';
      return `<li class="card">
<h2>${escapeHtml(item.name)}</h2>
<p>${item.durationMinutes} minutes · <span class="status status-${item.status.toLowerCase()}">${STATUS_TEXT[item.status]}</span>${left}</p>
${action}
</li>`;
    })
    .join('\n');
  const done = items.every((i) => i.status === 'COMPLETED');
  return layout({
    page: 'dashboard',
    title: 'Your assessments',
    body: `<h1>Hello ${escapeHtml(firstName)}</h1>
<p>${done ? 'You have completed every assessment. Thank you! You can close this page.' : 'Here are the assessments you are invited to. Each one is timed from the moment you start it.'}</p>
<ul class="cards">
${rows}
</ul>`,
  });
}

export function introPage(content: AssessmentContent, csrf: string, slug: string): string {
  const items = content.questions.length + (content.typingTest ? 1 : 0);
  return layout({
    page: 'intro',
    csrf,
    title: content.name,
    body: `<p><a href="/portal/">Back to your assessments</a></p>
<h1>${escapeHtml(content.name)}</h1>
<p>${escapeHtml(content.description)}</p>
<ul>
<li>Time limit: <strong>${content.durationMinutes} minutes</strong>, counted from when you press Start. The clock keeps running if you close the page.</li>
<li>${items} question${items === 1 ? '' : 's'}${content.typingTest ? ', including a typing test' : ''}. Your answers are saved as you go.</li>
<li>Please work on your own, stay on this page, and do not paste answers: these are recorded.</li>
</ul>
${content.instructions ? `<h2>Instructions</h2><p class="pre">${escapeHtml(content.instructions)}</p>` : ''}
<form method="post" action="/portal/a/${escapeHtml(slug)}/start">
<input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">
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

function progressNav(view: AttemptView): string {
  const links = view.questionIds
    .map((id, index) => {
      const n = index + 1;
      const current = n === view.position ? ' aria-current="step"' : '';
      const state = view.answered.has(id) ? 'answered' : 'open';
      return `<li><a class="step ${state}" href="/portal/a/${escapeHtml(view.slug)}?q=${n}"${current}>${n}<span class="visually-hidden"> ${view.answered.has(id) ? '(answered)' : '(not answered)'}</span></a></li>`;
    })
    .join('');
  const typing = view.hasTyping
    ? `<li><a class="step ${view.answered.has('typing') ? 'answered' : 'open'}" href="/portal/a/${escapeHtml(view.slug)}?q=${view.questionIds.length + 1}"${view.position === view.questionIds.length + 1 ? ' aria-current="step"' : ''}>Typing</a></li>`
    : '';
  return `<nav aria-label="Questions"><ol class="steps">${links}${typing}</ol></nav>`;
}

function header(view: AttemptView): string {
  const answered = view.answered.size;
  return `<div class="attempt-bar">
<p class="assessment-name">${escapeHtml(view.name)}</p>
<p class="timer" id="timer" data-deadline="${view.deadline.toISOString()}" data-now="${new Date().toISOString()}">Time left: <span id="timer-value">${Math.max(0, Math.ceil((view.deadline.getTime() - Date.now()) / 60000))} min</span></p>
<p class="progress-text" id="progress-text">${answered} of ${view.total} answered</p>
<progress max="${view.total}" value="${answered}" aria-labelledby="progress-text"></progress>
</div>`;
}

function field(question: QuestionContent, answer: AnswerValue | undefined): string {
  const name = 'value';
  switch (question.type) {
    case 'single-choice':
      return `<fieldset><legend class="prompt pre">${escapeHtml(question.prompt)}</legend>
${question.options
  .map(
    (o, i) =>
      `<div class="option"><input type="radio" id="o${i}" name="${name}" value="${i}"${answer === i ? ' checked' : ''}><label for="o${i}">${escapeHtml(o.text)}</label></div>`,
  )
  .join('\n')}
</fieldset>`;
    case 'multiple-choice': {
      const chosen = new Set(Array.isArray(answer) ? answer : []);
      return `<fieldset><legend class="prompt pre">${escapeHtml(question.prompt)} <span class="hint">(choose all that apply)</span></legend>
${question.options
  .map(
    (o, i) =>
      `<div class="option"><input type="checkbox" id="o${i}" name="${name}" value="${i}"${chosen.has(i) ? ' checked' : ''}><label for="o${i}">${escapeHtml(o.text)}</label></div>`,
  )
  .join('\n')}
</fieldset>`;
    }
    case 'short-answer':
      return `<label class="prompt pre" for="answer">${escapeHtml(question.prompt)}</label>
<input type="text" id="answer" name="${name}" maxlength="200" autocomplete="off" value="${escapeHtml(typeof answer === 'string' ? answer : '')}">`;
    case 'free-text':
      return `<label class="prompt pre" for="answer">${escapeHtml(question.prompt)}</label>
<textarea id="answer" name="${name}" rows="8" maxlength="${question.maxLength ?? 4000}">${escapeHtml(typeof answer === 'string' ? answer : '')}</textarea>`;
  }
}

export function questionPage(view: AttemptView, question: QuestionContent, answer: AnswerValue | undefined): string {
  const n = view.position;
  const last = n === view.total;
  return layout({
    page: 'question',
    csrf: view.csrf,
    title: `Question ${n} of ${view.total} · ${view.name}`,
    body: `${header(view)}
<h1 class="question-number">Question ${n} of ${view.total}</h1>
<form method="post" action="/portal/a/${escapeHtml(view.slug)}/q/${n}" id="answer-form" data-question="${escapeHtml(question.id)}" data-type="${question.type}">
<input type="hidden" name="_csrf" value="${escapeHtml(view.csrf)}">
${field(question, answer)}
<p class="save-status" id="save-status" role="status" aria-live="polite"></p>
<div class="actions">
${n > 1 ? '<button type="submit" name="go" value="previous">Previous</button>' : ''}
<button type="submit" name="go" value="${last ? 'review' : 'next'}" class="primary">${last ? 'Save and review' : 'Save and next'}</button>
</div>
</form>
${progressNav(view)}`,
  });
}

export function typingPage(view: AttemptView, passage: string, done: { netWpm: number; accuracy: number } | undefined, running: boolean): string {
  const body = done
    ? `<p class="info">Typing test done: ${done.netWpm.toFixed(0)} words per minute, ${done.accuracy.toFixed(0)}% accuracy.</p>
<p><a class="button primary" href="/portal/a/${escapeHtml(view.slug)}?q=review">Review and submit</a></p>`
    : `<p>Type the passage below into the box as accurately as you can. The typing clock starts when you press <strong>Start typing</strong>. Pasting is not allowed.</p>
<blockquote class="passage" id="passage" lang="en">${escapeHtml(passage)}</blockquote>
<noscript><p class="error">The typing test needs JavaScript.</p></noscript>
<div id="typing" data-slug="${escapeHtml(view.slug)}" data-running="${running}">
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
    body: `${header(view)}
<h1>Typing test</h1>
${body}
${progressNav(view)}`,
  });
}

export function reviewPage(view: AttemptView): string {
  const open = view.questionIds.map((id, i) => (view.answered.has(id) ? undefined : i + 1)).filter((n): n is number => n !== undefined);
  if (view.hasTyping && !view.answered.has('typing')) open.push(view.questionIds.length + 1);
  return layout({
    page: 'review',
    csrf: view.csrf,
    title: `Review · ${view.name}`,
    body: `${header(view)}
<h1>Review and submit</h1>
<p>You have answered ${view.answered.size} of ${view.total}.${open.length ? ` Not answered yet: ${open.map((n) => `<a href="/portal/a/${escapeHtml(view.slug)}?q=${n}">${n === view.questionIds.length + 1 && view.hasTyping ? 'typing test' : `question ${n}`}</a>`).join(', ')}.` : ''}</p>
<p>After you submit, your answers can no longer change.</p>
<form method="post" action="/portal/a/${escapeHtml(view.slug)}/submit">
<input type="hidden" name="_csrf" value="${escapeHtml(view.csrf)}">
<button type="submit" class="primary" id="submit">Submit the assessment</button>
</form>
${progressNav(view)}`,
  });
}

export function completedPage(name: string): string {
  return layout({
    page: 'completed',
    title: `${name} completed`,
    body: `<h1>${escapeHtml(name)}: completed</h1>
<p>Thank you. Your answers have been submitted.</p>
<p><a class="button" href="/portal/">Back to your assessments</a></p>`,
  });
}
