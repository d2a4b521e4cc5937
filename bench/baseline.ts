// The baseline the benchmark measures the service against: a bare Fastify server on the same
// database answering with the same SQL (the service's own repository and invite functions), but
// with no authentication, no rate limit, no validation, no response schema and no logging.
// Whatever the service costs beyond this is the price of its API layer.
// (The metrics are priced on the service itself, against a node with METRICS=false.) Answer saves
// have a baseline of their own, independent of the service's code: bench/save-baseline.ts.
import Fastify from 'fastify';
import { openDatabase } from '../src/db/database.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { invite } from '../src/modules/invitations/service.js';
import { scorePage } from '../src/modules/scores/repository.js';

const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL!, poolSize: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const { rows } = await db.query<{ id: string }>(`SELECT id FROM instances WHERE name = 'bench'`);
const instanceId = rows[0]!.id;
const mailer = createFileMailer({ mailDir: '/tmp', timeoutMs: 5000 });
const deps = { db, mailer, publicUrl: 'http://localhost', mailFrom: 'bench@localhost' };

const app = Fastify({ logger: false });
app.get('/hello', async () => ({ status: 'ok' }));
app.get<{ Querystring: { candidateIds?: string; assessmentIds?: string } }>('/score', async (request) => {
  const filter = {
    instanceIds: [instanceId],
    candidateIds: request.query.candidateIds?.split(','),
    assessmentIds: request.query.assessmentIds?.split(','),
  };
  return scorePage(db, filter, '0');
});
app.post<{ Body: { email: string; firstName: string; lastName: string; assessments: string[] } }>('/invite', async (request) => [
  await invite(deps, instanceId, request.body, false, { actor: { kind: 'api-key', id: 'bench' }, requestId: request.id, now: new Date() }),
]);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('baseline ready\n');
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .then(() => process.exit(0));
});
