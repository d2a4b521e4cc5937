import { DECISION_TEXT, marksLine } from './decisions.js';
import { SCORE_TEXT, scoreBadge, statusText } from '../format.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { CandidateListItem } from '../../modules/candidates/repository.js';
import type { CandidateMarks } from '../../modules/decisions/repository.js';
import { DECISIONS } from '../../modules/decisions/repository.js';
import { NOTE_MAX } from '../../modules/decisions/commands.js';
import { emptyState, errorSummary, fieldError, invalidAttributes, pager, sortHeader } from '../components.js';

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

const day = (d: Date | string) => new Date(d).toISOString().slice(0, 10);

const select = (name: string, label: string, current: string | undefined, options: [string, string][]) =>
  html`<div class="field"><label for="f-${name}">${label}</label><select id="f-${name}" name="${name}">${options.map(
    ([value, text]) => html`<option value="${value}"${value === (current ?? '') && html` selected`}>${text}</option>`,
  )}</select></div>`;

/** What the list shows of its order and page, and how to link to another order or page with the same filters. */
export interface ListView {
  sort: string;
  descending: boolean;
  page: number;
  size: number;
  total: number;
  /** The list with these filters, another order or page. */
  href: (change: { sort?: string; descending?: boolean; page?: number }) => string;
  /** A keyset page (an old "next page" link): no numbers, the next link only. */
  nextHref?: string;
}

export interface BulkView {
  csrf: string;
  /** Owners and managers: decide on and tag the chosen candidates. */
  mayDecide: boolean;
  /** The list's query, for the way back after an action. */
  back: string;
  errors?: readonly { name: string; detail: string }[];
  done?: string;
  /** A candidate chosen already (Compare on their page): ticked when on the page, carried along when not. */
  chosen?: { id: string; name: string };
  /** Whether the chosen candidate is a row of this page. */
  chosenShown?: boolean;
}

type Choice = { name: string; label: string; options: [string, string][] };

/** The list's filters and order, each with its choices in words (the chips say what is on in the same words). */
function filterChoices(assessments: { id: string; name: string }[], tags: string[]): Choice[] {
  return [
    { name: 'assessment', label: 'Assessment', options: [['', 'Any'], ...assessments.map((a): [string, string] => [a.id, a.name])] },
    {
      name: 'status',
      label: 'Status',
      options: [
        ['', 'Any'],
        ['INVITED', 'Not started'],
        ['IN_PROGRESS', 'In progress'],
        ['COMPLETED', 'Completed'],
        ['STARTED', 'Started (in progress or completed)'],
      ],
    },
    {
      name: 'score',
      label: 'Result',
      options: [
        ['', 'Any'],
        ['PASS', 'Pass'],
        ['LOW_PASS', 'Low pass'],
        ['FAIL', 'Fail'],
        ['PENDING', 'Awaiting a score'],
        ['SCORED', 'Scored (any result)'],
      ],
    },
    {
      name: 'flag',
      label: 'Red flag',
      options: [
        ['', 'Any'],
        ['yes', 'Red-flagged'],
        ['no', 'Not flagged'],
      ],
    },
    {
      name: 'days',
      label: 'Invited',
      options: [
        ['', 'Any time'],
        ['7', 'Last 7 days'],
        ['30', 'Last 30 days'],
        ['90', 'Last 90 days'],
      ],
    },
    {
      name: 'decision',
      label: 'Decision',
      options: [
        ['', 'Any'],
        ['advance', 'Advance'],
        ['hold', 'Hold'],
        ['reject', 'Reject'],
        ['none', 'None yet'],
      ],
    },
    { name: 'tag', label: 'Tag', options: [['', 'Any'], ...tags.map((t): [string, string] => [t, t])] },
    {
      name: 'sort',
      label: 'Order',
      options: [
        ['invited-desc', 'Last invited, newest first'],
        ['invited', 'Last invited, oldest first'],
        ['name', 'Name, A to Z'],
        ['name-desc', 'Name, Z to A'],
        ['email', 'E-mail, A to Z'],
        ['email-desc', 'E-mail, Z to A'],
        ['score-desc', 'Best score, highest first'],
        ['score', 'Best score, lowest first'],
        ['decision', 'Decision: advance, hold, reject, none'],
        ['decision-desc', 'Decision: reject, hold, advance, none'],
      ],
    },
  ];
}

/** The filters that are on, each a chip whose link is the same list without it. */
function chips(instance: string, filters: CandidateFilters, choices: Choice[]): SafeHtml | false {
  const on = Object.entries(filters).filter(([, v]) => v !== undefined && v !== '') as [string, string][];
  if (on.length === 0) return false;
  const without = (name: string) => `/console/candidates?${new URLSearchParams([['instance', instance], ...on.filter(([n]) => n !== name)]).toString()}`;
  const text = (name: string, value: string) => {
    const choice = choices.find((c) => c.name === name);
    return choice ? `${choice.label}: ${choice.options.find(([v]) => v === value)?.[1] ?? value}` : `Name or e-mail: ${value}`;
  };
  return html`<ul class="chips" aria-label="Filters on">${on.map(([name, value]) => html`<li><a class="chip" href="${without(name)}" aria-label="${`Remove the filter ${text(name, value)}`}">${text(name, value)} <span aria-hidden="true">×</span></a></li>`)}</ul>`;
}

/** At most this many assessments get a column of their own; the rest share one. */
const ASSESSMENT_COLUMNS = 4;

/**
 * The assessments the page's candidates were invited to, one column each: the filtered one first,
 * then the most common on the page, by name among equals.
 */
function assessmentColumns(items: CandidateListItem[], filtered: string | undefined): { id: string; name: string }[] {
  const seen = new Map<string, { id: string; name: string; count: number }>();
  for (const c of items)
    for (const i of c.invitations) {
      const entry = seen.get(i.assessmentId) ?? { id: i.assessmentId, name: i.assessmentName, count: 0 };
      entry.count++;
      seen.set(i.assessmentId, entry);
    }
  return [...seen.values()].sort((a, b) => Number(b.id === filtered) - Number(a.id === filtered) || b.count - a.count || a.name.localeCompare(b.name)).slice(0, ASSESSMENT_COLUMNS);
}

/** The candidate's best total score among their scored assessments, or a dash. */
function bestScore(c: CandidateListItem): string {
  const scores = c.invitations.filter((i) => i.assessmentStatus === 'COMPLETED' && i.scoreStatus !== 'PENDING').map((i) => Number(i.totalScore));
  return scores.length === 0 ? '–' : `${Math.max(...scores)}\u00a0%`;
}

/** An invitation's state as one compact badge: the result and score once scored, else where it stands. */
function resultBadge(i: CandidateListItem['invitations'][number]): SafeHtml {
  const flag = i.redFlag && html` <span class="flag">red&nbsp;flag</span>`;
  if (i.assessmentStatus !== 'COMPLETED')
    return html`<span class="badge badge-state badge-${i.assessmentStatus.toLowerCase()}">${i.assessmentStatus === 'INVITED' ? 'Not started' : i.assessmentStatus === 'IN_PROGRESS' ? 'In progress' : statusText(i.assessmentStatus)}</span>${flag}`;
  if (i.scoreStatus === 'PENDING') return html`${scoreBadge('PENDING')}${flag}`;
  return html`<span class="badge badge-${i.scoreStatus.toLowerCase()}">${SCORE_TEXT[i.scoreStatus] ?? i.scoreStatus} ${Number(i.totalScore)}&nbsp;%</span>${flag}`;
}

const SORT_LABEL: Record<string, string> = { invited: 'Last invited', name: 'Name', email: 'E-mail', score: 'Best score', decision: 'Decision' };

/**
 * The actions on the chosen rows, one line: one form the rows' boxes belong to; Compare and
 * Export act at once, Decide and Add tag open a panel (a popover, no script) for their fields,
 * shown in place instead when they come back with an error.
 */
function bulkBar(instance: string, bulk: BulkView, filters: CandidateFilters): SafeHtml {
  const has = (...names: string[]) => (bulk.errors ?? []).some((e) => names.includes(e.name));
  const panel = (id: string, title: string, open: boolean, fields: SafeHtml) =>
    open
      ? html`<div id="${id}" class="bulk-panel" role="group" aria-labelledby="${id}-title"><p class="bulk-panel-title" id="${id}-title">${title}</p>${fields}</div>`
      : html`<button type="button" popovertarget="${id}">${title}…</button><div id="${id}" class="bulk-panel" popover role="group" aria-labelledby="${id}-title"><p class="bulk-panel-title" id="${id}-title">${title}</p>${fields}<button type="button" popovertarget="${id}" popovertargetaction="hide">Cancel</button></div>`;
  return html`<form id="bulk-form" method="post" action="/console/candidates/bulk" class="bulk-bar" aria-label="With the chosen candidates">
<input type="hidden" name="_csrf" value="${bulk.csrf}">
<input type="hidden" name="instance" value="${instance}">
<input type="hidden" name="back" value="${bulk.back}">${filters.assessment && html`<input type="hidden" name="assessment" value="${filters.assessment}">`}
${bulk.chosen && html`<p class="bulk-chosen">${bulk.chosen.name} is chosen: tick the others to compare with, then Compare.</p>`}${bulk.chosen && !bulk.chosenShown && html`<input type="hidden" name="ids" value="${bulk.chosen.id}">`}
<span class="bulk-title">With the chosen:</span>
<button type="submit" name="action" value="compare">Compare</button>
<button type="submit" name="action" value="export">Export CSV</button>
${
  bulk.mayDecide &&
  html`${panel(
    'bulk-decide',
    'Decide',
    has('decision', 'note'),
    html`<div class="field"><label for="bulk-decision">Decision</label><select id="bulk-decision" name="decision"${invalidAttributes(bulk.errors, 'decision', 'bulk-decision-error')}>${DECISIONS.map((d) => html`<option value="${d}">${DECISION_TEXT[d]}</option>`)}</select>${fieldError(bulk.errors, 'decision', 'bulk-decision-error')}</div>
<div class="field"><label for="bulk-note">Note (optional; for your team)</label><textarea id="bulk-note" name="note" rows="2" maxlength="${NOTE_MAX}"${invalidAttributes(bulk.errors, 'note', 'bulk-note-error')}></textarea>${fieldError(bulk.errors, 'note', 'bulk-note-error')}</div>
<button type="submit" name="action" value="decide" class="primary">Decide for the chosen</button>`,
  )}
${panel(
  'bulk-tag',
  'Add tag',
  has('tag'),
  html`<div class="field"><label for="bulk-tag-name">Tag</label><input id="bulk-tag-name" name="tag" maxlength="40"${invalidAttributes(bulk.errors, 'tag', 'bulk-tag-error')}>${fieldError(bulk.errors, 'tag', 'bulk-tag-error')}</div>
<button type="submit" name="action" value="tag" class="primary">Add to the chosen</button>`,
)}`
}
</form>`;
}

export function candidatesBody(input: {
  instance: string;
  filters: CandidateFilters;
  assessments: { id: string; name: string }[];
  items: CandidateListItem[];
  list: ListView;
  bulk: BulkView;
  marks?: Map<string, CandidateMarks>;
  tags?: string[];
  csvHref?: string;
  saved?: SafeHtml;
  /** The instance's name in words (its display name), for the heading. */
  company?: string;
}): SafeHtml {
  const { instance, filters, items, list, bulk } = input;
  const nameOf = (c: CandidateListItem) => (c.email === null ? 'Erased candidate' : `${c.firstName} ${c.lastName}`);
  const header = (label: string, key: string, firstDescending = false) =>
    sortHeader(label, key, list, (sort, descending) => list.href({ sort, descending, page: 1 }), firstDescending);
  const columns = assessmentColumns(items, filters.assessment);
  const others = (c: CandidateListItem) => c.invitations.filter((i) => !columns.some((a) => a.id === i.assessmentId));
  const hasOthers = items.some((c) => others(c).length > 0);
  const rows = items.map(
    (c) => html`<tr>
<td class="select"><input type="checkbox" name="ids" value="${c.id}" form="bulk-form" aria-label="${`Choose ${nameOf(c)}`}"${bulk.chosen?.id === c.id ? html` checked` : html``}></td>
<th scope="row" class="name"><a href="/console/candidates/${c.id}?instance=${instance}">${nameOf(c)}</a><span class="email">${c.email ?? '(erased)'}</span></th>
<td class="num nowrap${bestScore(c) === '–' ? ' empty' : ''}"><span class="cell-label">Best score </span>${bestScore(c)}</td>
${columns.map((a) => {
  const i = c.invitations.find((x) => x.assessmentId === a.id);
  return html`<td class="result-cell${i ? '' : ' empty'}"><span class="cell-label">${a.name}: </span>${i ? resultBadge(i) : html`<span class="muted" aria-label="not invited">–</span>`}</td>`;
})}${
      hasOthers &&
      html`<td><span class="cell-label">Other assessments: </span><ul class="plain">${others(c).map((i) => html`<li>${i.assessmentName}: ${resultBadge(i)}</li>`)}</ul></td>`
    }
<td class="nowrap"><span class="cell-label">Last invited </span>${c.lastInvitedAt ? day(c.lastInvitedAt) : '-'}</td>
<td>${marksLine(input.marks?.get(c.id))}</td>
</tr>`,
  );
  const active = Object.entries(filters).filter(([, v]) => v !== undefined && v !== '').length;
  const choices = filterChoices(input.assessments, input.tags ?? []);
  return html`<div class="page-header"><div><h1>Candidates of ${input.company ?? instance}</h1><p class="lead">${list.total.toLocaleString('en-GB')} ${list.total === 1 ? 'candidate matches' : 'candidates match'}${active > 0 ? ` ${active === 1 ? 'one filter' : `${active} filters`}` : ''}, by ${SORT_LABEL[list.sort]?.toLowerCase() ?? 'id'}${list.descending ? ' (descending)' : ''}.</p></div>
<div class="actions"><a class="button primary" href="/console/invitations?instance=${instance}">Invite candidates</a>${input.csvHref && items.length > 0 && html`<a class="button" href="${input.csvHref}" download>Download CSV</a>`}</div></div>
${errorSummary('bulk-errors', 'Nothing was changed:', bulk.errors, { ids: 'bulk-form', decision: 'bulk-decision', note: 'bulk-note', tag: 'bulk-tag-name' })}
${bulk.done && html`<p class="info" role="status">${bulk.done}</p>`}
<form method="get" action="/console/candidates" class="filters" role="search" aria-label="Find candidates">
<input type="hidden" name="instance" value="${instance}">
<div class="filter-line"><div class="field grow"><label for="f-q" class="visually-hidden">Name or e-mail starts with</label><input type="search" id="f-q" name="q" value="${filters.q ?? ''}" maxlength="100" placeholder="Name or e-mail starts with"></div>
<button type="submit" class="primary">Search</button></div>
${chips(instance, filters, choices)}
<details class="filters-fold"><summary>More filters and order${active > 0 ? ` (${active} on)` : ''}</summary>
<div class="filters-more">
${choices.map((f) => select(f.name, f.label, f.name === 'sort' ? `${list.sort}${list.descending ? '-desc' : ''}` : filters[f.name as keyof CandidateFilters], f.options))}
<button type="submit">Apply</button>
</div>
${input.saved}
</details>
</form>
${
  items.length === 0
    ? emptyState(
        list.total > 0 ? 'This page is past the last one.' : 'No candidate matches.',
        list.total > 0
          ? html`<a href="${list.href({ page: 1 })}">Go to the first page</a>.`
          : html`Clear a filter or <a href="/console/candidates?instance=${instance}">show every candidate</a>; to add candidates, <a href="/console/invitations?instance=${instance}">invite them</a>.`,
      )
    : html`${bulkBar(instance, bulk, filters)}
<div class="table-scroll"><table class="data candidates">
<caption class="visually-hidden">Candidates, ${list.total} in all</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Choose</span></th>${header('Name and e-mail', 'name')}${header('Best score', 'score', true)}${columns.map((a) => html`<th scope="col" class="result-cell">${a.name}</th>`)}${hasOthers && html`<th scope="col">${columns.length > 0 ? 'Other assessments' : 'Assessments'}</th>`}${header('Last invited', 'invited', true)}${header('Decision and tags', 'decision')}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}
${list.nextHref ? html`<p><a class="button" href="${list.nextHref}" rel="next">Next page</a></p>` : pager({ page: list.page, size: list.size, total: list.total, noun: 'candidates', href: (page) => list.href({ page }) })}`;
}
