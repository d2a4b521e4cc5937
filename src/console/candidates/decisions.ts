// The recruiter's marks on a candidate in the console: the decision (advance, hold, reject) with
// a note, and tags, on the candidate's page; and the list's export with them (CSV). Owners and
// managers decide; reviewers see. The writes are the decisions module's commands.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runCommand } from '../../domain/command.js';
import { DomainError } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import type { Database } from '../../db/database.js';
import type { CandidateListItem } from '../../modules/candidates/repository.js';
import { decideCandidate, NOTE_MAX, tagCandidate, TAGS_MAX } from '../../modules/decisions/commands.js';
import { DECISIONS, type CandidateMarks } from '../../modules/decisions/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';

export const DECISION_TEXT: Record<string, string> = { advance: 'Advance', hold: 'Hold', reject: 'Reject' };

/** The decision and tags as a line of the candidates list. */
export function marksLine(marks: CandidateMarks | undefined): SafeHtml {
  if (!marks) return html``;
  return html`${marks.decision && html`<span class="badge decision-${marks.decision.decision}">${DECISION_TEXT[marks.decision.decision]}</span>`}${marks.tags.map(
    (t) => html` <span class="tag">${t}</span>`,
  )}`;
}

/** The panel of the candidate's page: what was decided and the form to change it (for those who may). */
export function marksPanel(input: {
  instance: string;
  candidateId: string;
  marks: CandidateMarks;
  csrf: string;
  canDecide: boolean;
  errors?: { name: string; detail: string }[];
  saved?: boolean;
}): SafeHtml {
  const { decision, tags } = input.marks;
  const current = decision
    ? html`<p><strong>${DECISION_TEXT[decision.decision]}</strong> by ${decision.decidedBy.replace(/^user:/, '')}, ${decision.decidedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC${decision.note && html`: ${decision.note}`}</p>`
    : html`<p>No decision yet.</p>`;
  const form =
    input.canDecide &&
    html`<form method="post" action="/console/candidates/${input.candidateId}/marks" class="marks-form">
<input type="hidden" name="_csrf" value="${input.csrf}">
<input type="hidden" name="instance" value="${input.instance}">
<fieldset><legend>Decision</legend>
${[['', 'None'] as const, ...DECISIONS.map((d) => [d, DECISION_TEXT[d]!] as const)].map(
  ([value, label]) =>
    html`<label class="choice"><input type="radio" name="decision" value="${value}"${(decision?.decision ?? '') === value ? html` checked` : html``}> ${label}</label>`,
)}
</fieldset>
<div class="field"><label for="marks-note">Note (for your team; never shown to the candidate)</label><textarea id="marks-note" name="note" rows="2" maxlength="${NOTE_MAX}">${decision?.note ?? ''}</textarea></div>
<div class="field"><label for="marks-tags">Tags (separated by commas; at most ${TAGS_MAX})</label><input id="marks-tags" name="tags" value="${tags.join(', ')}" maxlength="800"></div>
<button type="submit" class="primary">Save decision and tags</button>
</form>`;
  return html`<section class="panel marks no-print" aria-labelledby="marks-title">
<h2 id="marks-title">Decision and tags</h2>
${input.saved && html`<p class="info" role="status">Saved.</p>`}
${input.errors?.length ? html`<div role="alert"><p class="error">Nothing was saved:</p><ul>${input.errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>` : html``}
${current}
<p>Tags: ${tags.length > 0 ? tags.map((t, i) => html`${i > 0 ? ', ' : ''}<span class="tag">${t}</span>`) : 'none'}</p>
${form}
</section>`;
}

/** A CSV cell: quoted, and text a spreadsheet would run as a formula (=, +, -, @, tab, return at the start) made inert. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** The candidates list as CSV rows: one row per candidate and assessment, with the candidate's decision, note and tags. */
export function candidatesCsv(items: CandidateListItem[], marks: Map<string, CandidateMarks>): string {
  const header = [
    'candidateId',
    'firstName',
    'lastName',
    'email',
    'decision',
    'note',
    'tags',
    'assessmentId',
    'assessmentName',
    'assessmentStatus',
    'scoreStatus',
    'totalScore',
    'redFlag',
  ];
  const lines = [header.map(csvCell).join(',')];
  for (const c of items) {
    const m = marks.get(c.id);
    const person = [c.id, c.firstName, c.lastName, c.email, m?.decision?.decision, m?.decision?.note, m?.tags.join('; ')];
    const invitations = c.invitations.length > 0 ? c.invitations : [undefined];
    for (const i of invitations) {
      lines.push(
        [...person, i?.assessmentId, i?.assessmentName, i?.assessmentStatus, i?.scoreStatus, i === undefined ? '' : Number(i.totalScore), i?.redFlag].map(csvCell).join(','),
      );
    }
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

export interface DecisionRouteDeps {
  db: Database;
  now: () => Date;
  /** The instance named in the form, if the signed-in user may `permission` it (else a 403/404 thrown). */
  instanceOf: (request: FastifyRequest, name: string | undefined, permission: 'read' | 'manage') => Instance;
  /** The candidate's page again, with the marks panel showing these errors (status 400). */
  again: (request: FastifyRequest, reply: FastifyReply, instance: Instance, candidateId: string, errors: { name: string; detail: string }[]) => Promise<unknown>;
}

export function registerDecisionRoutes(scope: FastifyInstance, deps: DecisionRouteDeps): void {
  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/candidates/:id/marks', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const target = { instance: { id: instance.id, name: instance.name }, candidateId: request.params.id };
    const decision = body.decision === undefined || body.decision === '' ? null : body.decision;
    const tags = (body.tags ?? '').split(',');
    try {
      await runCommand(
        deps.db,
        commandRequest(request, deps.now()),
        async (ctx) => {
          await decideCandidate(ctx, { ...target, decision, note: decision === null ? null : (body.note ?? null) });
          return tagCandidate(ctx, { ...target, tags });
        },
        'candidate_marks',
      );
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      return deps.again(request, reply, instance, request.params.id, error.fields);
    }
    return reply.redirect(`/console/candidates/${encodeURIComponent(request.params.id)}?instance=${encodeURIComponent(instance.name)}&marked=1#marks-title`, 303);
  });
}
