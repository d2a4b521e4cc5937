// The databases the storage suites open are copies of one migrated template, made once per set of
// migrations instead of migrating every new database (initdb and the migrations took PGlite about
// five seconds per suite, PostgreSQL about half a second):
// - PGlite: a tarball of a migrated store's data directory, in the system's temporary directory,
//   named by a hash of the migrations and of PGlite's version. The first process of a run that
//   needs it makes it and renames it into place, so that processes racing to make it each end
//   with a whole file; every later store is opened from it (openDatabase's `template`). It is
//   made small, as a store opens in proportion to its tarball (43 MB took 0.68 s, 18 MB 0.45 s):
//   WAL segments of 1 MB instead of 16, and no template0 or template1 databases, which no test
//   copies. Its shared_buffers is 16 MB instead of initdb's 128 MB (ALTER SYSTEM, so it holds for
//   every store opened from it): PGlite zero-fills its shared memory as it starts, and a store
//   opened in 1.22 s with 128 MB, 0.82 s with 16 MB (the tests' databases hold a few hundred rows).
// - PostgreSQL: a template database `ac_tpl_<hash>` on the server of TEST_DATABASE_URL, made under
//   an advisory lock by the first process that needs it; each suite's database is then
//   `CREATE DATABASE … TEMPLATE` it. The template takes no connections (ALLOW_CONNECTIONS false),
//   as CREATE DATABASE needs; templates of other migrations made more than an hour ago are dropped.
// Neither has been analyzed: its tables hold no statistics, as a newly migrated database's.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { openEmbedded } from '../../src/db/embedded.js';
import { loadMigrations, migrate } from '../../src/db/migrate.js';

/** Templates of other migrations older than this are removed by the process that makes a new one. */
const STALE_MS = 3_600_000;

/** Holds the making of PostgreSQL templates and the copying of them to one process at a time ("actp"). */
const TEMPLATE_LOCK = 0x61637470;

function hashOf(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const migration of loadMigrations()) hash.update(`${migration.name}\0${migration.sql}\0`);
  for (const part of parts) hash.update(`${part}\0`);
  return hash.digest('hex').slice(0, 12);
}

function pgliteVersion(): string {
  const manifest = new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

let tarball: Promise<Uint8Array> | undefined;
const PGLITE_INITDB = ['--wal-segsize=1'];
const PGLITE_TRIM = [
  "UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')",
  'DROP DATABASE template0',
  'DROP DATABASE template1',
  "ALTER SYSTEM SET shared_buffers = '16MB'",
  'CHECKPOINT',
];

const PGLITE_PREFIX = 'ac-pglite-template-';
let templateFile: string | undefined;
/** The shared file's path, named once per process (the hash reads every migration). */
const pgliteTemplateFile = () => (templateFile ??= path.join(tmpdir(), `${PGLITE_PREFIX}${hashOf(pgliteVersion(), ...PGLITE_INITDB, ...PGLITE_TRIM)}.tar`));

/** The migrated PGlite data directory as a tarball: read from the shared file, or made and written there. */
function pgliteTemplate(): Promise<Uint8Array> {
  tarball ??= (async () => {
    const file = pgliteTemplateFile();
    try {
      return readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const db = await openEmbedded(undefined, undefined, PGLITE_INITDB);
    let made: Uint8Array;
    try {
      await migrate(db);
      for (const statement of PGLITE_TRIM) await db.query(statement);
      made = await db.dumpDataDir!();
    } finally {
      await db.close();
    }
    const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, made);
    renameSync(partial, file);
    for (const entry of readdirSync(tmpdir())) {
      const other = path.join(tmpdir(), entry);
      if (!entry.startsWith(PGLITE_PREFIX) || other === file) continue;
      try {
        if (Date.now() - statSync(other).mtimeMs > STALE_MS) rmSync(other, { force: true });
      } catch {
        // Removed by another process meanwhile.
      }
    }
    return made;
  })();
  return tarball;
}

/** The file of the migrated PGlite template (made first if need be), for a store opened in another process. */
export async function migratedPgliteFile(): Promise<string> {
  await pgliteTemplate();
  return pgliteTemplateFile();
}

/** A new in-memory PGlite store holding the migrated schema and nothing else. */
export async function openMigratedPglite(): Promise<Database> {
  return openDatabase({ template: await pgliteTemplate() });
}

/**
 * Makes database `name` on the server of TEST_DATABASE_URL: a copy of the migrated template
 * (made first if this set of migrations has none yet), or an empty one when `migrated` is false.
 */
export async function createPostgresDatabase(name: string, migrated: boolean): Promise<void> {
  const base = process.env.TEST_DATABASE_URL!;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    if (!migrated) {
      await admin.query(`CREATE DATABASE ${name}`);
      return;
    }
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const template = await postgresTemplate(admin, base);
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  } finally {
    await admin.end();
  }
}

/** The name of this migration set's template, made now if there is none; called under the lock. */
async function postgresTemplate(admin: pg.Client, base: string): Promise<string> {
  const name = `ac_tpl_${hashOf()}`;
  const { rows } = await admin.query<{ name: string; built: string | null }>(
    `SELECT datname AS name, shobj_description(oid, 'pg_database') AS built FROM pg_database WHERE datname LIKE 'ac\\_tpl\\_%'`,
  );
  if (rows.some((row) => row.name === name)) return name;
  for (const old of rows) {
    const built = Date.parse(old.built ?? '');
    if (!(Date.now() - built < STALE_MS)) {
      await admin.query(`ALTER DATABASE ${old.name} WITH IS_TEMPLATE false`);
      await admin.query(`DROP DATABASE IF EXISTS ${old.name} WITH (FORCE)`);
    }
  }
  // Made under a name of its own and renamed when whole: a process that dies while migrating
  // leaves no template that looks finished. The lock is the database's of TEST_DATABASE_URL, so
  // runs given other databases of one server can make the same template at once: the first
  // renamed wins, and the others drop theirs.
  const building = `ac_build_${name.slice('ac_tpl_'.length)}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${building}`);
  const url = new URL(base);
  url.pathname = `/${building}`;
  const db = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    throw error;
  }
  await db.close();
  try {
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
  } catch (error) {
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    // 42P04: made meanwhile by a run that holds the lock of another database.
    if ((error as { code?: string }).code === '42P04') return name;
    throw error;
  }
  await admin.query(`ALTER DATABASE ${name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  await admin.query(`COMMENT ON DATABASE ${name} IS '${new Date().toISOString()}'`);
  return name;
}
