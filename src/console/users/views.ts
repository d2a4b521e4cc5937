import { html, type SafeHtml } from '../../html/html.js';
import type { User } from '../../modules/users/repository.js';
import { emptyState, errorSummary, fieldError, invalidAttributes, pager, sortHeader } from '../components.js';
import { sortParam, type Order } from '../lists.js';

const ROLE_CHOICES = [
  ['reviewer', 'Reviewer: reads results, scores free-text answers'],
  ['manager', 'Manager: also invitations, content and keys'],
  ['owner', 'Owner: everything, every instance'],
] as const;

/** Users in the order asked, one page of them (50), with the order and the total. */
export interface UserList {
  rows: User[];
  order: Order;
  page: number;
  size: number;
  total: number;
}

const usersHref = (change: { sort?: string; page?: number }) => {
  const params = new URLSearchParams();
  if (change.sort && change.sort !== 'email') params.set('sort', change.sort);
  if (change.page && change.page > 1) params.set('page', String(change.page));
  const query = params.toString();
  return `/console/users${query ? `?${query}` : ''}#users-heading`;
};

export function usersBody(
  list: UserList,
  instances: string[],
  csrf: string,
  created?: { email: string; password: string },
  errors?: { name: string; detail: string }[],
  values?: { email: string; role: string; instances: string[] },
): SafeHtml {
  const header = (label: string, key: string) => sortHeader(label, key, list.order, (sort, descending) => usersHref({ sort: sortParam({ sort, descending }) }));
  return html`<h1>Users</h1>
${
  created &&
  html`<div class="panel" role="status"><p><strong>${created.email}</strong> can sign in with this one-time password, shown once. Pass it on safely.</p><p><code class="secret">${created.password}</code></p></div>`
}
${errorSummary('user-errors', 'No user was made:', errors, { email: 'user-email', role: 'user-role', instances: `user-i-${instances[0]}` })}
<section class="panel" aria-labelledby="new-user">
<h2 id="new-user">Add a user</h2>
<form method="post" action="/console/users" class="invite-form">
<input type="hidden" name="_csrf" value="${csrf}">
<div class="field"><label for="user-email">E-mail</label><input type="email" id="user-email" name="email" required maxlength="254" autocomplete="off" value="${values?.email ?? ''}"${invalidAttributes(errors, 'email', 'user-email-error')}>${fieldError(errors, 'email', 'user-email-error')}</div>
<div class="field"><label for="user-role">Role</label><select id="user-role" name="role"${invalidAttributes(errors, 'role', 'user-role-error')}>${ROLE_CHOICES.map(
    ([value, text]) => html`<option value="${value}"${values?.role === value ? html` selected` : html``}>${text}</option>`,
  )}</select>${fieldError(errors, 'role', 'user-role-error')}</div>
<fieldset${invalidAttributes(errors, 'instances', 'user-instances-error')}><legend>Instances (managers and reviewers)</legend>
${fieldError(errors, 'instances', 'user-instances-error')}
${instances.map((name) => html`<div class="option"><input type="checkbox" id="user-i-${name}" name="instances" value="${name}"${values?.instances.includes(name) ? html` checked` : html``}><label for="user-i-${name}">${name}</label></div>`)}
</fieldset>
<button type="submit" class="primary">Add the user</button>
</form>
</section>
<h2 id="users-heading">Everyone who signs in</h2>
${
  list.rows.length === 0
    ? emptyState('This page is past the last one.', html`<a href="${usersHref({ sort: sortParam(list.order) })}">Go to the first page</a>.`)
    : html`<div class="table-scroll"><table class="data"><caption class="visually-hidden">Users</caption>
<thead><tr>${header('E-mail', 'email')}${header('Role', 'role')}<th scope="col">Instances</th>${header('State', 'state')}<th scope="col">Actions</th></tr></thead>
<tbody>${list.rows.map(
        (
          u,
        ) => html`<tr><th scope="row">${u.email}</th><td data-label="Role">${u.role}</td><td data-label="Instances">${u.role === 'owner' ? 'all' : u.instances.join(', ')}</td><td data-label="State">${u.disabled ? 'disabled' : 'active'}</td>
<td><form method="post" action="/console/users/${u.id}/${u.disabled ? 'enable' : 'disable'}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">${u.disabled ? 'Enable' : 'Disable'}<span class="visually-hidden"> ${u.email}</span></button></form>
<form method="post" action="/console/users/${u.id}/reset-password" class="inline confirm" data-confirm="${`Reset the password of ${u.email}? Their sessions end.`}"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Reset password<span class="visually-hidden"> of ${u.email}</span></button></form></td></tr>`,
      )}</tbody></table></div>`
}
${pager({ page: list.page, size: list.size, total: list.total, noun: 'users', href: (page) => usersHref({ sort: sortParam(list.order), page }) })}`;
}
