// Plain, numbered SQL files applied at start, in order, each in its own transaction, under an
// advisory lock held by that transaction, so that several nodes starting together apply each
// file exactly once, directly or through a pooler in transaction mode.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Database } from './database.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant shared by all nodes; "ac" + "migr" in hex.
const LOCK_KEY = 0x61636d69;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .filter((file) => /^\d{4}-[a-z0-9-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file, sql: readFileSync(path.join(dir, file), 'utf8') }));
  // Versions are recorded by number: two files with one number would apply only the first, silently.
  const twice = migrations.filter((m, i) => migrations.findIndex((o) => o.version === m.version) !== i);
  if (twice.length > 0) throw new Error(`two migrations share a number: ${twice.map((m) => m.name).join(', ')}`);
  return migrations;
}

/**
 * Applies the migrations not yet applied; returns the names of those it applied. Each file runs in
 * its own transaction, which first takes a transaction-level advisory lock and then checks again
 * whether the file was applied meanwhile: the lock ends with the transaction, so it holds through
 * a pooler in transaction mode (PgBouncer), where a session's lock could be taken on one server
 * connection and released on another. A store already up to date takes no lock at all.
 */
export async function migrate(db: Database, migrations = loadMigrations()): Promise<string[]> {
  return db.session(async (conn) => {
    const inLock = async <T>(work: () => Promise<T>): Promise<T> => {
      await conn.exec('BEGIN');
      try {
        await conn.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
        const result = await work();
        await conn.exec('COMMIT');
        return result;
      } catch (error) {
        await conn.exec('ROLLBACK');
        throw error;
      }
    };
    const applied = async () => new Set((await conn.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version));
    const { rows: table } = await conn.query<{ found: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS found");
    if (!table[0]!.found) {
      await inLock(() =>
        conn.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
          version integer PRIMARY KEY,
          name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now()
        )`),
      );
    }
    const done = await applied();
    const names: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      const ran = await inLock(async () => {
        // Another node may have applied it while this one waited for the lock.
        if ((await applied()).has(migration.version)) return false;
        try {
          await conn.exec(migration.sql);
          await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
        } catch (error) {
          throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        return true;
      });
      if (ran) names.push(migration.name);
    }
    return names;
  });
}
