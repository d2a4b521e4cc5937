// The candidate's sign-in link to the portal: issued with a fresh token (only its hash is stored).
import type { Queryable } from '../../db/database.js';
import { generateToken } from '../keys/secret.js';
import { insertLink } from './repository/invitations.js';
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
  const row = await insertLink(tx, { instanceId, candidateId, tokenHash: hash, assessmentIds, at: now });
  const { linkId, expiresAt, portalUrl, ...instance } = row;
  return { linkId, link: portalLink(portalUrl ?? deps.publicUrl, token), expiresAt, instance };
}
