// Signing in through an instance's OpenID provider (the settings are sso.ts): a pending sign-in
// (state, nonce, PKCE verifier) under a random handle for the browser's cookie, then the
// provider's answer checked by openid-client and the account found (or made just in time) by the
// verified e-mail. Network calls run before the command's transaction, never in it.
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { asClaimant, runCommand, type CommandContext, type CommandRequest } from '../../domain/command.js';
import type { Database } from '../../db/database.js';
import { audit } from '../audit/audit.js';
import { normaliseIdentifier } from './identifier.js';
import { hashPassword } from './password.js';
import { createUser, openSession, type SessionTimes } from './repository.js';
import { SCOPE, SIGN_IN_TTL_MS, discover, reasonOf, redirectUri, sealerOf, secretContext, ssoRow, type Client, type SsoOptions, type SsoRow } from './sso.js';

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Records a refused single sign-on: who (the e-mail when the provider named one), the instance and why. */
async function failure(ctx: CommandContext, client: Client, instanceName: string, reason: string, email?: string, status = 401): Promise<void> {
  await audit(
    asClaimant(ctx, email ? `user:${normaliseIdentifier(email)}` : 'user:(single sign-on)', client),
    'user.sso.sign-in-failed',
    `${instanceName}: ${reason}`.slice(0, 300),
    status,
  );
}

export class SsoRefused extends Error {
  constructor(
    /** What the person at the browser is told. */
    readonly shown: string,
    readonly status: number,
  ) {
    super(shown);
  }
}

/**
 * Starts a sign-in through the instance's provider: a pending sign-in (state, nonce, PKCE
 * verifier) under a random handle for the browser's cookie, and the provider's authorization URL.
 */
export async function startSsoSignIn(
  db: Database,
  request: CommandRequest,
  options: SsoOptions,
  input: { instanceName: string; next?: string; client: Client },
): Promise<{ handle: string; authorizationUrl: string }> {
  const { rows } = await db.query<{ id: string }>('SELECT i.id FROM instances i JOIN instance_sso s ON s.instance_id = i.id WHERE i.name = $1', [input.instanceName]);
  const instanceId = rows[0]?.id;
  if (!instanceId) throw new SsoRefused('This instance has no single sign-on. Sign in with your e-mail and password.', 404);
  const row = (await ssoRow(db, instanceId))!;
  const secret = (await sealerOf(db)).open(row.sealedSecret, secretContext(instanceId));
  let config: oidc.Configuration;
  try {
    if (secret === undefined) throw new Error('the stored client secret cannot be opened');
    config = await discover(row.issuer, row.clientId, secret, options);
  } catch (error) {
    const reason = `discovery failed: ${reasonOf(error)}`;
    await runCommand(db, request, (ctx) => failure(ctx, input.client, input.instanceName, reason, undefined, 502), 'sso_sign_in');
    throw new SsoRefused('The identity provider cannot be reached right now. Try again in a minute, or ask your administrator.', 502);
  }
  const handle = randomBytes(32).toString('base64url');
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(options),
    scope: SCOPE,
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  await runCommand(
    db,
    request,
    async (ctx) => {
      await ctx.tx.query('DELETE FROM sso_sign_ins WHERE expires_at < $1', [ctx.now]);
      await ctx.tx.query('INSERT INTO sso_sign_ins (handle_hash, instance_id, state, nonce, code_verifier, next, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        sha256(handle),
        instanceId,
        state,
        nonce,
        verifier,
        input.next ?? null,
        new Date(ctx.now.getTime() + SIGN_IN_TTL_MS),
      ]);
    },
    'sso_start',
  );
  return { handle, authorizationUrl: url.href };
}

export type SsoSignInResult = { ok: true; userId: string; session: { value: string; csrfToken: string }; next?: string } | { ok: false; shown: string; status: number };

interface Pending {
  instanceId: string;
  instanceName: string;
  state: string;
  nonce: string;
  verifier: string;
  next: string | null;
}

/**
 * The provider sent the browser back: the pending sign-in of the cookie's handle is taken (once),
 * the response and the tokens are checked by openid-client (state, issuer, code exchange with the
 * PKCE verifier, the ID token's signature, audience, times and nonce), then `signInWithClaims`
 * decides who is signed in. Every refusal is audited and returned, never thrown.
 */
export async function completeSsoSignIn(
  db: Database,
  request: CommandRequest,
  options: SsoOptions,
  times: SessionTimes,
  input: { handle: string | undefined; search: string; client: Client },
): Promise<SsoSignInResult> {
  const pending = await runCommand(
    db,
    request,
    async (ctx): Promise<Pending | undefined> => {
      if (!input.handle) return undefined;
      const { rows } = await ctx.tx.query<Pending>(
        `DELETE FROM sso_sign_ins p USING instances i WHERE p.handle_hash = $1 AND i.id = p.instance_id AND p.expires_at > $2
         RETURNING p.instance_id AS "instanceId", i.name AS "instanceName", p.state, p.nonce, p.code_verifier AS verifier, p.next`,
        [sha256(input.handle), ctx.now],
      );
      return rows[0];
    },
    'sso_sign_in',
  );
  const refuse = async (instanceName: string, reason: string, shown: string, status = 401, email?: string): Promise<SsoSignInResult> => {
    await runCommand(db, request, (ctx) => failure(ctx, input.client, instanceName, reason, email, status), 'sso_sign_in');
    return { ok: false, shown, status };
  };
  if (!pending)
    return refuse(
      '(unknown)',
      'no sign-in in progress (expired, used already, or started in another browser)',
      'This sign-in has expired or was used already. Start again from the sign-in page.',
      400,
    );
  const row = await ssoRow(db, pending.instanceId);
  const secret = row && (await sealerOf(db)).open(row.sealedSecret, secretContext(pending.instanceId));
  if (!row || secret === undefined) return refuse(pending.instanceName, 'single sign-on is not configured', 'This instance has no single sign-on any more.', 400);
  let claims: Record<string, unknown>;
  try {
    const config = await discover(row.issuer, row.clientId, secret, options);
    const callback = new URL(redirectUri(options));
    callback.search = input.search;
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    claims = { ...idToken };
    // Most providers put the e-mail claims in the ID token; the rest answer them at userinfo.
    if (typeof idToken.email !== 'string' || idToken.email_verified === undefined) claims = { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)) };
  } catch (error) {
    return refuse(pending.instanceName, reasonOf(error), 'The identity provider did not confirm this sign-in. Start again from the sign-in page.');
  }
  return runCommand(db, request, (ctx) => signInWithClaims(ctx, times, { pending, settings: row, claims, client: input.client }), 'sso_sign_in');
}

/** Decides who the provider's claims sign in, and opens their session (`user.sso.sign-in`), or records why not. */
async function signInWithClaims(
  ctx: CommandContext,
  times: SessionTimes,
  input: { pending: Pending; settings: SsoRow; claims: Record<string, unknown>; client: Client },
): Promise<SsoSignInResult> {
  const { pending, settings, claims, client } = input;
  const email = typeof claims.email === 'string' ? normaliseIdentifier(claims.email) : undefined;
  const refuse = async (reason: string, shown: string, status = 403): Promise<SsoSignInResult> => {
    await failure(ctx, client, pending.instanceName, reason, email, status);
    return { ok: false, shown, status };
  };
  if (!email || !/^[^@\s]{1,64}@[^@\s]{1,253}$/.test(email)) return refuse('the provider gave no e-mail address', 'Your identity provider did not give an e-mail address.');
  // An address that normalisation would change (full-width or compatibility letters: `ｒｅｖ@…`) is
  // refused rather than matched to the plain account it would become: the provider verified a
  // mailbox by that other spelling, which is not the account's. Case alone is no such change.
  const asserted = (claims.email as string).trim();
  if (asserted.normalize('NFKC') !== asserted)
    return refuse(
      'e-mail address changes under NFKC normalisation',
      'Your identity provider gave your e-mail address in unusual characters (full-width or compatibility letters); ask your administrator.',
    );
  // Only the boolean true: a provider that says "true" as text, or nothing, has not verified it.
  if (claims.email_verified !== true) return refuse('e-mail address not verified by the provider', 'Your e-mail address is not verified at your identity provider.');
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!settings.allowedDomains.includes(domain)) return refuse(`domain ${domain} not allowed`, `Addresses at ${domain} may not sign in to this instance.`);
  const { rows } = await ctx.tx.query<{ id: string; role: string; disabled: boolean; member: boolean }>(
    `SELECT u.id, u.role, u.disabled_at IS NOT NULL AS disabled,
            EXISTS (SELECT 1 FROM user_instances ui WHERE ui.user_id = u.id AND ui.instance_id = $2) AS member
       FROM users u WHERE lower(u.email) = $1 FOR UPDATE`,
    [email, pending.instanceId],
  );
  let user = rows[0];
  let created = false;
  if (user) {
    if (user.disabled) return refuse('account disabled', 'Your account is disabled. Ask your administrator.');
    // An owner has every instance: a provider of one instance does not sign one in.
    if (user.role === 'owner') return refuse('owners sign in with their password', 'Owners sign in with their e-mail and password.');
    // An account of other instances only does not gain this one by signing in through it.
    if (!user.member) return refuse('account is not a member of this instance', 'Your account has no access to this instance. Ask its administrator.');
  } else {
    if (!settings.jit) return refuse('no account (just-in-time creation is off)', 'You have no account on this instance yet. Ask its administrator to add you.');
    // An account made here has a random password nobody knows: it signs in through the provider.
    const made = await createUser(ctx.tx, {
      email,
      role: settings.defaultRole,
      passwordHash: await hashPassword(randomBytes(24).toString('base64url')),
      instanceIds: [pending.instanceId],
    });
    user = { id: made.id, role: made.role, disabled: false, member: true };
    created = true;
  }
  const session = await openSession(ctx.tx, user.id, ctx.now, times, false, true);
  await ctx.tx.query('UPDATE instance_sso SET first_success_at = COALESCE(first_success_at, $2) WHERE instance_id = $1', [pending.instanceId, ctx.now]);
  const entry = (action: string, target: string) => audit(asClaimant(ctx, `user:${email}`, client), action, target, 303);
  if (created) await entry('user.sso.create', `${user.id} (${settings.defaultRole} of ${pending.instanceName})`);
  await entry('user.sso.sign-in', `${user.id} (${pending.instanceName})`);
  return { ok: true, userId: user.id, session, next: pending.next ?? undefined };
}
