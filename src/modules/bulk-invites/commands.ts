// Inviting in bulk from a CSV file: the commands of the bulk-invites module, which owns
// `bulk_invites` and `bulk_invite_rows`.
//
// - importBulkInvite stores a file that could be read (csv.ts) as a draft, with a guess of which
//   column is which field;
// - prepareBulkInvite maps the columns and chooses the assessments, and checks every row by the
//   rules of POST /v1/invite (its schema, then the assessments it names), marking bad rows (line,
//   column, why), rows whose e-mail an earlier row has, and noting candidates that exist already
//   and live invitations they hold: the preview, before anything is sent;
// - startBulkInvite hands the rows to the background job (job.ts); cancelBulkInvite leaves the
//   rows not yet tried;
// - inviting a row, the background job's step, is invite-row.ts; a candidate's erasure in the
//   files, erasure.ts; a row's cells read as the invite's input, csv.ts.
// Each is audited in its transaction.
import type { Actor, CommandContext } from '../../domain/command.js';
import { conflict, invalidInput, notFound } from '../../domain/errors.js';
import { listAssessments } from '../assessments/repository.js';
import { actorName, audit } from '../audit/audit.js';
import { assessmentIds } from '../invitations/invite-input.js';
import {
  clearCells,
  countPendingRows,
  findBulkHead,
  insertDraft,
  knownCandidates,
  markCancelled,
  markRunning,
  rowCells,
  skipPendingRows,
  storePreview,
  type BulkHead,
} from './repository.js';
import { FIELDS, FIELD_LABELS, guessMapping, rowInvite, type CsvTable, type Field, type Mapping } from './csv.js';

/** Fields a file must give a column for (the invite requires them). */
export const REQUIRED_FIELDS: Field[] = ['email', 'firstName', 'lastName'];

/** Stores a file that could be read, as a draft of a bulk invite with a guess of its columns. */
export async function importBulkInvite(
  ctx: CommandContext,
  input: { instanceId: string; fileName: string; table: CsvTable; mapping?: Mapping },
): Promise<{ id: string; mapping: Mapping }> {
  const mapping = input.mapping ?? guessMapping(input.table.headers, input.table.rows);
  // A file without e-mail addresses cannot invite anyone: refused before anything is stored.
  if (mapping.email === undefined) {
    throw invalidInput(
      [{ in: 'body', name: 'file', detail: `no column holds e-mail addresses (its columns: ${input.table.headers.join(', ')})` }],
      'The file has no e-mail column: add one (a header such as "E-mail") and upload it again',
    );
  }
  const fileName = input.fileName.replace(/[\\/]/g, '_').trim().slice(0, 255) || 'upload.csv';
  const id = await insertDraft(ctx.tx, {
    instanceId: input.instanceId,
    fileName,
    headers: input.table.headers,
    mapping,
    rows: input.table.rows,
    createdBy: actorName(ctx.actor) ?? 'system',
    at: ctx.now,
  });
  await audit(ctx, 'bulk-invite.import', id);
  return { id, mapping };
}

async function readBulkInvite(ctx: CommandContext, instanceId: string, id: string, lock = false): Promise<BulkHead> {
  const row = /^[1-9]\d{0,17}$/.test(id) ? await findBulkHead(ctx.tx, instanceId, id, lock) : undefined;
  if (!row) throw notFound(`No bulk invite ${id} in this instance`);
  return row;
}

const lockBulkInvite = (ctx: CommandContext, instanceId: string, id: string) => readBulkInvite(ctx, instanceId, id, true);

/** What the preview says of the rows (the rows themselves are read with listRows). */
export interface PreparedSummary {
  id: string;
  rows: number;
  toInvite: number;
  invalid: number;
  duplicates: number;
  existing: number;
}

/**
 * Maps the columns of a draft (or a previewed file, again), chooses its assessments and whether
 * the service e-mails the links, and checks every row: the preview. Nothing is invited.
 */
export async function prepareBulkInvite(
  ctx: CommandContext,
  input: { instanceId: string; id: string; mapping: Mapping; assessments: string[]; sendInvite: boolean },
): Promise<PreparedSummary> {
  const bulk = await lockBulkInvite(ctx, input.instanceId, input.id);
  if (bulk.status !== 'draft' && bulk.status !== 'ready') throw conflict(`Bulk invite ${bulk.id} is ${bulk.status}: its rows can no longer be mapped`);
  const problems: { name: string; detail: string }[] = [];
  const used = new Map<number, Field>();
  for (const [field, index] of Object.entries(input.mapping) as [Field, number | undefined][]) {
    if (!FIELDS.includes(field)) problems.push({ name: `mapping.${field}`, detail: 'is not a field of an invite' });
    else if (index === undefined) continue;
    else if (!Number.isInteger(index) || index < 0 || index >= bulk.headers.length)
      problems.push({ name: `mapping.${field}`, detail: `must be a column of the file (1-${bulk.headers.length})` });
    else if (used.has(index)) problems.push({ name: `mapping.${field}`, detail: `column ${index + 1} is already the ${FIELD_LABELS[used.get(index)!]} column` });
    else used.set(index, field);
  }
  for (const field of REQUIRED_FIELDS) {
    if (input.mapping[field] === undefined) problems.push({ name: `mapping.${field}`, detail: `is required: choose the file's ${FIELD_LABELS[field].toLowerCase()} column` });
  }
  // A file with an assessments column names them row by row; the chosen ones are then the default of rows that name none.
  if (input.assessments.length === 0 && input.mapping.assessments === undefined)
    problems.push({ name: 'assessments', detail: "choose at least one assessment, or map the file's assessments column" });
  if (problems.length > 0)
    throw invalidInput(
      problems.map((p) => ({ in: 'body', ...p })),
      input.mapping.email === undefined ? 'The file has no e-mail column: choose which column holds the e-mail addresses' : undefined,
    );
  const ids = assessmentIds(input.assessments);
  if (!ids.ok) throw invalidInput(ids.errors.map((e) => ({ in: 'body', name: e.field, detail: e.message })));
  const assessments = ids.value;
  // The same words as the invite command for an assessment it does not know.
  const published = new Set((await listAssessments(ctx.tx, [input.instanceId])).map((a) => a.id));
  const unknown = assessments.filter((slug) => !published.has(slug));
  if (unknown.length > 0) {
    throw invalidInput(
      unknown.map((slug) => ({ in: 'body' as const, name: `assessments.${assessments.indexOf(slug)}`, detail: `"${slug}" is not a published assessment of this instance` })),
      `Unknown assessment${unknown.length === 1 ? '' : 's'} for this instance: ${unknown.join(', ')}`,
    );
  }

  const rows = await rowCells(ctx.tx, bulk.id);
  const firstLine = new Map<string, number>();
  const named = new Set(assessments);
  const checked = rows.map((row) => {
    const outcome = rowInvite(row.cells, input.mapping, bulk.headers, assessments, published);
    if ('errors' in outcome) {
      // The row's e-mail cell as written, so that the preview names whose row it is.
      const written = input.mapping.email === undefined ? '' : (row.cells[input.mapping.email] ?? '').trim();
      return { line: row.line, email: written === '' ? null : written.slice(0, 254), status: 'invalid', errors: outcome.errors, duplicateOf: null as number | null };
    }
    const key = outcome.request.email.toLowerCase();
    const earlier = firstLine.get(key);
    if (earlier !== undefined) return { line: row.line, email: outcome.request.email, status: 'duplicate', errors: [], duplicateOf: earlier };
    firstLine.set(key, row.line);
    for (const slug of outcome.request.assessments) named.add(slug);
    return { line: row.line, email: outcome.request.email, status: 'pending', errors: [], duplicateOf: null };
  });
  // Candidates the instance has already, and their live invitations to these assessments.
  const known = await knownCandidates(ctx.tx, input.instanceId, [...firstLine.keys()], [...named], ctx.now);
  const existing = new Map(known.map((k) => [k.email, k.live]));
  const updates = checked.map((c) => {
    const live = c.status === 'pending' ? existing.get(c.email!.toLowerCase()) : undefined;
    const notes =
      live === undefined
        ? []
        : [live.length > 0 ? `already has a live invitation to ${live.join(', ')}: inviting again sends a fresh link` : 'is already a candidate of this instance'];
    return { ...c, notes };
  });
  await storePreview(
    ctx.tx,
    bulk.id,
    updates.map((u) => ({ line: u.line, email: u.email, status: u.status, errors: u.errors, notes: u.notes, duplicate_of: u.duplicateOf })),
    { mapping: input.mapping, assessments, sendInvite: input.sendInvite },
  );
  await audit(ctx, 'bulk-invite.prepare', bulk.id);
  return {
    id: bulk.id,
    rows: updates.length,
    toInvite: updates.filter((u) => u.status === 'pending').length,
    invalid: updates.filter((u) => u.status === 'invalid').length,
    duplicates: updates.filter((u) => u.status === 'duplicate').length,
    existing: updates.filter((u) => u.notes.length > 0).length,
  };
}

/** Starts inviting the rows of a previewed file, in the background; who starts is whose invites they are. */
export async function startBulkInvite(ctx: CommandContext, input: { instanceId: string; id: string }): Promise<void> {
  const bulk = await lockBulkInvite(ctx, input.instanceId, input.id);
  if (bulk.status === 'draft') throw conflict(`Bulk invite ${bulk.id} has not been previewed yet: map its columns and choose its assessments first`);
  if (bulk.status !== 'ready') throw conflict(`Bulk invite ${bulk.id} is ${bulk.status} already`);
  if ((await countPendingRows(ctx.tx, bulk.id)) === 0) throw conflict(`Bulk invite ${bulk.id} has no row to invite: every row is invalid or a duplicate`);
  const { clientIp: _ip, userAgent: _ua, ...actor } = ctx.actor as Actor & { clientIp?: string; userAgent?: string };
  await markRunning(ctx.tx, bulk.id, actor, ctx.now);
  await audit(ctx, 'bulk-invite.start', bulk.id);
}

/**
 * Stops a bulk invite: rows not yet tried are skipped (a row being invited at that moment finishes).
 * Locks in the order of the job (the rows, then the file), so that a cancel and the last row's
 * invite wait for each other instead of deadlocking.
 */
export async function cancelBulkInvite(ctx: CommandContext, input: { instanceId: string; id: string }): Promise<{ skipped: number }> {
  const seen = await readBulkInvite(ctx, input.instanceId, input.id);
  if (seen.status === 'done' || seen.status === 'cancelled') throw conflict(`Bulk invite ${seen.id} is ${seen.status} already`);
  const skipped = await skipPendingRows(ctx.tx, seen.id, ctx.now);
  const bulk = await lockBulkInvite(ctx, input.instanceId, input.id);
  // The last row may have finished the file meanwhile.
  if (bulk.status === 'done' || bulk.status === 'cancelled') throw conflict(`Bulk invite ${bulk.id} is ${bulk.status} already`);
  await markCancelled(ctx.tx, bulk.id, ctx.now);
  await forgetCells(ctx, bulk.id);
  await audit(ctx, 'bulk-invite.cancel', bulk.id);
  return { skipped };
}

/**
 * A finished file keeps of its rows only what the result file says (line, e-mail, outcome,
 * candidate, why): the rest of what was uploaded (every other column) is not kept past its use.
 */
export async function forgetCells(ctx: CommandContext, bulkInviteId: string): Promise<void> {
  await clearCells(ctx.tx, bulkInviteId);
}
