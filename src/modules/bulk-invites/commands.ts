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
  const { rows } = await ctx.tx.query<{ id: string }>(
    `INSERT INTO bulk_invites (instance_id, file_name, headers, mapping, row_count, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text AS id`,
    [input.instanceId, fileName, JSON.stringify(input.table.headers), JSON.stringify(mapping), input.table.rows.length, actorName(ctx.actor) ?? 'system', ctx.now],
  );
  const id = rows[0]!.id;
  await ctx.tx.query(
    `INSERT INTO bulk_invite_rows (bulk_invite_id, line, cells)
     SELECT $1, (r->>'line')::int, r->'cells' FROM jsonb_array_elements($2::jsonb) AS r`,
    [id, JSON.stringify(input.table.rows)],
  );
  await audit(ctx, 'bulk-invite.import', id);
  return { id, mapping };
}

interface Locked {
  id: string;
  status: string;
  headers: string[];
}

async function readBulkInvite(ctx: CommandContext, instanceId: string, id: string, lock = false): Promise<Locked> {
  const found = /^[1-9]\d{0,17}$/.test(id)
    ? await ctx.tx.query<Locked>(`SELECT id::text AS id, status, headers FROM bulk_invites WHERE id = $1 AND instance_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, instanceId])
    : { rows: [] };
  const row = found.rows[0];
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

  const { rows } = await ctx.tx.query<{ line: number; cells: string[] }>('SELECT line, cells FROM bulk_invite_rows WHERE bulk_invite_id = $1 ORDER BY line', [bulk.id]);
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
  const { rows: known } = await ctx.tx.query<{ email: string; live: string[] }>(
    `SELECT lower(c.email) AS email,
            ARRAY(SELECT a.slug FROM invitations i JOIN assessments a ON a.id = i.assessment_id
                   WHERE i.candidate_id = c.id AND a.slug = ANY($3::text[]) AND i.cancelled_at IS NULL AND i.expired_at IS NULL
                     AND (i.assessment_status = 'IN_PROGRESS' OR (i.assessment_status = 'INVITED' AND i.expires_at > $4))
                   ORDER BY a.slug) AS live
       FROM candidates c WHERE c.instance_id = $1 AND lower(c.email) = ANY($2::text[])`,
    [input.instanceId, [...firstLine.keys()], [...named], ctx.now],
  );
  const existing = new Map(known.map((k) => [k.email, k.live]));
  const updates = checked.map((c) => {
    const live = c.status === 'pending' ? existing.get(c.email!.toLowerCase()) : undefined;
    const notes =
      live === undefined
        ? []
        : [live.length > 0 ? `already has a live invitation to ${live.join(', ')}: inviting again sends a fresh link` : 'is already a candidate of this instance'];
    return { ...c, notes };
  });
  await ctx.tx.query(
    `UPDATE bulk_invite_rows r SET email = u.email, status = u.status, errors = u.errors, notes = u.notes, duplicate_of = u.duplicate_of,
            candidate_id = NULL, mail_status = NULL, detail = NULL, processed_at = NULL
       FROM jsonb_to_recordset($2::jsonb) AS u(line int, email text, status text, errors jsonb, notes jsonb, duplicate_of int)
      WHERE r.bulk_invite_id = $1 AND r.line = u.line`,
    [bulk.id, JSON.stringify(updates.map((u) => ({ line: u.line, email: u.email, status: u.status, errors: u.errors, notes: u.notes, duplicate_of: u.duplicateOf })))],
  );
  await ctx.tx.query(`UPDATE bulk_invites SET mapping = $2, assessments = $3, send_invite = $4, status = 'ready' WHERE id = $1`, [
    bulk.id,
    JSON.stringify(input.mapping),
    assessments,
    input.sendInvite,
  ]);
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
  const { rows } = await ctx.tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM bulk_invite_rows WHERE bulk_invite_id = $1 AND status = 'pending'`, [bulk.id]);
  if (rows[0]!.n === 0) throw conflict(`Bulk invite ${bulk.id} has no row to invite: every row is invalid or a duplicate`);
  const { clientIp: _ip, userAgent: _ua, ...actor } = ctx.actor as Actor & { clientIp?: string; userAgent?: string };
  await ctx.tx.query(`UPDATE bulk_invites SET status = 'running', started_by = $2, started_at = $3 WHERE id = $1`, [bulk.id, JSON.stringify(actor), ctx.now]);
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
  const { rows } = await ctx.tx.query(`UPDATE bulk_invite_rows SET status = 'skipped', processed_at = $2 WHERE bulk_invite_id = $1 AND status = 'pending' RETURNING line`, [
    seen.id,
    ctx.now,
  ]);
  const bulk = await lockBulkInvite(ctx, input.instanceId, input.id);
  // The last row may have finished the file meanwhile.
  if (bulk.status === 'done' || bulk.status === 'cancelled') throw conflict(`Bulk invite ${bulk.id} is ${bulk.status} already`);
  await ctx.tx.query(`UPDATE bulk_invites SET status = 'cancelled', finished_at = $2 WHERE id = $1`, [bulk.id, ctx.now]);
  await forgetCells(ctx, bulk.id);
  await audit(ctx, 'bulk-invite.cancel', bulk.id);
  return { skipped: rows.length };
}

/**
 * A finished file keeps of its rows only what the result file says (line, e-mail, outcome,
 * candidate, why): the rest of what was uploaded (every other column) is not kept past its use.
 */
export async function forgetCells(ctx: CommandContext, bulkInviteId: string): Promise<void> {
  await ctx.tx.query(`UPDATE bulk_invite_rows SET cells = '[]' WHERE bulk_invite_id = $1`, [bulkInviteId]);
}
