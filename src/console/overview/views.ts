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
  periods: { days: number; funnel: Funnel; failedMail: number }[],
  waitingReviews: number,
  webhooks: { disabled: number; failing: number } = { disabled: 0, failing: 0 },
  pipeline: PipelineRow[] = [],
  /** What the viewer may open: the lists that name candidates (not a reviewer under blind review), the instance's setup; and what needs them. */
  may: { names: boolean; manage: boolean; needs?: { mine: number; overdue: number; failedCallbacks: number } } = { names: true, manage: true },
  charts: { distributions: Distribution[]; completions: { day: string; completed: number }[] } = { distributions: [], completions: [] },
): SafeHtml {
  const failedMail = periods[0]?.failedMail ?? 0;
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
${
  may.manage &&
  webhooks.disabled + webhooks.failing > 0 &&
  html`<p class="error" role="status"><a href="/console/webhooks?instance=${instance}">${webhooks.disabled} webhook endpoint${webhooks.disabled === 1 ? ' is' : 's are'} disabled and ${webhooks.failing} failing</a>: their events are not arriving.</p>`
}
<h2 id="needs-title">Needs you now</h2>
<ul class="cards" aria-labelledby="needs-title">
${may.needs && html`<li><a href="/console/reviews?instance=${instance}"><span class="label">Waiting for your review</span><span class="figure">${may.needs.mine}</span></a></li>`}
<li><a href="/console/reviews?instance=${instance}"><span class="label">Free-text answers waiting for review</span><span class="figure">${waitingReviews}</span></a></li>
${may.needs && may.manage && html`<li><a href="/console/reviews?instance=${instance}"><span class="label">Reviews past their due time</span><span class="figure">${may.needs.overdue}</span></a></li>`}
${may.names && html`<li><a href="/console/invitations?instance=${instance}&amp;mail=failed#mail-heading"><span class="label">E-mails that failed (30 days)</span><span class="figure">${failedMail}</span></a></li>`}
${may.manage && html`<li><a href="/console/webhooks?instance=${instance}"><span class="label">Webhook endpoints failing or disabled</span><span class="figure">${webhooks.disabled + webhooks.failing}</span></a></li>`}
${may.needs && may.manage && html`<li><a href="/console/integrations?instance=${instance}"><span class="label">ATS callbacks that failed (30 days)</span><span class="figure">${may.needs.failedCallbacks}</span></a></li>`}
</ul>
<h2>Pipeline per assessment</h2>
${pipelineTable(instance, pipeline, may.names)}
${resultCharts(charts)}
<div class="panels">${sections}</div>`;
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
