import { marksLine } from './decisions.js';
import { scoreBadge, statusText } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { CandidateListItem } from '../../modules/candidates/repository.js';
import type { CandidateMarks } from '../../modules/decisions/repository.js';
import { emptyState } from '../components.js';

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
  ['STARTED', 'Started (in progress or completed)'],
])}
${select('score', 'Result', filters.score, [
  ['', 'Any'],
  ['PASS', 'Pass'],
  ['LOW_PASS', 'Low pass'],
  ['FAIL', 'Fail'],
  ['PENDING', 'Awaiting a score'],
  ['SCORED', 'Scored (any result)'],
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
    ? emptyState(
        'No candidate matches.',
        html`Clear a filter or <a href="/console/candidates?instance=${instance}">show every candidate</a>; to add candidates, <a href="/console/invitations?instance=${instance}">invite them</a>.`,
      )
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
