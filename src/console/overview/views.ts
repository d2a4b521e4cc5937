import { barChart, columnChart } from '../charts.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { PipelineRow } from '../../modules/candidates/repository.js';
import type { Funnel, scoreDistributions } from '../../modules/scores/insights.js';

/**
 * The pipeline per assessment as a table: each count links to the candidate list with the filters
 * that count it (modules/candidates/repository.ts pipeline), so the list shows exactly that many.
 */
function pipelineTable(instance: string, rows: PipelineRow[], names: boolean): SafeHtml {
  if (rows.length === 0)
    return names
      ? html`<div class="empty"><strong>No one invited yet.</strong>Invite a candidate from <a href="/console/invitations?instance=${instance}">Invitations</a>, one at a time or from a CSV file, and their progress shows here.</div>`
      : html`<div class="empty"><strong>No one invited yet.</strong></div>`;
  const list = (r: PipelineRow, filters: Record<string, string>) => `/console/candidates?${new URLSearchParams({ instance, assessment: r.assessmentId, ...filters }).toString()}`;
  const cell = (r: PipelineRow, count: number, filters: Record<string, string>, what: string) =>
    // Under blind review a reviewer sees the counts, not the lists of names behind them.
    html`<td class="num">${count > 0 && names ? html`<a href="${list(r, filters)}" aria-label="${`${count} ${what} for ${r.assessmentName}`}">${count}</a>` : String(count)}</td>`;
  return html`<div class="table-scroll" role="region" aria-label="Pipeline per assessment" tabindex="0"><table class="data pipeline">
<caption class="visually-hidden">Pipeline per assessment: candidates invited, started, completed, scored and decided on</caption>
<thead><tr><th scope="col">Assessment</th><th scope="col" class="num">Invited</th><th scope="col" class="num">→ Started</th><th scope="col" class="num">→ Completed</th><th scope="col" class="num">→ Scored</th><th scope="col" class="num">→ Advance</th><th scope="col" class="num">Hold</th><th scope="col" class="num">Reject</th></tr></thead>
<tbody>${rows.map(
    (r) => html`<tr><th scope="row">${r.assessmentName}</th>
${cell(r, r.invited, {}, 'invited')}${cell(r, r.started, { status: 'STARTED' }, 'started')}${cell(r, r.completed, { status: 'COMPLETED' }, 'completed')}${cell(r, r.scored, { score: 'SCORED' }, 'scored')}${cell(r, r.advance, { decision: 'advance' }, 'to advance')}${cell(r, r.hold, { decision: 'hold' }, 'on hold')}${cell(r, r.reject, { decision: 'reject' }, 'rejected')}</tr>`,
  )}</tbody>
</table></div>`;
}

export function overviewBody(
  instance: string,
  /** The company's name as candidates see it (the instance's name when it has none). */
  company: string,
  periods: { days: number; funnel: Funnel; failedMail: number }[],
  waitingReviews: number,
  webhooks: { disabled: number; failing: number } = { disabled: 0, failing: 0 },
  pipeline: PipelineRow[] = [],
  /** What the viewer may open: the lists that name candidates (not a reviewer under blind review), the instance's setup; and what needs them. */
  may: Needs = { names: true, manage: true },
  charts: { distributions: Distribution[]; completions: { day: string; completed: number }[] } = { distributions: [], completions: [] },
): SafeHtml {
  const failedMail = periods[0]?.failedMail ?? 0;
  // A longer period is shown only when it holds more than the one before it.
  const shown = periods.filter((p, i) => i === 0 || JSON.stringify(p.funnel) !== JSON.stringify(periods[i - 1]!.funnel) || p.failedMail !== periods[i - 1]!.failedMail);
  const sections = shown.map(({ days, funnel, failedMail }) => {
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
  return html`<h1>Overview of ${company}</h1>
${
  may.manage &&
  webhooks.disabled + webhooks.failing > 0 &&
  html`<p class="error" role="status"><a href="/console/webhooks?instance=${instance}">${webhooks.disabled} webhook endpoint${webhooks.disabled === 1 ? ' is' : 's are'} disabled and ${webhooks.failing} failing</a>: their events are not arriving.</p>`
}
${needsYou(instance, may, waitingReviews, failedMail, webhooks)}
<h2>Pipeline per assessment</h2>
${pipelineTable(instance, pipeline, may.names)}
${resultCharts(charts)}
<div class="panels">${sections}</div>`;
}

type Needs = { names: boolean; manage: boolean; needs?: { mine: number; overdue: number; failedCallbacks: number } };

/**
 * What needs the viewer: what has a count stands out as a card, what is at zero is listed quietly
 * below it, and a count that says the same as another is left out (an owner who is the only
 * reviewer has "waiting for your review" and "waiting for review" as one).
 */
function needsYou(instance: string, may: Needs, waitingReviews: number, failedMail: number, webhooks: { disabled: number; failing: number }): SafeHtml {
  const items: { label: string; figure: number; href: string }[] = [];
  const reviews = `/console/reviews?instance=${instance}`;
  if (may.needs) items.push({ label: 'Waiting for your review', figure: may.needs.mine, href: reviews });
  if (!may.needs || may.needs.mine !== waitingReviews) items.push({ label: 'Free-text answers waiting for review', figure: waitingReviews, href: reviews });
  if (may.needs && may.manage) items.push({ label: 'Reviews past their due time', figure: may.needs.overdue, href: reviews });
  if (may.names) items.push({ label: 'E-mails that failed (30 days)', figure: failedMail, href: `/console/invitations?instance=${instance}&mail=failed#mail-heading` });
  if (may.manage) items.push({ label: 'Webhook endpoints failing or disabled', figure: webhooks.disabled + webhooks.failing, href: `/console/webhooks?instance=${instance}` });
  if (may.needs && may.manage) items.push({ label: 'ATS callbacks that failed (30 days)', figure: may.needs.failedCallbacks, href: `/console/integrations?instance=${instance}` });
  const item = (i: (typeof items)[number]) => html`<li><a href="${i.href}"><span class="label">${i.label}</span><span class="figure">${i.figure}</span></a></li>`;
  const loud = items.filter((i) => i.figure > 0);
  const quiet = items.filter((i) => i.figure === 0);
  return html`<h2 id="needs-title">Needs you now</h2>
${loud.length > 0 ? html`<ul class="cards" aria-labelledby="needs-title">${loud.map(item)}</ul>` : html`<p class="all-clear">Nothing needs you now.</p>`}
${quiet.length > 0 && html`<ul class="quiet-counts" aria-label="At zero">${quiet.map(item)}</ul>`}`;
}

type Distribution = Awaited<ReturnType<typeof scoreDistributions>>[number];

/** Completions over the last days, and each assessment's scores against its pass marks. */
function resultCharts({ distributions, completions }: { distributions: Distribution[]; completions: { day: string; completed: number }[] }): SafeHtml {
  const total = completions.reduce((n, d) => n + d.completed, 0);
  const dayLabel = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const daily = columnChart(
    `Assessments completed per day, last ${completions.length} days (${total} in all)`,
    completions.map((d, i) => ({ label: dayLabel(d.day), value: d.completed, tick: (completions.length - 1 - i) % 7 === 0 ? dayLabel(d.day) : '' })),
    { unit: 'completed', item: 'Day (UTC)' },
  );
  const histograms = distributions.map((d) =>
    columnChart(
      `${d.name}: total scores of ${d.count} completed attempt${d.count === 1 ? '' : 's'}`,
      d.bins.map((n, i) => ({ label: i === 9 ? '90–100 %' : `${i * 10}–${i * 10 + 9} %`, value: n })),
      {
        domain: [0, 100],
        axis: [0, 20, 40, 60, 80, 100],
        unit: 'attempts',
        item: 'Total score',
        lines: [
          { at: d.lowPassScore, label: `low pass ${d.lowPassScore} %` },
          { at: d.passScore, label: `pass ${d.passScore} %` },
        ].filter((l, i, all) => i === 0 || l.at !== all[0]!.at),
      },
    ),
  );
  return html`<section class="panel" aria-labelledby="completions-title">
<h2 id="completions-title">Completions</h2>
${daily}
</section>
<section class="panel" aria-labelledby="scores-title">
<h2 id="scores-title">Scores per assessment</h2>
${histograms.length > 0 ? html`<div class="chart-grid-2">${histograms}</div>` : html`<div class="empty"><strong>No scores yet.</strong>Each assessment's distribution of total scores, with its pass marks, shows here once candidates complete it.</div>`}
</section>`;
}
