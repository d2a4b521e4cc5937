// The demo tenant: on an empty store, `npm start` creates the instance `demo` and publishes the
// sample catalogue into it, so that a newcomer has something to invite candidates to.
import type { Database } from './db/database.js';
import { runCommand, systemRequest } from './domain/command.js';
import { DomainError } from './domain/errors.js';
import { audit } from './modules/audit/audit.js';
import { keepStatistics } from './jobs/statistics.js';
import { LIBRARY_DIR, libraryFiles, readLibraryFile } from './modules/assessments/library.js';
import { publishContent } from './modules/assessments/commands.js';
import { createTenant } from './modules/tenants/commands.js';
import { countInstances, findInstanceByName } from './modules/tenants/repository.js';

/** The library (docs/library.md): the demo instance offers all of it. */
export const CATALOGUE_DIR = LIBRARY_DIR;

export function catalogueFiles(dir = CATALOGUE_DIR): string[] {
  return libraryFiles(dir);
}

/**
 * Publishes every catalogue file, with its media files, into the instance as the library offers it
 * (the seed's own commands); a broken file stops with its errors.
 */
export async function importCatalogue(db: Database, instance: { id: string; name: string }, now: Date, files = catalogueFiles()) {
  const results = [];
  for (const file of files) {
    const entry = readLibraryFile(file);
    results.push(
      await runCommand(db, systemRequest('seed', now), async (ctx) => {
        const result = await publishContent(ctx, { instance, content: entry.content, hash: entry.hash, files: entry.files, library: true });
        await audit(ctx, 'assessment.import', `${instance.name}/${result.id}`, result.outcome === 'created' ? 201 : 200);
        return result;
      }),
    );
  }
  return results;
}

/**
 * The demo's branding, so that a newcomer sees what candidates see of a company: its name in the
 * portal and the e-mail, its colour (AA contrast against white), whom to ask. Change it with
 * `instance update demo --display-name ...`.
 */
export const DEMO_BRANDING = {
  displayName: 'Demo Company',
  accentColor: '#1D6B57',
  supportEmail: 'recruiting@demo-company.example',
  privacyUrl: 'https://demo-company.example/privacy',
};

/** The instance a fresh start makes (the examples of the API's documentation name it). */
export const DEMO_INSTANCE = 'demo';

/** Creates `demo` with the catalogue when there is no instance at all; returns whether it did. */
export async function seedDemo(db: Database, now: Date): Promise<boolean> {
  if ((await countInstances(db)) > 0) return false;
  // Two nodes starting on one empty store both get here: the second finds the instance made.
  const instance = await runCommand(db, systemRequest('seed', now), (ctx) => createTenant(ctx, { name: DEMO_INSTANCE, settings: DEMO_BRANDING })).catch(async (error: unknown) => {
    if (error instanceof DomainError && error.code === 'conflict') return (await findInstanceByName(db, DEMO_INSTANCE))!;
    throw error;
  });
  await importCatalogue(db, instance, now);
  // A bulk load: the planner gets statistics now rather than at the job's next pass.
  await keepStatistics(db);
  return true;
}
