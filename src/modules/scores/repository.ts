import type { Database, Queryable } from '../../db/database.js';
import { toScoreRecord, type InvitationRow, type ScoreRecord } from './format.js';
import { recordJson } from './schema.js';

export interface ScoreFilter {
  instanceIds: string[];
  candidateIds?: string[];
  assessmentIds?: string[];
}

export const PAGE_SIZE = 1000;

type Row = InvitationRow & { id: string };

/** What a score record is made of, read from an invitation (i) and its assessment (a). */
const RECORD_COLUMNS = `i.id, i.candidate_id AS "candidateId", a.slug AS "assessmentId", a.name AS "assessmentName",
            i.assessment_status AS "assessmentStatus", i.score_status AS "scoreStatus",
            i.completion, i.total_score AS "totalScore", i.typing_wpm AS "typingWpm",
            i.category_scores AS "categoryScores", i.red_flag AS "redFlag",
            (extract(epoch FROM i.started_at) * 1000000)::bigint::text AS "startedMicros",
            (extract(epoch FROM i.finished_at) * 1000000)::bigint::text AS "finishedMicros"`;

/**
 * The ready record text of each invitation (the read model), and what it is made of only where it
 * is missing (just changed, not yet refilled). The join with the assessment is the one every score
 * query has (the same plans; a lateral lookup for the missing rows alone let the planner sort a
 * whole export before its first row).
 */
const TEXT_FROM = `i.id, i.record,
            CASE WHEN i.record IS NULL THEN json_build_object('candidateId', i.candidate_id, 'assessmentId', a.slug, 'assessmentName', a.name,
              'assessmentStatus', i.assessment_status, 'scoreStatus', i.score_status, 'completion', i.completion, 'totalScore', i.total_score,
              'typingWpm', i.typing_wpm, 'categoryScores', i.category_scores, 'redFlag', i.red_flag,
              'startedMicros', (extract(epoch FROM i.started_at) * 1000000)::bigint::text,
              'finishedMicros', (extract(epoch FROM i.finished_at) * 1000000)::bigint::text) END AS raw
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id`;

type TextRow = { id: string; record: string | null; raw: InvitationRow | null };

/** A row of the read model as the record's JSON text: the stored one, or made now where it is missing. */
const textOf = (row: TextRow): string => row.record ?? recordJson(row.raw!);

export { RECORD_COLUMNS };

/** The score records of some invitations as they stand in this transaction, with their instance's name. */
export async function recordsOf(db: Queryable, invitationIds: string[]): Promise<(ScoreRecord & { instance: string; instanceId: string })[]> {
  if (invitationIds.length === 0) return [];
  const { rows } = await db.query<Row & { instance: string; instanceId: string }>(
    `SELECT ${RECORD_COLUMNS}, n.name AS instance, n.id AS "instanceId"
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id JOIN instances n ON n.id = i.instance_id
      WHERE i.id = ANY($1::bigint[]) ORDER BY i.id`,
    [invitationIds],
  );
  return rows.map((row) => ({ ...toScoreRecord(row), instance: row.instance, instanceId: row.instanceId }));
}

/**
 * The SQL of the records in scope in id order, after `afterId` when given, at most `limit` when
 * given (a page; without it, the rest of an export read through a cursor). Assessment slugs are resolved
 * to ids first: given the ids themselves, the planner reads just their invitations through
 * invitations_assessment; given slugs to join on, it walked every invitation of the instance in
 * id order (60,050 rows read for 50 returned at 60,000 invitations, growing with them). One
 * assessment (the usual case) is an equality, so that the index also gives the order.
 */
async function scoreQuery(db: Queryable, filter: ScoreFilter, page?: { afterId: string; limit?: number }, shape: 'row' | 'text' = 'row'): Promise<{ text: string; params: unknown[] } | undefined> {
  const params: unknown[] = [filter.instanceIds];
  const where = ['i.instance_id = ANY($1::uuid[])'];
  if (page) {
    params.push(page.afterId);
    where.push(`i.id > $${params.length}::bigint`);
  }
  if (filter.candidateIds) {
    params.push(filter.candidateIds);
    where.push(`i.candidate_id = ANY($${params.length}::uuid[])`);
  }
  if (filter.assessmentIds) {
    const { rows: found } = await db.query<{ id: string }>('SELECT id FROM assessments WHERE instance_id = ANY($1::uuid[]) AND slug = ANY($2::text[])', [
      filter.instanceIds,
      filter.assessmentIds,
    ]);
    if (found.length === 0) return undefined;
    params.push(found.length === 1 ? found[0]!.id : found.map((a) => a.id));
    where.push(found.length === 1 ? `i.assessment_id = $${params.length}::uuid` : `i.assessment_id = ANY($${params.length}::uuid[])`);
  }
  let limit = '';
  if (page?.limit !== undefined) {
    params.push(page.limit);
    limit = `LIMIT $${params.length}`;
  }
  return {
    text: `SELECT ${shape === 'row' ? `${RECORD_COLUMNS} FROM invitations i JOIN assessments a ON a.id = i.assessment_id` : TEXT_FROM}
      WHERE ${where.join(' AND ')}
      ORDER BY i.id
      ${limit}`,
    params,
  };
}

/**
 * One page of invitations in scope, in id order after `afterId`. Pages by key rather than by
 * offset, so that each page costs the same however deep into the export it is.
 */
export async function scorePage(db: Queryable, filter: ScoreFilter, afterId: string, limit = PAGE_SIZE): Promise<Row[]> {
  const query = await scoreQuery(db, filter, { afterId, limit });
  if (!query) return [];
  return (await db.query<Row>(query.text, query.params)).rows;
}

/** One page of records in scope as JSON texts (the read model), with the last invitation id. */
export async function recordTextPage(db: Queryable, filter: ScoreFilter, afterId: string, limit = PAGE_SIZE): Promise<{ ids: string[]; texts: string[] }> {
  const query = await scoreQuery(db, filter, { afterId, limit }, 'text');
  if (!query) return { ids: [], texts: [] };
  // Reads by candidate (what ATS polling does most) are prepared: planning the statement cost
  // PostgreSQL about three times what running it did (0.12 ms against 0.04 ms). Its plan is the
  // same whatever the ids (the candidate index). Reads by assessment keep custom plans: how many
  // invitations an assessment has decides their best plan.
  const { rows } =
    'prepared' in db && typeof db.prepared === 'function' && filter.candidateIds && !filter.assessmentIds
      ? await (db as Database).prepared!<TextRow>(`score-by-candidate-${query.params.length}`, query.text, query.params)
      : await db.query<TextRow>(query.text, query.params);
  return { ids: rows.map((r) => String(r.id)), texts: rows.map(textOf) };
}

/**
 * Every record in scope after the first page as JSON texts, batch by batch: from one server-side
 * cursor in one snapshot on PostgreSQL, by keyset pages on the embedded store.
 */
export async function* recordTextBatches(db: Database, filter: ScoreFilter, lastId: string): AsyncGenerator<string[]> {
  if (db.batches) {
    const query = await scoreQuery(db, filter, { afterId: lastId }, 'text');
    if (!query) return;
    for await (const rows of db.batches<TextRow>(query.text, query.params, PAGE_SIZE)) yield rows.map(textOf);
    return;
  }
  let after = lastId;
  for (;;) {
    const page = await recordTextPage(db, filter, after);
    if (page.texts.length > 0) yield page.texts;
    if (page.texts.length < PAGE_SIZE) return;
    after = page.ids.at(-1)!;
  }
}
