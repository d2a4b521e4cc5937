// The bare baseline of the portal's writes: a Fastify server (logger: false) on tables of its own.
// Answer saves: PUT /answer/{candidate}/{assessment}/{question} upserts into bench_save_answers
// (candidate_id uuid, assessment_id uuid, question_id text, value jsonb, primary key on the three)
// with `INSERT … ON CONFLICT DO UPDATE`: no session, no CSRF, no attempt, no deadline, no check of
// the question or of the answer, no audit, no logging. What durably storing an answer costs on
// this database at the least, independent of the service's code.
// Submissions (the submits scenario): POST /submit/{candidate}/{assessment} scores the stored
// answers in one statement, a count of those equal to the answer key's (bench_answer_key, filled
// from ANSWER_KEY, JSON {assessmentId: {questionId: value}}), and inserts the score row into
// bench_scores (committed before the answer); then, without waiting, POSTs one JSON webhook
// (`{"type":"score.finalized","timestamp",…}`, no signature, no outbox, no retry) to WEBHOOK_URL
// when set. GET /score/{candidate}/{assessment} reads the score row (404 until it is written). On PostgreSQL (DATABASE_URL) through a
// pg pool of the service's default size (10); without DATABASE_URL on its own PGlite (the
// embedded store) under DATA_DIR.
import Fastify from 'fastify';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

interface Store {
  query<T>(sql: string, params: unknown[]): Promise<{ rows: T[] }>;
  close(): Promise<void>;
}

async function store(): Promise<Store> {
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    return { query: async <T>(sql: string, params: unknown[]) => ({ rows: (await pool.query(sql, params)).rows as T[] }), close: () => pool.end() };
  }
  const lite = await PGlite.create(process.env.DATA_DIR!);
  return { query: async <T>(sql: string, params: unknown[]) => ({ rows: (await lite.query<T>(sql, params)).rows }), close: () => lite.close() };
}

const db = await store();
await db.query(
  `CREATE TABLE IF NOT EXISTS bench_save_answers (candidate_id uuid NOT NULL, assessment_id uuid NOT NULL, question_id text NOT NULL, value jsonb NOT NULL,
     PRIMARY KEY (candidate_id, assessment_id, question_id))`,
  [],
);
await db.query(
  `CREATE TABLE IF NOT EXISTS bench_answer_key (assessment_id uuid NOT NULL, question_id text NOT NULL, correct jsonb NOT NULL, PRIMARY KEY (assessment_id, question_id))`,
  [],
);
await db.query(
  `CREATE TABLE IF NOT EXISTS bench_scores (candidate_id uuid NOT NULL, assessment_id uuid NOT NULL, score integer NOT NULL, completed_at timestamptz NOT NULL,
     PRIMARY KEY (candidate_id, assessment_id))`,
  [],
);
for (const [assessmentId, answers] of Object.entries(JSON.parse(process.env.ANSWER_KEY ?? '{}') as Record<string, Record<string, unknown>>)) {
  for (const [questionId, correct] of Object.entries(answers)) {
    await db.query(`INSERT INTO bench_answer_key VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING`, [assessmentId, questionId, JSON.stringify(correct)]);
  }
}
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
const SCORE = `INSERT INTO bench_scores (candidate_id, assessment_id, score, completed_at)
  SELECT $1, $2, count(*) FILTER (WHERE k.correct = a.value), now()
    FROM bench_save_answers a LEFT JOIN bench_answer_key k ON k.assessment_id = a.assessment_id AND k.question_id = a.question_id
   WHERE a.candidate_id = $1 AND a.assessment_id = $2
  ON CONFLICT DO NOTHING RETURNING score`;
const webhookUrl = process.env.WEBHOOK_URL;
app.post<{ Params: { candidateId: string; assessmentId: string } }>('/submit/:candidateId/:assessmentId', async (request, reply) => {
  const { candidateId, assessmentId } = request.params;
  const { rows } = await db.query<{ score: number }>(SCORE, [candidateId, assessmentId]);
  if (!rows[0]) return reply.code(409).send();
  if (webhookUrl) {
    const body = JSON.stringify({ type: 'score.finalized', timestamp: new Date().toISOString(), data: { candidateId, assessmentId, score: rows[0].score } });
    fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
      (response) => response.body?.cancel(),
      () => undefined,
    );
  }
  return reply.code(204).send();
});
app.get<{ Params: { candidateId: string; assessmentId: string } }>('/score/:candidateId/:assessmentId', async (request, reply) => {
  const { rows } = await db.query<{ score: number }>(`SELECT score FROM bench_scores WHERE candidate_id = $1 AND assessment_id = $2`, [
    request.params.candidateId,
    request.params.assessmentId,
  ]);
  return rows[0] ? rows[0] : reply.code(404).send();
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('baseline ready\n');
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .then(() => process.exit(0));
});
