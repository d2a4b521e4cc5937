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
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import * as oidc from 'openid-client';
import { runCommand, type CommandContext, type CommandRequest } from '../../domain/command.js';
import { conflict, invalidInput, notFound, type DomainFieldError } from '../../domain/errors.js';
import type { Database, Queryable } from '../../db/database.js';
import { sealer, serverKey } from '../../db/secrets.js';
import { audit } from '../audit/audit.js';
import { isForbiddenAddress } from '../webhooks/ssrf.js';
import { normaliseIdentifier } from './identifier.js';
import { PASSWORD_SIGN_IN_OFF } from './repository.js';

/** Who is at the browser, for the audit entry (as for the password sign-in). */
export interface Client {
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
export const SIGN_IN_TTL_MS = 10 * 60_000;
export const SCOPE = 'openid email profile';

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

export interface SsoRow extends Omit<SsoView, 'redirectUri'> {
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
export const secretContext = (instanceId: string) => `sso-client-secret v1\n${instanceId}`;
export const sealerOf = async (db: Queryable) => sealer(await serverKey(db, SECRET_NAME, 'assessment-connect sso client secrets v1'));

const COLUMNS = `display_name AS "displayName", issuer, client_id AS "clientId", sealed_secret AS "sealedSecret", secret_hint AS "secretHint",
  allowed_domains AS "allowedDomains", jit, default_role AS "defaultRole", password_sign_in_off AS "passwordSignInOff",
  first_success_at AS "firstSuccessAt", updated_at AS "updatedAt"`;

export async function ssoRow(db: Queryable, instanceId: string, lock = false): Promise<SsoRow | undefined> {
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
  const { rows } = await db.query<{ off: boolean }>(`SELECT ${PASSWORD_SIGN_IN_OFF('u')} AS off FROM users u WHERE u.id = $1`, [userId]);
  return rows[0]?.off ?? false;
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
export async function discover(issuer: string, clientId: string, clientSecret: string, options: SsoOptions): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(issuer), clientId, { client_secret: clientSecret }, oidc.ClientSecretBasic(clientSecret), {
    execute: options.allowInsecureHttp ? [oidc.allowInsecureRequests] : [],
    timeout: options.timeoutSeconds ?? 10,
    ...(options.allowInsecureHttp ? {} : { [oidc.customFetch]: publicOnlyFetch }),
  });
}

/** A short, safe account of why the provider's side failed, for the audit log and the page. */
export function reasonOf(error: unknown): string {
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
  // Password sign-in turned off: the sessions its managers and reviewers opened by password end now.
  let ended = 0;
  if (settings.passwordSignInOff && !current?.passwordSignInOff) {
    const { rows } = await ctx.tx.query(
      `DELETE FROM console_sessions s USING users u
        WHERE u.id = s.user_id AND NOT s.via_sso AND u.role <> 'owner' AND EXISTS (SELECT 1 FROM user_instances ui WHERE ui.user_id = u.id AND ui.instance_id = $1)
        RETURNING 1`,
      [input.instanceId],
    );
    ended = rows.length;
  }
  const changed = current
    ? (['displayName', 'issuer', 'clientId', 'allowedDomains', 'jit', 'defaultRole', 'passwordSignInOff'] as const).filter(
        (k) => JSON.stringify(current[k]) !== JSON.stringify(settings[k]),
      )
    : ['created'];
  if (settings.clientSecret !== undefined && current) changed.push('clientSecret' as never);
  await audit(
    ctx,
    'sso.configure',
    `${await instanceNameOf(ctx.tx, input.instanceId)}: ${changed.join(', ') || 'no change'}${ended > 0 ? `; ${ended} password session${ended === 1 ? '' : 's'} ended` : ''}`,
  );
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
