import { barChart } from '../charts.js';
import { html, type SafeHtml } from '../../html/html.js';
import type { Funnel } from '../../modules/scores/insights.js';

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
