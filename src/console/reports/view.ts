// A candidate's report: per assessment the figures, the categories against the average, each
// answer with its reviews, similar answers, webcam snapshots and the proctoring timeline with the
// rules that raised the red flag. In the console, or shared by a signed link (read-only, without
// what only operators see).
import { html, type Renderable, type SafeHtml } from '../../html/html.js';
import { markdown } from '../../html/markdown.js';
import { languageName } from '../../i18n/i18n.js';
import type { AssessmentReport } from '../../modules/attempts/report.js';
import type { QuestionReport } from '../../modules/attempts/report-questions.js';
import { likertItemScore, maxFootrule } from '../../modules/attempts/scoring.js';
import type { CandidateSummary } from '../../modules/candidates/repository.js';
import { barChart } from '../charts.js';
import { ATS_LABELS, categoryPercentilesText, duration, pdfPath, reportLinkPath, percentileText, reviewerName, SCORE_TEXT, scoreBadge, statusText, when } from '../format.js';
import { reviewPanel, type ReviewViewer } from '../reviews/views.js';

/** The language the candidate took the assessment in; the report shows the content's own (English) text. */
export function languageText(r: Pick<AssessmentReport, 'attempt'>): string {
  if (!r.attempt) return '-';
  const name = `${languageName('en', r.attempt.language)} (${r.attempt.language})`;
  return r.attempt.language === 'en' ? name : `${name}; the questions below are in English, as written`;
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

/** The report of a candidate: in the console, or (with `pdfHref`) shared by a signed link, read-only. */
const ATS_NAMES: Record<string, string> = { ...ATS_LABELS, console: 'the console' };
const EXTERNAL_LABELS: Record<string, string> = {
  applicationId: 'application',
  orderId: 'order',
  assessmentRequestId: 'request',
  opportunityId: 'opportunity',
  candidateId: 'candidate',
  jobName: 'job',
  sentBy: 'sent by',
};

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
    /** The header's line under the e-mail (the decision and tags) and its actions (decide, compare), in the console. */
    header?: { marks: SafeHtml; actions: SafeHtml };
    /** More of an attempt's report, by attempt id, in the console only (webcam snapshots: candidates/webcam.ts). */
    attemptExtras?: Map<string, SafeHtml>;
    /** Who reads it, for blind review (reviews/views.ts). */
    viewer?: ReviewViewer;
    /** Other candidates are not named (a reviewer under blind review: modules/reviews/blind.ts). */
    othersUnnamed?: boolean;
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
        `Score per category in ${r.assessmentName}`,
        rec.categoryScores.map((c) => ({ label: c.name, value: Number(c.score), marker: r.categoryAverages[c.name] })),
        { max: 100, unit: ' %', markerLabel: 'average', scale: true },
      );
    const retake =
      operator &&
      options.canRetake &&
      (rec.assessmentStatus === 'COMPLETED' || r.attempt?.endReason === 'cancelled') &&
      html`<form method="post" action="/console/candidates/${candidate.id}/retake" class="retake-form">
<input type="hidden" name="_csrf" value="${options.csrf}">
<input type="hidden" name="instance" value="${options.instance}">
<input type="hidden" name="assessmentId" value="${rec.assessmentId}">
<button type="submit" aria-describedby="retake-${rec.assessmentId}">Let them retake ${r.assessmentName}</button><span class="visually-hidden" id="retake-${rec.assessmentId}">The result stays in the history; the candidate gets a fresh link by e-mail.</span>
</form>`;
    const download =
      operator &&
      candidate.email !== null &&
      html`<div class="actions no-print">${options.canRetake && html`<a class="button" href="${reportLinkPath(options.instance, candidate.id, rec.assessmentId)}">Copy report link<span class="visually-hidden"> of ${r.assessmentName}</span></a>`}<a class="button" href="${pdfPath(options.instance, candidate.id, rec.assessmentId)}" download>Download PDF<span class="visually-hidden"> of ${r.assessmentName}</span></a>${retake}</div>`;
    // The figures a recruiter decides on first; the attempt's other facts folded under them.
    const english = !r.attempt || r.attempt.language === 'en';
    const language = html`<div><dt>Language</dt><dd>${languageText(r)}</dd></div>`;
    return html`<section class="report" aria-labelledby="a-${rec.assessmentId}">
<div class="section-header"><h2 id="a-${rec.assessmentId}">${r.assessmentName}</h2>${download}</div>
<div class="report-top">
<dl class="figures">
<div><dt>Result</dt><dd>${rec.assessmentStatus === 'COMPLETED' ? scoreBadge(rec.scoreStatus) : statusText(rec.assessmentStatus)}</dd></div>
<div><dt>Total score</dt><dd>${scored ? `${rec.totalScore} %` : '-'}</dd></div>
<div><dt>Thresholds</dt><dd>pass ${r.passScore}&nbsp;%, low pass ${r.lowPassScore}&nbsp;%</dd></div>
<div><dt>Percentile</dt><dd>${tileValue(percentileText(r))}</dd></div>
<div><dt>Time taken</dt><dd>${duration(r)}</dd></div>
<div><dt>Red flag</dt><dd>${rec.redFlag ? html`<span class="flag">yes</span>: ${r.redFlagReasons.join('; ')}` : 'no'}</dd></div>
<div><dt>Risk</dt><dd>${riskText(r)}</dd></div>
${!english && language}
</dl>
${categories}
</div>
<details class="fold attempt-facts"><summary><h3>More about this attempt</h3></summary>
<dl class="figures">
${categoryPercentilesText(r) && html`<div><dt>Category percentiles</dt><dd>${categoryPercentilesText(r)}${r.norm.source && html` <span class="hint">(${r.norm.source})</span>`}</dd></div>`}
<div><dt>Completion</dt><dd>${rec.completion} %</dd></div>
<div><dt>Typing</dt><dd>${r.attempt?.typingWpm !== null && r.attempt?.typingWpm !== undefined ? `${rec.typingSpeed} wpm, ${r.attempt.typingAccuracy ?? 0} % accurate` : '-'}</dd></div>
${english && language}
<div><dt>Started</dt><dd>${r.attempt ? when(r.attempt.startedAt) : '-'}</dd></div>
<div><dt>Finished</dt><dd>${r.attempt?.finishedAt ? html`${when(r.attempt.finishedAt)} (${r.attempt.endReason === 'time-limit' ? 'time ran out' : 'submitted'})` : '-'}</dd></div>
${operator && r.origin.source !== 'api' && html`<div><dt>Invited through</dt><dd>${originText(r.origin)}</dd></div>`}
${operator && r.origin.externalReference && html`<div><dt>Client's reference</dt><dd><code>${r.origin.externalReference}</code></dd></div>`}
${operator && r.extraTimePercent > 0 && html`<div><dt>Accommodation</dt><dd>${r.extraTimePercent} % extra time (the candidate saw only their time limit)</dd></div>`}
</dl>
</details>
${
  r.earlier.length > 0 &&
  html`<h3>Earlier attempts (before a retake)</h3>
<ul class="plain">${r.earlier.map(
    (e) =>
      html`<li>Started ${when(e.startedAt)}, ${e.finishedAt ? html`finished ${when(e.finishedAt)}` : 'not finished'}${e.record && html`: ${statusText(e.record.assessmentStatus)}, ${SCORE_TEXT[e.record.scoreStatus] ?? e.record.scoreStatus}${e.record.scoreStatus !== 'PENDING' && ` ${e.record.totalScore} %`}`}; replaced ${when(e.supersededAt)}</li>`,
  )}</ul>`
}
${
  r.questions.length > 0 &&
  // Folded, the result above being what the page is opened for, unless the viewer reviews and
  // the assessment has answers people score (free text): then those are the page's work.
  html`<details class="fold"${options.canReview && r.questions.some((q) => q.type === 'free-text') && html` open`}><summary><h3>Answers (${r.questions.length})</h3></summary>
${r.layoutNotes.length > 0 && html`<p class="layout-notes">As this candidate saw them: ${r.layoutNotes.join('; ')}.</p>`}
<ol class="answers">${r.questions.map(
    (q) => html`<li class="answer">
<div class="prompt">${markdown(q.prompt)}</div>
<p class="hint">${q.category} · ${q.type} · ${q.credit === null ? 'awaiting review' : `${Math.round(q.credit * 1000) / 10} % credit`}</p>
${answerCell(q)}
${reviewPanel(q, { attemptId: r.attempt?.id, finished: Boolean(r.attempt?.finishedAt), csrf: options.csrf, instance: options.instance, canReview: options.canReview, viewer: options.viewer })}
</li>`,
  )}</ol></details>`
}
${operator ? similarSection(r, options.instance, options.othersUnnamed === true) : similarNote(r)}
${
  r.attempt &&
  // Folded when nothing was recorded; open when there are signals to read (or that were dismissed).
  html`<details class="fold"${r.signals.length > 0 && html` open`}><summary><h3>Proctoring timeline (${r.signals.length === 1 ? 'one signal' : `${r.signals.length} signals`})</h3></summary>
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
${r.redFlagReasons.length > 0 ? html`<p>Rules that raised the red flag: ${r.redFlagReasons.join('; ')}.</p>` : r.signals.some((s) => s.dismissed) && html`<p>No rule raises the red flag once the dismissed signals are left out.</p>`}</details>`
}
${operator && r.attempt && options.attemptExtras?.get(r.attempt.id)}
</section>`;
  });
  const tools =
    options.pdfHref === undefined
      ? html`<a href="/console/candidates?instance=${options.instance}">Back to candidates</a> · <button type="button" class="print-button" hidden>Print this report</button>`
      : html`<a href="${options.pdfHref}">Download as PDF</a> · <button type="button" class="print-button" hidden>Print this report</button>`;
  // Results first: the name and the page's actions, then each assessment's result; the decision and tags after them.
  const decide = options.header?.actions ?? (options.marks && html`<a class="button" href="#marks-title">Decision and tags</a>`);
  return html`${options.notice && html`<p class="info" role="status">${options.notice}</p>`}<p class="no-print">${tools}</p>
<div class="page-header"><div>
<h1>${candidate.email === null ? 'Erased candidate' : `${candidate.firstName} ${candidate.lastName}`}${options.company && html`<span class="report-company"> · ${options.company}</span>`}</h1>
<p class="lead">${candidate.email ?? 'Personal data erased'}</p>
${options.header?.marks}
</div>${decide && html`<div class="actions no-print">${decide}</div>`}</div>
${reports.length > 1 && summaryTable(reports)}
${sections}
${options.marks}
<details class="technical no-print"><summary>Identifiers (for the API and support)</summary>
<dl class="facts"><div><dt>Candidate id</dt><dd><code>${candidate.id}</code></dd></div><div><dt>Instance</dt><dd><code>${candidate.instance}</code></dd></div></dl>
</details>`;
}

/**
 * The candidate at a glance when there is more than one assessment: one row each, with the
 * figures a recruiter decides on; each row's name leads to its assessment's card below.
 */
function summaryTable(reports: AssessmentReport[]): SafeHtml {
  return html`<section class="panel report-summary" aria-labelledby="summary-title"><h2 id="summary-title" class="visually-hidden">Summary</h2>
<div class="table-scroll"><table class="data"><caption class="visually-hidden">Results of each assessment</caption>
<thead><tr><th scope="col">Assessment</th><th scope="col">Result</th><th scope="col" class="num">Score</th><th scope="col">Percentile</th><th scope="col">Time taken</th><th scope="col">Red flag</th></tr></thead>
<tbody>${reports.map((r) => {
    const rec = r.record;
    const scored = rec.assessmentStatus === 'COMPLETED' && rec.scoreStatus !== 'PENDING';
    const percentile = percentileText(r);
    return html`<tr><th scope="row"><a href="#a-${rec.assessmentId}">${r.assessmentName}</a></th>
<td data-label="Result">${rec.assessmentStatus === 'COMPLETED' ? scoreBadge(rec.scoreStatus) : statusText(rec.assessmentStatus)}</td>
<td class="num" data-label="Score">${scored ? `${rec.totalScore} %` : '-'}</td>
<td data-label="Percentile">${percentile.startsWith('not yet') ? 'not yet' : (percentile.split(' (')[0] ?? percentile)}</td>
<td data-label="Time taken">${duration(r)}</td>
<td data-label="Red flag">${rec.redFlag ? html`<span class="flag">yes</span>` : 'no'}</td></tr>`;
  })}</tbody></table></div></section>`;
}

/** A percentile tile's value: "not yet" stands out, why not yet is set as a note under it. */
function tileValue(text: string): SafeHtml | string {
  const why = 'not yet: ';
  // The note kept to its first two clauses ("1 completed this version, 19 more needed"): the rule itself is in the docs.
  return text.startsWith(why) ? html`not yet<span class="tile-note">${text.slice(why.length - 2).replace(/ for the instance's own norm.*$/, '')}</span>` : text;
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
function similarSection(r: AssessmentReport, instance: string, unnamed: boolean): SafeHtml | false {
  if (r.similar.length === 0) return false;
  const other = (pair: AssessmentReport['similar'][number]) =>
    unnamed ? html`another candidate` : html`<a href="/console/candidates/${pair.other.candidateId}?instance=${instance}">${pair.other.candidateName ?? 'an erased candidate'}</a>`;
  const marked = (segments: AssessmentReport['similar'][number]['mine']) => segments.map((s) => (s.shared ? html`<mark>${s.text}</mark>` : html`${s.text}`));
  return html`<h3>Similar answers</h3>
<p class="hint">Answers to the same question by other candidates of this instance whose fingerprints overlap this candidate's; the shared parts are marked. Alike is not copied: read both before deciding.</p>
<ul class="similar">${r.similar.map(
    (pair) => html`<li class="similar-pair">
<div class="prompt">${markdown(pair.prompt)}</div>
<p>${Math.round(pair.score * 100)} % alike (${pair.shared} shared fingerprints) with ${other(pair)}</p>
<div class="side-by-side">
<figure><figcaption>This candidate</figcaption><pre class="answer-text">${marked(pair.mine)}</pre></figure>
<figure><figcaption>${unnamed ? 'Another candidate' : (pair.other.candidateName ?? 'Erased candidate')}</figcaption><pre class="answer-text">${marked(pair.theirs)}</pre></figure>
</div>
</li>`,
  )}</ul>`;
}
