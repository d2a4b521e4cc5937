// The typed client: generated from the document the service serves (a test fails when the
// committed files are out of date: run `npm run client:generate`), and used against a live server.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { openapiDocument } from '../../scripts/openapi.js';
import { buildApp } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { createFileMailer } from '../../src/modules/mail/mailer.js';
import { createInstance } from '../../src/modules/tenants/repository.js';
import { ADMIN_TOKEN, sampleAssessment } from '../../test/harness.js';
import { createAssessmentConnectClient } from './src/index.js';

const HERE = import.meta.dirname;

describe('the TypeScript client', () => {
  let app: FastifyInstance;
  let db: Database;
  let baseUrl: string;
  let scratch: string;

  before(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'ac-client-'));
    db = await openDatabase({});
    await migrate(db);
    await createInstance(db, { name: 'acme' });
    app = await buildApp({
      config: { publicUrl: 'http://127.0.0.1', adminToken: ADMIN_TOKEN, keyCacheMs: 2000 },
      db,
      mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 1000, mailDir: scratch }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  });
  after(async () => {
    await app?.close();
    await db?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('is generated from the document the service serves now (else: npm run client:generate)', async () => {
    const committed = JSON.parse(readFileSync(path.join(HERE, 'openapi.json'), 'utf8'));
    assert.deepEqual(committed, await openapiDocument(), 'clients/typescript/openapi.json is out of date');
    const regenerated = path.join(scratch, 'schema.d.ts');
    execFileSync(process.execPath, [path.join(HERE, '..', '..', 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), path.join(HERE, 'openapi.json'), '-o', regenerated], {
      stdio: 'pipe',
    });
    assert.equal(readFileSync(path.join(HERE, 'src', 'schema.d.ts'), 'utf8'), readFileSync(regenerated, 'utf8'), 'clients/typescript/src/schema.d.ts is out of date');
  });

  it('lists assessments, invites and reads scores against a live server, typed end to end', async () => {
    const admin = createAssessmentConnectClient({ baseUrl, adminToken: ADMIN_TOKEN });
    const imported = await admin.POST('/admin/v1/instances/{instance}/assessments', {
      params: { path: { instance: 'acme' } },
      body: sampleAssessment('alpha'),
      bodySerializer: (body) => body,
      headers: { 'content-type': 'application/yaml' },
    });
    assert.equal(imported.response.status, 201, JSON.stringify(imported.error));
    const made = await admin.POST('/admin/v1/keys', { body: { instances: ['acme'], label: 'client test' } });
    assert.ok(made.data, JSON.stringify(made.error));

    const client = createAssessmentConnectClient({ baseUrl, apiKey: made.data.key });
    const listed = await client.GET('/v1/assessment');
    assert.deepEqual(
      listed.data?.map((a) => a.id),
      ['alpha'],
    );

    const invited = await client.POST('/v1/invite', {
      params: { header: { instance: 'acme' }, query: { sendInvite: false } },
      body: { email: 'ada.lovelace@example.com', firstName: 'Ada', lastName: 'Lovelace', assessments: ['alpha'] },
    });
    assert.ok(invited.data, JSON.stringify(invited.error));
    const candidateId = invited.data[0]!.candidateId;

    const scores = await client.GET('/v1/score', { params: { query: { candidateIds: candidateId } } });
    assert.equal(scores.data?.[0]?.assessmentStatus, 'INVITED');
    assert.equal(scores.data?.[0]?.scoreStatus, 'PENDING');

    const refused = await client.POST('/v1/invite', { params: { header: { instance: 'acme' } }, body: { email: 'x', firstName: 'A', lastName: 'B', assessments: ['alpha'] } });
    assert.equal(refused.response.status, 400);
    assert.equal(refused.error?.status, 400, 'errors arrive as typed problem documents');
  });
});
