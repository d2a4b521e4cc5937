// Plain, numbered SQL files applied at start, in order, each in its own transaction, under an
// advisory lock so that several nodes starting together apply each file exactly once.
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

/** Applies the migrations not yet applied; returns the names of those it applied. */
export async function migrate(db: Database, migrations = loadMigrations()): Promise<string[]> {
  return db.session(async (conn) => {
    await conn.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      await conn.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await conn.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(rows.map((row) => row.version));
      const applied: string[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        await conn.exec('BEGIN');
        try {
          await conn.exec(migration.sql);
          await conn.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
          await conn.exec('COMMIT');
        } catch (error) {
          await conn.exec('ROLLBACK');
          throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.name);
      }
      return applied;
    } finally {
      await conn.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
    }
  });
}
