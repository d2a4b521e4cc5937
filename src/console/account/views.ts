// The pages of a console user's own account: the account page (password, second factor), the
// forced steps after signing in (change a handed-out password, give the code, enrol when the
// instance requires it), all through the escaping template layer.
import { html, type SafeHtml } from '../../html/html.js';
import { MIN_PASSWORD_LENGTH } from '../../modules/users/password.js';
import type { User } from '../../modules/users/repository.js';
import { head } from '../layout.js';

export interface FieldError {
  name: string;
  detail: string;
}

function errorList(errors: FieldError[] | undefined, what: string): SafeHtml | undefined {
  if (!errors || errors.length === 0) return undefined;
  return html`<div role="alert" id="form-errors"><p class="error">${what}</p><ul>${errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`;
}

/** A page of its own, without the console's navigation: a step the user must take first. */
export function stepPage(title: string, csrf: string, body: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(title, csrf)}
<body class="sign-in-body">
<main id="main" class="sign-in">
${body}
<form method="post" action="/console/sign-out" class="sign-out">
<input type="hidden" name="_csrf" value="${csrf}">
<button type="submit">Sign out</button>
</form>
</main>
</body>
</html>`;
}

export function passwordForm(csrf: string, options: { forced: boolean; errors?: FieldError[] }): SafeHtml {
  return html`<h1>${options.forced ? 'Choose your own password' : 'Change your password'}</h1>
${options.forced && html`<p class="info" role="status">Your password was given to you by an administrator. Choose your own before you go on.</p>`}
${errorList(options.errors, 'The password was not changed:')}
<form method="post" action="/console/account/password">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="current">Current password</label>
<input type="password" id="current" name="current" autocomplete="current-password" required>
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" required minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint">
<p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters, not your e-mail address and not a common or breached password. Your other sessions end.</p>
<label for="confirm">New password again</label>
<input type="password" id="confirm" name="confirm" autocomplete="new-password" required>
<button type="submit" class="primary">Change the password</button>
</form>`;
}

export function accountBody(user: User, csrf: string, options: { notice?: string; twoFactorRequired: boolean; errors?: FieldError[] }): SafeHtml {
  return html`<h1>Your account</h1>
${options.notice && html`<p class="info" role="status">${options.notice}</p>`}
${errorList(options.errors, 'Nothing was changed:')}
<dl class="facts"><dt>E-mail</dt><dd>${user.email}</dd><dt>Role</dt><dd>${user.role}</dd></dl>
<section class="panel" aria-labelledby="password-heading">
<h2 id="password-heading">Password</h2>
<p><a href="/console/account/password">Change your password</a></p>
</section>
<section class="panel" aria-labelledby="two-factor-heading">
<h2 id="two-factor-heading">Two-factor authentication</h2>
${
  user.twoFactor
    ? html`<p>On: signing in asks for a code from your authenticator app after the password.</p>
${
  options.twoFactorRequired
    ? html`<p class="hint">Required for your instances: it cannot be turned off.</p>`
    : html`<form method="post" action="/console/account/two-factor/disable">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="disable-password">Your password</label>
<input type="password" id="disable-password" name="password" autocomplete="current-password" required>
<button type="submit">Turn two-factor authentication off</button>
</form>`
}`
    : html`<p>Off.${options.twoFactorRequired && html` Required for your instances.`}</p><p><a href="/console/account/two-factor">Set up an authenticator app</a></p>`
}
</section>`;
}

export function enrolBody(csrf: string, options: { secret: string; qrSvg: SafeHtml; required: boolean; errors?: FieldError[] }): SafeHtml {
  return html`<h1>Set up two-factor authentication</h1>
${options.required && html`<p class="info" role="status">Your instance requires a second factor. Set one up before you go on.</p>`}
${errorList(options.errors, 'Not set up:')}
<p>Scan this code with an authenticator app (any app for time-based one-time passwords, RFC 6238), or type the key into it.</p>
<figure class="qr">${options.qrSvg}<figcaption>Key: <code class="secret">${options.secret}</code></figcaption></figure>
<form method="post" action="/console/account/two-factor">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="code">The 6-digit code the app shows</label>
<input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required>
<button type="submit" class="primary">Turn it on</button>
</form>`;
}

export function recoveryCodesBody(codes: string[]): SafeHtml {
  return html`<h1>Two-factor authentication is on</h1>
<div class="panel" role="status">
<p>Keep these recovery codes somewhere safe. Each signs you in once if you lose your authenticator app. They are shown this once.</p>
<ul class="recovery-codes">${codes.map((c) => html`<li><code class="secret">${c}</code></li>`)}</ul>
</div>
<p><a href="/console/">Go on to the console</a></p>`;
}

export function codeForm(csrf: string, options: { error?: string; next?: string }): SafeHtml {
  return html`<h1>Enter your code</h1>
${options.error && html`<p class="error" role="alert" id="code-error">${options.error}</p>`}
<form method="post" action="/console/two-factor">
<input type="hidden" name="_csrf" value="${csrf}">
${options.next && html`<input type="hidden" name="next" value="${options.next}">`}
<label for="code">The 6-digit code of your authenticator app, or a recovery code</label>
<input type="text" id="code" name="code" autocomplete="one-time-code" required maxlength="20">
<button type="submit" class="primary">Sign in</button>
</form>`;
}

/** The sign-in page: e-mail and password, and single sign-on by the instance's name. */
export function signInPage(options: {
  csrf: string;
  email?: string;
  error?: string;
  next?: string;
  status?: string;
  /** The instance named by ?instance=, with its single sign-on when it has one. */
  sso?: { instance: string; displayName?: string };
}): SafeHtml {
  const sso = options.sso;
  const ssoStart = (instance: string) => `/console/sso/${instance}${options.next ? `?next=${encodeURIComponent(options.next)}` : ''}`;
  return html`<!doctype html>
<html lang="en">
${head('Sign in')}
<body class="sign-in-body">
<main id="main" class="sign-in">
<h1>Sign in to the console</h1>
${options.status && html`<p class="info" role="status">${options.status}</p>`}
${options.error && html`<p class="error" role="alert" id="sign-in-error">${options.error}</p>`}
<form method="post" action="/console/sign-in">
<input type="hidden" name="_csrf" value="${options.csrf}">
${options.next && html`<input type="hidden" name="next" value="${options.next}">`}
<label for="email">E-mail</label>
<input type="email" id="email" name="email" autocomplete="username" required value="${options.email ?? ''}"${options.error && html` aria-describedby="sign-in-error"`}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit" class="primary">Sign in</button>
</form>
<p class="hint">Accounts are made by an owner (<code>assessment-connect user create</code>). Forgot your password? Ask an owner to reset it.</p>
<section class="sso" aria-labelledby="sso-heading">
<h2 id="sso-heading">Single sign-on</h2>
${
  sso?.displayName
    ? html`<p><a class="button primary" href="${ssoStart(sso.instance)}">Sign in with ${sso.displayName}</a></p>`
    : html`${sso && html`<p class="error" role="alert">Instance ${sso.instance} has no single sign-on.</p>`}
<form method="get" action="/console/sso">
${options.next && html`<input type="hidden" name="next" value="${options.next}">`}
<label for="sso-instance">Your instance's name</label>
<input type="text" id="sso-instance" name="instance" autocomplete="organization" pattern="[a-z][a-z0-9\\-]{0,62}" required value="${sso?.instance ?? ''}">
<button type="submit">Continue with single sign-on</button>
</form>`
}
</section>
</main>
</body>
</html>`;
}
