// A console user's saved searches of the candidates list, per instance: a name and the list's
// filters. Commands save (a name used again is replaced) and delete them; only their owner reads
// them. The filters are kept as the list's own query string, with only the list's filter names.
import type { Actor, CommandContext } from '../../domain/command.js';
import { forbidden, invalidInput, notFound } from '../../domain/errors.js';
import type { Queryable } from '../../db/database.js';
import { audit } from '../audit/audit.js';

/** The candidates list's filters (the names of its query string) a saved search may hold. */
export const SEARCH_FILTERS = ['q', 'assessment', 'status', 'score', 'flag', 'days', 'decision', 'tag'] as const;
export const SAVED_MAX = 50;
const NAME_MAX = 60;
// Control characters and bidirectional overrides: a name is shown as a link in the list.
// eslint-disable-next-line no-control-regex -- these are the characters refused
const REFUSED_IN_NAME = /[\u0000-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

/** A name as typed less the characters a name may not hold: what a form refused for them shows again. */
export const withoutRefusedCharacters = (name: string): string => name.replace(new RegExp(REFUSED_IN_NAME.source, 'g'), '');

export interface SavedSearch {
  id: string;
  name: string;
  /** The list's query string for these filters (without the instance). */
  query: string;
}

export async function savedSearches(db: Queryable, userId: string, instanceId: string): Promise<SavedSearch[]> {
  const { rows } = await db.query<SavedSearch>(`SELECT id::text, name, query FROM saved_searches WHERE user_id = $1 AND instance_id = $2 ORDER BY lower(name), id`, [
    userId,
    instanceId,
  ]);
  return rows;
}

function userOf(actor: Actor): string {
  if (actor.kind !== 'user') throw forbidden('Saved searches belong to console users');
  return actor.id;
}

/** The filters as stored: the list's names only, non-empty values, in the list's order. */
export function searchQuery(filters: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const name of SEARCH_FILTERS) {
    const value = filters[name]?.trim();
    if (!value) continue;
    if (value.length > 100) throw invalidInput([{ in: 'body', name, detail: 'is longer than 100 characters' }]);
    params.set(name, value);
  }
  return params.toString();
}

/** Saves the filters under a name (the user's search of that name in the instance is replaced). */
export async function saveSearch(
  ctx: CommandContext,
  input: { instance: { id: string; name: string }; name: string; filters: Record<string, string | undefined> },
): Promise<SavedSearch> {
  const userId = userOf(ctx.actor);
  const name = input.name.trim();
  if (name === '' || name.length > NAME_MAX) throw invalidInput([{ in: 'body', name: 'name', detail: `must be 1-${NAME_MAX} characters` }]);
  if (REFUSED_IN_NAME.test(name)) throw invalidInput([{ in: 'body', name: 'name', detail: 'must not contain control or bidirectional override characters' }]);
  const query = searchQuery(input.filters);
  if (query === '') throw invalidInput([{ in: 'body', name: 'filters', detail: 'a saved search needs at least one filter or search text' }]);
  const { rows: counted } = await ctx.tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM saved_searches WHERE user_id = $1 AND instance_id = $2 AND lower(name) <> lower($3)`,
    [userId, input.instance.id, name],
  );
  if (counted[0]!.n >= SAVED_MAX) throw invalidInput([{ in: 'body', name: 'name', detail: `you have ${SAVED_MAX} saved searches in this instance already: delete one first` }]);
  await ctx.tx.query(`DELETE FROM saved_searches WHERE user_id = $1 AND instance_id = $2 AND lower(name) = lower($3)`, [userId, input.instance.id, name]);
  const { rows } = await ctx.tx.query<SavedSearch>(
    `INSERT INTO saved_searches (user_id, instance_id, name, query, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text, name, query`,
    [userId, input.instance.id, name, query, ctx.now],
  );
  await audit(ctx, 'search.save', input.instance.name);
  return rows[0]!;
}

/** Deletes one of the user's saved searches. */
export async function deleteSearch(ctx: CommandContext, input: { instance: { id: string; name: string }; id: string }): Promise<void> {
  const userId = userOf(ctx.actor);
  const { rows } = /^\d{1,18}$/.test(input.id)
    ? await ctx.tx.query(`DELETE FROM saved_searches WHERE id = $1 AND user_id = $2 AND instance_id = $3 RETURNING id`, [input.id, userId, input.instance.id])
    : { rows: [] };
  if (rows.length === 0) throw notFound('No such saved search of yours');
  await audit(ctx, 'search.delete', input.instance.name);
}
