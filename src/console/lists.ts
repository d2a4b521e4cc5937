// How a console list is ordered and paged. Every list takes the same query: `sort` (a column's
// key, optionally followed by `-desc`) and `page` (from 1), both checked here. Lists read whole
// (users, API keys, the review board: hundreds at most) are ordered and cut here; lists that grow
// without bound (candidates, e-mails, the audit log) order and cut in SQL with the same query.
import { invalidInput } from '../domain/errors.js';

export interface Order<S extends string = string> {
  sort: S;
  descending: boolean;
}

/** The list's order from its `sort` parameter; `fallback` when absent. */
export function parseOrder<S extends string>(value: string | undefined, sorts: readonly S[], fallback: Order<S>): Order<S> {
  if (value === undefined || value === '') return fallback;
  const descending = value.endsWith('-desc');
  const sort = descending ? value.slice(0, -'-desc'.length) : value;
  if (!(sorts as readonly string[]).includes(sort))
    throw invalidInput([{ in: 'query', name: 'sort', detail: `must be one of ${sorts.join(', ')}, each optionally followed by -desc` }]);
  return { sort: sort as S, descending };
}

/** The `sort` parameter that gives this order. */
export const sortParam = (order: Order): string => `${order.sort}${order.descending ? '-desc' : ''}`;

const PAGE_MAX = 100_000;

/** The list's page number: 1 when absent. */
export function parsePage(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const page = /^[1-9][0-9]{0,5}$/.test(value) ? Number(value) : NaN;
  if (!(page <= PAGE_MAX)) throw invalidInput([{ in: 'query', name: 'page', detail: `must be a whole number from 1 to ${PAGE_MAX}` }]);
  return page;
}

/** How two rows compare on one column (ascending). */
export type Compare<T> = (a: T, b: T) => number;

/** Ascending by a text, as people sort words: case and accents aside. */
export const byText =
  <T>(of: (row: T) => string): Compare<T> =>
  (a, b) =>
    of(a).localeCompare(of(b), 'en', { sensitivity: 'base', numeric: true });

/** Ascending by a time; rows without one come last either way (see pageOf). */
export const byTime =
  <T>(of: (row: T) => Date | null | undefined): Compare<T> =>
  (a, b) =>
    (of(a)?.getTime() ?? 0) - (of(b)?.getTime() ?? 0);

/**
 * One page of a list read whole, in the order asked: by the column's comparison, turned round
 * when descending; rows that tie keep the order they were read in (which ends on an id), so
 * pages never share or skip a row. `missing` rows (no value in the column) come last either way.
 */
export function pageOf<T, S extends string>(
  rows: readonly T[],
  order: Order<S>,
  compare: Record<S, Compare<T>>,
  page: number,
  size: number,
  missing: Partial<Record<S, (row: T) => boolean>> = {},
): { rows: T[]; total: number } {
  const cmp = compare[order.sort];
  const lacks = missing[order.sort] ?? (() => false);
  const sorted = rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => {
      const gap = Number(lacks(a.row)) - Number(lacks(b.row));
      if (gap !== 0) return gap;
      const by = cmp(a.row, b.row);
      return (order.descending ? -by : by) || a.index - b.index;
    })
    .map(({ row }) => row);
  return { rows: sorted.slice((page - 1) * size, page * size), total: rows.length };
}
