// The answer-save baseline: a bare Fastify server (logger: false) upserting an answer into a table
// of its own, bench_save_answers (candidate_id uuid, assessment_id uuid, question_id text, value
// jsonb, primary key on the three), with `INSERT … ON CONFLICT DO UPDATE`: no session, no CSRF,
// no attempt, no deadline, no check of the question or of the answer, no audit, no logging. What
// durably storing an answer costs on this database at the least, independent of the service's
// code. On PostgreSQL (DATABASE_URL) through a pg pool of the service's default size (10); without
// DATABASE_URL on its own PGlite (the embedded store) under DATA_DIR.
import Fastify from 'fastify';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

interface Store {
  query(sql: string, params: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

async function store(): Promise<Store> {
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    return { query: (sql, params) => pool.query(sql, params), close: () => pool.end() };
  }
  const lite = await PGlite.create(process.env.DATA_DIR!);
  return { query: (sql, params) => lite.query(sql, params), close: () => lite.close() };
}

const db = await store();
await db.query(
  `CREATE TABLE IF NOT EXISTS bench_save_answers (candidate_id uuid NOT NULL, assessment_id uuid NOT NULL, question_id text NOT NULL, value jsonb NOT NULL,
     PRIMARY KEY (candidate_id, assessment_id, question_id))`,
  [],
);
const UPSERT = `INSERT INTO bench_save_answers (candidate_id, assessment_id, question_id, value) VALUES ($1, $2, $3, $4::jsonb)
  ON CONFLICT (candidate_id, assessment_id, question_id) DO UPDATE SET value = EXCLUDED.value`;

const app = Fastify({ logger: false });
app.put<{ Params: { candidateId: string; assessmentId: string; questionId: string }; Body: { value: unknown } }>(
  '/answer/:candidateId/:assessmentId/:questionId',
  async (request, reply) => {
    const { candidateId, assessmentId, questionId } = request.params;
    await db.query(UPSERT, [candidateId, assessmentId, questionId, JSON.stringify(request.body.value)]);
    return reply.code(204).send();
  },
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('baseline ready\n');
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .then(() => process.exit(0));
});
