import type { Queryable } from '../../db/database.js';
import { notFound } from '../../domain/errors.js';
import { questionCount, type AssessmentContent } from './content-schema.js';
import { storeVersionMedia, type ResolvedMedia } from './media-store.js';

export interface AssessmentSummary {
  id: string;
  name: string;
  description: string;
  instance: string;
  durationMinutes: number;
  categories: string[];
  typingTest: boolean;
  questionCount: number;
  passScore: number;
  lowPassScore: number;
  version: number;
  updatedAt: Date;
}

export interface ImportResult {
  id: string;
  instance: string;
  version: number;
  /** created: a new assessment; updated: a new version of it; unchanged: the same content again. */
  outcome: 'created' | 'updated' | 'unchanged';
}

function summaryValues(content: AssessmentContent) {
  return [
    content.name,
    content.description,
    content.durationMinutes,
    content.categories.map((c) => c.name),
    content.typingTest !== undefined,
    questionCount(content) + (content.typingTest ? 1 : 0),
    content.passScore,
    content.lowPassScore,
  ];
}

/**
 * Publishes content as the current version of its assessment, in the caller's transaction (the
 * assessments module's commands). A version once published is never changed: attempts pin the
 * version they started on, so re-publishing cannot alter them.
 */
export async function importAssessment(
  tx: Queryable,
  instance: { id: string; name: string },
  content: AssessmentContent,
  hash: string,
  now: Date,
  media?: ResolvedMedia,
): Promise<ImportResult> {
  const insertVersion = async (assessmentId: string, version: number) => {
    await tx.query(`INSERT INTO assessment_versions (assessment_id, version, content, content_hash) VALUES ($1, $2, $3, $4)`, [
      assessmentId,
      version,
      JSON.stringify(content),
      hash,
    ]);
    if (media) await storeVersionMedia(tx, assessmentId, version, media, now);
  };
  const created = await tx.query<{ id: string }>(
    `INSERT INTO assessments (instance_id, slug, current_version, name, description, duration_minutes, categories,
                              typing_test, question_count, pass_score, low_pass_score)
     VALUES ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (instance_id, slug) DO NOTHING RETURNING id`,
    [instance.id, content.id, ...summaryValues(content)],
  );
  if (created.rows[0]) {
    await insertVersion(created.rows[0].id, 1);
    return { id: content.id, instance: instance.name, version: 1, outcome: 'created' };
  }
  const { rows } = await tx.query<{ id: string; version: number; hash: string }>(
    `SELECT a.id, a.current_version AS version, v.content_hash AS hash
       FROM assessments a JOIN assessment_versions v ON v.assessment_id = a.id AND v.version = a.current_version
      WHERE a.instance_id = $1 AND a.slug = $2
        FOR UPDATE OF a`,
    [instance.id, content.id],
  );
  const current = rows[0]!;
  if (current.hash === hash) return { id: content.id, instance: instance.name, version: current.version, outcome: 'unchanged' };
  const version = current.version + 1;
  await insertVersion(current.id, version);
  await tx.query(
    `UPDATE assessments SET current_version = $2, name = $3, description = $4, duration_minutes = $5, categories = $6,
            typing_test = $7, question_count = $8, pass_score = $9, low_pass_score = $10, updated_at = $11
      WHERE id = $1`,
    [current.id, version, ...summaryValues(content), now],
  );
  return { id: content.id, instance: instance.name, version, outcome: 'updated' };
}

export async function listAssessments(db: Queryable, instanceIds: string[]): Promise<AssessmentSummary[]> {
  const { rows } = await db.query<AssessmentSummary>(
    `SELECT a.slug AS id, a.name, a.description, i.name AS instance, a.duration_minutes AS "durationMinutes",
            a.categories, a.typing_test AS "typingTest", a.question_count AS "questionCount",
            a.pass_score::float8 AS "passScore", a.low_pass_score::float8 AS "lowPassScore",
            a.current_version AS version, a.updated_at AS "updatedAt"
       FROM assessments a JOIN instances i ON i.id = a.instance_id
      WHERE a.instance_id = ANY($1::uuid[])
      ORDER BY i.name, a.slug`,
    [instanceIds],
  );
  return rows;
}

/** The published assessments of an instance among the given slugs, for resolving invites. */
export async function findAssessmentsBySlug(db: Queryable, instanceId: string, slugs: string[]): Promise<{ id: string; slug: string; name: string; durationMinutes: number }[]> {
  const { rows } = await db.query<{ id: string; slug: string; name: string; durationMinutes: number }>(
    `SELECT id, slug, name, duration_minutes AS "durationMinutes" FROM assessments WHERE instance_id = $1 AND slug = ANY($2::text[])`,
    [instanceId, slugs],
  );
  return rows;
}

/** The internal id of an assessment of the instance, by the id clients use. */
export async function assessmentUuid(db: Queryable, instanceId: string, slug: string): Promise<string | undefined> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM assessments WHERE instance_id = $1 AND slug = $2', [instanceId, slug]);
  return rows[0]?.id;
}

/** The content of the current version of an assessment. */
// Published versions never change, so their content is kept in memory once read.
const contentCache = new Map<string, AssessmentContent>();

/** The content of one published version (read once, then from memory); not-found if the assessment has no such version. */
export async function versionContent(db: Queryable, assessmentId: string, version: number): Promise<AssessmentContent> {
  const key = `${assessmentId}/${version}`;
  const cached = contentCache.get(key);
  if (cached) return cached;
  const { rows } = await db.query<{ content: AssessmentContent }>('SELECT content FROM assessment_versions WHERE assessment_id = $1 AND version = $2', [assessmentId, version]);
  const content = rows[0]?.content;
  if (!content) throw notFound('No such version of this assessment');
  if (contentCache.size > 1000) contentCache.clear();
  contentCache.set(key, content);
  return content;
}

export async function currentContent(db: Queryable, assessmentId: string): Promise<AssessmentContent> {
  const { rows } = await db.query<{ content: AssessmentContent }>(
    'SELECT v.content FROM assessments a JOIN assessment_versions v ON v.assessment_id = a.id AND v.version = a.current_version WHERE a.id = $1',
    [assessmentId],
  );
  return rows[0]!.content;
}

/** The version new attempts of an assessment start on. */
export async function currentVersion(db: Queryable, assessmentId: string): Promise<number> {
  const { rows } = await db.query<{ v: number }>('SELECT current_version AS v FROM assessments WHERE id = $1', [assessmentId]);
  return rows[0]!.v;
}

/** The content hash of the current version of each assessment of an instance, by the id clients use. */
export async function currentHashes(db: Queryable, instanceId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ slug: string; hash: string }>(
    `SELECT a.slug, v.content_hash AS hash
       FROM assessments a JOIN assessment_versions v ON v.assessment_id = a.id AND v.version = a.current_version
      WHERE a.instance_id = $1`,
    [instanceId],
  );
  return new Map(rows.map((r) => [r.slug, r.hash]));
}
