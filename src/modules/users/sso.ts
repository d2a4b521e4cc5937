// Single sign-on with OpenID Connect, per instance: the instance's identity provider (issuer,
// client id, client secret sealed at rest), which e-mail domains may sign in, whether a first
// sign-in creates the account (just in time, with a default role) and whether the instance's
// managers and reviewers may still sign in with a password. The sign-in is the authorization code
// flow with PKCE, `state` and `nonce` (openid-client checks the response, the ID token's signature
// with the issuer's keys from discovery, its issuer, audience, times and nonce).
//
// Who is signed in: the account whose e-mail (normaliseIdentifier) is the provider's `email` claim,
// only when `email_verified` is true and the domain is allowed, only a manager or reviewer of this
// instance (an account of other instances only does not gain this one; owners, who have every
// instance, sign in with their password), never a disabled account.
//
// Network calls (discovery, the token request) run before the command's transaction, never in it.
import { createHash, randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as oidc from 'openid-client';
import { runCommand, type CommandContext, type CommandRequest } from '../../domain/command.js';
import { conflict, invalidInput, notFound, type DomainFieldError } from '../../domain/errors.js';
import type { Database, Queryable } from '../../db/database.js';
import { sealer, serverKey } from '../../db/secrets.js';
import { audit, recordAudit } from '../audit/audit.js';
import { isForbiddenAddress } from '../webhooks/ssrf.js';
import { normaliseIdentifier } from './identifier.js';
import { hashPassword } from './password.js';
import { createUser, openSession, type SessionTimes } from './repository.js';

/** Who is at the browser, for the audit entry (as for the password sign-in). */
interface Client {
  ip: string;
  userAgent: string;
}

export const SSO_ROLES = ['manager', 'reviewer'] as const;
export type SsoRole = (typeof SSO_ROLES)[number];

/** How the service reaches identity providers. */
export interface SsoOptions {
  /** The service's public base URL: the callback is <publicUrl>/console/sso-callback. */
  publicUrl: string;
  /**
   * Plain-http issuers allowed (SSO_ALLOW_INSECURE_HTTP): for development and tests against a
   * local provider only. Off by default: issuers must be https.
   */
  allowInsecureHttp: boolean;
  /** Longest wait for the provider's answer, in seconds. Default 10. */
  timeoutSeconds?: number;
}

export const CALLBACK_PATH = '/console/sso-callback';
const SIGN_IN_TTL_MS = 10 * 60_000;
const SCOPE = 'openid email profile';

/** What the admin API, CLI and console show of an instance's single sign-on (never the secret). */
export interface SsoView {
  displayName: string;
  issuer: string;
  clientId: string;
  /** The last four characters of the client secret, to recognise it by. */
  secretHint: string;
  allowedDomains: string[];
  jit: boolean;
  defaultRole: SsoRole;
  passwordSignInOff: boolean;
  /** When a single sign-on of this instance first succeeded; null: never yet. */
  firstSuccessAt: Date | null;
  updatedAt: Date;
  /** Where the provider sends the browser back (register this at the provider). */
  redirectUri: string;
}

interface SsoRow extends Omit<SsoView, 'redirectUri'> {
  sealedSecret: Buffer | Uint8Array;
}

/** A change of the settings; what is left out stays as it is. */
export interface SsoChange {
  displayName?: string;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  allowedDomains?: string[];
  jit?: boolean;
  defaultRole?: string;
  passwordSignInOff?: boolean;
}

// ---- storage ---------------------------------------------------------------------------------

const SECRET_NAME = 'sso-credentials';
const secretContext = (instanceId: string) => `sso-client-secret v1\n${instanceId}`;
const sealerOf = async (db: Queryable) => sealer(await serverKey(db, SECRET_NAME, 'assessment-connect sso client secrets v1'));

const COLUMNS = `display_name AS "displayName", issuer, client_id AS "clientId", sealed_secret AS "sealedSecret", secret_hint AS "secretHint",
  allowed_domains AS "allowedDomains", jit, default_role AS "defaultRole", password_sign_in_off AS "passwordSignInOff",
  first_success_at AS "firstSuccessAt", updated_at AS "updatedAt"`;

async function ssoRow(db: Queryable, instanceId: string, lock = false): Promise<SsoRow | undefined> {
  const { rows } = await db.query<SsoRow>(`SELECT ${COLUMNS} FROM instance_sso WHERE instance_id = $1${lock ? ' FOR UPDATE' : ''}`, [instanceId]);
  return rows[0];
}

const viewOf = (row: SsoRow, options: Pick<SsoOptions, 'publicUrl'>): SsoView => {
  const { sealedSecret: _sealed, ...view } = row;
  return { ...view, redirectUri: redirectUri(options) };
};

export const redirectUri = (options: Pick<SsoOptions, 'publicUrl'>) => `${options.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`;

/** The instance's single sign-on settings, or undefined when it has none. */
export async function ssoSettings(db: Queryable, instanceId: string, options: Pick<SsoOptions, 'publicUrl'>): Promise<SsoView | undefined> {
  const row = await ssoRow(db, instanceId);
  return row && viewOf(row, options);
}

/** What the sign-in page shows for an instance: the provider's name, when the instance has single sign-on. */
export async function ssoButton(db: Queryable, instanceName: string): Promise<{ displayName: string } | undefined> {
  const { rows } = await db.query<{ displayName: string }>(
    `SELECT s.display_name AS "displayName" FROM instance_sso s JOIN instances i ON i.id = s.instance_id WHERE i.name = $1`,
    [instanceName],
  );
  return rows[0];
}

/**
 * Whether an account may not sign in with its password: a manager or reviewer with an instance
 * whose password sign-in is off. Owners always may (they have every instance and keep a way in).
 */
export async function passwordSignInOff(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query<{ off: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM users u JOIN user_instances ui ON ui.user_id = u.id JOIN instance_sso s ON s.instance_id = ui.instance_id
        WHERE u.id = $1 AND u.role <> 'owner' AND s.password_sign_in_off) AS off`,
    [userId],
  );
  return rows[0]!.off;
}

// ---- checking settings -----------------------------------------------------------------------

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;
const TOKEN = /^[\x21-\x7e]{1,500}$/;
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** The issuer URL as given, or the reason it cannot be one. */
export function issuerProblem(value: string, allowInsecureHttp: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:' && !(allowInsecureHttp && url.protocol === 'http:'))
    return allowInsecureHttp ? 'must start with https:// or http://' : 'must start with https:// (plain http is allowed only with SSO_ALLOW_INSECURE_HTTP, for development)';
  if (url.username || url.password) return 'must not contain a user name or password';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'must not have a query or fragment';
  if (value.length > 500) return 'must be at most 500 characters long';
  return undefined;
}

function checked(merged: Required<Omit<SsoChange, 'clientSecret'>> & { clientSecret?: string }, options: SsoOptions, creating: boolean) {
  const errors: DomainFieldError[] = [];
  const field = (name: string, detail: string) => errors.push({ in: 'body', name, detail });
  const displayName = merged.displayName.trim();
  if (displayName.length === 0 || [...displayName].length > 60 || CONTROL.test(displayName)) field('displayName', 'must be 1-60 characters without control characters');
  const issuer = merged.issuer.trim();
  const problem = issuer === '' ? 'is required' : issuerProblem(issuer, options.allowInsecureHttp);
  if (problem) field('issuer', problem);
  const clientId = merged.clientId.trim();
  if (!TOKEN.test(clientId)) field('clientId', clientId === '' ? 'is required' : 'must be 1-500 printable characters without spaces');
  const clientSecret = merged.clientSecret?.trim();
  if (clientSecret === undefined || clientSecret === '') {
    if (creating) field('clientSecret', 'is required');
  } else if (!TOKEN.test(clientSecret)) field('clientSecret', 'must be 1-500 printable characters without spaces');
  const domains = [...new Set(merged.allowedDomains.map((d) => normaliseIdentifier(d).replace(/^@/, '').replace(/\.$/, '')))];
  if (domains.length === 0) field('allowedDomains', 'needs at least one domain, e.g. example.com');
  else if (domains.length > 50) field('allowedDomains', 'may have at most 50 domains');
  else {
    const bad = domains.filter((d) => !DOMAIN.test(d));
    if (bad.length > 0) field('allowedDomains', `${bad.slice(0, 3).join(', ')} ${bad.length === 1 ? 'is not a domain name' : 'are not domain names'} (like example.com)`);
  }
  if (!(SSO_ROLES as readonly string[]).includes(merged.defaultRole)) field('defaultRole', 'must be manager or reviewer (owners are made by the operator)');
  if (errors.length > 0) throw invalidInput(errors);
  return {
    displayName,
    issuer,
    clientId,
    clientSecret: clientSecret || undefined,
    allowedDomains: domains,
    jit: merged.jit,
    defaultRole: merged.defaultRole as SsoRole,
    passwordSignInOff: merged.passwordSignInOff,
  };
}

// ---- the provider ----------------------------------------------------------------------------

/**
 * fetch for the provider's endpoints that refuses a host resolving to a loopback, private,
 * link-local or reserved address (as webhooks do): the issuer is typed in by an instance's owner,
 * and the discovery document it serves names the other endpoints, so without this a console
 * owner could make the server fetch from its own network. SSO_ALLOW_INSECURE_HTTP (development,
 * a provider on this machine) lifts it. The address is checked, then fetch resolves the name
 * again: a name whose answer changes in between (DNS rebinding) is not caught here.
 */
const publicOnlyFetch: oidc.CustomFetch = async (url, init) => {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host }] : await lookup(host, { all: true });
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  if (bad) throw Object.assign(new Error(`${host} resolves to ${bad.address}, a loopback, private, link-local or reserved address`), { code: 'EFORBIDDENADDRESS' });
  return fetch(url, init as RequestInit);
};

/** The provider's configuration from its discovery document (endpoints, keys' location). */
async function discover(issuer: string, clientId: string, clientSecret: string, options: SsoOptions): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(issuer), clientId, { client_secret: clientSecret }, oidc.ClientSecretBasic(clientSecret), {
    execute: options.allowInsecureHttp ? [oidc.allowInsecureRequests] : [],
    timeout: options.timeoutSeconds ?? 10,
    ...(options.allowInsecureHttp ? {} : { [oidc.customFetch]: publicOnlyFetch }),
  });
}

/** A short, safe account of why the provider's side failed, for the audit log and the page. */
function reasonOf(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError) return `the provider refused: ${error.error}`.slice(0, 200);
  if (error instanceof oidc.ResponseBodyError) return `the provider answered ${error.status}: ${error.error}`.slice(0, 200);
  // openid-client wraps what oauth4webapi found ("invalid response encountered") with the detail as its cause.
  const e = error as { code?: unknown; message?: unknown; cause?: { message?: unknown; code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : 'unknown error';
  const cause = e.cause && typeof e.cause.message === 'string' ? ` (${e.cause.message})` : '';
  return `${code ? `${code}: ` : ''}${message}${cause}`.replace(new RegExp(CONTROL.source, 'g'), ' ').slice(0, 200);
}

// ---- configuring -----------------------------------------------------------------------------

/**
 * Sets an instance's single sign-on, or changes it: the first time, issuer, client id, client
 * secret and allowed domains are required. A new or changed issuer, client id or secret is tried
 * first (the provider's discovery document must load and name that issuer): a bad one is refused
 * and nothing changes. Audited as `sso.configure`.
 */
export async function configureSso(db: Database, request: CommandRequest, options: SsoOptions, input: { instanceId: string; change: SsoChange }): Promise<SsoView> {
  const existing = await ssoRow(db, input.instanceId);
  const change = input.change;
  const merged = {
    displayName: change.displayName ?? existing?.displayName ?? 'single sign-on',
    issuer: change.issuer ?? existing?.issuer ?? '',
    clientId: change.clientId ?? existing?.clientId ?? '',
    clientSecret: change.clientSecret,
    allowedDomains: change.allowedDomains ?? existing?.allowedDomains ?? [],
    jit: change.jit ?? existing?.jit ?? false,
    defaultRole: change.defaultRole ?? existing?.defaultRole ?? 'reviewer',
    passwordSignInOff: change.passwordSignInOff ?? existing?.passwordSignInOff ?? false,
  };
  const settings = checked(merged, options, !existing);
  const providerChanged = !existing || settings.issuer !== existing.issuer || settings.clientId !== existing.clientId || settings.clientSecret !== undefined;
  if (providerChanged) {
    const secret = settings.clientSecret ?? (await sealerOf(db)).open(existing!.sealedSecret, secretContext(input.instanceId));
    if (secret === undefined) throw invalidInput([{ in: 'body', name: 'clientSecret', detail: 'the stored secret cannot be opened: give it again' }]);
    try {
      await discover(settings.issuer, settings.clientId, secret, options);
    } catch (error) {
      throw invalidInput([
        { in: 'body', name: 'issuer', detail: `its discovery document (${settings.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration) did not load: ${reasonOf(error)}` },
      ]);
    }
  }
  return runCommand(db, request, (ctx) => saveSso(ctx, options, { instanceId: input.instanceId, settings, providerChanged: !!existing && providerChanged }), 'sso_configure');
}

async function saveSso(ctx: CommandContext, options: SsoOptions, input: { instanceId: string; settings: ReturnType<typeof checked>; providerChanged: boolean }): Promise<SsoView> {
  const { settings } = input;
  const current = await ssoRow(ctx.tx, input.instanceId, true);
  if (input.providerChanged && current?.passwordSignInOff)
    throw conflict('Password sign-in is off for this instance: turn it back on before changing the identity provider (issuer, client id or secret)');
  // A new provider has not shown that it works: password sign-in can be turned off only after a
  // single sign-on through it succeeded.
  const firstSuccessAt = input.providerChanged ? null : (current?.firstSuccessAt ?? null);
  if (settings.passwordSignInOff && !current?.passwordSignInOff && firstSuccessAt === null)
    throw conflict('Password sign-in can be turned off only after a single sign-on of this instance has succeeded (sign in with it once first), so that nobody is locked out');
  const sealed = settings.clientSecret !== undefined ? (await sealerOf(ctx.tx)).seal(settings.clientSecret, secretContext(input.instanceId)) : current?.sealedSecret;
  if (!sealed) throw invalidInput([{ in: 'body', name: 'clientSecret', detail: 'is required' }]);
  await ctx.tx.query(
    `INSERT INTO instance_sso (instance_id, display_name, issuer, client_id, sealed_secret, secret_hint, allowed_domains, jit, default_role, password_sign_in_off, first_success_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (instance_id) DO UPDATE SET display_name = EXCLUDED.display_name, issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
       sealed_secret = EXCLUDED.sealed_secret, secret_hint = EXCLUDED.secret_hint,
       allowed_domains = EXCLUDED.allowed_domains, jit = EXCLUDED.jit, default_role = EXCLUDED.default_role,
       password_sign_in_off = EXCLUDED.password_sign_in_off, first_success_at = EXCLUDED.first_success_at, updated_at = EXCLUDED.updated_at`,
    [
      input.instanceId,
      settings.displayName,
      settings.issuer,
      settings.clientId,
      sealed,
      settings.clientSecret?.slice(-4) ?? current?.secretHint,
      settings.allowedDomains,
      settings.jit,
      settings.defaultRole,
      settings.passwordSignInOff,
      firstSuccessAt,
      ctx.now,
    ],
  );
  const changed = current
    ? (['displayName', 'issuer', 'clientId', 'allowedDomains', 'jit', 'defaultRole', 'passwordSignInOff'] as const).filter(
        (k) => JSON.stringify(current[k]) !== JSON.stringify(settings[k]),
      )
    : ['created'];
  if (settings.clientSecret !== undefined && current) changed.push('clientSecret' as never);
  await audit(ctx, 'sso.configure', `${await instanceNameOf(ctx.tx, input.instanceId)}: ${changed.join(', ') || 'no change'}`);
  return viewOf((await ssoRow(ctx.tx, input.instanceId))!, options);
}

/** Removes an instance's single sign-on (its users sign in with passwords again). Audited as `sso.remove`. */
export async function removeSso(ctx: CommandContext, input: { instanceId: string }): Promise<void> {
  const { rows } = await ctx.tx.query('DELETE FROM instance_sso WHERE instance_id = $1 RETURNING instance_id', [input.instanceId]);
  if (rows.length === 0) throw notFound('This instance has no single sign-on');
  await ctx.tx.query('DELETE FROM sso_sign_ins WHERE instance_id = $1', [input.instanceId]);
  await audit(ctx, 'sso.remove', await instanceNameOf(ctx.tx, input.instanceId));
}

async function instanceNameOf(db: Queryable, instanceId: string): Promise<string> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM instances WHERE id = $1', [instanceId]);
  return rows[0]?.name ?? instanceId;
}

// ---- signing in ------------------------------------------------------------------------------

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Records a refused single sign-on: who (the e-mail when the provider named one), the instance and why. */
async function failure(ctx: CommandContext, client: Client, instanceName: string, reason: string, email?: string, status = 401): Promise<void> {
  await recordAudit(ctx.tx, {
    actor: email ? `user:${normaliseIdentifier(email)}` : 'user:(single sign-on)',
    clientIp: client.ip,
    userAgent: client.userAgent,
    action: 'user.sso.sign-in-failed',
    target: `${instanceName}: ${reason}`.slice(0, 300),
    requestId: ctx.requestId,
    status,
  });
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
  const entry = (action: string, target: string) =>
    recordAudit(ctx.tx, { actor: `user:${email}`, clientIp: client.ip, userAgent: client.userAgent, action, target, requestId: ctx.requestId, status: 303 });
  if (created) await entry('user.sso.create', `${user.id} (${settings.defaultRole} of ${pending.instanceName})`);
  await entry('user.sso.sign-in', `${user.id} (${pending.instanceName})`);
  return { ok: true, userId: user.id, session, next: pending.next ?? undefined };
}
