// Candidate sessions: the invite link's token is exchanged once for a random session value kept
// in an HttpOnly, SameSite=Strict cookie; only hashes of either are stored. Every state-changing
// request carries the session's CSRF token.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/database.js';
import { Problem } from '../http/problem.js';
import { secretsEqual, sha256 } from '../modules/keys/secret.js';

export const COOKIE = 'ac_session';
const SESSION_HOURS = 12;

export interface PortalSession {
  candidateId: string;
  instanceId: string;
  firstName: string;
  lastName: string;
  assessmentIds: string[];
  csrfToken: string;
  expiresAt: Date;
}

export type OpenResult =
  | { kind: 'opened'; value: string; session: PortalSession }
  /** Unknown, malformed, expired or revoked: a guess, as far as anyone can tell. */
  | { kind: 'invalid' }
  /** A real link whose every assessment is completed: it has done its work and opens nothing. */
  | { kind: 'used' };

/**
 * Exchanges an invite link's token for a new session. A link works while it has not expired and
 * at least one of the assessments it opens is not completed; once all are, it stops working.
 */
export async function openSession(db: Queryable, token: string): Promise<OpenResult> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return { kind: 'invalid' };
  const { rows: links } = await db.query<{ id: string; open: boolean }>(
    `SELECT l.id, EXISTS (SELECT 1 FROM invitations i WHERE i.candidate_id = l.candidate_id AND i.assessment_id = ANY(l.assessment_ids)
                                AND i.assessment_status <> 'COMPLETED') AS open
       FROM invite_links l WHERE l.token_hash = $1 AND l.revoked_at IS NULL AND l.expires_at > now()`,
    [sha256(token)],
  );
  const link = links[0];
  if (!link) return { kind: 'invalid' };
  if (!link.open) return { kind: 'used' };
  const value = randomBytes(32).toString('base64url');
  const csrf = randomBytes(24).toString('base64url');
  const { rows } = await db.query<{ expiresAt: Date }>(
    `INSERT INTO portal_sessions (token_hash, invite_link_id, candidate_id, csrf_token, expires_at)
     SELECT $2, l.id, l.candidate_id, $3, least(l.expires_at, now() + make_interval(hours => $4))
       FROM invite_links l WHERE l.id = $1 AND l.revoked_at IS NULL AND l.expires_at > now()
     RETURNING expires_at AS "expiresAt"`,
    [link.id, sha256(value), csrf, SESSION_HOURS],
  );
  if (rows.length === 0) return { kind: 'invalid' };
  const session = await findSession(db, value);
  return session ? { kind: 'opened', value, session } : { kind: 'invalid' };
}

export async function findSession(db: Queryable, value: string): Promise<PortalSession | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(value)) return undefined;
  const { rows } = await db.query<PortalSession>(
    `/* portal_session */ SELECT c.id AS "candidateId", c.instance_id AS "instanceId", c.first_name AS "firstName", c.last_name AS "lastName",
            l.assessment_ids::text[] AS "assessmentIds", s.csrf_token AS "csrfToken", s.expires_at AS "expiresAt"
       FROM portal_sessions s
       JOIN invite_links l ON l.id = s.invite_link_id
       JOIN candidates c ON c.id = s.candidate_id
      WHERE s.token_hash = $1 AND s.expires_at > now() AND l.revoked_at IS NULL`,
    [sha256(value)],
  );
  return rows[0];
}

export function cookieValue(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=');
  }
  return undefined;
}

export function setSessionCookie(reply: FastifyReply, value: string, expiresAt: Date, secure: boolean): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
  reply.header('set-cookie', `${COOKIE}=${value}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`);
}

/**
 * Refuses a request that a browser says came from another site: an Origin other than the portal's
 * (or the Host it was reached by), `Origin: null`, or a Sec-Fetch-Site other than same-origin.
 * A request with neither header is not from a current browser's page (every current browser sends
 * Origin on a POST) and passes: a script or curl cannot be tricked into a cross-site request.
 */
export function checkSameOrigin(request: FastifyRequest, publicOrigin: string): void {
  const origin = request.headers.origin;
  const host = request.headers.host;
  if (origin !== undefined && origin !== publicOrigin && !(host && (origin === `http://${host}` || origin === `https://${host}`))) {
    throw new Problem('forbidden', 'This request came from another site');
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') throw new Problem('forbidden', 'This request came from another site');
}

/** Refuses a state-changing request without the session's CSRF token, or from another origin. */
export function checkCsrf(request: FastifyRequest, session: PortalSession, publicOrigin: string): void {
  checkSameOrigin(request, publicOrigin);
  const header = request.headers['x-csrf-token'];
  const field = (request.body as { _csrf?: unknown } | undefined)?._csrf;
  const given = typeof header === 'string' ? header : typeof field === 'string' ? field : '';
  if (!given || !secretsEqual(given, session.csrfToken)) throw new Problem('forbidden', 'The form is out of date: reload the page and try again');
}
