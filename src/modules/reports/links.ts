// Report links for recruiters: a read-only, expiring link to one candidate's report for one
// assessment that opens without an account, like a presigned URL:
//
//   /reports/<candidateId>/<assessmentId>?expires=<unix seconds>&signature=<22 characters>
//   /reports/<candidateId>/<assessmentId>.pdf?expires=…&signature=…   (the same report as a PDF)
//
// The signature is HMAC-SHA256 (truncated to 128 bits) of the candidate, the assessment and the
// expiry under the instance's own report key, so a link cannot be altered to open another report
// or to live longer. The expiry is rounded up to the next midnight (UTC), so that a link read
// twice on one day is the same link; once that link is revoked, the link handed out is the one
// expiring a second earlier. Revoking: one link (its signature is kept until it would have
// expired), or every link of an instance at once by rotating its key.
import { isUuid } from '../../domain/ids.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import type { CommandContext } from '../../domain/command.js';
import { invalidInput, notFound } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';

const DAY = 86_400_000;
// How many revoked links of one report a day are stepped past (each a second earlier).
const MAX_REVOKED_A_DAY = 100;
const SIGNATURE = /^[A-Za-z0-9_-]{22}$/;
const ASSESSMENT = /^[a-z][a-z0-9-]{0,63}$/;

export interface ReportLinkParts {
  candidateId: string;
  assessmentId: string;
  /** Unix seconds. */
  expires: number;
  signature: string;
}

/** The instance's report key, made on first use (by whichever node needs it first). */
async function keyOf(db: Queryable, instanceId: string): Promise<Buffer> {
  const found = await db.query<{ secret: Buffer | Uint8Array }>('SELECT secret FROM report_link_keys WHERE instance_id = $1', [instanceId]);
  if (found.rows[0]) return Buffer.from(found.rows[0].secret);
  await db.query('INSERT INTO report_link_keys (instance_id, secret) VALUES ($1, $2) ON CONFLICT (instance_id) DO NOTHING', [instanceId, randomBytes(32)]);
  const { rows } = await db.query<{ secret: Buffer | Uint8Array }>('SELECT secret FROM report_link_keys WHERE instance_id = $1', [instanceId]);
  return Buffer.from(rows[0]!.secret);
}

function sign(key: Buffer, candidateId: string, assessmentId: string, expires: number): string {
  return createHmac('sha256', key).update(`report-link v1\n${candidateId}\n${assessmentId}\n${expires}`).digest().subarray(0, 16).toString('base64url');
}

/** The expiry of a link made now: `days` ahead, rounded up to the next midnight UTC. */
export function linkExpiry(now: Date, days: number): number {
  return Math.ceil((now.getTime() + days * DAY) / DAY) * (DAY / 1000);
}

/** Signed report links of one candidate's assessments (all in one instance). */
export async function reportLinks(
  db: Queryable,
  input: { instanceId: string; days: number; candidateId: string; assessmentIds: string[] },
  now: Date,
  publicUrl: string,
): Promise<Map<string, string>> {
  const links = new Map<string, string>();
  if (input.assessmentIds.length === 0) return links;
  const key = await keyOf(db, input.instanceId);
  const expires = linkExpiry(now, input.days);
  const base = publicUrl.replace(/\/+$/, '');
  // Today's link of an assessment, unless it was revoked: then the one expiring a second earlier
  // (and so on), so that a revoked link is never handed out again, the same day included.
  const earlier = new Map(input.assessmentIds.map((id) => [id, 0]));
  for (let round = 0; round < MAX_REVOKED_A_DAY; round++) {
    const signed = [...earlier].map(([assessmentId, k]) => ({ assessmentId, expires: expires - k, signature: sign(key, input.candidateId, assessmentId, expires - k) }));
    const { rows } = await db.query<{ signature: string }>('SELECT signature FROM revoked_report_links WHERE signature = ANY($1::text[])', [signed.map((l) => l.signature)]);
    const revoked = new Set(rows.map((r) => r.signature));
    for (const link of signed) {
      if (revoked.has(link.signature)) {
        earlier.set(link.assessmentId, earlier.get(link.assessmentId)! + 1);
        continue;
      }
      links.set(link.assessmentId, `${base}/reports/${input.candidateId}/${link.assessmentId}?expires=${link.expires}&signature=${link.signature}`);
      earlier.delete(link.assessmentId);
    }
    if (earlier.size === 0) break;
  }
  // Revoked this many times in one day: the next link is made anyway (and opens nothing).
  for (const [assessmentId, k] of earlier) {
    links.set(assessmentId, `${base}/reports/${input.candidateId}/${assessmentId}?expires=${expires - k}&signature=${sign(key, input.candidateId, assessmentId, expires - k)}`);
  }
  return links;
}

/** `valid`, or why not; the instance whenever the signature is right. */
export type LinkCheck = { state: 'valid' | 'expired' | 'revoked'; instanceId: string } | { state: 'invalid' };

/** Checks a link's parts: which instance's report it opens, or why it opens none. */
export async function checkReportLink(db: Queryable, parts: ReportLinkParts, now: Date): Promise<LinkCheck> {
  if (!isUuid(parts.candidateId) || !ASSESSMENT.test(parts.assessmentId) || !SIGNATURE.test(parts.signature) || !Number.isSafeInteger(parts.expires)) {
    return { state: 'invalid' };
  }
  const { rows } = await db.query<{ instanceId: string; secret: Buffer | Uint8Array | null; revoked: boolean }>(
    `SELECT c.instance_id AS "instanceId", k.secret,
            EXISTS (SELECT 1 FROM revoked_report_links r WHERE r.signature = $2) AS revoked
       FROM candidates c LEFT JOIN report_link_keys k ON k.instance_id = c.instance_id
      WHERE c.id = $1`,
    [parts.candidateId, parts.signature],
  );
  const row = rows[0];
  if (!row?.secret) return { state: 'invalid' };
  const expected = Buffer.from(sign(Buffer.from(row.secret), parts.candidateId, parts.assessmentId, parts.expires));
  const given = Buffer.from(parts.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { state: 'invalid' };
  if (row.revoked) return { state: 'revoked', instanceId: row.instanceId };
  if (parts.expires * 1000 <= now.getTime()) return { state: 'expired', instanceId: row.instanceId };
  return { state: 'valid', instanceId: row.instanceId };
}

/** The parts of a report link given as a URL (or its path and query). */
export function parseReportLink(url: string): ReportLinkParts | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://localhost');
  } catch {
    return undefined;
  }
  const match = /^\/reports\/([^/]+)\/([^/]+?)(?:\.pdf)?$/.exec(parsed.pathname);
  const expires = parsed.searchParams.get('expires');
  const signature = parsed.searchParams.get('signature');
  if (!match || expires === null || !/^\d{1,12}$/.test(expires) || signature === null) return undefined;
  return { candidateId: match[1]!, assessmentId: match[2]!, expires: Number(expires), signature };
}

/**
 * Revokes one link of one of the given instances (a command, audited: `report-link.revoke`, the
 * candidate and assessment as target); revoking it again changes nothing.
 */
export async function revokeReportLink(
  ctx: CommandContext,
  input: { instanceIds: string[] | 'all'; url: string },
): Promise<{ candidateId: string; assessmentId: string; expiresAt: Date }> {
  const parts = parseReportLink(input.url);
  if (!parts) throw invalidInput([{ in: 'body', name: 'url', detail: 'is not a report link (/reports/<candidateId>/<assessmentId>?expires=…&signature=…)' }]);
  const check = await checkReportLink(ctx.tx, parts, ctx.now);
  if (check.state === 'invalid' || (input.instanceIds !== 'all' && !input.instanceIds.includes(check.instanceId)))
    throw notFound('No such report link: its signature does not match any of your instances');
  const expiresAt = new Date(parts.expires * 1000);
  if (check.state === 'valid') {
    await ctx.tx.query('INSERT INTO revoked_report_links (signature, instance_id, expires_at, revoked_at) VALUES ($1, $2, $3, $4) ON CONFLICT (signature) DO NOTHING', [
      parts.signature,
      check.instanceId,
      expiresAt,
      ctx.now,
    ]);
  }
  await audit(ctx, 'report-link.revoke', `${parts.candidateId}/${parts.assessmentId}`);
  return { candidateId: parts.candidateId, assessmentId: parts.assessmentId, expiresAt };
}

/**
 * Voids every report link of an instance (a command, audited: `report-link.rotate-key`): later
 * links are signed with a new key.
 */
export async function rotateReportKey(ctx: CommandContext, instance: { id: string; name: string }): Promise<void> {
  await ctx.tx.query(
    `INSERT INTO report_link_keys (instance_id, secret, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (instance_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at`,
    [instance.id, randomBytes(32), ctx.now],
  );
  // Revocations of links the old key signed are moot now.
  await ctx.tx.query('DELETE FROM revoked_report_links WHERE instance_id = $1', [instance.id]);
  await audit(ctx, 'report-link.rotate-key', instance.name);
}

/** Forgets revocations of links that have expired anyway (run by the retention sweep). */
export async function forgetExpiredRevocations(db: Queryable, now: Date): Promise<number> {
  const { rows } = await db.query<{ n: number }>('WITH gone AS (DELETE FROM revoked_report_links WHERE expires_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone', [now]);
  return rows[0]!.n;
}
