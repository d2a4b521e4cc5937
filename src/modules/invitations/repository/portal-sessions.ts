// Candidate sessions: the invite link's token is exchanged once for a random session value (the
// portal keeps it in a cookie); only hashes of either are stored. A session lasts 12 hours at most,
// never past its link, by the app's clock.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../../db/database.js';
import { sha256 } from '../../keys/secret.js';

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

/** What a session's cookie is known by in the store (a command checks that the session still holds by it). */
export const sessionKey = (value: string): Buffer => sha256(value);

/**
 * Exchanges an invite link's token for a new session. A link works while it has not expired and
 * at least one of the assessments it opens is not completed; once all are, it stops working.
 */
export async function openSession(db: Queryable, token: string, now: Date): Promise<OpenResult> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return { kind: 'invalid' };
  const { rows: links } = await db.query<{ id: string; open: boolean }>(
    `SELECT l.id, EXISTS (SELECT 1 FROM invitations i WHERE i.candidate_id = l.candidate_id AND i.assessment_id = ANY(l.assessment_ids)
                                AND i.assessment_status <> 'COMPLETED') AS open
       FROM invite_links l WHERE l.token_hash = $1 AND l.revoked_at IS NULL AND l.expires_at > $2`,
    [sha256(token), now],
  );
  const link = links[0];
  if (!link) return { kind: 'invalid' };
  if (!link.open) return { kind: 'used' };
  const value = randomBytes(32).toString('base64url');
  const csrf = randomBytes(24).toString('base64url');
  const { rows } = await db.query<{ expiresAt: Date }>(
    `INSERT INTO portal_sessions (token_hash, invite_link_id, candidate_id, csrf_token, expires_at)
     SELECT $2, l.id, l.candidate_id, $3, least(l.expires_at, $4::timestamptz + make_interval(hours => $5))
       FROM invite_links l WHERE l.id = $1 AND l.revoked_at IS NULL AND l.expires_at > $4
     RETURNING expires_at AS "expiresAt"`,
    [link.id, sha256(value), csrf, now, SESSION_HOURS],
  );
  if (rows.length === 0) return { kind: 'invalid' };
  const session = await findSession(db, value, now);
  return session ? { kind: 'opened', value, session } : { kind: 'invalid' };
}

export async function findSession(db: Queryable, value: string, now: Date): Promise<PortalSession | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(value)) return undefined;
  const { rows } = await db.query<PortalSession>(
    `/* portal_session */ SELECT c.id AS "candidateId", c.instance_id AS "instanceId", c.first_name AS "firstName", c.last_name AS "lastName",
            l.assessment_ids::text[] AS "assessmentIds", s.csrf_token AS "csrfToken", s.expires_at AS "expiresAt"
       FROM portal_sessions s
       JOIN invite_links l ON l.id = s.invite_link_id
       JOIN candidates c ON c.id = s.candidate_id
      WHERE s.token_hash = $1 AND s.expires_at > $2 AND l.revoked_at IS NULL`,
    [sha256(value), now],
  );
  return rows[0];
}
