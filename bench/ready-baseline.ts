// The ready-JSON baseline: a bare Fastify + pg server that answers score reads from a table of
// records serialized in advance (bench_score_ready, built by bench/seed.ts with the service's own
// formatter from the same rows), one indexed lookup per request, the JSON array assembled by
// PostgreSQL (string_agg), no authentication, no validation, no logging; unnamed statements,
// as the service's own queries are (no prepared-statement advantage). What a score read could
// cost if nothing were computed per request: the floor under the service's score route.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
const BY_CANDIDATE = `SELECT coalesce('[' || string_agg(record, ',' ORDER BY invitation_id) || ']', '[]') AS body FROM bench_score_ready WHERE candidate_id = $1`;
const BY_ASSESSMENT = `SELECT coalesce('[' || string_agg(record, ',' ORDER BY invitation_id) || ']', '[]') AS body FROM bench_score_ready WHERE assessment_slug = $1`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const app = Fastify({ logger: false });
app.get<{ Querystring: { candidateIds?: string; assessmentIds?: string } }>('/score', async (request, reply) => {
  const { candidateIds, assessmentIds } = request.query;
  let body = '[]';
  if (candidateIds !== undefined && UUID.test(candidateIds)) body = (await pool.query<{ body: string }>(BY_CANDIDATE, [candidateIds])).rows[0]!.body;
  else if (assessmentIds !== undefined) body = (await pool.query<{ body: string }>(BY_ASSESSMENT, [assessmentIds])).rows[0]!.body;
  return reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('baseline ready\n');
process.on('SIGTERM', () => {
  void app.close().then(() => pool.end()).then(() => process.exit(0));
});
