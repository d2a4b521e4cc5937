// The audit log of operator actions. Every change is recorded by its command, in its transaction
// (`audit`): it commits with the change or not at all. A state-changing admin request (POST,
// PATCH, PUT, DELETE) that passed the token check and was refused is recorded by the admin API's
// error handler (`registerRefusalAudit`, admin-routes.ts) in a transaction of its own, the refused
// command's having left nothing: when, who (the admin token, the client address and user agent),
// the action, its target (the path parameters), the request id and the status answered; a refusal
// that cannot be recorded is answered as a failure of ours. Bodies are never recorded, so neither
// are keys, tokens or candidate data.
import type { Queryable } from '../../db/database.js';
import type { Actor, CommandContext } from '../../domain/command.js';

const ACTOR = 'admin-token';
const MAX_USER_AGENT = 500;

export interface AuditEntry {
  id: string;
  at: Date;
  actor: string;
  clientIp: string;
  userAgent: string | null;
  action: string;
  target: string | null;
  requestId: string;
  status: number;
}

/**
 * Newest first. The id leaves as text (a bigint may exceed a JS number) but is sorted and compared
 * as the bigint column: an unqualified `ORDER BY id` would name the text output column and sort
 * "9" above "15".
 */
export async function listAudit(db: Queryable, options: { limit: number; before?: string }): Promise<AuditEntry[]> {
  const { rows } = await db.query<AuditEntry>(
    `SELECT id::text AS id, at, actor, client_ip AS "clientIp", user_agent AS "userAgent", action, target, request_id AS "requestId", status
       FROM audit_log WHERE ($2::bigint IS NULL OR audit_log.id < $2::bigint) ORDER BY audit_log.id DESC LIMIT $1`,
    [options.limit, options.before ?? null],
  );
  return rows;
}

export interface AuditRecord {
  /** Who: `user:<e-mail>` for a console user, `admin-token` for the admin API. */
  actor: string;
  clientIp: string;
  userAgent?: string;
  action: string;
  target: string | null;
  requestId: string;
  status: number;
}

/**
 * The one statement that writes the audit log: one entry, in the command's transaction (the two
 * commit together). Only `audit` calls it.
 */
async function recordAudit(tx: Queryable, entry: AuditRecord): Promise<void> {
  await tx.query(`INSERT INTO audit_log (actor, client_ip, user_agent, action, target, request_id, status) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    entry.actor,
    entry.clientIp,
    entry.userAgent?.slice(0, MAX_USER_AGENT) ?? null,
    entry.action,
    entry.target?.slice(0, 500) ?? null,
    entry.requestId,
    entry.status,
  ]);
}

/** How the console orders the log: by entry number (= time), by who, or by action; ties end on the number, newest first. */
export const AUDIT_SORTS = ['number', 'actor', 'action'] as const;
export type AuditSort = (typeof AUDIT_SORTS)[number];
// Named with the table: the output column `id` is text, and ORDER BY would take it first.
const AUDIT_ORDER: Record<AuditSort, string> = { number: 'audit_log.id', actor: 'audit_log.actor', action: 'audit_log.action' };

interface AuditFilter {
  actor?: string;
  action?: string;
}
const FILTER = `($1::text IS NULL OR actor = $1) AND ($2::text IS NULL OR starts_with(action, $2))`;

/**
 * Audit entries of one actor and actions starting with a prefix (each optional): newest first
 * before an entry number (`before`, the old "older entries" links), or a page in the order asked.
 */
export async function searchAudit(
  db: Queryable,
  options: AuditFilter & { limit: number; before?: string; offset?: number; order?: { sort: AuditSort; descending: boolean } },
): Promise<AuditEntry[]> {
  const order = options.order ?? { sort: 'number', descending: true };
  const direction = order.descending ? 'DESC' : 'ASC';
  const by = order.sort === 'number' ? `audit_log.id ${direction}` : `${AUDIT_ORDER[order.sort]} ${direction}, audit_log.id DESC`;
  const { rows } = await db.query<AuditEntry>(
    `SELECT id::text, at, actor, client_ip AS "clientIp", user_agent AS "userAgent", action, target, request_id AS "requestId", status
       FROM audit_log
      WHERE ${FILTER} AND ($3::bigint IS NULL OR id < $3::bigint)
      ORDER BY ${by} LIMIT $4 OFFSET $5`,
    [options.actor ?? null, options.action ?? null, options.before ?? null, options.limit, options.offset ?? 0],
  );
  return rows;
}

/**
 * How many entries match the filter, counted up to `atMost`: a log of millions is not counted on
 * every page (`more` says there are more than `total`).
 */
export async function countAudit(db: Queryable, filter: AuditFilter, atMost: number): Promise<{ total: number; more: boolean }> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM audit_log WHERE ${FILTER} LIMIT $3) AS counted`, [
    filter.actor ?? null,
    filter.action ?? null,
    atMost + 1,
  ]);
  const n = rows[0]!.n;
  return n > atMost ? { total: atMost, more: true } : { total: n, more: false };
}

/** How an actor is named in the log: `key:<id>`, `admin-token` or `user:<e-mail>`. */
export function actorName(actor: Actor): string | undefined {
  switch (actor.kind) {
    case 'api-key':
      return `key:${actor.id}`;
    case 'admin-token':
      return ACTOR;
    case 'user':
      return `user:${actor.email.toLowerCase()}`;
    case 'anonymous':
      return actor.name;
    default:
      return undefined;
  }
}

/**
 * The audit entry of a command, in the command's transaction: it commits with the change or not
 * at all. The log records what people and client applications did (API keys, the operator,
 * console users); what candidates do and what the clock does are recorded as events (the outbox),
 * not here, so that the log stays a record of decisions and does not grow with every answer saved.
 */
export async function audit(ctx: CommandContext, action: string, target: string | null, status = 200, options: { evenBySystem?: boolean } = {}): Promise<void> {
  // A job's decision is recorded only where the command says the operator must see it
  // (evenBySystem: an erasure by the retention sweep), under the job's name.
  if (ctx.actor.kind === 'system') {
    if (options.evenBySystem) await recordAudit(ctx.tx, { actor: ctx.actor.job, clientIp: '-', action, target, requestId: ctx.requestId, status });
    return;
  }
  const actor = actorName(ctx.actor);
  if (actor === undefined || ctx.actor.kind === 'candidate') return;
  await recordAudit(ctx.tx, { actor, clientIp: ctx.actor.clientIp ?? '-', userAgent: ctx.actor.userAgent, action, target, requestId: ctx.requestId, status });
}
