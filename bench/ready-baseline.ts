// The ready-JSON baseline: a bare Fastify server (logger: false) and a pg pool of 10 answering
// score reads from a table of its own, bench_ready_json (candidate_id text, assessment_id text,
// record jsonb), indexed and analyzed, filled once from the service's records (bench/seed.ts,
// buildReadyTable). A read is one indexed lookup and `JSON.stringify(rows.map(r => r.record))`:
// no authentication, no validation, no read model, no logging; unnamed statements. What a score
// read could cost if the records were simply kept as JSON: the floor under the service's route.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL!, max: 10 });
const BY_CANDIDATE = 'SELECT record FROM bench_ready_json WHERE candidate_id = $1';
const BY_ASSESSMENT = 'SELECT record FROM bench_ready_json WHERE assessment_id = $1';

const app = Fastify({ logger: false });
app.get<{ Querystring: { candidateIds?: string; assessmentIds?: string } }>('/score', async (request, reply) => {
  const { candidateIds, assessmentIds } = request.query;
  const [sql, value] = candidateIds !== undefined ? [BY_CANDIDATE, candidateIds] : [BY_ASSESSMENT, assessmentIds ?? ''];
  const { rows } = await pool.query<{ record: unknown }>(sql, [value]);
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(rows.map((r) => r.record)));
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('baseline ready\n');
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
