// `npm run migrate` (node dist/migrate-main.js): applies the migrations not yet applied to the
// store the environment names (DATABASE_URL, or the embedded one under DATA_DIR) and exits, for a
// deployment's one-off migration step (deploy/kubernetes/migrate-job.yaml). The service applies
// them at start as well, each once whoever comes first (src/db/migrate.ts), so this step only
// makes sure that no node starts the slow work of a long migration.
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/database.js';
import { migrate } from './db/migrate.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`assessment-connect migrate: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    const applied = await migrate(db);
    console.log(applied.length === 0 ? 'assessment-connect migrate: up to date' : `assessment-connect migrate: applied ${applied.join(', ')}`);
  } finally {
    await db.close();
  }
}

main().catch((error) => {
  console.error('assessment-connect migrate failed:', error);
  process.exit(1);
});
