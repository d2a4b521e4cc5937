// Durations of the hot paths' statements, for /metrics. A statement is timed when its text begins
// with a comment naming it, `/* score_by_candidate */ SELECT …` (the name also shows in
// PostgreSQL's pg_stat_activity and logs, so an operator can find it there), and a transaction
// when it is given a name. Everything else passes through untouched: a short, fixed set of names,
// chosen where the service spends its time, rather than a series per statement.
import type { Database, Queryable } from './database.js';

/** Receives each named statement's or transaction's name and duration in seconds, failed ones too. */
export type ObserveQuery = (name: string, seconds: number) => void;

/** The name of a statement that begins with a comment naming it (letters, digits, _), else undefined. */
export function statementTag(text: string): string | undefined {
  if (!text.startsWith('/* ')) return undefined;
  const known = tags.get(text);
  if (known !== undefined) return known || undefined;
  const end = text.indexOf(' */', 3);
  const name = end < 0 || end > 67 ? '' : text.slice(3, end);
  const tag = /^[a-z][a-z0-9_]*$/.test(name) ? name : '';
  // The named statements are the code's own constant texts: each is parsed once (a regular
  // expression per statement was a fifth of what metrics cost a score read in a CPU profile).
  if (tags.size < 1000) tags.set(text, tag);
  return tag || undefined;
}
const tags = new Map<string, string>();

/**
 * Observes how long `running` took to settle, either way, from `started`; settles as it does. An
 * async function rather than callbacks on the promise: no closure is made per statement.
 */
async function timed<T>(observe: ObserveQuery, name: string, started: number, running: Promise<T>): Promise<T> {
  try {
    return await running;
  } finally {
    observe(name, (performance.now() - started) / 1000);
  }
}

function timedQueryable<Q extends Queryable>(conn: Q, observe: ObserveQuery): Q {
  return {
    ...conn,
    query: <T>(text: string, params?: unknown[]) => {
      const name = statementTag(text);
      return name ? timed(observe, name, performance.now(), conn.query<T>(text, params)) : conn.query<T>(text, params);
    },
  };
}

/** The same database, with its named statements and transactions timed. */
export function timedDatabase(db: Database, observe: ObserveQuery): Database {
  const inside = <T>(fn: (tx: Queryable) => Promise<T>) => db.transaction((tx) => fn(timedQueryable(tx, observe)));
  const { prepared } = db;
  return {
    ...timedQueryable(db, observe),
    transaction: (fn, name) => (name ? timed(observe, name, performance.now(), inside(fn)) : inside(fn)),
    session: (fn) => db.session((conn) => fn(timedQueryable(conn, observe))),
    ...(prepared && {
      prepared: <T>(name: string, text: string, params: unknown[]) => {
        const tag = statementTag(text);
        return tag ? timed(observe, tag, performance.now(), prepared<T>(name, text, params)) : prepared<T>(name, text, params);
      },
    }),
  };
}
