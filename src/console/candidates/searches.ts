// Saved searches on the console's candidates list: the user's own, per instance, as links that
// open the list with those filters; a form to save the filters shown under a name, and to delete
// one. The writes are the users module's commands.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { errorSummary, fieldError, invalidAttributes } from '../components.js';
import { runCommand } from '../../domain/command.js';
import { html, type SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import type { Database } from '../../db/database.js';
import { deleteSearch, SEARCH_FILTERS, saveSearch, type SavedSearch, withoutRefusedCharacters } from '../../modules/users/saved-searches.js';
import type { Instance } from '../../modules/tenants/repository.js';

/** The saved searches as links, each with its delete button, and the form that saves the filters shown. */
export function savedSearchesPanel(input: { instance: string; csrf: string; saved: SavedSearch[]; filters: Record<string, string | undefined>; form?: SearchFormState }): SafeHtml {
  const filled = SEARCH_FILTERS.filter((name) => input.filters[name]);
  const errors = input.form?.errors;
  return html`<section class="saved-searches" aria-labelledby="saved-title">
<h2 id="saved-title">Saved searches</h2>
${
  input.saved.length === 0
    ? html`<p>None yet.</p>`
    : html`<ul class="plain">${input.saved.map(
        (s) => html`<li><a href="/console/candidates?instance=${input.instance}&amp;${s.query}">${s.name}</a>
<form method="post" action="/console/searches/${s.id}/delete" class="inline"><input type="hidden" name="_csrf" value="${input.csrf}"><input type="hidden" name="instance" value="${input.instance}"><button type="submit" class="link" aria-label="${`Delete the saved search ${s.name}`}">delete</button></form></li>`,
      )}</ul>`
}
${errorSummary('saved-errors', 'The search was not saved:', errors, { name: 'saved-name' })}
${
  filled.length > 0 &&
  html`<form method="post" action="/console/searches" class="inline">
<input type="hidden" name="_csrf" value="${input.csrf}"><input type="hidden" name="instance" value="${input.instance}">
${filled.map((name) => html`<input type="hidden" name="${name}" value="${input.filters[name] ?? ''}">`)}
<label for="saved-name">Save this search as</label> <input id="saved-name" name="name" maxlength="60" required value="${input.form?.name ?? ''}"${invalidAttributes(errors, 'name', 'saved-name-error')}> <button type="submit">Save</button>
${fieldError(errors, 'name', 'saved-name-error')}
</form>`
}
</section>`;
}

/** The save form refused: the command's words, and the name as typed. */
export interface SearchFormState {
  errors: { name: string; detail: string }[];
  name: string;
}

export interface SearchRouteDeps {
  db: Database;
  now: () => Date;
  instanceOf: (request: FastifyRequest, name: string | undefined, permission: 'names') => Instance;
  /** The list again with these filters (`query`) and the save form's refusals, status 400. */
  again: (request: FastifyRequest, reply: FastifyReply, query: Record<string, string | undefined>, form: SearchFormState) => Promise<unknown>;
}

export function registerSearchRoutes(scope: FastifyInstance, deps: SearchRouteDeps): void {
  scope.post<{ Body: Record<string, string | undefined> }>('/console/searches', async (request, reply) => {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'names');
    let saved;
    try {
      saved = await runCommand(
        deps.db,
        commandRequest(request, deps.now()),
        (ctx) => saveSearch(ctx, { instance: { id: instance.id, name: instance.name }, name: body.name ?? '', filters: body }),
        'search_save',
      );
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
      const query = Object.fromEntries([['instance', instance.name], ...SEARCH_FILTERS.filter((name) => body[name]).map((name) => [name, body[name]])]);
      const errors = (error.fields ?? []).map((f) => ({ name: f.name, detail: f.detail }));
      // The name comes back as typed, less the characters it was refused for.
      return deps.again(request, reply, query, { errors, name: withoutRefusedCharacters(body.name ?? '') });
    }
    return reply.redirect(`/console/candidates?instance=${encodeURIComponent(instance.name)}&${saved.query}`, 303);
  });

  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/searches/:id/delete', async (request, reply) => {
    const instance = deps.instanceOf(request, request.body?.instance, 'names');
    await runCommand(
      deps.db,
      commandRequest(request, deps.now()),
      (ctx) => deleteSearch(ctx, { instance: { id: instance.id, name: instance.name }, id: request.params.id }),
      'search_delete',
    );
    return reply.redirect(`/console/candidates?instance=${encodeURIComponent(instance.name)}`, 303);
  });
}
