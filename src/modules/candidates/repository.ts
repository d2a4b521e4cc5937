import type { Queryable } from '../../db/database.js';
import { isUuid } from '../../domain/ids.js';

/** Lower case without accents, as the console's search compares text ("Zoë Ågren" → "zoe agren"). */
export function foldForSearch(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * The candidate with this e-mail in the instance, created or renamed to the latest names. Relies
 * on the unique index on (instance_id, lower(email)), so simultaneous invites of one new e-mail
 * make one candidate: the later insert waits for the earlier and becomes an update.
 */
export async function upsertCandidate(db: Queryable, instanceId: string, person: { email: string; firstName: string; lastName: string }, now: Date): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO candidates (instance_id, email, first_name, last_name, search_name, search_last, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (instance_id, lower(email))
     DO UPDATE SET email = EXCLUDED.email, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
                   search_name = EXCLUDED.search_name, search_last = EXCLUDED.search_last, updated_at = $7
     RETURNING id`,
    [instanceId, person.email, person.firstName, person.lastName, foldForSearch(`${person.firstName} ${person.lastName}`), foldForSearch(person.lastName), now],
  );
  return rows[0]!.id;
}

export interface CandidateSummary {
  id: string;
  instance: string;
  /** Null once the candidate's personal data was erased. */
  email: string | null;
  firstName: string | null;
  lastName: string | null;
}

/** A candidate of one of the given instances; undefined for another instance's, as for an unknown id. */
export async function findCandidate(db: Queryable, instanceIds: string[], id: string): Promise<CandidateSummary | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await db.query<CandidateSummary>(
    `SELECT c.id, n.name AS instance, c.email, c.first_name AS "firstName", c.last_name AS "lastName"
       FROM candidates c JOIN instances n ON n.id = c.instance_id WHERE c.id = $1 AND c.instance_id = ANY($2::uuid[])`,
    [id, instanceIds],
  );
  return rows[0];
}

export interface CandidateSearch {
  instanceId: string;
  /** The start of the e-mail, first name, last name or full name; case and accents do not matter. */
  query?: string;
  /** An assessment (its id, the slug clients use) the candidate is invited to. */
  assessmentId?: string;
  /** STARTED: in progress or completed (the overview's pipeline). */
  assessmentStatus?: 'INVITED' | 'IN_PROGRESS' | 'COMPLETED' | 'STARTED';
  /** SCORED: completed and scored, whatever the result (the overview's pipeline). */
  scoreStatus?: 'PENDING' | 'LOW_PASS' | 'PASS' | 'FAIL' | 'SCORED';
  redFlag?: boolean;
  /** Invited on or after this instant. */
  invitedSince?: Date;
  /** The recruiters' decision on the candidate, or none yet. */
  decision?: 'advance' | 'hold' | 'reject' | 'none';
  /** A tag the candidate carries. */
  tag?: string;
  /** Only these candidates (a selection of the list). */
  ids?: readonly string[];
  /** Keyset: candidates after this id (in id order; `sort` does not apply). */
  after?: string;
  /** The order of a numbered page (default: id order, for keyset paging). */
  sort?: CandidateSort;
  descending?: boolean;
  /** Rows of the order to skip (numbered pages). */
  offset?: number;
  limit: number;
}

/**
 * The orders of the console's list. Each ends on the id, so that pages never share or skip a row;
 * candidates without the value (an erased name, no score yet, no decision) come last either way.
 * `score` is the best total of a completed attempt (of the assessment filtered on, when one is).
 */
export const CANDIDATE_SORTS = ['invited', 'name', 'email', 'score', 'decision'] as const;
export type CandidateSort = (typeof CANDIDATE_SORTS)[number];

export interface CandidateListItem extends CandidateSummary {
  /** When the candidate was last invited (their newest invitation). */
  lastInvitedAt: Date | null;
  invitations: { assessmentId: string; assessmentName: string; assessmentStatus: string; scoreStatus: string; totalScore: string; redFlag: boolean }[];
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The WHERE clause of a search (its filters), with its parameters after the instance's ($1). */
function searchWhere(search: Omit<CandidateSearch, 'limit'>, params: unknown[]): string {
  const where = ['c.instance_id = $1'];
  const add = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (search.ids) where.push(`c.id = ANY(${add(search.ids.filter(isUuid))}::uuid[])`);
  if (search.after) where.push(`c.id > ${add(search.after)}::uuid`);
  const folded = search.query ? foldForSearch(search.query.trim()) : '';
  if (folded) {
    const prefix = add(`${escapeLike(folded)}%`);
    where.push(`(lower(c.email) LIKE ${prefix} OR c.search_name LIKE ${prefix} OR c.search_last LIKE ${prefix})`);
  }
  const invitationFilters: string[] = [];
  if (search.assessmentId) invitationFilters.push(`i.assessment_id = (SELECT id FROM assessments WHERE instance_id = $1 AND slug = ${add(search.assessmentId)})`);
  if (search.assessmentStatus === 'STARTED') invitationFilters.push(`i.assessment_status IN ('IN_PROGRESS', 'COMPLETED')`);
  else if (search.assessmentStatus) invitationFilters.push(`i.assessment_status = ${add(search.assessmentStatus)}`);
  if (search.scoreStatus === 'SCORED') invitationFilters.push(`i.score_status <> 'PENDING' AND i.assessment_status = 'COMPLETED'`);
  else if (search.scoreStatus) invitationFilters.push(`i.score_status = ${add(search.scoreStatus)} AND i.assessment_status = 'COMPLETED'`);
  if (search.redFlag !== undefined) invitationFilters.push(`i.red_flag = ${add(search.redFlag)}`);
  if (search.invitedSince) invitationFilters.push(`i.created_at >= ${add(search.invitedSince)}`);
  if (search.decision === 'none') where.push(`NOT EXISTS (SELECT 1 FROM candidate_decisions d WHERE d.candidate_id = c.id)`);
  else if (search.decision) where.push(`EXISTS (SELECT 1 FROM candidate_decisions d WHERE d.candidate_id = c.id AND d.decision = ${add(search.decision)})`);
  if (search.tag) where.push(`EXISTS (SELECT 1 FROM candidate_tags t WHERE t.candidate_id = c.id AND t.tag = lower(regexp_replace(btrim(${add(search.tag)}), '\\s+', '-', 'g')))`);
  if (invitationFilters.length > 0) where.push(`EXISTS (SELECT 1 FROM invitations i WHERE i.candidate_id = c.id AND ${invitationFilters.join(' AND ')})`);
  return where.join(' AND ');
}

/** The ORDER BY of a search: its sort key (missing values last in either direction), then the id. */
function searchOrder(search: CandidateSearch, params: unknown[]): string {
  const direction = search.descending ? 'DESC' : 'ASC';
  switch (search.sort) {
    case undefined:
      return 'c.id';
    case 'name':
      return `c.search_last ${direction} NULLS LAST, c.search_name ${direction}, c.id`;
    case 'email':
      return `lower(c.email) ${direction} NULLS LAST, c.id`;
    case 'invited':
      return `(SELECT max(i.created_at) FROM invitations i WHERE i.candidate_id = c.id) ${direction} NULLS LAST, c.id`;
    case 'score': {
      params.push(search.assessmentId ?? null);
      const of = `$${params.length}::text`;
      return `(SELECT max(i.total_score) FROM invitations i JOIN assessments a ON a.id = i.assessment_id
                WHERE i.candidate_id = c.id AND i.assessment_status = 'COMPLETED' AND i.score_status <> 'PENDING' AND (${of} IS NULL OR a.slug = ${of})) ${direction} NULLS LAST, c.id`;
    }
    case 'decision':
      return `(SELECT array_position(ARRAY['advance', 'hold', 'reject'], d.decision) FROM candidate_decisions d WHERE d.candidate_id = c.id) ${direction} NULLS LAST, c.id`;
  }
}

/**
 * Candidates of an instance. In id order after a keyset cursor (the CSV export, old "next page"
 * links) the prefix search uses the three folded-text indexes (a bitmap OR), the filters look at
 * the candidate's invitations through their unique (candidate, assessment) index, so a page costs
 * the same however many candidates the instance has. A sorted, numbered page orders every match.
 */
export async function searchCandidates(db: Queryable, search: CandidateSearch): Promise<CandidateListItem[]> {
  const params: unknown[] = [search.instanceId, search.limit, search.offset ?? 0];
  const where = searchWhere(search, params);
  const order = searchOrder(search, params);
  const { rows } = await db.query<CandidateListItem>(
    `/* console_candidate_search */ SELECT c.id, n.name AS instance, c.email, c.first_name AS "firstName", c.last_name AS "lastName",
            (SELECT max(i.created_at) FROM invitations i WHERE i.candidate_id = c.id) AS "lastInvitedAt",
            COALESCE((SELECT jsonb_agg(jsonb_build_object('assessmentId', a.slug, 'assessmentName', a.name, 'assessmentStatus', i.assessment_status,
                                                          'scoreStatus', i.score_status, 'totalScore', i.total_score::text, 'redFlag', i.red_flag) ORDER BY i.id)
                        FROM invitations i JOIN assessments a ON a.id = i.assessment_id WHERE i.candidate_id = c.id), '[]'::jsonb) AS invitations
       FROM candidates c JOIN instances n ON n.id = c.instance_id
      WHERE ${where}
      ORDER BY ${order}
      LIMIT $2 OFFSET $3`,
    params,
  );
  return rows;
}

/** How many candidates a search matches (its filters; not its cursor, order or page). */
export async function countCandidates(db: Queryable, search: Omit<CandidateSearch, 'limit'>): Promise<number> {
  const params: unknown[] = [search.instanceId];
  const where = searchWhere({ ...search, after: undefined }, params);
  const { rows } = await db.query<{ n: number }>(`/* console_candidate_count */ SELECT count(*)::int AS n FROM candidates c WHERE ${where}`, params);
  return rows[0]!.n;
}

/** One assessment's pipeline: candidates invited, started, completed, scored, and decided on. */
export interface PipelineRow {
  /** The slug (the candidate list's assessment filter). */
  assessmentId: string;
  assessmentName: string;
  invited: number;
  started: number;
  completed: number;
  scored: number;
  advance: number;
  hold: number;
  reject: number;
}

/**
 * The overview's pipeline per assessment of an instance. Each count is of candidates, counted as
 * searchCandidates counts them with the same filters (assessment with status STARTED or COMPLETED,
 * score SCORED, or a decision), so that a count links to a list of exactly that many.
 */
export async function pipeline(db: Queryable, instanceId: string): Promise<PipelineRow[]> {
  const { rows } = await db.query<PipelineRow>(
    `/* console_pipeline */ SELECT a.slug AS "assessmentId", min(a.name) AS "assessmentName",
            count(*)::int AS invited,
            count(*) FILTER (WHERE i.assessment_status IN ('IN_PROGRESS', 'COMPLETED'))::int AS started,
            count(*) FILTER (WHERE i.assessment_status = 'COMPLETED')::int AS completed,
            count(*) FILTER (WHERE i.assessment_status = 'COMPLETED' AND i.score_status <> 'PENDING')::int AS scored,
            count(*) FILTER (WHERE d.decision = 'advance')::int AS advance,
            count(*) FILTER (WHERE d.decision = 'hold')::int AS hold,
            count(*) FILTER (WHERE d.decision = 'reject')::int AS reject
       FROM invitations i
       JOIN candidates c ON c.id = i.candidate_id
       JOIN assessments a ON a.id = i.assessment_id
       LEFT JOIN candidate_decisions d ON d.candidate_id = c.id
      WHERE c.instance_id = $1 AND a.instance_id = $1
      GROUP BY a.slug
      ORDER BY min(a.name), a.slug`,
    [instanceId],
  );
  return rows;
}

/** Erasure: the person's e-mail and names (and their search forms) are removed; the id stays, anonymous. */
export async function anonymiseCandidate(tx: Queryable, candidateId: string, at: Date): Promise<void> {
  await tx.query(
    `UPDATE candidates SET email = NULL, first_name = NULL, last_name = NULL, search_name = NULL, search_last = NULL, erased_at = coalesce(erased_at, $2), updated_at = $2 WHERE id = $1`,
    [candidateId, at],
  );
}
