// Comparing candidates of one assessment side by side (2 to 10, chosen in the candidates list):
// total, result, each category, typing, time taken, red flag and the recruiters' decision, in one
// table and in charts on the same 0-100 scale, so that bars of different candidates compare.
import { isUuid } from '../../domain/ids.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { invalidInput } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import { listAssessments } from '../../modules/assessments/repository.js';
import { assessmentReports, type AssessmentReport } from '../../modules/attempts/report.js';
import { findCandidate, searchCandidates, type CandidateListItem, type CandidateSummary } from '../../modules/candidates/repository.js';
import { marksOfMany, type CandidateMarks } from '../../modules/decisions/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import { barChart } from '../charts.js';
import { DECISION_TEXT } from './decisions.js';
import { duration, SCORE_TEXT, statusText } from '../format.js';

export const COMPARE_MAX = 10;
/** How many others the page offers to add. */
const ADDABLE = 50;

interface Compared {
  candidate: CandidateSummary;
  report: AssessmentReport | undefined;
  marks: CandidateMarks | undefined;
}

/** A candidate's total on the assessment, as the picker shows it beside the name. */
const scoreOf = (c: CandidateListItem, assessmentId: string) => {
  const total = c.invitations.find((i) => i.assessmentId === assessmentId && i.assessmentStatus === 'COMPLETED' && i.totalScore !== '')?.totalScore;
  return total === undefined || total === null ? '' : ` (${Number(total)} %)`;
};

const nameOf = (c: CandidateSummary) => (c.email === null ? `Erased candidate ${c.id.slice(0, 8)}` : `${c.firstName} ${c.lastName}`);

export function compareBody(
  instance: string,
  assessment: { id: string; name: string },
  assessments: { id: string; name: string }[],
  rows: Compared[],
  addable: CandidateListItem[],
): SafeHtml {
  const scored = (r: AssessmentReport | undefined) => r !== undefined && r.record.assessmentStatus === 'COMPLETED' && r.record.scoreStatus !== 'PENDING';
  const categories = [...new Set(rows.flatMap((r) => (scored(r.report) ? r.report!.record.categoryScores.map((c) => c.name) : [])))];
  const cell = (r: Compared, value: (report: AssessmentReport) => SafeHtml | string) =>
    html`<td>${r.report === undefined ? 'not invited' : r.report.record.assessmentStatus !== 'COMPLETED' ? statusText(r.report.record.assessmentStatus) : value(r.report)}</td>`;
  const line = (label: string, value: (report: AssessmentReport) => SafeHtml | string) => html`<tr><th scope="row">${label}</th>${rows.map((r) => cell(r, value))}</tr>`;
  const score = (text: string) => (text === '' ? '-' : `${Number(text)} %`);
  const charts = [
    barChart(
      `${assessment.name}: total score`,
      rows.filter((r) => scored(r.report)).map((r) => ({ label: nameOf(r.candidate), value: Number(r.report!.record.totalScore) })),
      { max: 100, unit: ' %', scale: true },
    ),
    ...categories.map((name) =>
      barChart(
        name,
        rows.filter((r) => scored(r.report)).map((r) => ({ label: nameOf(r.candidate), value: Number(r.report!.record.categoryScores.find((c) => c.name === name)?.score ?? 0) })),
        { max: 100, unit: ' %', scale: true },
      ),
    ),
  ];
  const others = assessments.filter((a) => a.id !== assessment.id);
  const ids = rows.map((r) => r.candidate.id);
  const compareHref = (chosen: string[]) => `/console/compare?${new URLSearchParams([['instance', instance], ['assessment', assessment.id], ...chosen.map((id) => ['ids', id])])}`;
  const remove = (r: Compared) =>
    rows.length > 2 &&
    html`<br><a class="remove" href="${compareHref(ids.filter((id) => id !== r.candidate.id))}">Remove<span class="visually-hidden"> ${nameOf(r.candidate)}</span></a>`;
  const add =
    rows.length < COMPARE_MAX &&
    addable.length > 0 &&
    html`<form method="get" action="/console/compare" class="inline compare-add">
<input type="hidden" name="instance" value="${instance}"><input type="hidden" name="assessment" value="${assessment.id}">${ids.map((id) => html`<input type="hidden" name="ids" value="${id}">`)}
<label for="compare-add">Add a candidate who completed it</label> <select id="compare-add" name="ids">${addable.map((c) => html`<option value="${c.id}">${nameOf(c)}${scoreOf(c, assessment.id)}</option>`)}</select>
<button type="submit">Add</button></form>`;
  return html`<h1>Compare candidates: ${assessment.name}</h1>
<p><a href="/console/candidates?instance=${instance}&amp;assessment=${assessment.id}">Back to candidates</a>${
    others.length > 0 &&
    html` · <form method="get" action="/console/compare" class="inline">
<input type="hidden" name="instance" value="${instance}">${ids.map((id) => html`<input type="hidden" name="ids" value="${id}">`)}
<label for="compare-assessment">Another assessment</label> <select id="compare-assessment" name="assessment">${others.map((a) => html`<option value="${a.id}">${a.name}</option>`)}</select>
<button type="submit">Compare</button></form>`
  }</p>
${add && html`<p>${add}</p>`}
<div class="table-scroll"><table class="data compare">
<caption>${rows.length} candidates, ${assessment.name}</caption>
<thead><tr><th scope="col">Candidate</th>${rows.map((r) => html`<th scope="col"><a href="/console/candidates/${r.candidate.id}?instance=${instance}#a-${assessment.id}">${nameOf(r.candidate)}</a>${remove(r)}</th>`)}</tr></thead>
<tbody>
${line('Result', (r) => (scored(r) ? (SCORE_TEXT[r.record.scoreStatus] ?? r.record.scoreStatus) : 'awaiting a score'))}
${line('Total score', (r) => (scored(r) ? score(r.record.totalScore) : '-'))}
${categories.map((name) => line(name, (r) => score(r.record.categoryScores.find((c) => c.name === name)?.score ?? '')))}
${line('Typing', (r) => (r.attempt?.typingWpm != null ? `${r.record.typingSpeed} wpm, ${r.attempt.typingAccuracy ?? 0} % accurate` : '-'))}
${line('Time taken', (r) => duration(r))}
${line('Red flag', (r) => (r.record.redFlag ? html`<span class="flag">yes</span>: ${r.redFlagReasons.join('; ')}` : 'no'))}
<tr><th scope="row">Decision</th>${rows.map((r) => html`<td>${r.marks?.decision ? DECISION_TEXT[r.marks.decision.decision] : '-'}${r.marks?.tags.length ? html` (${r.marks.tags.join(', ')})` : ''}</td>`)}</tr>
</tbody></table></div>
<p>Every chart runs from 0 to 100 %, so that bars of different candidates and categories compare.</p>
<div class="panels">${charts}</div>`;
}

/** Candidate ids as a form or query gives them: repeated, or separated by commas; each once. */
export function idsOf(value: string | string[] | undefined): string[] {
  return [
    ...new Set(
      ([] as string[])
        .concat(value ?? [])
        .flatMap((id) => id.split(','))
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
}

export interface CompareDeps {
  db: Queryable;
  instanceOf: (request: FastifyRequest, name: string | undefined, permission: 'names') => Instance;
  render: (request: FastifyRequest, reply: FastifyReply, instance: Instance, title: string, body: SafeHtml) => unknown;
}

export function registerCompareRoutes(scope: FastifyInstance, deps: CompareDeps): void {
  scope.get<{ Querystring: { instance?: string; assessment?: string; ids?: string | string[] } }>('/console/compare', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'names');
    const ids = idsOf(request.query.ids);
    if (ids.length < 2 || ids.length > COMPARE_MAX)
      throw invalidInput([{ in: 'query', name: 'ids', detail: `choose 2 to ${COMPARE_MAX} candidates to compare (${ids.length} chosen)` }]);
    const bad = ids.find((id) => !isUuid(id));
    if (bad !== undefined) throw invalidInput([{ in: 'query', name: 'ids', detail: `"${bad.slice(0, 40)}" is not a candidate id` }]);
    const candidates: CandidateSummary[] = [];
    for (const id of ids) {
      const found = await findCandidate(deps.db, [instance.id], id);
      if (!found) throw invalidInput([{ in: 'query', name: 'ids', detail: `${id} is not a candidate of this instance` }]);
      candidates.push(found);
    }
    const reports = new Map<string, AssessmentReport[]>();
    for (const c of candidates) reports.set(c.id, await assessmentReports(deps.db, [instance.id], c.id));
    const assessments = (await listAssessments(deps.db, [instance.id])).filter((a) => candidates.some((c) => reports.get(c.id)!.some((r) => r.record.assessmentId === a.id)));
    // Without a choice, the assessment most of them took.
    const chosen = request.query.assessment ? assessments.find((a) => a.id === request.query.assessment) : [...assessments].sort((a, b) => count(b.id) - count(a.id))[0];
    function count(assessmentId: string) {
      return candidates.filter((c) => reports.get(c.id)!.some((r) => r.record.assessmentId === assessmentId)).length;
    }
    if (!chosen) throw invalidInput([{ in: 'query', name: 'assessment', detail: 'is not an assessment these candidates were invited to' }]);
    const marks = await marksOfMany(
      deps.db,
      candidates.map((c) => c.id),
    );
    const rows = candidates.map((candidate) => ({
      candidate,
      report: reports.get(candidate.id)!.find((r) => r.record.assessmentId === chosen.id),
      marks: marks.get(candidate.id),
    }));
    // Others to add: those who completed it, best score first (50 at most), not already compared.
    const addable =
      ids.length < COMPARE_MAX
        ? (
            await searchCandidates(deps.db, {
              instanceId: instance.id,
              assessmentId: chosen.id,
              assessmentStatus: 'COMPLETED',
              sort: 'score',
              descending: true,
              limit: ADDABLE + ids.length,
            })
          )
            .filter((c) => !ids.includes(c.id))
            .slice(0, ADDABLE)
        : [];
    return deps.render(
      request,
      reply,
      instance,
      `Compare candidates: ${chosen.name}`,
      compareBody(
        instance.name,
        chosen,
        assessments.map((a) => ({ id: a.id, name: a.name })),
        rows,
        addable,
      ),
    );
  });
}
