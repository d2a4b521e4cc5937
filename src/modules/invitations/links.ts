// The candidate's sign-in link to the portal: issued with a fresh token (only its hash is stored).
import type { Queryable } from '../../db/database.js';
import { generateToken } from '../keys/secret.js';
import type { BrandSource } from '../tenants/branding.js';

/** The path of the candidate portal under the portal URL. */
export const PORTAL_PATH = '/portal';

export const portalLink = (base: string, token: string) => `${base.replace(/\/+$/, '')}${PORTAL_PATH}/#?sessionToken=${token}`;

export interface IssuedLink {
  linkId: string;
  link: string;
  expiresAt: Date;
  /** What the e-mail needs of the instance: its sender and its branding (brandOf). */
  instance: BrandSource;
}

/** Inserts a fresh link for a candidate and assessments; the token exists only in the result. */
export async function issueLink(tx: Queryable, deps: { publicUrl: string }, instanceId: string, candidateId: string, assessmentIds: string[], now: Date): Promise<IssuedLink> {
  const { token, hash } = generateToken();
  const { rows } = await tx.query<{ linkId: string; expiresAt: Date; portalUrl: string | null } & BrandSource>(
    `WITH n AS (
       SELECT id, portal_url, name, mail_from_name, mail_from_address, display_name, accent_color, support_email, privacy_url, invite_ttl_days,
              (SELECT l.sha256 FROM instance_logos l WHERE l.instance_id = instances.id) AS logo_sha256
         FROM instances WHERE id = $1
     ), link AS (
       INSERT INTO invite_links (instance_id, candidate_id, token_hash, assessment_ids, expires_at)
       SELECT n.id, $2, $3, $4, $5::timestamptz + make_interval(days => n.invite_ttl_days) FROM n
       RETURNING id, expires_at
     )
     SELECT link.id AS "linkId", link.expires_at AS "expiresAt", n.portal_url AS "portalUrl", n.name, n.mail_from_name AS "mailFromName",
            n.mail_from_address AS "mailFromAddress", n.display_name AS "displayName", n.accent_color AS "accentColor",
            n.support_email AS "supportEmail", n.privacy_url AS "privacyUrl", n.logo_sha256 AS "logoSha256"
       FROM link, n`,
    [instanceId, candidateId, hash, assessmentIds, now],
  );
  const { linkId, expiresAt, portalUrl, ...instance } = rows[0]!;
  return { linkId, link: portalLink(portalUrl ?? deps.publicUrl, token), expiresAt, instance };
}
