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
// - inviteRow invites one row through the invite command itself (inviteCandidate), in the same
//   transaction that marks the row invited: the row (file id and line) is the idempotency key, so
//   a row tried twice, or by two nodes, or again after a restart, invites once.
// Each is audited in its transaction; the rows' invites are audited as the person who started.
import { isUnavailable, type Database } from '../../db/database.js';
import { runCommand, type Actor, type CommandContext, type CommandRequest, type Statements } from '../../domain/command.js';
import { DomainError, conflict, invalidInput, notFound } from '../../domain/errors.js';
import { listAssessments } from '../assessments/repository.js';
import { actorName, audit } from '../audit/audit.js';
import { inviteBodyErrors, normaliseAssessments } from '../invitations/routes.js';
import { emailInvite } from '../invitations/invitation-mail.js';
import { retryOnConflict } from '../invitations/retry.js';
import type { InvitationSource, InviteRequest, LinkDeps, PreparedInvite } from '../invitations/deps.js';
import { inviteCandidate } from '../invitations/service.js';
import { FIELDS, FIELD_LABELS, guessMapping, type CsvTable, type Field } from './csv.js';

export type Mapping = Partial<Record<Field, number>>;

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

/** A row's problem: the column (as the file names it) and why. */
export interface RowError {
  column: string;
  detail: string;
}

/** What the preview says of the rows (the rows themselves are read with listRows). */
export interface PreparedSummary {
  id: string;
  rows: number;
  toInvite: number;
  invalid: number;
  duplicates: number;
  existing: number;
}

/** The assessments a row's own cell names (ids separated by `;` or `|`), in order, once each. */
export const rowAssessments = (cell: string | undefined): string[] =>
  normaliseAssessments(
    (cell ?? '')
      .split(/[;|]/)
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );

/**
 * The input of one row to the invite, or what is wrong with it, by the rules of POST /v1/invite:
 * the row's own assessments (its `assessments` cell) or, when it names none, the defaults; with
 * `published`, an assessment the instance does not have is the row's error.
 */
export function rowInvite(
  cells: string[],
  mapping: Mapping,
  headers: string[],
  defaults: string[],
  published?: ReadonlySet<string>,
): { request: InviteRequest } | { errors: RowError[] } {
  const cell = (field: Field) => {
    const index = mapping[field];
    return index === undefined ? undefined : (cells[index] ?? '').trim();
  };
  const column = (field: Field) => {
    const index = mapping[field];
    return index === undefined ? field : headers[index] || `column ${index + 1}`;
  };
  const own = rowAssessments(cell('assessments'));
  const assessments = own.length > 0 ? own : defaults;
  if (assessments.length === 0) return { errors: [{ column: column('assessments'), detail: 'names no assessment, and no default assessment was chosen' }] };
  const unknown = published ? assessments.filter((slug) => !published.has(slug)) : [];
  if (unknown.length > 0) return { errors: unknown.map((slug) => ({ column: column('assessments'), detail: `"${slug}" is not a published assessment of this instance` })) };
  const body: Record<string, unknown> = { email: cell('email') ?? '', firstName: cell('firstName') ?? '', lastName: cell('lastName') ?? '', assessments };
  for (const field of ['externalReference', 'language'] as const) {
    const value = cell(field);
    if (value) body[field] = value;
  }
  const extra = cell('extraTimePercent');
  if (extra) body.extraTimePercent = /^\d{1,6}$/.test(extra) ? Number(extra) : extra;
  const invalid = inviteBodyErrors(body);
  if (invalid.length > 0) {
    const errors = invalid.map((e) => {
      const field = FIELDS.find((f) => e.name === f || e.name.startsWith(`${f}.`));
      return { column: field === undefined || mapping[field] === undefined ? e.name : column(field), detail: e.detail };
    });
    return { errors };
  }
  const request: InviteRequest = {
    email: body.email as string,
    firstName: (body.firstName as string).trim(),
    lastName: (body.lastName as string).trim(),
    assessments,
    ...(body.externalReference === undefined ? {} : { externalReference: body.externalReference as string }),
    ...(body.language === undefined ? {} : { language: body.language as string }),
    ...(body.extraTimePercent === undefined ? {} : { extraTimePercent: body.extraTimePercent as number }),
  };
  return { request };
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
  const assessments = normaliseAssessments(input.assessments);
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
async function forgetCells(ctx: CommandContext, bulkInviteId: string): Promise<void> {
  await ctx.tx.query(`UPDATE bulk_invite_rows SET cells = '[]' WHERE bulk_invite_id = $1`, [bulkInviteId]);
}

/**
 * Erases what bulk invites hold of a candidate (their rows' e-mail and cells, in every file of the
 * instance, matched by the candidate or by e-mail), in the transaction of the candidate's erasure
 * and before the candidate's own e-mail is gone; a row still to invite is left.
 */
export async function eraseCandidateBulkRows(tx: Statements, candidateId: string): Promise<void> {
  await tx.query(
    `UPDATE bulk_invite_rows r SET cells = '[]', email = NULL, notes = '[]', detail = 'erased',
            status = CASE WHEN r.status = 'pending' THEN 'skipped' ELSE r.status END
       FROM bulk_invites b, candidates c
      WHERE b.id = r.bulk_invite_id AND c.id = $1 AND b.instance_id = c.instance_id
        AND (r.candidate_id = c.id OR (c.email IS NOT NULL AND lower(r.email) = lower(c.email)))`,
    [candidateId],
  );
}

/** What inviting a row needs: the invite's, and where the invitations say they came from. */
export interface RowDeps extends LinkDeps {
  db: Database;
  /** Hears an unexpected error that failed a row (for the operator's log). */
  onRowError?: (error: unknown, reference: string) => void;
}

export type RowOutcome = { kind: 'none' } | { kind: 'done'; bulkInviteId: string; line: number; status: 'invited' | 'failed' };

/**
 * Invites one pending row of a running bulk invite (the given one, or the next any node has not
 * claimed), then e-mails its link when the file asked for that. `none`: no such row is pending
 * (another node has it, or it was invited already).
 */
export async function inviteRow(deps: RowDeps, now: Date, which?: { bulkInviteId: string; line: number }): Promise<RowOutcome> {
  const request: CommandRequest = { actor: { kind: 'system', job: 'bulk-invites' }, requestId: 'job:bulk-invites', now };
  const made = await retryOnConflict(() =>
    runCommand(
      deps.db,
      request,
      async (ctx) => {
        const { rows } = await ctx.tx.query<{
          bulkInviteId: string;
          line: number;
          instanceId: string;
          cells: string[];
          headers: string[];
          mapping: Mapping;
          assessments: string[];
          sendInvite: boolean;
          startedBy: Actor;
        }>(
          `SELECT r.bulk_invite_id::text AS "bulkInviteId", r.line, r.cells, b.instance_id AS "instanceId", b.headers, b.mapping, b.assessments,
                  b.send_invite AS "sendInvite", b.started_by AS "startedBy"
             FROM bulk_invite_rows r JOIN bulk_invites b ON b.id = r.bulk_invite_id
            WHERE r.status = 'pending' AND b.status = 'running' ${which ? 'AND r.bulk_invite_id = $1 AND r.line = $2' : ''}
            ORDER BY r.bulk_invite_id, r.line LIMIT 1 FOR UPDATE OF r SKIP LOCKED`,
          which ? [which.bulkInviteId, which.line] : [],
        );
        const row = rows[0];
        if (!row) return undefined;
        const outcome = rowInvite(row.cells, row.mapping, row.headers, row.assessments);
        let prepared: PreparedInvite | undefined;
        let detail: string | null = null;
        if ('errors' in outcome) detail = outcome.errors.map((e) => `${e.column}: ${e.detail}`).join('; ');
        else {
          // The invite command itself, as the person who started; a refusal (an assessment
          // unpublished since the preview) undoes only its own writes and fails the row.
          const source: InvitationSource = row.startedBy.kind === 'user' ? 'console' : 'api';
          const inner: CommandContext = { ...ctx, actor: row.startedBy, requestId: `bulk-invite:${row.bulkInviteId}:${row.line}` };
          await ctx.tx.query('SAVEPOINT bulk_row');
          try {
            prepared = await inviteCandidate(inner, deps, { instanceId: row.instanceId, request: outcome.request, source });
            await ctx.tx.query('RELEASE SAVEPOINT bulk_row');
          } catch (error) {
            // The database away, or a conflict to retry: the whole row waits for the next try.
            const code = (error as { code?: unknown }).code;
            if (isUnavailable(error) || code === '40001' || code === '40P01') throw error;
            await ctx.tx.query('ROLLBACK TO SAVEPOINT bulk_row');
            if (error instanceof DomainError) detail = [error.message, ...(error.fields ?? []).map((f) => `${f.name}: ${f.detail}`)].join('; ');
            else {
              // Anything else (a fault of ours) fails this row alone rather than holding up every row
              // after it run after run; its detail stays in the service's log, not in the tenant's file.
              deps.onRowError?.(error, inner.requestId);
              detail = `could not be invited: an error on our side (reference ${inner.requestId}); invite this person on their own`;
            }
          }
        }
        const status = prepared ? 'invited' : 'failed';
        // What the invite left as it was (a completed assessment), as /v1/invite names it in `skipped`.
        if (prepared && prepared.skipped.length > 0) detail = prepared.skipped.map((k) => `${k.assessmentId}: ${k.detail}`).join('; ');
        await ctx.tx.query(`UPDATE bulk_invite_rows SET status = $3, candidate_id = $4, detail = $5, processed_at = $6 WHERE bulk_invite_id = $1 AND line = $2`, [
          row.bulkInviteId,
          row.line,
          status,
          prepared?.candidateId ?? null,
          detail?.slice(0, 1000) ?? null,
          ctx.now,
        ]);
        const { rows: finished } = await ctx.tx.query(
          `UPDATE bulk_invites SET status = 'done', finished_at = $2
            WHERE id = $1 AND status = 'running' AND NOT EXISTS (SELECT 1 FROM bulk_invite_rows WHERE bulk_invite_id = $1 AND status = 'pending')
            RETURNING id`,
          [row.bulkInviteId, ctx.now],
        );
        if (finished.length > 0) await forgetCells(ctx, row.bulkInviteId);
        return { row, status, prepared, request: 'request' in outcome ? outcome.request : undefined } as const;
      },
      'bulk_invite_row',
    ),
  );
  if (!made) return { kind: 'none' };
  const { row, status, prepared } = made;
  if (prepared && made.request && row.sendInvite && prepared.open.length > 0) {
    const mail = await emailInvite(deps, row.instanceId, prepared, made.request);
    await deps.db.query('UPDATE bulk_invite_rows SET mail_status = $3 WHERE bulk_invite_id = $1 AND line = $2', [row.bulkInviteId, row.line, mail]);
  }
  return { kind: 'done', bulkInviteId: row.bulkInviteId, line: row.line, status };
}
