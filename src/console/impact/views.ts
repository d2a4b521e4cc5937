// The adverse-impact page: the period and assessment, the report per question (counts, selection
// rates, impact ratios, the four-fifths flag, Fisher's p-value), how to read it, its CSV, and the
// panel of the self-identification settings (on or off, and the questions as YAML).
import { html, type SafeHtml } from '../../html/html.js';
import type { SelfIdSettingsView } from '../../modules/equality/commands.js';
import { MIN_GROUP, pText, rateText, ratioText, type ImpactReport, type ImpactRow, type Selection, type Verdict } from '../../modules/equality/impact.js';
import { csvCell } from '../candidates/decisions.js';

export interface ImpactFilters {
  instance: string;
  assessment?: string;
  from: string;
  to: string;
  selected: Selection;
}

const SELECTION_TEXT: Record<Selection, string> = {
  pass: 'Pass (at or above the pass score)',
  'pass-or-low-pass': 'Pass or low pass (at or above the low-pass score)',
};

export const VERDICT_TEXT: Record<Verdict, string> = {
  reference: 'Reference: the highest rate',
  meets: 'At or above four fifths',
  below: 'Below four fifths',
  'too-few': `Too few to judge (fewer than ${MIN_GROUP})`,
  'no-comparison': 'Nobody selected: no ratio',
  excluded: 'Not in the ratios',
};

export const impactQuery = (f: ImpactFilters) => {
  const params = new URLSearchParams({ instance: f.instance, from: f.from, to: f.to, selected: f.selected });
  if (f.assessment) params.set('assessment', f.assessment);
  return params.toString();
};

function verdictCell(row: ImpactRow): SafeHtml {
  const text = VERDICT_TEXT[row.verdict];
  return row.verdict === 'below' ? html`<strong class="flag impact-below">${text}</strong>` : html`${text}`;
}

function rowHtml(row: ImpactRow): SafeHtml {
  const excluded = row.verdict === 'excluded';
  return html`<tr${row.verdict === 'below' && html` class="impact-flagged"`}>
<th scope="row">${row.label}</th>
<td class="num">${row.completed}</td>
<td class="num">${row.selected}</td>
<td class="num">${row.rate === null || excluded ? '-' : rateText(row.rate)}</td>
<td class="num">${row.ratio === null ? '-' : ratioText(row.ratio)}</td>
<td>${verdictCell(row)}</td>
<td class="num">${row.pValue === null ? '-' : pText(row.pValue)}</td>
</tr>`;
}

function reportHtml(report: ImpactReport): SafeHtml {
  const flagged = report.questions.flatMap((q) => q.rows.filter((r) => r.verdict === 'below').map((r) => `${q.label}: ${r.label}`));
  return html`<dl class="figures">
<div><dt>Completed and scored in the period</dt><dd>${report.scored}</dd></div>
<div><dt>Of them, answered the voluntary questions</dt><dd>${report.answered}</dd></div>
<div><dt>Completed, awaiting a score (not counted)</dt><dd>${report.awaitingScore}</dd></div>
<div><dt>Groups below four fifths</dt><dd>${flagged.length}</dd></div>
</dl>
${flagged.length > 0 && html`<p class="error" role="status" id="impact-summary">Below four fifths of the highest rate: ${flagged.join('; ')}.</p>`}
${report.questions.map(
  (q) => html`<section class="panel impact-question" aria-labelledby="impact-q-${q.id}">
<h2 id="impact-q-${q.id}">${q.label}</h2>
<p class="hint">${
    q.reference === null
      ? q.judged === 0
        ? `No group has ${MIN_GROUP} or more people who completed: nothing to compare yet.`
        : 'Nobody in the groups large enough to judge was selected: no ratio.'
      : `Compared with ${q.reference}, the group with the highest selection rate (${q.judged} ${q.judged === 1 ? 'group' : 'groups'} large enough to judge).`
  }</p>
<div class="table-scroll"><table class="data impact-table">
<caption class="visually-hidden">${q.label}: selection rates and impact ratios</caption>
<thead><tr><th scope="col">Group</th><th scope="col">Completed</th><th scope="col">Selected</th><th scope="col">Selection rate</th><th scope="col">Impact ratio</th><th scope="col">Four-fifths rule</th><th scope="col">p (Fisher, vs. reference)</th></tr></thead>
<tbody>${q.rows.map(rowHtml)}</tbody>
</table></div>
</section>`,
)}`;
}

const READING = html`<section class="panel" aria-labelledby="impact-reading">
<h2 id="impact-reading">How to read this</h2>
<p>For each group, the <strong>selection rate</strong> is the share of the people who completed the assessment in the period and were selected. The <strong>impact ratio</strong> is a group's rate divided by the highest rate of any group (the reference). Under the <strong>four-fifths rule</strong> of the US Uniform Guidelines on Employee Selection Procedures (29 CFR 1607.4 D), a ratio below 0.8 is generally taken as evidence of adverse impact, and is flagged here. NYC Local Law 144 bias audits report the same impact ratios per category; the EU AI Act asks providers and deployers of hiring systems to examine them for possible bias.</p>
<p>The rule is a rule of thumb, not a legal finding or a test of significance: with few people a ratio below 0.8 may be chance, and with many people a ratio above 0.8 may still be a real difference. The last column is Fisher's exact test (two-sided) of each group against the reference: a small p-value (for instance below 0.05) says a difference this large would rarely arise by chance alone. Each is computed on its own, without correction for the number of groups compared.</p>
<p>Groups with fewer than ${MIN_GROUP} people who completed are counted but marked "too few to judge": they are neither flagged nor the reference. "Prefer not to say" and no answer are counted and left out of the ratios. Only what candidates chose to say is counted: when many did not answer, the groups may not stand for everyone who took the assessment. Candidates who were erased (on request or by the retention period) no longer count in any group. Ratios are cut to two decimals, never rounded up, so a ratio shown as 0.80 is at least 0.8.</p>
<p>Candidates answer these questions after they submit, and only if they want to; reviewers never see the answers, and nothing here changes anyone's score.</p>
</section>`;

export function impactBody(input: {
  filters: ImpactFilters;
  assessments: { id: string; name: string }[];
  assessmentName?: string;
  report?: ImpactReport;
  settings: SelfIdSettingsView;
  questionsYaml: string;
  csrf: string;
  saved?: boolean;
  errors?: { name: string; detail: string }[];
}): SafeHtml {
  const { filters, assessments, report, settings } = input;
  const filterForm = html`<form method="get" action="/console/impact" class="filters impact-filters">
<input type="hidden" name="instance" value="${filters.instance}">
<div class="field grow"><label for="impact-assessment">Assessment</label><select id="impact-assessment" name="assessment">${assessments.map(
    (a) => html`<option value="${a.id}"${a.id === filters.assessment && html` selected`}>${a.name}</option>`,
  )}</select></div>
<div class="field"><label for="impact-from">Completed from</label><input type="date" id="impact-from" name="from" value="${filters.from}" required></div>
<div class="field"><label for="impact-to">to (inclusive)</label><input type="date" id="impact-to" name="to" value="${filters.to}" required></div>
<div class="field grow"><label for="impact-selected">Counts as selected</label><select id="impact-selected" name="selected">${(Object.keys(SELECTION_TEXT) as Selection[]).map(
    (s) => html`<option value="${s}"${s === filters.selected && html` selected`}>${SELECTION_TEXT[s]}</option>`,
  )}</select></div>
<button type="submit">Show</button>
</form>`;
  const body = report
    ? html`<p>${input.assessmentName}, completed ${filters.from} to ${filters.to} (UTC); selected: ${SELECTION_TEXT[filters.selected]}. <a href="/console/impact.csv?${impactQuery(filters)}" download>Download as CSV</a></p>
${reportHtml(report)}`
    : html`<p>This instance has no assessments yet.</p>`;
  return html`<h1>Adverse impact</h1>
<p>Selection rates of the groups candidates identified themselves with, for evidence that an assessment does not screen out a protected group. Seen by owners and managers only.</p>
${filterForm}
${body}
${READING}
${settingsPanel(filters.instance, settings, input.questionsYaml, input.csrf, input.saved, input.errors)}`;
}

function settingsPanel(instance: string, settings: SelfIdSettingsView, yaml: string, csrf: string, saved?: boolean, errors?: { name: string; detail: string }[]): SafeHtml {
  return html`<section class="panel" aria-labelledby="self-id-settings">
<h2 id="self-id-settings">Voluntary self-identification</h2>
${saved && html`<p class="info" role="status">Saved.</p>`}
${errors?.length ? html`<div role="alert" id="self-id-errors"><p class="error">Nothing was saved:</p><ul>${errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>` : html``}
<p>After submitting an assessment, candidates are ${settings.enabled ? html`<strong>offered</strong>` : html`<strong>not offered</strong>`} an optional form of these questions, which says that it does not affect their result and that reviewers never see it. The answers are stored apart from answers and scores, counted only on this page, listed in the candidate's data export, and deleted with the candidate's erasure or by the retention period. ${settings.isDefault ? 'These are the default questions (the US EEO categories), shown to candidates in their language.' : "These are this instance's own questions, shown to candidates in these words whatever their language."} "Prefer not to say" is added to every question.</p>
<form method="post" action="/console/impact/settings" class="settings-form">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<p><label class="choice"><input type="checkbox" name="enabled" value="1"${settings.enabled && html` checked`}> Offer candidates the optional self-identification form</label></p>
<label for="self-id-questions">Questions, as YAML: a list of 1-10 questions, each with an <code>id</code>, a <code>label</code> and 2-20 <code>options</code>, each with an <code>id</code> and a <code>label</code> (ids: a-z, 0-9 and -)</label>
<textarea id="self-id-questions" name="questions" rows="18" spellcheck="false">${yaml}</textarea>
<p><button type="submit" class="primary" name="action" value="save">Save</button> <button type="submit" name="action" value="default">Restore the default questions</button></p>
</form>
</section>`;
}

/** The report as CSV: one row per question and group, with the period and what counted as selected; formulas made inert. */
export function impactCsv(filters: ImpactFilters, assessmentName: string, report: ImpactReport): string {
  const header = [
    'assessmentId',
    'assessmentName',
    'from',
    'to',
    'selected',
    'question',
    'group',
    'completed',
    'selectedCount',
    'selectionRate',
    'impactRatio',
    'fourFifths',
    'pValue',
  ];
  const lines = [header.map(csvCell).join(',')];
  for (const q of report.questions) {
    for (const r of q.rows) {
      lines.push(
        [
          filters.assessment,
          assessmentName,
          filters.from,
          filters.to,
          filters.selected,
          q.label,
          r.label,
          r.completed,
          r.selected,
          r.rate === null || r.verdict === 'excluded' ? '' : (Math.round(r.rate * 10000) / 10000).toFixed(4),
          r.ratio === null ? '' : ratioText(r.ratio),
          VERDICT_TEXT[r.verdict],
          r.pValue === null ? '' : r.pValue.toPrecision(3),
        ]
          .map(csvCell)
          .join(','),
      );
    }
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
