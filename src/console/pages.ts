// The console's pages: server-rendered through the escaping template layer, the same strict CSP
// as the portal (no inline script or style), readable at 390 px and printable.
import { html, type Renderable, type SafeHtml } from '../html/html.js';
import { markdown } from '../html/markdown.js';
import { likertItemScore, maxFootrule } from '../modules/attempts/scoring.js';
import { MIN_COHORT, type AssessmentReport, type QuestionReport } from '../modules/attempts/report.js';
import { reviewerName, reviewPanel, type ReviewViewer } from './review-view.js';
import type { AuditEntry } from '../modules/audit/audit.js';
import type { FeedbackSummary } from '../modules/attempts/feedback.js';
import type { CandidateListItem, CandidateSummary } from '../modules/candidates/repository.js';
import type { CandidateMarks } from '../modules/decisions/repository.js';
import { marksLine } from './decisions.js';
import type { KeySummary } from '../modules/keys/repository.js';
import type { Funnel } from '../modules/scores/insights.js';
import { brandOf } from '../modules/tenants/branding.js';
import type { Instance } from '../modules/tenants/repository.js';
import type { User } from '../modules/users/repository.js';
import { FAILURE_CATEGORIES } from '../modules/webhooks/post.js';
import { barChart } from './charts.js';

export interface Frame {
  user: User;
  csrf: string;
  /** Instances the user may open, and the one in view. */
  instances: string[];
  instance?: string;
  /** Instance name to the company its candidates see (display name, sender name or the name itself). */
  companies?: Record<string, string>;
  section: 'overview' | 'candidates' | 'reviews' | 'assessments' | 'invitations' | 'keys' | 'webhooks' | 'integrations' | 'settings' | 'users' | 'audit' | 'account';
  canManage: boolean;
}

const SECTIONS: { id: Frame['section']; label: string; manage?: boolean; owner?: boolean }[] = [
  { id: 'overview', label: 'Overview' },
  { id: 'candidates', label: 'Candidates' },
  { id: 'reviews', label: 'Review queue' },
  { id: 'assessments', label: 'Assessments' },
  { id: 'invitations', label: 'Invitations' },
  { id: 'keys', label: 'API keys', manage: true },
  { id: 'webhooks', label: 'Webhooks', manage: true },
  { id: 'integrations', label: 'Integrations', manage: true },
  { id: 'settings', label: 'Settings', manage: true },
  { id: 'users', label: 'Users', owner: true },
  { id: 'audit', label: 'Audit log', owner: true },
];

const sectionPath = (id: Frame['section'], instance?: string) => {
  const base = id === 'overview' ? '/console/' : `/console/${id}`;
  return instance && id !== 'audit' && id !== 'users' ? `${base}?instance=${encodeURIComponent(instance)}` : base;
};

export function head(title: string, csrf?: string): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${csrf && html`<meta name="csrf-token" content="${csrf}">`}
<title>${title} · Assessment Connect console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>`;
}

/** An instance as the console names it: the company candidates see, and the instance's name when that differs. */
function instanceLabel(frame: Frame, name: string): string {
  const company = frame.companies?.[name];
  return company && company !== name ? `${company} (${name})` : name;
}

export function consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml {
  const nav = SECTIONS.filter((s) => (!s.manage || frame.canManage) && (!s.owner || frame.user.role === 'owner')).map(
    (s) => html`<li><a href="${sectionPath(s.id, frame.instance)}"${s.id === frame.section && html` aria-current="page"`}>${s.label}</a></li>`,
  );
  const picker =
    frame.instances.length > 1 &&
    frame.section !== 'audit' &&
    frame.section !== 'users' &&
    frame.section !== 'account' &&
    html`<form method="get" action="${sectionPath(frame.section)}" class="instance-picker">
<label for="instance-select">Instance</label>
<select id="instance-select" name="instance">${frame.instances.map((name) => html`<option value="${name}"${name === frame.instance && html` selected`}>${instanceLabel(frame, name)}</option>`)}</select>
<button type="submit">Show</button>
</form>`;
  return html`<!doctype html>
<html lang="en">
${head(title, frame.csrf)}
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<p class="brand"><a href="/console/">Assessment Connect</a>${frame.instance && html` <span class="instance-name">· ${instanceLabel(frame, frame.instance)}</span>`}</p>
<nav aria-label="Console"><ul class="nav">${nav}</ul></nav>
<form method="post" action="/console/sign-out" class="sign-out">
<input type="hidden" name="_csrf" value="${frame.csrf}">
<span class="who"><a href="/console/account">${frame.user.email}</a> (${frame.user.role})</span>
<button type="submit">Sign out</button>
</form>
</header>
<main id="main" tabindex="-1">
${picker}
${body}
</main>
</body>
</html>`;
}

export function signInPage(options: {
  csrf: string;
  email?: string;
  error?: string;
  next?: string;
  status?: string;
  /** The instance named by ?instance=, with its single sign-on when it has one. */
  sso?: { instance: string; displayName?: string };
}): SafeHtml {
  const sso = options.sso;
  const ssoStart = (instance: string) => `/console/sso/${instance}${options.next ? `?next=${encodeURIComponent(options.next)}` : ''}`;
  return html`<!doctype html>
<html lang="en">
${head('Sign in')}
<body class="sign-in-body">
<main id="main" class="sign-in">
<h1>Sign in to the console</h1>
${options.status && html`<p class="info" role="status">${options.status}</p>`}
${options.error && html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>`}
<form method="post" action="/console/sign-in">
<input type="hidden" name="_csrf" value="${options.csrf}">
${options.next && html`<input type="hidden" name="next" value="${options.next}">`}
<label for="email">E-mail</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${options.email ?? ''}"${options.error && html` aria-describedby="sign-in-error"`}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="hint">Accounts are made by an owner (<code>assessment-connect user create</code>). Forgot your password? Ask an owner to reset it.</p>
<section class="sso" aria-labelledby="sso-heading">
<h2 id="sso-heading">Single sign-on</h2>
${
  sso?.displayName
    ? html`<p><a class="button primary" href="${ssoStart(sso.instance)}">Sign in with ${sso.displayName}</a></p>`
    : html`${sso && html`<p class="error" role="alert">Instance ${sso.instance} has no single sign-on.</p>`}
<form method="get" action="/console/sso">
${options.next && html`<input type="hidden" name="next" value="${options.next}">`}
<label for="sso-instance">Your instance's name</label>
<input type="text" id="sso-instance" name="instance" autocomplete="organization" pattern="[a-z][a-z0-9\\-]{0,62}" required value="${sso?.instance ?? ''}">
<button type="submit">Continue with single sign-on</button>
</form>`
}
</section>
</main>
</body>
</html>`;
}

export function messageBody(title: string, message: string): SafeHtml {
  return html`<h1>${title}</h1><p class="error">${message}</p>`;
}

/** A page opened by a signed report link: no console around it, nothing to change. */
/** `company`: whose report this is (brandOf). */
export function sharedReportPage(title: string, company: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body>
<header class="top"><p class="brand">Candidate report <span class="instance-name">· ${company}</span></p></header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`;
}

/** A page of a report link that opens nothing (invalid, expired or revoked). */
export function sharedReportMessage(title: string, message: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body><main id="main" class="sign-in"><h1>${title}</h1><p>${message}</p></main></body>
</html>`;
}

export function bareMessagePage(title: string, message: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title)}
<body><main id="main" class="sign-in"><h1>${title}</h1><p class="error">${message}</p><p><a href="/console/">Back to the console</a></p></main></body>
</html>`;
}

// ---- overview -------------------------------------------------------------------------------

export function overviewBody(
  instance: string,
  periods: { days: number; funnel: Funnel; failedMail: number }[],
  waitingReviews: number,
  webhooks: { disabled: number; failing: number } = { disabled: 0, failing: 0 },
): SafeHtml {
  const sections = periods.map(({ days, funnel, failedMail }) => {
    return html`<section class="panel" aria-labelledby="period-${days}">
<h2 id="period-${days}">Invited in the last ${days} days</h2>
${barChart(`Candidates invited in the last ${days} days, by how far they got`, [
  { label: 'Invited', value: funnel.invited },
  { label: 'Started', value: funnel.started },
  { label: 'Completed', value: funnel.completed },
  { label: 'Passed one (incl. low pass)', value: funnel.passedCandidates },
])}
<p class="hint">Each candidate counts once, however many assessments they were invited to: ${funnel.invited} candidate${funnel.invited === 1 ? '' : 's'}, ${funnel.invitations} invitation${funnel.invitations === 1 ? '' : 's'}. The results below count assessments.</p>
<dl class="figures">
<div><dt>Passed</dt><dd>${funnel.passed}</dd></div>
<div><dt>Low pass</dt><dd>${funnel.lowPassed}</dd></div>
<div><dt>Failed</dt><dd>${funnel.failed}</dd></div>
<div><dt>Awaiting a score</dt><dd>${funnel.pendingScore}</dd></div>
<div><dt>Red flags</dt><dd>${funnel.redFlags}</dd></div>
<div><dt>E-mails that failed</dt><dd>${failedMail}</dd></div>
</dl>
</section>`;
  });
  return html`<h1>Overview of ${instance}</h1>
<p class="lead"><a href="/console/reviews?instance=${instance}">${waitingReviews} free-text answer${waitingReviews === 1 ? '' : 's'} waiting for review</a></p>
${
  webhooks.disabled + webhooks.failing > 0 &&
  html`<p class="error" role="status"><a href="/console/webhooks?instance=${instance}">${webhooks.disabled} webhook endpoint${webhooks.disabled === 1 ? ' is' : 's are'} disabled and ${webhooks.failing} failing</a>: their events are not arriving.</p>`
}
<div class="panels">${sections}</div>`;
}

// ---- candidates -----------------------------------------------------------------------------

export interface CandidateFilters {
  q?: string;
  assessment?: string;
  status?: string;
  score?: string;
  flag?: string;
  days?: string;
  decision?: string;
  tag?: string;
}

const select = (name: string, label: string, current: string | undefined, options: [string, string][]) =>
  html`<div class="field"><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}">${options.map(
    ([value, text]) => html`<option value="${value}"${value === (current ?? '') && html` selected`}>${text}</option>`,
  )}</select></div>`;

export function candidatesBody(
  instance: string,
  filters: CandidateFilters,
  assessments: { id: string; name: string }[],
  items: CandidateListItem[],
  nextHref?: string,
  extra: { marks?: Map<string, CandidateMarks>; tags?: string[]; csvHref?: string; saved?: SafeHtml } = {},
): SafeHtml {
  const rows = items.map(
    (c) => html`<tr>
<td><input type="checkbox" name="ids" value="${c.id}" form="compare-form" aria-label="${`Compare ${c.email === null ? 'erased candidate' : `${c.firstName} ${c.lastName}`}`}"></td>
<th scope="row"><a href="/console/candidates/${c.id}?instance=${instance}">${c.email === null ? 'Erased candidate' : `${c.firstName} ${c.lastName}`}</a></th>
<td>${c.email ?? '(erased)'}</td>
<td><ul class="plain">${c.invitations.map(
      (i) =>
        html`<li>${i.assessmentName}: ${statusText(i.assessmentStatus)}${i.assessmentStatus === 'COMPLETED' && html`, ${scoreBadge(i.scoreStatus)} ${i.scoreStatus === 'PENDING' ? '' : `${Number(i.totalScore)} %`}`}${i.redFlag && html` <span class="flag">red flag</span>`}</li>`,
    )}</ul></td>
<td>${marksLine(extra.marks?.get(c.id))}</td>
</tr>`,
  );
  return html`<h1>Candidates of ${instance}</h1>
<form method="get" action="/console/candidates" class="filters" role="search">
<input type="hidden" name="instance" value="${instance}">
<div class="field grow"><label for="f-q">Name or e-mail starts with</label><input type="search" id="f-q" name="q" value="${filters.q ?? ''}" maxlength="100"></div>
${select('assessment', 'Assessment', filters.assessment, [['', 'Any'], ...assessments.map((a): [string, string] => [a.id, a.name])])}
${select('status', 'Status', filters.status, [
  ['', 'Any'],
  ['INVITED', 'Not started'],
  ['IN_PROGRESS', 'In progress'],
  ['COMPLETED', 'Completed'],
])}
${select('score', 'Result', filters.score, [
  ['', 'Any'],
  ['PASS', 'Pass'],
  ['LOW_PASS', 'Low pass'],
  ['FAIL', 'Fail'],
  ['PENDING', 'Awaiting a score'],
])}
${select('flag', 'Red flag', filters.flag, [
  ['', 'Any'],
  ['yes', 'Red-flagged'],
  ['no', 'Not flagged'],
])}
${select('days', 'Invited', filters.days, [
  ['', 'Any time'],
  ['7', 'Last 7 days'],
  ['30', 'Last 30 days'],
  ['90', 'Last 90 days'],
])}
${select('decision', 'Decision', filters.decision, [
  ['', 'Any'],
  ['advance', 'Advance'],
  ['hold', 'Hold'],
  ['reject', 'Reject'],
  ['none', 'None yet'],
])}
${select('tag', 'Tag', filters.tag, [['', 'Any'], ...(extra.tags ?? []).map((t): [string, string] => [t, t])])}
<button type="submit" class="primary">Search</button>
</form>
${extra.saved}
${
  items.length === 0
    ? html`<p>No candidate matches.</p>`
    : html`<table class="data">
<caption class="visually-hidden">Candidates</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Compare</span></th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Assessments</th><th scope="col">Decision and tags</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${
  items.length > 1 &&
  html`<form id="compare-form" method="get" action="/console/compare" class="compare-form">
<input type="hidden" name="instance" value="${instance}">${filters.assessment && html`<input type="hidden" name="assessment" value="${filters.assessment}">`}
<button type="submit">Compare the chosen candidates</button> (2 to 10, side by side${filters.assessment ? '' : ' on the assessment most of them took'})
</form>`
}
${extra.csvHref && items.length > 0 && html`<p><a href="${extra.csvHref}" download>Download these candidates as CSV</a> (with decisions, notes and tags)</p>`}
${nextHref && html`<p><a class="button" href="${nextHref}" rel="next">Next page</a></p>`}`;
}

const STATUS_TEXT: Record<string, string> = { INVITED: 'not started', IN_PROGRESS: 'in progress', COMPLETED: 'completed' };
export const statusText = (s: string) => STATUS_TEXT[s] ?? s;
export const SCORE_TEXT: Record<string, string> = { PASS: 'Pass', LOW_PASS: 'Low pass', FAIL: 'Fail', PENDING: 'Awaiting a score' };
const scoreBadge = (s: string) => html`<span class="badge badge-${s.toLowerCase()}">${SCORE_TEXT[s] ?? s}</span>`;

// ---- the candidate report -------------------------------------------------------------------

export const when = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '-');

export function duration(report: AssessmentReport): string {
  const a = report.attempt;
  if (!a?.finishedAt) return '-';
  const seconds = Math.round((new Date(a.finishedAt).getTime() - new Date(a.startedAt).getTime()) / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** A Likert item: every point with the one chosen, and how the key scores it. */
function likertCell(q: QuestionReport, likert: NonNullable<QuestionReport['likert']>): Renderable {
  const k = likert.labels.length;
  const keyText = likert.reverse
    ? `Reverse-keyed: “${likert.labels[0]}” scores ${k}, “${likert.labels[k - 1]}” scores 1 (score = ${k + 1} − point).`
    : `Keyed: “${likert.labels[0]}” scores 1, “${likert.labels[k - 1]}” scores ${k}.`;
  return html`${!q.answered && html`<p><em>Not answered</em> (scores as the lowest point of the key)</p>`}<ul class="plain">${likert.labels.map(
    (label, i) =>
      html`<li>${likert.chosen === i ? '☑' : '☐'} ${label} <span class="hint">(scores ${likertItemScore(k, i, likert.reverse)})</span>${likert.chosen === i && html` <strong>chosen</strong>`}</li>`,
  )}</ul>
<p class="hint">${keyText}${likert.score !== null && ` Keyed score ${likert.score} of ${k}.`}</p>`;
}

/** A ranking: the candidate's order beside the key's, with how far each option stands from its place in the key. */
function rankingCell(q: QuestionReport, ranking: NonNullable<QuestionReport['ranking']>): Renderable {
  const given = ranking.given;
  const distance = given ? given.reduce((sum, text, i) => sum + Math.abs(i - ranking.key.indexOf(text)), 0) : 0;
  if (!given) return html`<p><em>Not answered</em></p><p class="hint">Key: ${ranking.key.map((t, i) => html`${i > 0 && ' · '}${i + 1}. ${t}`)}</p>`;
  return html`<table class="ranking-report"><caption class="visually-hidden">Candidate's order and the key of question ${q.id}</caption>
<thead><tr><th scope="col" class="num">Place</th><th scope="col">Candidate's order</th><th scope="col">Key</th><th scope="col" class="num">Places from the key</th></tr></thead>
<tbody>${given.map(
    (text, i) => html`<tr><th scope="row" class="num">${i + 1}</th><td>${text}</td><td>${ranking.key[i]}</td><td class="num">${Math.abs(i - ranking.key.indexOf(text))}</td></tr>`,
  )}</tbody></table>
<p class="hint">Footrule distance ${distance} of at most ${maxFootrule(given.length)}: credit = 1 − ${distance} / ${maxFootrule(given.length)}.</p>`;
}

function answerCell(q: QuestionReport): Renderable {
  if (q.likert) return likertCell(q, q.likert);
  if (q.ranking) return rankingCell(q, q.ranking);
  if (!q.answered) return html`<em>Not answered</em>`;
  if (q.options.length > 0) {
    return html`<ul class="plain">${q.options.map(
      (o) =>
        html`<li>${o.chosen ? '☑' : '☐'} ${o.text}${o.correct && html` <span class="correct">(correct)</span>`}${o.chosen && !o.correct && html` <span class="wrong">(wrong)</span>`}</li>`,
    )}</ul>`;
  }
  return html`<p class="pre answer-text">${q.text ?? ''}</p>${q.accepted.length > 0 && html`<p class="hint">Accepted: ${q.accepted.join(' | ')}</p>`}`;
}

/** The kinds of an attempt's signals not yet dismissed as a whole. */
const kindsToDismiss = (r: AssessmentReport) =>
  [...new Set([...r.signals.map((s) => s.kind as string), ...r.notStored.map((k) => k.kind)])].filter((k) => !(k in r.dismissedKinds));

/** A reviewer's form to dismiss one signal, or every signal of a kind, with a reason. */
function dismissForm(attemptId: string, options: { csrf: string; instance: string }, what: { signalId?: string; kind?: string; label: string }): SafeHtml {
  const id = `dismiss-${attemptId}-${what.signalId ?? what.kind}`;
  return html`<form method="post" action="/console/signals/dismiss" class="dismiss-form">
<input type="hidden" name="_csrf" value="${options.csrf}"><input type="hidden" name="instance" value="${options.instance}"><input type="hidden" name="attemptId" value="${attemptId}">
${what.signalId ? html`<input type="hidden" name="signalId" value="${what.signalId}">` : html`<input type="hidden" name="kind" value="${what.kind ?? ''}">`}
<label for="${id}" class="visually-hidden">Why dismiss ${what.label}</label><input type="text" id="${id}" name="reason" required maxlength="500" placeholder="Why (e.g. closed the laptop lid)">
<button type="submit">Dismiss<span class="visually-hidden"> ${what.label}</span></button>
</form>`;
}

export { reviewerName };

/** The report of a candidate: in the console, or (with `pdfHref`) shared by a signed link, read-only. */
/** A percentile with its group, or why there is none yet (the group is too small to compare with). */
export function percentileText(r: Pick<AssessmentReport, 'percentile' | 'cohort' | 'record'>): string {
  if (r.percentile !== null) return `${r.percentile} (among ${r.cohort} who completed this version)`;
  if (r.record.assessmentStatus !== 'COMPLETED' || r.record.scoreStatus === 'PENDING') return '-';
  const more = MIN_COHORT - r.cohort;
  return more > 0 ? `not yet: ${r.cohort} completed this version, ${more} more needed (a percentile needs ${MIN_COHORT})` : '-';
}

const ATS_NAMES: Record<string, string> = { greenhouse: 'Greenhouse', ashby: 'Ashby', console: 'the console' };
const EXTERNAL_LABELS: Record<string, string> = { applicationId: 'application', candidateId: 'candidate', jobName: 'job', sentBy: 'sent by' };

/** Where an invitation came from, with the ATS's identifiers of it. */
function originText(origin: AssessmentReport['origin']): SafeHtml {
  const requests = origin.ats.map((a) => {
    const ids = Object.entries(EXTERNAL_LABELS)
      .filter(([key]) => typeof a.external[key] === 'string')
      .map(([key, label]) => `${label} ${String(a.external[key])}`);
    return html` · ${ATS_NAMES[a.partner] ?? a.partner} <code>${a.id}</code>${ids.length > 0 && ` (${ids.join(', ')})`}`;
  });
  return html`${ATS_NAMES[origin.source] ?? origin.source}${requests}`;
}

export function reportBody(
  candidate: CandidateSummary,
  reports: AssessmentReport[],
  options: {
    csrf: string;
    instance: string;
    canReview: boolean;
    canRetake?: boolean;
    notice?: string;
    pdfHref?: string;
    company?: string;
    marks?: SafeHtml;
    /** Who reads it, for blind review (review-view.ts). */
    viewer?: ReviewViewer;
  },
): SafeHtml {
  // Shared by a report link (pdfHref): recruiters do not see accommodations, nor what operators do.
  const operator = options.pdfHref === undefined;
  const sections = reports.map((r) => {
    const rec = r.record;
    const scored = rec.assessmentStatus === 'COMPLETED' && rec.scoreStatus !== 'PENDING';
    const categories =
      scored &&
      barChart(
        `${r.assessmentName}: score per category, against the average of everyone who completed this version`,
        rec.categoryScores.map((c) => ({ label: c.name, value: Number(c.score), marker: r.categoryAverages[c.name] })),
        { max: 100, unit: ' %', markerLabel: 'average' },
      );
    return html`<section class="report" aria-labelledby="a-${rec.assessmentId}">
<h2 id="a-${rec.assessmentId}">${r.assessmentName}</h2>
<dl class="figures">
<div><dt>Status</dt><dd>${statusText(rec.assessmentStatus)}</dd></div>
<div><dt>Result</dt><dd>${rec.assessmentStatus === 'COMPLETED' ? scoreBadge(rec.scoreStatus) : '-'}</dd></div>
<div><dt>Total score</dt><dd>${scored ? `${rec.totalScore} %` : '-'}</dd></div>
<div><dt>Thresholds</dt><dd>pass ${r.passScore} %, low pass ${r.lowPassScore} %</dd></div>
<div><dt>Percentile</dt><dd>${percentileText(r)}</dd></div>
<div><dt>Completion</dt><dd>${rec.completion} %</dd></div>
<div><dt>Typing</dt><dd>${r.attempt?.typingWpm !== null && r.attempt?.typingWpm !== undefined ? `${rec.typingSpeed} wpm, ${r.attempt.typingAccuracy ?? 0} % accurate` : '-'}</dd></div>
<div><dt>Time taken</dt><dd>${duration(r)}</dd></div>
<div><dt>Started</dt><dd>${r.attempt ? when(r.attempt.startedAt) : '-'}</dd></div>
<div><dt>Finished</dt><dd>${r.attempt?.finishedAt ? html`${when(r.attempt.finishedAt)} (${r.attempt.endReason === 'time-limit' ? 'time ran out' : 'submitted'})` : '-'}</dd></div>
<div><dt>Red flag</dt><dd>${rec.redFlag ? html`<span class="flag">yes</span>: ${r.redFlagReasons.join('; ')}` : 'no'}</dd></div>
<div><dt>Risk</dt><dd>${riskText(r)}</dd></div>
${operator && r.origin.source !== 'api' && html`<div><dt>Invited through</dt><dd>${originText(r.origin)}</dd></div>`}
${operator && r.origin.externalReference && html`<div><dt>Client's reference</dt><dd><code>${r.origin.externalReference}</code></dd></div>`}
${operator && r.extraTimePercent > 0 && html`<div><dt>Accommodation</dt><dd>${r.extraTimePercent} % extra time (the candidate saw only their time limit)</dd></div>`}
</dl>
${
  r.earlier.length > 0 &&
  html`<h3>Earlier attempts (before a retake)</h3>
<ul class="plain">${r.earlier.map(
    (e) =>
      html`<li>Started ${when(e.startedAt)}, ${e.finishedAt ? html`finished ${when(e.finishedAt)}` : 'not finished'}${e.record && html`: ${statusText(e.record.assessmentStatus)}, ${SCORE_TEXT[e.record.scoreStatus] ?? e.record.scoreStatus}${e.record.scoreStatus !== 'PENDING' && ` ${e.record.totalScore} %`}`}; replaced ${when(e.supersededAt)}</li>`,
  )}</ul>`
}
${
  operator &&
  options.canRetake &&
  (rec.assessmentStatus === 'COMPLETED' || r.attempt?.endReason === 'cancelled') &&
  html`<form method="post" action="/console/candidates/${candidate.id}/retake" class="no-print retake-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${options.instance}">
<input type="hidden" name="assessmentId" value="${rec.assessmentId}">
<button type="submit">Let them retake ${r.assessmentName}</button> <span class="hint">The result above stays in the history; the candidate gets a fresh link by e-mail.</span>
</form>`
}
${categories}
${
  r.questions.length > 0 &&
  html`<h3>Answers</h3>
${r.layoutNotes.length > 0 && html`<p class="layout-notes">As this candidate saw them: ${r.layoutNotes.join('; ')}.</p>`}
<ol class="answers">${r.questions.map(
    (q) => html`<li class="answer">
<div class="prompt">${markdown(q.prompt)}</div>
<p class="hint">${q.category} · ${q.type} · ${q.credit === null ? 'awaiting review' : `${Math.round(q.credit * 1000) / 10} % credit`}</p>
${answerCell(q)}
${reviewPanel(q, { attemptId: r.attempt?.id, finished: Boolean(r.attempt?.finishedAt), csrf: options.csrf, instance: options.instance, canReview: options.canReview, viewer: options.viewer })}
</li>`,
  )}</ol>`
}
${operator ? similarSection(r, options.instance) : similarNote(r)}
${
  r.attempt &&
  html`<h3>Proctoring timeline</h3>
<p>First seen from ${r.attempt.firstAddress ?? 'unknown address'} with ${r.attempt.firstAgent ?? 'an unknown browser'}.</p>
${
  r.signals.length === 0
    ? html`<p>No signals were recorded.</p>`
    : html`<table class="data"><caption class="visually-hidden">Proctoring signals of ${r.assessmentName}</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Signal</th><th scope="col">Detail</th><th scope="col">Source</th><th scope="col">Dismissed</th></tr></thead>
<tbody>${r.signals.map(
        (s) =>
          html`<tr${s.dismissed && html` class="dismissed"`}><td>${when(s.at)}</td><td>${s.kind}</td><td>${s.detail}</td><td>${s.source}</td><td>${
            s.dismissed
              ? html`by ${reviewerName(s.dismissed.by)} on ${when(s.dismissed.at)}: ${s.dismissed.reason}`
              : operator && options.canReview && dismissForm(r.attempt!.id, options, { signalId: s.id, label: `${s.kind} at ${when(s.at)}` })
          }</td></tr>`,
      )}</tbody></table>`
}
${r.notStored.length > 0 && html`<p>Only the first ${r.signals.length} signals are kept one by one; after them the page reported ${r.notStored.map((k) => `${k.count.toLocaleString('en')} × ${k.kind}`).join(', ')} more, counted toward the red flag.</p>`}
${Object.entries(r.dismissedKinds).map(([kind, d]) => html`<p class="hint">Every ${kind} signal was dismissed by ${reviewerName(d!.by)} on ${when(d!.at)}: ${d!.reason}</p>`)}
${
  operator &&
  options.canReview &&
  kindsToDismiss(r).length > 0 &&
  html`<details class="no-print"><summary>Dismiss every signal of a kind</summary>${kindsToDismiss(r).map((kind) => dismissForm(r.attempt!.id, options, { kind, label: `every ${kind} signal` }))}</details>`
}
${r.redFlagReasons.length > 0 ? html`<p>Rules that raised the red flag: ${r.redFlagReasons.join('; ')}.</p>` : r.signals.some((s) => s.dismissed) && html`<p>No rule raises the red flag once the dismissed signals are left out.</p>`}`
}
</section>`;
  });
  const tools =
    options.pdfHref === undefined
      ? html`<a href="/console/candidates?instance=${options.instance}">Back to candidates</a> · <button type="button" class="print-button" hidden>Print this report</button>`
      : html`<a href="${options.pdfHref}">Download as PDF</a> · <button type="button" class="print-button" hidden>Print this report</button>`;
  return html`${options.notice && html`<p class="info" role="status">${options.notice}</p>`}<p class="no-print">${tools}</p>
<h1>${candidate.email === null ? 'Erased candidate' : `${candidate.firstName} ${candidate.lastName}`}${options.company && html`<span class="report-company"> · ${options.company}</span>`}</h1>
<p>${candidate.email ?? 'Personal data erased'} · candidate id <code>${candidate.id}</code> · instance ${candidate.instance}</p>
${options.marks}
${sections}`;
}

/** The risk level in words, with its reasons (docs/integrity.md). */
export function riskText(r: Pick<AssessmentReport, 'risk' | 'attempt'>): SafeHtml | string {
  if (!r.attempt) return '-';
  const { level, reasons } = r.risk;
  return html`<span class="risk risk-${level}">${level}</span>${reasons.length > 0 && html`: ${reasons.join('; ')}`}`;
}

/** A report link's recruiter is told that answers are alike, not whose: other candidates' names and answers stay in the console. */
function similarNote(r: AssessmentReport): SafeHtml | false {
  if (r.similar.length === 0) return false;
  const top = Math.max(...r.similar.map((p) => Math.round(p.score * 100)));
  return html`<h3>Similar answers</h3>
<p>${r.similar.length === 1 ? 'One answer is' : `${r.similar.length} answers are`} alike to other candidates' (up to ${top} %); reviewers compare them side by side in the console.</p>`;
}

/** Answers of other candidates that are alike, side by side with the shared parts marked (docs/integrity.md). */
function similarSection(r: AssessmentReport, instance: string): SafeHtml | false {
  if (r.similar.length === 0) return false;
  const marked = (segments: AssessmentReport['similar'][number]['mine']) => segments.map((s) => (s.shared ? html`<mark>${s.text}</mark>` : html`${s.text}`));
  return html`<h3>Similar answers</h3>
<p class="hint">Answers to the same question by other candidates of this instance whose fingerprints overlap this candidate's; the shared parts are marked. Alike is not copied: read both before deciding.</p>
<ul class="similar">${r.similar.map(
    (pair) => html`<li class="similar-pair">
<div class="prompt">${markdown(pair.prompt)}</div>
<p>${Math.round(pair.score * 100)} % alike (${pair.shared} shared fingerprints) with <a href="/console/candidates/${pair.other.candidateId}?instance=${instance}">${pair.other.candidateName ?? 'an erased candidate'}</a></p>
<div class="side-by-side">
<figure><figcaption>This candidate</figcaption><pre class="answer-text">${marked(pair.mine)}</pre></figure>
<figure><figcaption>${pair.other.candidateName ?? 'Erased candidate'}</figcaption><pre class="answer-text">${marked(pair.theirs)}</pre></figure>
</div>
</li>`,
  )}</ul>`;
}

// The review queue is reviews.ts's.

// ---- keys -----------------------------------------------------------------------------------

export function keysBody(instance: string, keys: KeySummary[], csrf: string, created?: { id: string; key: string }): SafeHtml {
  return html`<h1>API keys of ${instance}</h1>
${
  created &&
  html`<div class="panel created-key" role="status"><p><strong>New key ${created.id}.</strong> It is shown this once: copy it now into the client's secret store.</p>
<p><code class="secret" id="new-key">${created.key}</code></p></div>`
}
<form method="post" action="/console/keys" class="filters">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<div class="field grow"><label for="key-label">Label</label><input type="text" id="key-label" name="label" maxlength="200" placeholder="e.g. Greenhouse production"></div>
<div class="field"><label for="key-rate">Requests per minute (optional)</label><input type="number" id="key-rate" name="rateLimit" min="1" max="1000000" step="1"></div>
<button type="submit" class="primary">Create a key</button>
</form>
${
  keys.length === 0
    ? html`<p>No keys yet.</p>`
    : html`<table class="data"><caption class="visually-hidden">API keys</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Label</th><th scope="col">Instances</th><th scope="col">Rate limit</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>${keys.map(
        (k) => html`<tr><th scope="row"><code>${k.prefix}…</code><br><span class="hint">${k.id}</span></th><td>${k.label ?? '-'}</td><td>${k.instances.join(', ')}</td>
<td>${
          k.revokedAt
            ? k.rateLimit === null
              ? 'default'
              : `${k.rateLimit}/min`
            : html`<form method="post" action="/console/keys/${k.id}/rate-limit" class="inline rate-form">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">
<label for="rate-${k.id}" class="visually-hidden">Requests per minute for ${k.id} (empty: the service default)</label>
<input type="number" id="rate-${k.id}" name="rateLimit" min="1" max="1000000" step="1" value="${k.rateLimit ?? ''}" placeholder="default">
<button type="submit">Set<span class="visually-hidden"> the rate limit of ${k.id}</span></button></form>`
        }</td><td>${when(k.lastUsedAt)}</td>
<td>${
          k.revokedAt
            ? `revoked ${when(k.revokedAt)}`
            : html`<form method="post" action="/console/keys/${k.id}/revoke" class="inline confirm" data-confirm="${`Revoke ${k.id}? Clients using it stop working at once.`}">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">
<button type="submit" class="danger">Revoke<span class="visually-hidden"> ${k.id}</span></button></form>`
        }</td></tr>`,
      )}</tbody></table>`
}`;
}

// ---- audit ----------------------------------------------------------------------------------

export function auditBody(entries: AuditEntry[], filters: { actor?: string; action?: string }, nextHref?: string): SafeHtml {
  return html`<h1>Audit log</h1>
<form method="get" action="/console/audit" class="filters" role="search">
<div class="field"><label for="f-actor">Who</label><input type="text" id="f-actor" name="actor" value="${filters.actor ?? ''}" maxlength="300"></div>
<div class="field"><label for="f-action">Action starts with</label><input type="text" id="f-action" name="action" value="${filters.action ?? ''}" maxlength="100"></div>
<button type="submit" class="primary">Filter</button>
</form>
<table class="data"><caption class="visually-hidden">Audit entries, newest first</caption>
<thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Status</th><th scope="col">From</th></tr></thead>
<tbody>${entries.map(
    (e) => html`<tr><td>${e.id}</td><td>${when(e.at)}</td><td>${e.actor}</td><td>${e.action}</td><td>${e.target ?? '-'}</td><td>${e.status}</td><td>${e.clientIp}</td></tr>`,
  )}</tbody></table>
${nextHref && html`<p><a class="button" href="${nextHref}" rel="next">Older entries</a></p>`}`;
}

// ---- assessments ----------------------------------------------------------------------------

export interface AssessmentView {
  id: string;
  name: string;
  /** What it measures, and (library content) for which roles and at what reading level. */
  description: string;
  roles?: string[];
  readingLevel?: string;
  version: number;
  questionCount: number;
  durationMinutes: number;
  typingTest: boolean;
  passScore: number;
  lowPassScore: number;
  distribution: { bins: number[]; passRate: number | null; count: number };
  /** Candidates' feedback after submitting; undefined when none gave any. */
  feedback?: FeedbackSummary;
}

/** Candidates' feedback on one assessment: average, count, distribution, latest comments. */
function feedbackPanel(instance: string, a: AssessmentView): SafeHtml {
  const f = a.feedback;
  if (!f || f.count === 0) return html`<h3>Candidate feedback</h3><p>No candidate has given feedback yet.</p>`;
  return html`<h3>Candidate feedback</h3>
<dl class="figures">
<div><dt>Average rating</dt><dd>${f.average} of 5</dd></div>
<div><dt>Ratings</dt><dd>${f.count}</dd></div>
</dl>
${barChart(
  `${a.name}: candidates' ratings, 1 (poor) to 5 (very good)`,
  f.distribution.map((n, i) => ({ label: `${i + 1}`, value: n })),
)}
${
  f.comments.length > 0 &&
  html`<h4>Latest comments</h4>
<ul class="plain feedback-comments">${f.comments.map(
    (c) =>
      html`<li><p>${c.comment}</p><p class="hint">Rated ${c.rating} · ${when(c.at)} · <a href="/console/candidates/${c.candidateId}?instance=${instance}">${c.candidateName ?? 'Erased candidate'}</a></p></li>`,
  )}</ul>`
}`;
}

export interface ImportState {
  source: string;
  errors?: { line?: number; column?: number; name: string; detail: string }[];
  published?: string;
}

export function assessmentsBody(instance: string, items: AssessmentView[], options: { csrf: string; canManage: boolean; importState?: ImportState }): SafeHtml {
  const state = options.importState;
  const importForm =
    options.canManage &&
    html`<section class="panel" aria-labelledby="import-heading">
<h2 id="import-heading">Publish an assessment</h2>
<p>Paste a YAML or JSON document (the same format as <code>assessment import</code>), or choose a file. Publishing changed content makes a new version; candidates who started keep theirs.</p>
${state?.published && html`<p class="info" role="status">${state.published}</p>`}
${
  state?.errors &&
  html`<div class="error-list" role="alert" id="import-errors"><p class="error">The document has ${state.errors.length} problem${state.errors.length === 1 ? '' : 's'}; nothing was published:</p>
<ul>${state.errors.map((e) => html`<li>${e.line ? html`<strong>Line ${e.line}${e.column ? `, column ${e.column}` : ''}:</strong> ` : ''}<code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`
}
<form method="post" action="/console/assessments" class="import-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${instance}">
<label for="import-file">File (optional)</label>
<input type="file" id="import-file" accept=".yaml,.yml,.json,application/json,text/yaml" data-fills="import-source">
<label for="import-source">Document</label>
<textarea id="import-source" name="source" rows="14" spellcheck="false" required${state?.errors && html` aria-describedby="import-errors" aria-invalid="true"`}>${state?.source ?? ''}</textarea>
<button type="submit" class="primary">Check and publish</button>
</form>
</section>`;
  return html`<h1>Assessments of ${instance}</h1>
${importForm}
${
  items.length === 0
    ? html`<p>No assessment is published yet.</p>`
    : items.map(
        (a) => html`<section class="panel" aria-labelledby="as-${a.id}">
<h2 id="as-${a.id}">${a.name} <span class="hint">(${a.id}, version ${a.version})</span></h2>
<p>${a.description}</p>
<dl class="figures">
<div><dt>Questions</dt><dd>${a.questionCount}${a.typingTest ? ' + typing test' : ''}</dd></div>
<div><dt>Time limit</dt><dd>${a.durationMinutes} min</dd></div>
${a.roles && html`<div><dt>For roles</dt><dd>${a.roles.join(', ')}</dd></div>`}
${a.readingLevel && html`<div><dt>Reading level</dt><dd>${a.readingLevel}</dd></div>`}
<div><dt>Pass / low pass</dt><dd>${a.passScore} % / ${a.lowPassScore} %</dd></div>
<div><dt>Completed and scored</dt><dd>${a.distribution.count}</dd></div>
<div><dt>Pass rate</dt><dd>${a.distribution.passRate === null ? '-' : `${a.distribution.passRate} %`}</dd></div>
</dl>
${
  a.distribution.count > 0 &&
  barChart(
    `${a.name}: total scores of everyone who completed it`,
    a.distribution.bins.map((n, i) => ({ label: i === 9 ? '90–100 %' : `${i * 10}–${i * 10 + 9} %`, value: n })),
  )
}
${feedbackPanel(instance, a)}
<p><a href="/console/assessments/${a.id}/preview?instance=${instance}">Preview as a candidate sees it</a></p>
</section>`,
      )
}`;
}

export function previewBody(
  instance: string,
  content: { name: string; description: string; durationMinutes: number; instructions?: string; roles?: string[]; readingLevel?: string },
  questions: SafeHtml[],
  passage: string | undefined,
  fairness: { notes: string[]; practice?: SafeHtml } = { notes: [] },
): SafeHtml {
  return html`<p class="no-print"><a href="/console/assessments?instance=${instance}">Back to assessments</a></p>
<h1>Preview: ${content.name}</h1>
<p class="info">This is a preview: nothing you enter is saved, and no attempt is made.</p>
<p>${content.description}</p>
<p>Time limit: ${content.durationMinutes} minutes.</p>
${content.roles && html`<p>For roles: ${content.roles.join(', ')}.</p>`}
${content.readingLevel && html`<p>Reading level: ${content.readingLevel}.</p>`}
${content.instructions && html`<h2>Instructions</h2><p class="pre">${content.instructions}</p>`}
${fairness.notes.length > 0 && html`<p class="layout-notes">For each attempt: ${fairness.notes.map((n) => n.replace(' for this attempt', '').replace(' (as listed)', '')).join('; ')}. All the questions are listed here in the authored order.</p>`}
${fairness.practice && html`<h2>Practice question (before the clock starts; never scored)</h2><form class="preview-question" action="#" aria-label="Practice question">${fairness.practice}</form>`}
<ol class="answers preview">${questions.map((q, i) => html`<li class="answer"><h2 class="hint">Question ${i + 1} of ${questions.length + (passage ? 1 : 0)}</h2><form class="preview-question" action="#" aria-label="${`Question ${i + 1}`}">${q}</form></li>`)}</ol>
${passage && html`<h2>Typing test</h2><blockquote class="pre answer-text">${passage}</blockquote>`}`;
}

// ---- invitations ----------------------------------------------------------------------------

export interface InvitationsState {
  values?: { email?: string; firstName?: string; lastName?: string; assessments?: string[] };
  errors?: { name: string; detail: string }[];
  result?: { link: string; candidateId: string; invitationStatus?: string; email: string };
  resent?: string;
}

export function invitationsBody(
  instance: string,
  assessments: { id: string; name: string }[],
  deliveries: { id: string; candidateId: string; recipient: string; status: string; response: string; attemptedAt: Date }[],
  options: { csrf: string; canManage: boolean; state?: InvitationsState },
): SafeHtml {
  const state = options.state ?? {};
  const v = state.values ?? {};
  const form =
    options.canManage &&
    html`<section class="panel" aria-labelledby="invite-heading">
<h2 id="invite-heading">Invite a candidate</h2>
<p><a href="/console/invite/bulk?instance=${encodeURIComponent(instance)}" id="bulk-invite-link">Invite many from a CSV file</a></p>
${
  state.result &&
  html`<div class="info" role="status"><p>Invited ${state.result.email}${state.result.invitationStatus ? ` (e-mail ${state.result.invitationStatus})` : ''}. <a href="/console/candidates/${state.result.candidateId}?instance=${instance}">Open their report</a>.</p>
<p>Their link, if you send it yourself: <code class="secret">${state.result.link}</code></p></div>`
}
${state.errors && html`<div role="alert" id="invite-errors"><p class="error">Nothing was sent:</p><ul>${state.errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`}
<form method="post" action="/console/invitations" class="invite-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${instance}">
<div class="field"><label for="inv-email">E-mail</label><input type="email" id="inv-email" name="email" required maxlength="254" value="${v.email ?? ''}" autocomplete="off"></div>
<div class="field"><label for="inv-first">First name</label><input type="text" id="inv-first" name="firstName" required maxlength="100" value="${v.firstName ?? ''}" autocomplete="off"></div>
<div class="field"><label for="inv-last">Last name</label><input type="text" id="inv-last" name="lastName" required maxlength="100" value="${v.lastName ?? ''}" autocomplete="off"></div>
<fieldset><legend>Assessments</legend>
${assessments.map(
  (a) =>
    html`<div class="option"><input type="checkbox" id="inv-a-${a.id}" name="assessments" value="${a.id}"${(v.assessments ?? []).includes(a.id) && html` checked`}><label for="inv-a-${a.id}">${a.name}</label></div>`,
)}
</fieldset>
<div class="option"><input type="checkbox" id="inv-send" name="sendInvite" value="true" checked><label for="inv-send">E-mail the invitation to the candidate</label></div>
<button type="submit" class="primary">Invite</button>
</form>
</section>`;
  return html`<h1>Invitations of ${instance}</h1>
${form}
<h2>Recent invitation e-mails</h2>
${state.resent && html`<p class="info" role="status">${state.resent}</p>`}
${
  deliveries.length === 0
    ? html`<p>No e-mail has been sent yet.</p>`
    : html`<table class="data"><caption class="visually-hidden">Invitation e-mails, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">To</th><th scope="col">Status</th><th scope="col">The relay said</th>${options.canManage && html`<th scope="col">Action</th>`}</tr></thead>
<tbody>${deliveries.map(
        (d) => html`<tr><td>${when(d.attemptedAt)}</td><td><a href="/console/candidates/${d.candidateId}?instance=${instance}">${d.recipient}</a></td>
<td>${d.status === 'SENT' ? 'sent' : html`<span class="flag">failed</span>`}</td><td>${d.response}</td>
${options.canManage && html`<td><form method="post" action="/console/invitations/${d.id}/resend" class="inline"><input type="hidden" name="_csrf" value="${options.csrf}"><input type="hidden" name="instance" value="${instance}"><button type="submit">Resend<span class="visually-hidden"> to ${d.recipient}</span></button></form></td>`}</tr>`,
      )}</tbody></table>`
}`;
}

// ---- users (owners) -------------------------------------------------------------------------

export function usersBody(users: User[], instances: string[], csrf: string, created?: { email: string; password: string }, errors?: { name: string; detail: string }[]): SafeHtml {
  return html`<h1>Users</h1>
${
  created &&
  html`<div class="panel" role="status"><p><strong>${created.email}</strong> can sign in with this one-time password, shown once. Pass it on safely.</p><p><code class="secret">${created.password}</code></p></div>`
}
${errors && html`<div role="alert"><p class="error">No user was made:</p><ul>${errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`}
<section class="panel" aria-labelledby="new-user">
<h2 id="new-user">Add a user</h2>
<form method="post" action="/console/users" class="invite-form">
<input type="hidden" name="_csrf" value="${csrf}">
<div class="field"><label for="user-email">E-mail</label><input type="email" id="user-email" name="email" required maxlength="254" autocomplete="off"></div>
<div class="field"><label for="user-role">Role</label><select id="user-role" name="role"><option value="reviewer">Reviewer: reads results, scores free-text answers</option><option value="manager">Manager: also invitations, content and keys</option><option value="owner">Owner: everything, every instance</option></select></div>
<fieldset><legend>Instances (managers and reviewers)</legend>
${instances.map((name) => html`<div class="option"><input type="checkbox" id="user-i-${name}" name="instances" value="${name}"><label for="user-i-${name}">${name}</label></div>`)}
</fieldset>
<button type="submit" class="primary">Add the user</button>
</form>
</section>
<table class="data"><caption class="visually-hidden">Users</caption>
<thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Instances</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${users.map(
    (u) => html`<tr><th scope="row">${u.email}</th><td>${u.role}</td><td>${u.role === 'owner' ? 'all' : u.instances.join(', ')}</td><td>${u.disabled ? 'disabled' : 'active'}</td>
<td><form method="post" action="/console/users/${u.id}/${u.disabled ? 'enable' : 'disable'}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">${u.disabled ? 'Enable' : 'Disable'}<span class="visually-hidden"> ${u.email}</span></button></form>
<form method="post" action="/console/users/${u.id}/reset-password" class="inline confirm" data-confirm="${`Reset the password of ${u.email}? Their sessions end.`}"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Reset password<span class="visually-hidden"> of ${u.email}</span></button></form></td></tr>`,
  )}</tbody></table>`;
}

// ---- instance settings ----------------------------------------------------------------------

/** The IANA zones this runtime knows, offered while typing the instance's time zone. */
const TIME_ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

export function settingsBody(
  instance: Pick<
    Instance,
    | 'name'
    | 'portalUrl'
    | 'inviteTtlDays'
    | 'mailFromName'
    | 'mailFromAddress'
    | 'reminderDays'
    | 'reportLinkDays'
    | 'timeZone'
    | 'displayName'
    | 'accentColor'
    | 'supportEmail'
    | 'privacyUrl'
    | 'logoSha256'
  >,
  csrf: string,
  state: { saved?: boolean; errors?: { name: string; detail: string }[]; values?: Record<string, string>; addressesLocked?: boolean; reviews?: SafeHtml } = {},
): SafeHtml {
  // The portal URL and the sender address are the operator's (and owners') to set: read-only to managers.
  const locked = state.addressesLocked === true;
  const v = state.values ?? {
    portalUrl: instance.portalUrl ?? '',
    inviteTtlDays: String(instance.inviteTtlDays),
    mailFromName: instance.mailFromName ?? '',
    mailFromAddress: instance.mailFromAddress ?? '',
    reminderDays: instance.reminderDays === null ? '' : String(instance.reminderDays),
    reportLinkDays: String(instance.reportLinkDays),
    timeZone: instance.timeZone,
    displayName: instance.displayName ?? '',
    accentColor: instance.accentColor ?? '',
    supportEmail: instance.supportEmail ?? '',
    privacyUrl: instance.privacyUrl ?? '',
  };
  const brand = brandOf(instance);
  return html`<h1>Settings of ${instance.name}</h1>
${!state.addressesLocked && html`<p><a href="/console/settings/sso?instance=${instance.name}">Single sign-on (OpenID Connect)</a> of this instance</p>`}
${state.saved && html`<p class="info" role="status">Saved.</p>`}
${state.errors && html`<div role="alert" id="settings-errors"><p class="error">Nothing was saved:</p><ul>${state.errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`}
<form method="post" action="/console/settings" class="panel settings-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
<label for="set-portal">Portal URL (candidate links start with it; empty: the service's own address)${locked && ' — set by the operator'}</label>
<input type="url" id="set-portal" name="portalUrl" maxlength="500" value="${v.portalUrl ?? ''}" placeholder="https://assessments.example.com"${locked && html` readonly`}>
<label for="set-ttl">Invitation links stay valid for (days, 1-365)</label>
<input type="number" id="set-ttl" name="inviteTtlDays" min="1" max="365" step="1" required value="${v.inviteTtlDays ?? ''}">
<label for="set-from-name">Sender name of invitation e-mail (empty: the display name below)</label>
<input type="text" id="set-from-name" name="mailFromName" maxlength="100" value="${v.mailFromName ?? ''}">
<label for="set-from-address">Sender address of invitation e-mail (empty: the service default)${locked && ' — set by the operator'}</label>
<input type="email" id="set-from-address" name="mailFromAddress" maxlength="254" value="${v.mailFromAddress ?? ''}"${locked && html` readonly`}>
<label for="set-reminder">Remind candidates who have not started this many days before their invitation expires, once (1-60; empty: no reminders)</label>
<input type="number" id="set-reminder" name="reminderDays" min="1" max="60" step="1" value="${v.reminderDays ?? ''}">
<label for="set-report-days">Report links for recruiters stay valid for (days, 1-3650)</label>
<input type="number" id="set-report-days" name="reportLinkDays" min="1" max="3650" step="1" required value="${v.reportLinkDays ?? ''}">
<label for="set-time-zone">Time zone of deadlines in candidates' e-mails (a name such as Europe/Berlin or America/New_York; empty: UTC)</label>
<input type="text" id="set-time-zone" name="timeZone" maxlength="64" list="time-zones" value="${v.timeZone ?? ''}" autocomplete="off">
<datalist id="time-zones">${TIME_ZONES.map((zone) => html`<option value="${zone}">`)}</datalist>
<fieldset>
<legend>What candidates see of the company</legend>
<p class="hint">Candidates now see the company as <strong>${brand.company}</strong>.</p>
<label for="set-display-name">Display name, in the portal, the e-mail and the report (1-100 characters; empty: the sender name, else the instance name)</label>
<input type="text" id="set-display-name" name="displayName" maxlength="100" value="${v.displayName ?? ''}">
<label for="set-accent">Accent colour, #RRGGBB (at least 4.5:1 contrast against white; empty: the default blue)</label>
<input type="text" id="set-accent" name="accentColor" maxlength="7" pattern="#[0-9A-Fa-f]{6}" placeholder="#0B57D0" value="${v.accentColor ?? ''}">
<label for="set-support">Support e-mail for candidates' questions (empty: the sender address, else "contact the company that invited you")</label>
<input type="email" id="set-support" name="supportEmail" maxlength="254" value="${v.supportEmail ?? ''}">
<label for="set-privacy">Privacy notice URL, linked in the portal's footer (https://)</label>
<input type="url" id="set-privacy" name="privacyUrl" maxlength="500" placeholder="https://example.com/privacy" value="${v.privacyUrl ?? ''}">
</fieldset>
<p><button type="submit" class="primary">Save settings</button></p>
</form>
${state.reviews}
<section class="panel" aria-labelledby="logo-heading">
<h2 id="logo-heading">Logo</h2>
${brand.logoPath ? html`<p><img class="logo-preview" src="${brand.logoPath}" alt="The current logo of ${brand.company}"></p>` : html`<p>No logo: the portal's header shows the display name as text.</p>`}
<form method="post" action="/console/settings/logo" enctype="multipart/form-data" class="settings-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
<label for="set-logo">A PNG, JPEG or WebP image of at most 200 KB, shown at most 2.5rem high (SVG is not accepted: it can carry scripts)</label>
<input type="file" id="set-logo" name="logo" accept="image/png,image/jpeg,image/webp" required>
<p><button type="submit">Upload logo</button></p>
</form>
${
  brand.logoPath &&
  html`<form method="post" action="/console/settings/logo/remove" class="inline">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance.name}">
<button type="submit">Remove the logo</button>
</form>`
}
</section>`;
}

// ---- webhooks -------------------------------------------------------------------------------

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  disabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
}

/**
 * What a tenant is shown of an attempt: `HTTP <status>`, or the category of a failure without an
 * answer; never a system message (attempts recorded before categories were are shown as
 * "connection failed"), which can name the service's internal hosts and addresses.
 */
function webhookAnswer(a: { statusCode: number | null; response: string }): string {
  if (a.statusCode !== null) return `HTTP ${a.statusCode}`;
  return (FAILURE_CATEGORIES as readonly string[]).includes(a.response) ? a.response : 'connection failed';
}

export function webhooksBody(
  instance: string,
  endpoints: WebhookEndpointView[],
  attempts: Record<string, { type: string; at: Date; statusCode: number | null; durationMs: number; deliveryStatus: string; response: string }[]>,
  eventTypes: readonly string[],
  csrf: string,
  state: { created?: { id: string; secret: string }; errors?: { name: string; detail: string }[]; notice?: string } = {},
): SafeHtml {
  const hidden = html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="instance" value="${instance}">`;
  return html`<h1>Webhooks of ${instance}</h1>
<p>Events are POSTed to each endpoint, signed by the Standard Webhooks scheme; see <code>docs/webhooks.md</code> for a receiver.</p>
${state.notice && html`<p class="info" role="status">${state.notice}</p>`}
${
  state.created &&
  html`<div class="panel" role="status"><p><strong>Endpoint ${state.created.id}.</strong> Its signing secret is shown this once: store it with the receiver.</p><p><code class="secret">${state.created.secret}</code></p></div>`
}
${state.errors && html`<div role="alert"><p class="error">No endpoint was made:</p><ul>${state.errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`}
<section class="panel" aria-labelledby="new-endpoint">
<h2 id="new-endpoint">Add an endpoint</h2>
<form method="post" action="/console/webhooks" class="invite-form">
${hidden}
<div class="field"><label for="hook-url">URL</label><input type="url" id="hook-url" name="url" required maxlength="2000" placeholder="https://ats.example.com/hooks"></div>
<fieldset><legend>Events (none chosen: every event)</legend>
${eventTypes.map((t) => html`<div class="option"><input type="checkbox" id="hook-e-${t}" name="events" value="${t}"><label for="hook-e-${t}">${t}</label></div>`)}
</fieldset>
<button type="submit" class="primary">Add the endpoint</button>
</form>
</section>
${endpoints.map(
  (e) => html`<section class="panel" aria-labelledby="ep-${e.id}">
<h2 id="ep-${e.id}">${e.url}</h2>
<p class="hint">${e.id} · ${e.events.length === 0 ? 'every event' : e.events.join(', ')}</p>
<p>${
    e.disabled
      ? html`<span class="flag">Disabled</span>: ${e.disabledReason ?? ''}`
      : e.failingSince
        ? html`<span class="flag">Failing</span> since ${when(e.failingSince)} (disabled after 5 days of failures)`
        : 'Delivering'
  }</p>
<form method="post" action="/console/webhooks/${e.id}/${e.disabled ? 'enable' : 'disable'}" class="inline">${hidden}<button type="submit">${e.disabled ? 'Enable' : 'Disable'}<span class="visually-hidden"> ${e.url}</span></button></form>
<form method="post" action="/console/webhooks/${e.id}/rotate-secret" class="inline confirm" data-confirm="Rotate the secret? The old one keeps signing for 24 hours.">${hidden}<button type="submit">Rotate the secret<span class="visually-hidden"> of ${e.url}</span></button></form>
<form method="post" action="/console/webhooks/${e.id}/replay" class="inline">${hidden}<input type="hidden" name="hours" value="24"><button type="submit">Send the last 24 hours again<span class="visually-hidden"> to ${e.url}</span></button></form>
${
  (attempts[e.id] ?? []).length > 0 &&
  html`<table class="data"><caption>Latest attempts</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Answer</th><th scope="col">Time</th><th scope="col">Delivery</th></tr></thead>
<tbody>${(attempts[e.id] ?? []).map((a) => html`<tr><td>${when(a.at)}</td><td>${a.type}</td><td>${webhookAnswer(a)}</td><td>${a.durationMs} ms</td><td>${a.deliveryStatus}</td></tr>`)}</tbody></table>`
}
</section>`,
)}`;
}
