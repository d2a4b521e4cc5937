import { html, type SafeHtml } from '../../html/html.js';
import type { User } from '../../modules/users/repository.js';

export function usersBody(users: User[], instances: string[], csrf: string, created?: { email: string; password: string }, errors?: { name: string; detail: string }[]): SafeHtml {
  return html`<h1>Users</h1>
${
  created &&
  html`<div class="panel" role="status"><p><strong>${created.email}</strong> can sign in with this one-time password, shown once. Pass it on safely.</p><p><code class="secret">${created.password}</code></p></div>`
}
${errors && html`<div role="alert"><p class="error">No user was made:</p><ul>${errors.map((e) => html`<li><code>${e.name}</code> ${e.detail}</li>`)}</ul></div>`}
<section class="panel" aria-labelledby="new-user">
<h2 id="new-user">Add a user</h2>
<form method="post" action="/console/users" class="invite-form">
<input type="hidden" name="_csrf" value="${csrf}">
<div class="field"><label for="user-email">E-mail</label><input type="email" id="user-email" name="email" required maxlength="254" autocomplete="off"></div>
<div class="field"><label for="user-role">Role</label><select id="user-role" name="role"><option value="reviewer">Reviewer: reads results, scores free-text answers</option><option value="manager">Manager: also invitations, content and keys</option><option value="owner">Owner: everything, every instance</option></select></div>
<fieldset><legend>Instances (managers and reviewers)</legend>
${instances.map((name) => html`<div class="option"><input type="checkbox" id="user-i-${name}" name="instances" value="${name}"><label for="user-i-${name}">${name}</label></div>`)}
</fieldset>
<button type="submit" class="primary">Add the user</button>
</form>
</section>
<table class="data"><caption class="visually-hidden">Users</caption>
<thead><tr><th scope="col">E-mail</th><th scope="col">Role</th><th scope="col">Instances</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${users.map(
    (u) => html`<tr><th scope="row">${u.email}</th><td>${u.role}</td><td>${u.role === 'owner' ? 'all' : u.instances.join(', ')}</td><td>${u.disabled ? 'disabled' : 'active'}</td>
<td><form method="post" action="/console/users/${u.id}/${u.disabled ? 'enable' : 'disable'}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">${u.disabled ? 'Enable' : 'Disable'}<span class="visually-hidden"> ${u.email}</span></button></form>
<form method="post" action="/console/users/${u.id}/reset-password" class="inline confirm" data-confirm="${`Reset the password of ${u.email}? Their sessions end.`}"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Reset password<span class="visually-hidden"> of ${u.email}</span></button></form></td></tr>`,
  )}</tbody></table>`;
}
