// Single sign-on in the console: starting a sign-in through an instance's identity provider
// (/console/sso/<instance>, or the sign-in page's form that asks for the instance's name), the
// provider's return (/console/sso-callback), and the owners' settings page of an instance's single
// sign-on. They translate to the users module's functions (src/modules/users/sso.ts) and back.
import { errorSummary, fieldError as fieldErrorOf, invalidAttributes } from '../components.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, forbidden } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import { html, type SafeHtml } from '../../html/html.js';
import { INSTANCE_NAME_PATTERN, type Instance } from '../../modules/tenants/repository.js';
import type { SessionTimes } from '../../modules/users/repository.js';
import { SSO_ROLES, configureSso, redirectUri, removeSso, ssoSettings, type SsoOptions, type SsoView } from '../../modules/users/sso.js';
import { SsoRefused, completeSsoSignIn, startSsoSignIn } from '../../modules/users/sso-sign-in.js';
import { bareMessagePage, head, type Frame } from '../layout.js';

export interface SsoPageDeps {
  db: Database;
  now: () => Date;
  times: SessionTimes;
  sso: SsoOptions;
  secure: boolean;
  sessionCookie: string;
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  cookie(name: string, value: string, maxAgeSeconds: number): string;
  readCookie(request: FastifyRequest, name: string): string | undefined;
  safeNext(next: string | undefined): string | undefined;
  /** Counts a start of a single sign-on per client address; past the limit, the seconds to wait. */
  startLimit(request: FastifyRequest): Promise<number | undefined>;
  consolePage(frame: Frame, title: string, body: SafeHtml): SafeHtml;
  frameOf(request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame;
  instanceOf(request: FastifyRequest, name: unknown, permission: 'manage'): Instance;
}

// The handle of a sign-in on its way through the provider. SameSite=Lax, unlike the session's
// Strict cookie: the provider's redirect back is a navigation from another site, and the browser
// must send this cookie with it.
const SSO_COOKIE = 'ac_console_sso';
const SSO_COOKIE_SECONDS = 600;
const INSTANCE_NAME = new RegExp(INSTANCE_NAME_PATTERN);

const clientOf = (request: FastifyRequest) => ({ ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '').slice(0, 500) });

/** The page after a single sign-on: it moves on by itself. A redirect would not do: the browser
 *  treats a redirect chain that began at the provider as cross-site and would not send the new
 *  (SameSite=Strict) session cookie with it; a page of this site moving on is same-site. */
function continuePage(to: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head('Signed in')}
<meta http-equiv="refresh" content="0; url=${to}">
<body><main id="main" class="sign-in"><h1>Signed in</h1><p><a href="${to}">Continue to the console</a></p></main></body>
</html>`;
}

export function ssoRoutes(scope: FastifyInstance, deps: SsoPageDeps): void {
  const { db } = deps;
  const ssoCookie = (value: string, maxAge: number) => `${SSO_COOKIE}=${value}; Path=/console; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${deps.secure ? '; Secure' : ''}`;
  const refused = (reply: FastifyReply, message: string, status: number) => deps.page(reply, bareMessagePage('Single sign-on did not work', message), status);

  // The sign-in page's form: the instance's name, then its provider.
  scope.get<{ Querystring: { instance?: string; next?: string } }>('/console/sso', async (request, reply) => {
    const name = (request.query.instance ?? '').trim().toLowerCase();
    if (!INSTANCE_NAME.test(name)) return refused(reply, 'Give the name of your instance (lower-case letters, digits and dashes), as your administrator told you.', 400);
    const next = deps.safeNext(request.query.next);
    return reply.redirect(`/console/sso/${name}${next ? `?next=${encodeURIComponent(next)}` : ''}`, 303);
  });

  scope.get<{ Params: { instance: string }; Querystring: { next?: string } }>('/console/sso/:instance', async (request, reply) => {
    const name = request.params.instance;
    if (!INSTANCE_NAME.test(name)) return refused(reply, 'No instance has that name.', 404);
    // Each start asks the provider for its discovery document: starts are limited per address.
    const wait = await deps.startLimit(request);
    if (wait !== undefined) {
      reply.header('retry-after', String(Math.max(1, wait)));
      return refused(reply, `Too many sign-in attempts. Wait ${Math.max(1, Math.ceil(wait / 60))} minute${wait > 60 ? 's' : ''} and try again.`, 429);
    }
    try {
      const started = await startSsoSignIn(db, commandRequest(request, deps.now()), deps.sso, {
        instanceName: name,
        next: deps.safeNext(request.query.next),
        client: clientOf(request),
      });
      reply.header('set-cookie', ssoCookie(started.handle, SSO_COOKIE_SECONDS));
      return reply.redirect(started.authorizationUrl, 303);
    } catch (error) {
      if (error instanceof SsoRefused) return refused(reply, error.shown, error.status);
      throw error;
    }
  });

  scope.get('/console/sso-callback', async (request, reply) => {
    const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    const result = await completeSsoSignIn(db, commandRequest(request, deps.now()), deps.sso, deps.times, {
      handle: deps.readCookie(request, SSO_COOKIE),
      search,
      client: clientOf(request),
    });
    if (!result.ok) {
      reply.header('set-cookie', ssoCookie('', 0));
      return refused(reply, result.shown, result.status);
    }
    reply.header('set-cookie', [deps.cookie(deps.sessionCookie, result.session.value, Math.floor(deps.times.absoluteMs / 1000)), ssoCookie('', 0)]);
    return deps.page(reply, continuePage(deps.safeNext(result.next) ?? '/console/'));
  });

  // ---- the owners' settings page ------------------------------------------------------------

  const ownerInstance = (request: FastifyRequest, name: unknown): Instance => {
    const instance = deps.instanceOf(request, name, 'manage');
    if (request.consoleUser!.user.role !== 'owner') throw forbidden('Only owners change single sign-on');
    return instance;
  };

  const show = async (request: FastifyRequest, reply: FastifyReply, instance: Instance, state: SsoFormState = {}, status = 200) => {
    const settings = await ssoSettings(db, instance.id, deps.sso);
    const body = ssoBody(instance.name, request.consoleUser!.csrfToken, settings, redirectUri(deps.sso), state);
    return deps.page(reply, deps.consolePage(deps.frameOf(request, 'settings', instance), `Single sign-on of ${instance.name}`, body), status);
  };

  scope.get<{ Querystring: { instance?: string; saved?: string } }>('/console/settings/sso', async (request, reply) => {
    const instance = ownerInstance(request, request.query.instance);
    return show(request, reply, instance, { notice: request.query.saved === '1' ? 'Saved.' : request.query.saved === 'removed' ? 'Single sign-on removed.' : undefined });
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/settings/sso', async (request, reply) => {
    const body = request.body ?? {};
    const instance = ownerInstance(request, body.instance);
    const text = (name: string) => (typeof body[name] === 'string' ? body[name].trim() : '');
    const change = {
      displayName: text('displayName') || undefined,
      issuer: text('issuer'),
      clientId: text('clientId'),
      clientSecret: text('clientSecret') || undefined,
      allowedDomains: text('allowedDomains')
        .split(/[\s,;]+/)
        .filter((d) => d !== ''),
      jit: body.jit === 'on',
      defaultRole: text('defaultRole'),
      passwordSignInOff: body.passwordSignInOff === 'on',
    };
    try {
      await configureSso(db, commandRequest(request, deps.now()), deps.sso, { instanceId: instance.id, change });
    } catch (error) {
      if (!(error instanceof DomainError) || (error.code !== 'invalid' && error.code !== 'conflict')) throw error;
      const errors = error.code === 'invalid' ? (error.fields ?? []).map((f) => ({ name: f.name, detail: f.detail })) : [];
      return show(request, reply, instance, { errors, problem: error.code === 'conflict' ? error.message : undefined, values: change }, error.code === 'invalid' ? 400 : 409);
    }
    return reply.redirect(`/console/settings/sso?instance=${encodeURIComponent(instance.name)}&saved=1`, 303);
  });

  scope.post<{ Body: Record<string, string | undefined> }>('/console/settings/sso/remove', async (request, reply) => {
    const instance = ownerInstance(request, request.body?.instance);
    await runCommand(db, commandRequest(request, deps.now()), (ctx) => removeSso(ctx, { instanceId: instance.id }), 'sso_remove');
    return reply.redirect(`/console/settings/sso?instance=${encodeURIComponent(instance.name)}&saved=removed`, 303);
  });
}

interface SsoFormState {
  notice?: string;
  problem?: string;
  errors?: { name: string; detail: string }[];
  values?: {
    clientSecret?: string;
    displayName?: string;
    issuer: string;
    clientId: string;
    allowedDomains: string[];
    jit: boolean;
    defaultRole: string;
    passwordSignInOff: boolean;
  };
}

function ssoBody(instance: string, csrf: string, settings: SsoView | undefined, callback: string, state: SsoFormState): SafeHtml {
  const v = state.values ?? settings;
  const errors = state.errors;
  const fieldError = (name: string) => fieldErrorOf(errors, name, `${name}-error`);
  const described = (name: string) => invalidAttributes(errors, name, `${name}-error`);
  const fields = ['displayName', 'issuer', 'clientId', 'clientSecret', 'allowedDomains', 'defaultRole'];
  return html`<h1>Single sign-on of ${instance}</h1>
${state.notice && html`<p class="info" role="status">${state.notice}</p>`}
${state.problem && html`<p class="error" role="alert">${state.problem}</p>`}
${errorSummary('sso-errors', 'Nothing was saved:', errors, Object.fromEntries(fields.map((name) => [name, name])))}
<p>People of this instance sign in through your company's identity provider (OpenID Connect). Register the service at the provider as a web application with this redirect URI: <code>${callback}</code>, scopes <code>openid email profile</code>. They sign in at <code>/console/sso/${instance}</code>, or on the sign-in page with the instance's name. Owners always sign in with their password.</p>
${
  settings
    ? html`<p>Status: ${settings.firstSuccessAt ? html`a single sign-on succeeded first on ${settings.firstSuccessAt.toISOString().slice(0, 10)}` : 'no single sign-on has succeeded yet'}. Client secret ending in <code>${settings.secretHint}</code>.</p>`
    : html`<p>Not set up.</p>`
}
<form method="post" action="/console/settings/sso" class="settings">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<label for="displayName">Name on the sign-in button ("Sign in with …")</label>
<input type="text" id="displayName" name="displayName" maxlength="60" value="${v?.displayName ?? ''}" placeholder="single sign-on"${described('displayName')}>
${fieldError('displayName')}
<label for="issuer">Issuer URL</label>
<input type="url" id="issuer" name="issuer" required maxlength="500" value="${v?.issuer ?? ''}" placeholder="https://acme.okta.com"${described('issuer')}>
${fieldError('issuer')}
<label for="clientId">Client id</label>
<input type="text" id="clientId" name="clientId" required maxlength="500" value="${v?.clientId ?? ''}"${described('clientId')}>
${fieldError('clientId')}
<label for="clientSecret">Client secret${settings ? ' (leave empty to keep the stored one)' : ''}</label>
<input type="password" id="clientSecret" name="clientSecret" maxlength="500" autocomplete="off"${!settings ? html` required` : ''}${described('clientSecret')}>
${fieldError('clientSecret')}
<label for="allowedDomains">Allowed e-mail domains (separated by spaces or commas)</label>
<input type="text" id="allowedDomains" name="allowedDomains" required value="${(v?.allowedDomains ?? []).join(', ')}" placeholder="acme.com"${described('allowedDomains')}>
${fieldError('allowedDomains')}
<label><input type="checkbox" name="jit"${v?.jit ? html` checked` : ''}> Create an account at the first sign-in (just in time)</label>
<label for="defaultRole">Role of an account created so</label>
<select id="defaultRole" name="defaultRole"${described('defaultRole')}>
${SSO_ROLES.map((role) => html`<option value="${role}"${(v?.defaultRole ?? 'reviewer') === role ? html` selected` : ''}>${role}</option>`)}
</select>
${fieldError('defaultRole')}
<label><input type="checkbox" name="passwordSignInOff"${v?.passwordSignInOff ? html` checked` : ''}${!settings?.firstSuccessAt ? html` aria-describedby="password-off-hint"` : ''}> Password sign-in off for this instance's managers and reviewers</label>
${!settings?.firstSuccessAt ? html`<p class="hint" id="password-off-hint">Possible once a single sign-on of this instance has succeeded.</p>` : ''}
<button type="submit" class="primary">Save</button>
</form>
${
  settings &&
  html`<form method="post" action="/console/settings/sso/remove">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="instance" value="${instance}">
<button type="submit" class="danger">Remove single sign-on</button>
</form>`
}`;
}
