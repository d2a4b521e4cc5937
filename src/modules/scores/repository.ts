import type { Database, Queryable } from '../../db/database.js';
import { whenReady, type Maybe } from '../../domain/maybe.js';
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
 * is missing (just changed, not yet refilled). The assessment is looked up by a subquery that runs
 * only for a missing record: joining it for every row cost PostgreSQL a join and a sort per read
 * (score by one candidate: 11,000 statements/s against 31,000 with the subquery and an equality,
 * measured side by side on one connection pool). A subquery in the select list does not change
 * the scan, so an export still streams in id order from its first row.
 */
const TEXT_FROM = `i.id, i.record,
            CASE WHEN i.record IS NULL THEN (SELECT json_build_object('candidateId', i.candidate_id, 'assessmentId', a.slug, 'assessmentName', a.name,
              'assessmentStatus', i.assessment_status, 'scoreStatus', i.score_status, 'completion', i.completion, 'totalScore', i.total_score,
              'typingWpm', i.typing_wpm, 'categoryScores', i.category_scores, 'redFlag', i.red_flag,
              'startedMicros', (extract(epoch FROM i.started_at) * 1000000)::bigint::text,
              'finishedMicros', (extract(epoch FROM i.finished_at) * 1000000)::bigint::text) FROM assessments a WHERE a.id = i.assessment_id) END AS raw
       FROM invitations i`;

type TextRow = { id: string; record: string | null; raw: InvitationRow | null };

/** A row of the read model as the record's JSON text: the stored one, or made now where it is missing. */
const textOf = (row: TextRow): string => row.record ?? recordJson(row.raw!);

export { RECORD_COLUMNS };

/** A score record with what events need beside it: its instance, its invitation, and the client's reference of it. */
export type InstanceRecord = ScoreRecord & { instance: string; instanceId: string; invitationId: string; externalReference: string | null };

/**
 * The SQL reading the score records, with their instance, of the invitation rows `rows` (a table
 * or a CTE, aliased i): `invitations` itself, or the rows an update returned, so that a change and
 * the record it leaves are one statement. `extraColumns` (", i.x, …") adds columns of those rows.
 */
export const recordsFrom = (
  rows: string,
  extraColumns = '',
) => `SELECT ${RECORD_COLUMNS}, n.name AS instance, n.id AS "instanceId", i.external_reference AS "externalReference"${extraColumns}
       FROM ${rows} i JOIN assessments a ON a.id = i.assessment_id JOIN instances n ON n.id = i.instance_id`;

/** A row read by `recordsFrom` as the record clients see, with its instance. */
export const toInstanceRecord = (row: RecordSource): InstanceRecord => ({
  ...toScoreRecord(row),
  instance: row.instance,
  instanceId: row.instanceId,
  invitationId: String(row.id),
  externalReference: row.externalReference ?? null,
});

/** A row read by `recordsFrom`. */
export type RecordSource = InvitationRow & { id: string; instance: string; instanceId: string; externalReference?: string | null };

/** The score records of some invitations as they stand in this transaction, with their instance's name. */
export async function recordsOf(db: Queryable, invitationIds: string[]): Promise<InstanceRecord[]> {
  if (invitationIds.length === 0) return [];
  const { rows } = await db.query<RecordSource>(`${recordsFrom('invitations')} WHERE i.id = ANY($1::bigint[]) ORDER BY i.id`, [invitationIds]);
  return rows.map(toInstanceRecord);
}

/**
 * Assessment ids by instance and slug, as found. An assessment keeps its slug and its id for its
 * whole life, so a pair once found is true on every node for good and is kept here: a score read
 * by assessment is then one statement, not two (a round trip cost the node about 30 µs of CPU at
 * these rates). A slug not found is not kept: it may be created next.
 */
const assessmentIds = new Map<string, string>();
const MAX_KEPT_ASSESSMENTS = 10_000;

function assessmentIdsOf(db: Queryable, instanceIds: string[], slugs: string[]): Maybe<string[]> {
  const kept: string[] = [];
  for (const instanceId of instanceIds) {
    for (const slug of slugs) {
      const id = assessmentIds.get(`${instanceId}/${slug}`);
      if (id === undefined) return findAssessmentIds(db, instanceIds, slugs);
      kept.push(id);
    }
  }
  return kept;
}

async function findAssessmentIds(db: Queryable, instanceIds: string[], slugs: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string; instanceId: string; slug: string }>(
    'SELECT id, instance_id AS "instanceId", slug FROM assessments WHERE instance_id = ANY($1::uuid[]) AND slug = ANY($2::text[])',
    [instanceIds, slugs],
  );
  if (assessmentIds.size + rows.length > MAX_KEPT_ASSESSMENTS) assessmentIds.clear();
  for (const row of rows) assessmentIds.set(`${row.instanceId}/${row.slug}`, row.id);
  return rows.map((row) => row.id);
}

/** A score read: its SQL (beginning with its name in /metrics), its values, and whether it may be prepared and under what name. */
interface ScoreQuery {
  text: string;
  params: unknown[];
  prepare: boolean;
  /** The prepared statement's name: one per text. */
  statement: string;
}

/** What a score read selects: rows to format, texts, stored texts a row each, or joined into one. */
type Shape = 'row' | 'text' | 'stored' | 'joined';

/**
 * The SQL of the records in scope in id order, after `afterId` when given, at most `limit` when
 * given (a page; without it, the rest of an export read through a cursor). Assessment slugs are resolved
 * to ids first: given the ids themselves, the planner reads just their invitations through
 * invitations_assessment; given slugs to join on, it walked every invitation of the instance in
 * id order (60,050 rows read for 50 returned at 60,000 invitations, growing with them).
 *
 * `prepare` says whether the statement's generic plan (made once per connection, without the
 * values) is as good as a custom one for any values, so that it may run as a prepared statement:
 * planning cost PostgreSQL about three times what running a candidate's read did (0.12 ms against
 * 0.04 ms). True for reads by candidate (the candidate index, whatever the ids) and by one
 * assessment in the range form below; a list of assessments keeps custom plans.
 */
function scoreQuery(db: Queryable, filter: ScoreFilter, page?: { afterId: string; limit?: number }, shape: Shape = 'row'): Maybe<ScoreQuery | undefined> {
  if (!filter.assessmentIds) return scoreQueryOf(filter, undefined, page, shape);
  // Assessments are found within the instances in scope (at once when found before).
  return whenReady(assessmentIdsOf(db, filter.instanceIds, filter.assessmentIds), (found) => scoreQueryOf(filter, found, page, shape));
}

/** scoreQuery once the ids of the filter's assessments (if any) are known. */
function scoreQueryOf(filter: ScoreFilter, found: string[] | undefined, page: { afterId: string; limit?: number } | undefined, shape: Shape): ScoreQuery | undefined {
  // One id is an equality, many a list: a generic plan for `= ANY($1)` expects ten elements and
  // takes a bitmap scan and a sort where one candidate's few rows need an index lookup.
  const params: unknown[] = [];
  const where: string[] = [];
  const match = (column: string, ids: string[], type: string) => {
    params.push(ids.length === 1 ? ids[0] : ids);
    where.push(ids.length === 1 ? `${column} = $${params.length}::${type}` : `${column} = ANY($${params.length}::${type}[])`);
  };
  let order = 'i.id';
  let prepare = false;
  if (found) {
    // An invitation is in its assessment's instance: the ids of assessments found within the
    // instances in scope alone keep the read in scope (one index fewer to plan).
    if (found.length === 0) return undefined;
    if (found.length === 1 && !filter.candidateIds) {
      // One assessment as a range of one value, in the order of its index (assessment_id, id):
      // as an equality, the generic plan (which cannot know how many invitations the assessment
      // has) walked every invitation in id order instead (171 ms for the 100 of a small one
      // among 300,000); a range is not a constant to PostgreSQL, so only that index gives this
      // order, and it reads just the assessment's invitations, in order, whatever their number.
      params.push(found[0]);
      where.push(`i.assessment_id BETWEEN $${params.length}::uuid AND $${params.length}::uuid`);
      order = 'i.assessment_id, i.id';
      prepare = true;
    } else {
      match('i.assessment_id', found, 'uuid');
    }
  } else {
    match('i.instance_id', filter.instanceIds, 'uuid');
    prepare = filter.candidateIds !== undefined;
  }
  // The first page starts after id 0, which every invitation is: no condition to check.
  if (page && page.afterId !== '0') {
    params.push(page.afterId);
    where.push(`i.id > $${params.length}::bigint`);
  }
  if (filter.candidateIds) match('i.candidate_id', filter.candidateIds, 'uuid');
  let limit = '';
  if (page?.limit !== undefined) {
    params.push(page.limit);
    limit = `LIMIT $${params.length}`;
  }
  const name = filter.assessmentIds ? 'score_by_assessment' : filter.candidateIds ? 'score_by_candidate' : 'score_by_instance';
  const { text, statement } = statementOf(`${name} ${shape} ${where.join(' AND ')} ${order} ${limit}`, () => {
    const select = `SELECT ${shape === 'row' ? `${RECORD_COLUMNS} FROM invitations i JOIN assessments a ON a.id = i.assessment_id` : shape === 'text' ? TEXT_FROM : 'i.id, i.record FROM invitations i'}
      WHERE ${where.join(' AND ')}
      ORDER BY ${order}
      ${limit}`;
    // The page's texts joined by PostgreSQL, with its count, whether a record is missing and its last id.
    const body =
      shape === 'joined'
        ? `SELECT count(*)::int AS count, count(*) FILTER (WHERE s.record IS NULL)::int AS missing, max(s.id)::text AS "lastId",
            coalesce(string_agg(s.record, ',' ORDER BY s.id), '') AS joined
       FROM (${select}) s`
        : select;
    return `/* ${name} */ ${body}`;
  });
  return { text, params, prepare, statement };
}

/**
 * Statements by their form (name, shape, conditions, order, limit): each form's text is made once,
 * with its name for /metrics in front and its prepared statement's name, rather than built, named
 * and looked up by its whole text on every read (the joined first page's text wrapped the page's
 * query again on each read).
 */
const statements = new Map<string, { text: string; statement: string }>();
function statementOf(form: string, text: () => string): { text: string; statement: string } {
  let found = statements.get(form);
  if (!found) {
    found = { text: text(), statement: `score-read-${statements.size + 1}` };
    statements.set(form, found);
  }
  return found;
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

/** Runs a score read: as a prepared statement where its generic plan is sound (see scoreQuery). */
function run<T>(db: Queryable, query: ScoreQuery): Promise<{ rows: T[] }> {
  return query.prepare && 'prepared' in db && typeof db.prepared === 'function'
    ? (db as Database).prepared!<T>(query.statement, query.text, query.params)
    : db.query<T>(query.text, query.params);
}

/** One page of records in scope as JSON texts (the read model), with the last invitation id. */
export async function recordTextPage(db: Queryable, filter: ScoreFilter, afterId: string, limit = PAGE_SIZE): Promise<{ ids: string[]; texts: string[] }> {
  const query = await scoreQuery(db, filter, { afterId, limit }, 'text');
  if (!query) return { ids: [], texts: [] };
  const { rows } = await run<TextRow>(db, query);
  return { ids: rows.map((r) => String(r.id)), texts: rows.map(textOf) };
}

/** Candidates in a read up to which its first page is read a row per record (see firstPageStored). */
const FEW_CANDIDATES = 10;

/**
 * The first page of records in scope (at most PAGE_SIZE) as their stored texts, with the last
 * invitation id; undefined when a record of the page is missing (just changed, not yet refilled):
 * the caller reads the page as rows then (recordTextPage).
 *
 * A read by a few candidates (a handful of records each) takes the rows as they are: joining them
 * in PostgreSQL (string_agg and its sort, three counts) cost the server more than the rows cost
 * the node (pgbench, one candidate's 3 records as a prepared statement: 9,486 reads/s joined
 * against 10,184 as rows). Any other read (an assessment's hundred records, a long list) has
 * PostgreSQL join the texts into one: one row for the node to read instead of one per record.
 */
export function firstPageStored(db: Queryable, filter: ScoreFilter): Maybe<FirstPage | undefined> {
  const few = !filter.assessmentIds && filter.candidateIds !== undefined && filter.candidateIds.length <= FEW_CANDIDATES;
  return whenReady(scoreQuery(db, filter, { afterId: '0', limit: PAGE_SIZE }, few ? 'stored' : 'joined'), (query) =>
    query ? (few ? storedRows(db, query) : storedJoined(db, query)) : NOTHING,
  );
}

/** A read's first page: its records' texts, how many, and the last invitation id (for the rest of an export). */
export type FirstPage = { count: number; lastId: string | null; texts: string[] };
const NOTHING: FirstPage = { count: 0, lastId: null, texts: [] };

async function storedRows(db: Queryable, query: ScoreQuery): Promise<FirstPage | undefined> {
  const { rows } = await run<StoredRow>(db, query);
  return pageOf(rows);
}

type StoredRow = { id: string; record: string | null };

/** A first page of stored rows in id order; undefined when a record of it is missing. */
function pageOf(rows: readonly StoredRow[]): FirstPage | undefined {
  const texts: string[] = [];
  for (const row of rows) {
    if (row.record === null) return undefined;
    texts.push(row.record);
  }
  return { count: rows.length, lastId: rows.length > 0 ? String(rows[rows.length - 1]!.id) : null, texts };
}

/** A read by one candidate in one instance: an applicant-tracking system asking after its candidate, the usual score read. */
export interface CandidateRead {
  instanceId: string;
  candidateId: string;
}

/**
 * The reads' pairs, numbered, each looked up through invitations_candidate_instance by a nested
 * loop, which LATERAL makes the only plan (no estimate of the arrays' length or of the table's
 * size can turn it into a scan or a hash join). Each pair's rows are its first page, in id order.
 */
const CANDIDATES_TEXT = `/* score_by_candidate_batch */ SELECT w.n::int AS n, r.id, r.record
       FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS w(instance_id, candidate_id, n)
       CROSS JOIN LATERAL (SELECT i.id, i.record FROM invitations i
                            WHERE i.candidate_id = w.candidate_id AND i.instance_id = w.instance_id
                            ORDER BY i.id LIMIT ${PAGE_SIZE}) r`;

/** Invitation ids (int8 as text) in order. */
const idBefore = (a: string, b: string) => (a.length === b.length ? a < b : a.length < b.length);

/**
 * The first pages of reads by one candidate in one instance (entry i answers reads[i]; undefined
 * where a record of it is missing), in one statement however many they are: a read alone as the
 * single candidate's statement, several as one lookup per pair (CANDIDATES_TEXT). Each pair keeps
 * its own instance, so a read sees its instance's invitations only, whatever it is read with.
 */
export async function candidatePages(db: Queryable, reads: readonly CandidateRead[]): Promise<(FirstPage | undefined)[]> {
  if (reads.length === 1) {
    const [{ instanceId, candidateId }] = reads as [CandidateRead];
    const query = scoreQueryOf({ instanceIds: [instanceId], candidateIds: [candidateId] }, undefined, { afterId: '0', limit: PAGE_SIZE }, 'stored')!;
    return [await storedRows(db, query)];
  }
  const params = [reads.map((r) => r.instanceId), reads.map((r) => r.candidateId)];
  const { rows } = await run<StoredRow & { n: number }>(db, { text: CANDIDATES_TEXT, params, prepare: true, statement: 'score-read-candidates' });
  const grouped: StoredRow[][] = reads.map(() => []);
  for (const row of rows) grouped[row.n - 1]!.push(row);
  return grouped.map((group) => {
    // A nested loop hands each pair's rows on in the inner scan's order; SQL does not promise it.
    for (let i = 1; i < group.length; i++) {
      if (idBefore(String(group[i]!.id), String(group[i - 1]!.id))) {
        group.sort((a, b) => (idBefore(String(a.id), String(b.id)) ? -1 : 1));
        break;
      }
    }
    return pageOf(group);
  });
}

async function storedJoined(db: Queryable, query: ScoreQuery): Promise<FirstPage | undefined> {
  const { rows } = await run<{ count: number; missing: number; lastId: string | null; joined: string }>(db, query);
  const row = rows[0]!;
  if (row.missing > 0) return undefined;
  return { count: row.count, lastId: row.lastId, texts: row.count > 0 ? [row.joined] : [] };
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
