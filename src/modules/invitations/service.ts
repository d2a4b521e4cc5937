// Inviting a candidate (DESIGN §6): resolve the assessments, make or find the candidate, add the
// invitations that are new, and issue a fresh link, all in one transaction; then, when asked,
// hand the e-mail to the mailer. The invitation stands whatever the mailer says.
import type { Database } from '../../db/database.js';
import { Problem } from '../../http/problem.js';
import { findAssessmentsBySlug } from '../assessments/repository.js';
import { upsertCandidate } from '../candidates/repository.js';
import { generateToken } from '../keys/secret.js';
import type { Mailer } from '../mail/mailer.js';

export interface InviteRequest {
  email: string;
  firstName: string;
  lastName: string;
  assessments: string[];
}

export interface InviteResult {
  link: string;
  candidateId: string;
  invitationStatus?: 'SENT' | 'FAILED';
}

export interface InviteDeps {
  db: Database;
  mailer: Mailer;
  publicUrl: string;
}

/** The path of the candidate portal under the portal URL. */
export const PORTAL_PATH = '/portal';

export const portalLink = (base: string, token: string) => `${base.replace(/\/+$/, '')}${PORTAL_PATH}/#?sessionToken=${token}`;

export async function invite(deps: InviteDeps, instanceId: string, request: InviteRequest, sendInvite: boolean): Promise<InviteResult> {
  const { token, hash } = generateToken();
  const created = await retryOnConflict(() =>
    deps.db.transaction(async (tx) => {
      const found = await findAssessmentsBySlug(tx, instanceId, request.assessments);
      const unknown = request.assessments.filter((slug) => !found.some((a) => a.slug === slug));
      if (unknown.length > 0) {
        throw new Problem(
          'validation-failed',
          `Unknown assessment${unknown.length === 1 ? '' : 's'} for this instance: ${unknown.join(', ')}`,
          unknown.map((slug) => ({ in: 'body' as const, name: `assessments.${request.assessments.indexOf(slug)}`, detail: `"${slug}" is not a published assessment of this instance` })),
        );
      }
      const candidateId = await upsertCandidate(tx, instanceId, request);
      // A fixed order of inserts keeps two invites of one candidate from deadlocking each other.
      const assessmentIds = found.map((a) => a.id).sort();
      await tx.query(
        `INSERT INTO invitations (instance_id, candidate_id, assessment_id)
         SELECT $1, $2, id FROM unnest($3::uuid[]) AS t(id) ORDER BY id
         ON CONFLICT (candidate_id, assessment_id) DO NOTHING`,
        [instanceId, candidateId, assessmentIds],
      );
      const { rows } = await tx.query<{ expiresAt: Date; portalUrl: string | null }>(
        `INSERT INTO invite_links (instance_id, candidate_id, token_hash, assessment_ids, expires_at)
         SELECT i.id, $2, $3, $4, now() + make_interval(days => i.invite_ttl_days) FROM instances i WHERE i.id = $1
         RETURNING expires_at AS "expiresAt", (SELECT portal_url FROM instances WHERE id = $1) AS "portalUrl"`,
        [instanceId, candidateId, hash, assessmentIds],
      );
      return { candidateId, assessments: found, ...rows[0]! };
    }),
  );

  const link = portalLink(created.portalUrl ?? deps.publicUrl, token);
  const result: InviteResult = { link, candidateId: created.candidateId };
  if (sendInvite) {
    const outcome = await deps.mailer.sendInvitation({
      to: { name: `${request.firstName} ${request.lastName}`, address: request.email },
      firstName: request.firstName,
      assessments: request.assessments.map((slug) => created.assessments.find((a) => a.slug === slug)!),
      link,
      expiresAt: created.expiresAt,
    });
    result.invitationStatus = outcome.status;
  }
  return result;
}

const RETRYABLE = new Set(['40P01', '40001']);

/** Retries a transaction that lost a deadlock or serialisation race; each try is all-or-nothing. */
async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    }
  }
}
