// The audit log of operator actions. A change made by a command is recorded by the command, in
// its transaction (`audit`). Every other state-changing admin request (POST, PATCH, PUT, DELETE)
// that passed the token check, and every refused one, is recorded before its answer is sent: when, who (the
// admin token, the client address and user agent), the action, its target, the request id and
// the status answered. Bodies are never recorded, so neither are keys, tokens or candidate data;
// the target is made of path parameters and, for a creation, the new resource's id or name.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/database.js';
import type { Actor, CommandContext } from '../../domain/command.js';

const STATE_CHANGING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's change is a command, which writes its own audit entry inside its transaction
     * (`audit` below): the request is recorded here only when it was refused.
     */
    auditedByCommand?: boolean;
  }
}

// Route (without the /admin/v1 prefix) to action name; a route missing here is recorded as
// "<METHOD> <route>", so that nothing goes unrecorded for want of a name.
const ACTIONS: Record<string, string> = {
  'POST /instances': 'instance.create',
  'PATCH /instances/:instance': 'instance.update',
  'PUT /instances/:instance/logo': 'instance.logo.set',
  'DELETE /instances/:instance/logo': 'instance.logo.remove',
  'POST /instances/:instance/assessments': 'assessment.import',
  'POST /instances/:instance/reviews': 'review.score',
  'POST /instances/:instance/deliveries/:id/resend': 'delivery.resend',
  'POST /keys': 'key.create',
  'PATCH /keys/:id': 'key.update',
  'POST /keys/:id/revoke': 'key.revoke',
  'POST /instances/:instance/candidates/erase': 'candidate.erase',
  'POST /instances/:instance/candidates/export': 'candidate.export',
  'POST /users': 'user.create',
  'POST /users/:id/disable': 'user.disable',
  'POST /users/:id/enable': 'user.enable',
  'POST /users/:id/reset-password': 'user.reset-password',
  'POST /users/:id/reset-2fa': 'user.2fa.reset',
  'PUT /instances/:instance/sso': 'sso.configure',
  'DELETE /instances/:instance/sso': 'sso.remove',
  'POST /instances/:instance/bulk-invites': 'bulk-invite.import',
  'POST /instances/:instance/bulk-invites/:id/start': 'bulk-invite.start',
  'POST /instances/:instance/bulk-invites/:id/cancel': 'bulk-invite.cancel',
};

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

/** The id or name of what a successful creation made, read from its JSON answer. */
function created(payload: unknown): string | undefined {
  if (typeof payload !== 'string') return undefined;
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    const value = body.id ?? body.name;
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  } catch {
    return undefined;
  }
}

function target(request: FastifyRequest, status: number, payload: unknown): string | null {
  const parts = Object.values((request.params ?? {}) as Record<string, unknown>).map(String);
  if (request.method === 'POST' && (status === 200 || status === 201)) {
    const made = created(payload);
    if (made !== undefined && !parts.includes(made)) parts.push(made);
  }
  return parts.length > 0 ? parts.join('/').slice(0, 500) : null;
}

/** Records the admin plugin's state-changing requests; never fails a request. */
export function registerAudit(app: FastifyInstance, db: Queryable, prefix: string): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.adminAuthenticated || !STATE_CHANGING.has(request.method)) return payload;
    if (request.routeOptions.config.auditedByCommand && reply.statusCode < 400) return payload;
    const route = request.routeOptions.url;
    if (route === undefined) return payload;
    const path = route.startsWith(prefix) ? route.slice(prefix.length) : route;
    const action = ACTIONS[`${request.method} ${path}`] ?? `${request.method} ${path}`;
    const userAgent = request.headers['user-agent'];
    try {
      await recordAudit(db, {
        actor: ACTOR,
        clientIp: request.ip,
        userAgent: typeof userAgent === 'string' ? userAgent : undefined,
        action,
        target: target(request, reply.statusCode, payload),
        requestId: request.id,
        status: reply.statusCode,
      });
    } catch (error) {
      request.log.error({ err: error, action, status: reply.statusCode }, 'could not write the audit log');
    }
    return payload;
  });
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
 * The one statement that writes the audit log: one entry, in the transaction of the change when
 * given it (the two commit together). Commands call `audit`; only the admin API's record of
 * requests that are no command (and of refused ones) calls this directly.
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

/** Audit entries newest first, optionally of one actor and actions starting with a prefix. */
export async function searchAudit(db: Queryable, options: { limit: number; before?: string; actor?: string; action?: string }): Promise<AuditEntry[]> {
  const { rows } = await db.query<AuditEntry>(
    `SELECT id::text, at, actor, client_ip AS "clientIp", user_agent AS "userAgent", action, target, request_id AS "requestId", status
       FROM audit_log
      WHERE ($2::bigint IS NULL OR id < $2::bigint) AND ($3::text IS NULL OR actor = $3) AND ($4::text IS NULL OR starts_with(action, $4))
      ORDER BY audit_log.id DESC LIMIT $1`,
    [options.limit, options.before ?? null, options.actor ?? null, options.action ?? null],
  );
  return rows;
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
