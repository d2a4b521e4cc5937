// Reading bulk invites: a file's state and counts, its rows for the preview, and the result file.
import type { Queryable } from '../../db/database.js';
import { notFound } from '../../domain/errors.js';
import type { Mapping, RowError } from './csv.js';

export type BulkStatus = 'draft' | 'ready' | 'running' | 'done' | 'cancelled';
export type RowStatus = 'pending' | 'invalid' | 'duplicate' | 'invited' | 'failed' | 'skipped';

export interface BulkInviteView {
  id: string;
  fileName: string;
  status: BulkStatus;
  headers: string[];
  mapping: Mapping;
  assessments: string[];
  sendInvite: boolean;
  rowCount: number;
  createdBy: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** Rows per state. */
  counts: Record<RowStatus, number>;
  /** Rows that hold a note (an existing candidate, a live invitation). */
  existing: number;
}

export interface BulkRowView {
  line: number;
  email: string | null;
  status: RowStatus;
  errors: RowError[];
  notes: string[];
  duplicateOf: number | null;
  candidateId: string | null;
  mailStatus: 'SENT' | 'FAILED' | null;
  detail: string | null;
  /** The file's cells of the row (for the preview before mapping). */
  cells: string[];
}

const ID = /^[1-9]\d{0,17}$/;

export async function getBulkInvite(db: Queryable, instanceId: string, id: string): Promise<BulkInviteView> {
  const { rows } = ID.test(id)
    ? await db.query<Omit<BulkInviteView, 'counts' | 'existing'> & { counts: Partial<Record<RowStatus, number>> | null; existing: number }>(
        `SELECT b.id::text AS id, b.file_name AS "fileName", b.status, b.headers, coalesce(b.mapping, '{}') AS mapping, b.assessments::text[] AS assessments,
                b.send_invite AS "sendInvite", b.row_count AS "rowCount", b.created_by AS "createdBy", b.created_at AS "createdAt",
                b.started_at AS "startedAt", b.finished_at AS "finishedAt",
                (SELECT jsonb_object_agg(s.status, s.n) FROM (SELECT status, count(*)::int AS n FROM bulk_invite_rows WHERE bulk_invite_id = b.id GROUP BY status) s) AS counts,
                (SELECT count(*)::int FROM bulk_invite_rows WHERE bulk_invite_id = b.id AND notes <> '[]'::jsonb) AS existing
           FROM bulk_invites b WHERE b.id = $1 AND b.instance_id = $2`,
        [id, instanceId],
      )
    : { rows: [] };
  const found = rows[0];
  if (!found) throw notFound(`No bulk invite ${id} in this instance`);
  const counts = { pending: 0, invalid: 0, duplicate: 0, invited: 0, failed: 0, skipped: 0, ...(found.counts ?? {}) };
  return { ...found, counts };
}

export async function listBulkInvites(db: Queryable, instanceId: string, limit = 20): Promise<BulkInviteView[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text AS id FROM bulk_invites WHERE instance_id = $1 ORDER BY id DESC LIMIT $2', [instanceId, limit]);
  return Promise.all(rows.map((r) => getBulkInvite(db, instanceId, r.id)));
}

/** Rows of a file in line order: all, or only those the preview must name (bad, duplicate, noted, failed). */
export async function listRows(db: Queryable, bulkInviteId: string, options: { problemsOnly?: boolean; limit?: number; afterLine?: number } = {}): Promise<BulkRowView[]> {
  const { rows } = await db.query<BulkRowView>(
    `SELECT line, email, status, errors, notes, duplicate_of AS "duplicateOf", candidate_id AS "candidateId", mail_status AS "mailStatus", detail, cells
       FROM bulk_invite_rows
      WHERE bulk_invite_id = $1 AND line > $2 ${options.problemsOnly ? `AND (status IN ('invalid', 'duplicate', 'failed') OR notes <> '[]'::jsonb)` : ''}
      ORDER BY line LIMIT $3`,
    [bulkInviteId, options.afterLine ?? 0, options.limit ?? 10_001],
  );
  return rows;
}

const OUTCOME: Record<RowStatus, string> = {
  pending: 'not yet invited',
  invalid: 'not invited: invalid',
  duplicate: 'not invited: duplicate',
  invited: 'invited',
  failed: 'not invited: refused',
  skipped: 'not invited: cancelled',
};

/** A cell of the result file: quoted, and a leading =, +, - or @ defused so that no spreadsheet runs it as a formula. */
function csvCell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

function linkStatus(row: BulkRowView, sendInvite: boolean): string {
  switch (row.status) {
    case 'invited':
      return [
        !sendInvite
          ? 'link not e-mailed (the file asked for no e-mail)'
          : row.mailStatus === 'SENT'
            ? 'e-mailed'
            : row.mailStatus === 'FAILED'
              ? 'e-mail failed (resend it from Invitations)'
              : row.detail
                ? 'nothing to e-mail'
                : 'e-mail not confirmed',
        ...(row.detail ? [row.detail] : []),
      ].join('; ');
    case 'invalid':
      return row.errors.map((e) => `${e.column}: ${e.detail}`).join('; ');
    case 'duplicate':
      return `the same e-mail as line ${row.duplicateOf}`;
    case 'failed':
      return row.detail ?? 'refused';
    default:
      return '';
  }
}

/** The result file: one line per row of the upload (line, e-mail, outcome, candidate id, link status or error). */
export async function resultCsv(db: Queryable, instanceId: string, id: string): Promise<string> {
  const bulk = await getBulkInvite(db, instanceId, id);
  const rows = await listRows(db, bulk.id);
  const emailColumn = bulk.mapping.email;
  const lines = [['line', 'email', 'outcome', 'candidateId', 'link'].map(csvCell).join(',')];
  for (const row of rows) {
    const email = row.email ?? (emailColumn === undefined ? '' : (row.cells[emailColumn] ?? ''));
    lines.push([String(row.line), email, OUTCOME[row.status], row.candidateId ?? '', linkStatus(row, bulk.sendInvite)].map(csvCell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

// The writes and locked reads of the bulk invite commands (commands.ts holds their rules).

/** Stores a draft with its rows (line and cells each); its id. */
export async function insertDraft(
  tx: Queryable,
  draft: { instanceId: string; fileName: string; headers: string[]; mapping: unknown; rows: { line: number; cells: string[] }[]; createdBy: string; at: Date },
): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO bulk_invites (instance_id, file_name, headers, mapping, row_count, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id::text AS id`,
    [draft.instanceId, draft.fileName, JSON.stringify(draft.headers), JSON.stringify(draft.mapping), draft.rows.length, draft.createdBy, draft.at],
  );
  const id = rows[0]!.id;
  await tx.query(
    `INSERT INTO bulk_invite_rows (bulk_invite_id, line, cells)
     SELECT $1, (r->>'line')::int, r->'cells' FROM jsonb_array_elements($2::jsonb) AS r`,
    [id, JSON.stringify(draft.rows)],
  );
  return id;
}

export interface BulkHead {
  id: string;
  status: string;
  headers: string[];
}

/** A bulk invite of the instance by its id (locked with `lock`), or undefined. */
export async function findBulkHead(tx: Queryable, instanceId: string, id: string, lock: boolean): Promise<BulkHead | undefined> {
  const { rows } = await tx.query<BulkHead>(`SELECT id::text AS id, status, headers FROM bulk_invites WHERE id = $1 AND instance_id = $2${lock ? ' FOR UPDATE' : ''}`, [
    id,
    instanceId,
  ]);
  return rows[0];
}

/** The rows' cells as uploaded, by line. */
export async function rowCells(tx: Queryable, bulkInviteId: string): Promise<{ line: number; cells: string[] }[]> {
  const { rows } = await tx.query<{ line: number; cells: string[] }>('SELECT line, cells FROM bulk_invite_rows WHERE bulk_invite_id = $1 ORDER BY line', [bulkInviteId]);
  return rows;
}

/** Candidates of the instance by lower-case e-mail, each with its live invitations to these assessments (by slug) at `at`. */
export async function knownCandidates(tx: Queryable, instanceId: string, emails: string[], slugs: string[], at: Date): Promise<{ email: string; live: string[] }[]> {
  const { rows } = await tx.query<{ email: string; live: string[] }>(
    `SELECT lower(c.email) AS email,
            ARRAY(SELECT a.slug FROM invitations i JOIN assessments a ON a.id = i.assessment_id
                   WHERE i.candidate_id = c.id AND a.slug = ANY($3::text[]) AND i.cancelled_at IS NULL AND i.expired_at IS NULL
                     AND (i.assessment_status = 'IN_PROGRESS' OR (i.assessment_status = 'INVITED' AND i.expires_at > $4))
                   ORDER BY a.slug) AS live
       FROM candidates c WHERE c.instance_id = $1 AND lower(c.email) = ANY($2::text[])`,
    [instanceId, emails, slugs, at],
  );
  return rows;
}

/** The preview of the rows: each row's outcome, and the file's mapping, assessments and e-mailing; the file is ready. */
export async function storePreview(
  tx: Queryable,
  bulkInviteId: string,
  rows: { line: number; email: string | null; status: string; errors: unknown[]; notes: string[]; duplicate_of: number | null }[],
  settings: { mapping: unknown; assessments: string[]; sendInvite: boolean },
): Promise<void> {
  await tx.query(
    `UPDATE bulk_invite_rows r SET email = u.email, status = u.status, errors = u.errors, notes = u.notes, duplicate_of = u.duplicate_of,
            candidate_id = NULL, mail_status = NULL, detail = NULL, processed_at = NULL
       FROM jsonb_to_recordset($2::jsonb) AS u(line int, email text, status text, errors jsonb, notes jsonb, duplicate_of int)
      WHERE r.bulk_invite_id = $1 AND r.line = u.line`,
    [bulkInviteId, JSON.stringify(rows)],
  );
  await tx.query(`UPDATE bulk_invites SET mapping = $2, assessments = $3, send_invite = $4, status = 'ready' WHERE id = $1`, [
    bulkInviteId,
    JSON.stringify(settings.mapping),
    settings.assessments,
    settings.sendInvite,
  ]);
}

export async function countPendingRows(tx: Queryable, bulkInviteId: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM bulk_invite_rows WHERE bulk_invite_id = $1 AND status = 'pending'`, [bulkInviteId]);
  return rows[0]!.n;
}

export async function markRunning(tx: Queryable, bulkInviteId: string, startedBy: unknown, at: Date): Promise<void> {
  await tx.query(`UPDATE bulk_invites SET status = 'running', started_by = $2, started_at = $3 WHERE id = $1`, [bulkInviteId, JSON.stringify(startedBy), at]);
}

/** Rows not yet tried are skipped; how many. */
export async function skipPendingRows(tx: Queryable, bulkInviteId: string, at: Date): Promise<number> {
  const { rows } = await tx.query(`UPDATE bulk_invite_rows SET status = 'skipped', processed_at = $2 WHERE bulk_invite_id = $1 AND status = 'pending' RETURNING line`, [
    bulkInviteId,
    at,
  ]);
  return rows.length;
}

export async function markCancelled(tx: Queryable, bulkInviteId: string, at: Date): Promise<void> {
  await tx.query(`UPDATE bulk_invites SET status = 'cancelled', finished_at = $2 WHERE id = $1`, [bulkInviteId, at]);
}

/** Drops the uploaded cells of the file's rows (the result file keeps what it says). */
export async function clearCells(tx: Queryable, bulkInviteId: string): Promise<void> {
  await tx.query(`UPDATE bulk_invite_rows SET cells = '[]' WHERE bulk_invite_id = $1`, [bulkInviteId]);
}
