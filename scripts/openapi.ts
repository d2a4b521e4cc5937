// Writes the OpenAPI document the service serves at /openapi.json to a file (default
// clients/typescript/openapi.json), from the app itself on an in-memory store: the typed client
// is generated from it and the linter reads it.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';

export async function openapiDocument(): Promise<Record<string, unknown>> {
  const db = await openDatabase({});
  await migrate(db);
  const app = await buildApp({
    config: { publicUrl: 'http://localhost:8080', adminToken: 'openapi-document-0123456789', keyCacheMs: 2000 },
    db,
    mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 1000, mailDir: path.join(process.cwd(), 'data', 'openapi-mail') }),
  });
  await app.ready();
  const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  await app.close();
  await db.close();
  // A served document names the deployment's PUBLIC_URL; the file in the repository names none
  // (relative to wherever it is served), rather than a made-up host.
  document.servers = [{ url: '/', description: 'The server that serves this document (PUBLIC_URL)' }];
  return document;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2] ?? path.join('clients', 'typescript', 'openapi.json');
  writeFileSync(target, `${JSON.stringify(await openapiDocument(), null, 2)}\n`);
  console.log(`wrote ${target}`);
}
