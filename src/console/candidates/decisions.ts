// The recruiter's marks on a candidate in the console: the decision (advance, hold, reject) with
// a note, and tags, on the candidate's page; and the list's export with them (CSV). Owners and
// managers decide; reviewers see. The writes are the decisions module's commands.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runCommand } from '../../domain/command.js';
import { DomainError } from '../../domain/errors.js';
import { html, type SafeHtml } from '../../html/html.js';
import { errorSummary, fieldError, invalidAttributes } from '../components.js';
import { commandRequest } from '../../http/command.js';
import type { Database } from '../../db/database.js';
import type { CandidateListItem } from '../../modules/candidates/repository.js';
import { decideCandidate, NOTE_MAX, tagCandidate, TAGS_MAX, type MarkTarget } from '../../modules/decisions/commands.js';
import type { CommandContext } from '../../domain/command.js';
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

type Errors = readonly { name: string; detail: string }[] | undefined;

const decidedText = (d: NonNullable<CandidateMarks['decision']>) => `by ${d.decidedBy.replace(/^user:/, '')}, ${d.decidedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The candidate's header line: the decision as a badge with who and when, and the tags. */
export function headerMarks(marks: CandidateMarks): SafeHtml {
  const { decision, tags } = marks;
  return html`<p class="candidate-marks">${
    decision
      ? html`<span class="badge decision-${decision.decision}">${DECISION_TEXT[decision.decision]}</span> <span class="hint">${decidedText(decision)}</span>`
      : html`<span class="hint">No decision yet</span>`
  }${tags.map((t) => html` <span class="tag">${t}</span>`)}</p>`;
}

/**
 * The header's actions: Advance, Hold and Reject, each opening a small form for its note (an
 * HTML popover: no script) that posts the decision alone; Compare; the way to the tags. A
 * decision refused comes back with its form open in the page and the error beside the note.
 */
export function decisionActions(input: {
  instance: string;
  candidateId: string;
  csrf: string;
  canDecide: boolean;
  compareHref?: string;
  current?: string;
  errors?: Errors;
  attempted?: string;
}): SafeHtml {
  const form = (d: (typeof DECISIONS)[number]) => {
    const open = input.attempted === d && (input.errors?.length ?? 0) > 0;
    const id = `decide-${d}`;
    const fields = html`<form method="post" action="/console/candidates/${input.candidateId}/decision" class="decide-form">
<input type="hidden" name="_csrf" value="${input.csrf}">
<input type="hidden" name="instance" value="${input.instance}">
<input type="hidden" name="decision" value="${d}">
<p class="decide-title" id="${id}-title">${DECISION_TEXT[d]}: ${input.current === d ? 'change the note' : 'decide'}</p>
${open && errorSummary(`${id}-errors`, 'Nothing was saved:', input.errors, { note: `${id}-note`, decision: `${id}-note` })}
<div class="field"><label for="${id}-note">Note for your team (optional; never shown to the candidate)</label><textarea id="${id}-note" name="note" rows="3" maxlength="${NOTE_MAX}"${open ? invalidAttributes(input.errors, 'note', `${id}-note-error`) : html``}></textarea>${open && fieldError(input.errors, 'note', `${id}-note-error`)}</div>
<div class="actions"><button type="submit" class="primary">${DECISION_TEXT[d]}</button>${!open && html`<button type="button" popovertarget="${id}" popovertargetaction="hide">Cancel</button>`}</div>
</form>`;
    return open
      ? html`<div id="${id}" class="decide-panel" role="group" aria-labelledby="${id}-title">${fields}</div>`
      : html`<div id="${id}" class="decide-panel" popover role="dialog" aria-labelledby="${id}-title">${fields}</div>`;
  };
  const buttons =
    input.canDecide &&
    DECISIONS.map(
      (d) => html`<button type="button" popovertarget="decide-${d}" class="decide-${d}"${input.current === d ? html` aria-pressed="true"` : html``}>${DECISION_TEXT[d]}</button>`,
    );
  return html`<div class="actions no-print">${buttons}${input.compareHref && html`<a class="button" href="${input.compareHref}">Compare</a>`}<a class="button" href="#marks-title">Tags</a></div>
${input.canDecide && DECISIONS.map(form)}`;
}

/** The panel of the candidate's page: the decision with its note, and the tags with the form to change them (for those who may). */
export function marksPanel(input: { instance: string; candidateId: string; marks: CandidateMarks; csrf: string; canDecide: boolean; errors?: Errors; saved?: boolean }): SafeHtml {
  const { decision, tags } = input.marks;
  const current = decision
    ? html`<p><strong>${DECISION_TEXT[decision.decision]}</strong> ${decidedText(decision)}${decision.note && html`: ${decision.note}`}</p>`
    : html`<p>No decision yet${input.canDecide ? ': Advance, Hold or Reject at the top of the page.' : '.'}</p>`;
  const clear =
    input.canDecide &&
    decision &&
    html`<form method="post" action="/console/candidates/${input.candidateId}/decision" class="inline">
<input type="hidden" name="_csrf" value="${input.csrf}">
<input type="hidden" name="instance" value="${input.instance}">
<input type="hidden" name="decision" value="">
<button type="submit">Clear the decision</button></form>`;
  const form =
    input.canDecide &&
    html`<form method="post" action="/console/candidates/${input.candidateId}/tags" class="marks-form">
<input type="hidden" name="_csrf" value="${input.csrf}">
<input type="hidden" name="instance" value="${input.instance}">
<div class="field"><label for="marks-tags">Tags (separated by commas; at most ${TAGS_MAX})</label><input id="marks-tags" name="tags" value="${tags.join(', ')}" maxlength="800"${invalidAttributes(input.errors, 'tags', 'marks-tags-error')}>${fieldError(input.errors, 'tags', 'marks-tags-error')}</div>
<button type="submit" class="primary">Save tags</button>
</form>`;
  return html`<section class="panel marks no-print" aria-labelledby="marks-title">
<h2 id="marks-title">Decision and tags</h2>
${input.saved && html`<p class="info" role="status">Saved.</p>`}
${errorSummary('marks-errors', 'Nothing was saved:', input.errors, { tags: 'marks-tags' })}
${current}${clear}
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
  /** The candidate's page again, showing these errors (status 400): in the marks panel, or in the form of the decision attempted. */
  again: (
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    candidateId: string,
    errors: { name: string; detail: string }[],
    attempted?: string,
  ) => Promise<unknown>;
}

/**
 * The marks' forms: the decision alone (the header's Advance / Hold / Reject, and Clear), the tags
 * alone (the panel), and both at once (the form of earlier versions, kept for its links). Each is
 * the decisions module's command; a refusal shows the page again with the error beside the field.
 */
export function registerDecisionRoutes(scope: FastifyInstance, deps: DecisionRouteDeps): void {
  const route = (
    path: string,
    anchor: string,
    write: (ctx: CommandContext, target: MarkTarget, body: Record<string, string | undefined>) => Promise<unknown>,
    attempted: (body: Record<string, string | undefined>) => string | undefined = () => undefined,
  ) =>
    scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>(path, async (request, reply) => {
      const body = request.body ?? {};
      const instance = deps.instanceOf(request, body.instance, 'manage');
      const target = { instance: { id: instance.id, name: instance.name }, candidateId: request.params.id };
      try {
        await runCommand(deps.db, commandRequest(request, deps.now()), (ctx) => write(ctx, target, body), 'candidate_marks');
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
        return deps.again(request, reply, instance, request.params.id, error.fields, attempted(body));
      }
      return reply.redirect(`/console/candidates/${encodeURIComponent(request.params.id)}?instance=${encodeURIComponent(instance.name)}&marked=1#${anchor}`, 303);
    });
  const decisionOf = (body: Record<string, string | undefined>) => (body.decision === undefined || body.decision === '' ? null : body.decision);
  const decide = (ctx: CommandContext, target: MarkTarget, body: Record<string, string | undefined>) => {
    const decision = decisionOf(body);
    return decideCandidate(ctx, { ...target, decision, note: decision === null ? null : (body.note ?? null) });
  };
  const tag = (ctx: CommandContext, target: MarkTarget, body: Record<string, string | undefined>) => tagCandidate(ctx, { ...target, tags: (body.tags ?? '').split(',') });
  route('/console/candidates/:id/decision', 'main', decide, (body) => DECISIONS.find((d) => d === body.decision));
  route('/console/candidates/:id/tags', 'marks-title', tag);
  route('/console/candidates/:id/marks', 'marks-title', async (ctx, target, body) => {
    await decide(ctx, target, body);
    return tag(ctx, target, body);
  });
}
