// Percentiles against a norm group, never among whoever happened to apply. The group is either
// the published norms an assessment's content cites (the mean and standard deviation of the total
// and of categories in a named sample: a percentile is read from the normal distribution), or
// the instance's own candidates who completed the same version of the assessment, once there are
// at least MIN_NORM_GROUP of them. Below that there is no percentile, and the report says how many
// more completed attempts are needed. The score record itself never changes.
import type { Queryable } from '../../db/database.js';

/** The fewest completed and scored attempts of one version an instance's own norm is made of: fewer is noise ("100th among 2"). */
export const MIN_NORM_GROUP = 20;

interface Statistic {
  mean: number;
  sd: number;
}

/** Published norms as the content gives them, with category statistics keyed by category name. */
export interface PublishedNormsByName {
  group: string;
  source: string;
  total?: Statistic;
  categories: Record<string, Statistic>;
}

/** Published norms as an assessment's content gives them (category statistics by category id), by the names the score record uses. */
export function publishedByName(
  norms: { group: string; source: string; total?: Statistic; categories?: Record<string, Statistic> } | undefined,
  categories: { id: string; name: string }[],
): PublishedNormsByName | undefined {
  if (!norms) return undefined;
  const names = new Map(categories.map((c) => [c.id, c.name]));
  return {
    group: norms.group,
    source: norms.source,
    total: norms.total,
    categories: Object.fromEntries(Object.entries(norms.categories ?? {}).map(([id, statistic]) => [names.get(id) ?? id, statistic])),
  };
}

export interface Norm {
  /** `published`: the content's cited sample; `instance`: this instance's candidates of the same version; `none`: not enough of them yet. */
  kind: 'published' | 'instance' | 'none';
  /** The norm group in words, shown next to every percentile. */
  group: string;
  /** Where published norms come from; null for the instance's own. */
  source: string | null;
  /** How many completed and scored attempts of this version the instance has (the instance norm's size). */
  size: number;
  /** The total score's percentile (0-100, one decimal); null without one. */
  total: number | null;
  /** Each category's percentile, by category name (only those the norm group has). */
  categories: Record<string, number>;
  /** How many more completed attempts an instance norm needs; 0 once it has enough (or with published norms). */
  needed: number;
}

/** The standard normal distribution function (Abramowitz and Stegun 7.1.26; error under 1.5e-7). */
function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

const oneDecimal = (value: number) => Math.round(value * 10) / 10;

/** The percentile of a score in a normal distribution with the group's mean and standard deviation. */
export function publishedPercentile(score: number, norm: Statistic): number {
  return oneDecimal(normalCdf((score - norm.mean) / norm.sd) * 100);
}

/** The share of the others with a lower score, ties counting half: the candidate is in the group, the percentile compares them with the rest. */
const rank = (below: number, equal: number, size: number) => oneDecimal(((below + (equal - 1) / 2) / (size - 1)) * 100);

export interface NormInput {
  /** The assessment's id (uuid) and the version the attempt took. */
  assessmentId: string;
  version: number;
  /** The record's total and category scores; the total is null while not scored. */
  total: number | null;
  categories: { name: string; score: number }[];
  published?: PublishedNormsByName;
}

/** The norm a scored result is read against, and its percentiles. */
export async function normOf(db: Queryable, input: NormInput): Promise<Norm> {
  return (await readNorm(db, input, false)).norm;
}

/**
 * The norm, and each category's average over the same completed attempts of the version (the
 * report shows both): one statement over the attempts instead of one for each.
 */
export async function normAndAverages(db: Queryable, input: NormInput): Promise<{ norm: Norm; categoryAverages: Record<string, number> }> {
  const { norm, averages } = await readNorm(db, input, true);
  return { norm, categoryAverages: averages ?? {} };
}

async function readNorm(db: Queryable, input: NormInput, withAverages: boolean): Promise<{ norm: Norm; averages: Record<string, number> | null }> {
  const { rows } = await db.query<{
    size: number;
    below: number;
    equal: number;
    byCategory: Record<string, { below: number; equal: number }> | null;
    averages: Record<string, number> | null;
  }>(
    `WITH done AS (
       SELECT i.total_score, i.category_scores FROM attempts t JOIN invitations i ON i.id = t.invitation_id
        WHERE t.assessment_id = $1 AND t.version = $2 AND t.superseded_at IS NULL AND i.assessment_status = 'COMPLETED' AND i.score_status <> 'PENDING'),
     mine AS (SELECT x->>'name' AS name, (x->>'score')::numeric AS score FROM jsonb_array_elements($4::jsonb) x)
     SELECT (SELECT count(*)::int FROM done) AS size,
            (SELECT count(*)::int FROM done WHERE total_score < $3) AS below,
            (SELECT count(*)::int FROM done WHERE total_score = $3) AS equal,
            (SELECT jsonb_object_agg(name, jsonb_build_object('below', below, 'equal', equal)) FROM (
               SELECT m.name, count(*) FILTER (WHERE (c->>'score')::numeric < m.score)::int AS below, count(*) FILTER (WHERE (c->>'score')::numeric = m.score)::int AS equal
                 FROM mine m JOIN done ON true, jsonb_array_elements(done.category_scores) c WHERE c->>'name' = m.name GROUP BY m.name) x) AS "byCategory",
            CASE WHEN $5::boolean THEN (SELECT jsonb_object_agg(name, avg) FROM (
               SELECT c->>'name' AS name, round(avg((c->>'score')::numeric), 2)::float8 AS avg FROM done, jsonb_array_elements(category_scores) c GROUP BY 1) x) END AS averages`,
    [input.assessmentId, input.version, input.total, JSON.stringify(input.categories), withAverages],
  );
  const { averages } = rows[0]!;
  return { norm: normFrom(input, rows[0]!), averages };
}

function normFrom(input: NormInput, counts: { size: number; below: number; equal: number; byCategory: Record<string, { below: number; equal: number }> | null }): Norm {
  const { size, below, equal, byCategory } = counts;
  const published = input.published;
  if (published) {
    const categories: Record<string, number> = {};
    if (input.total !== null) for (const c of input.categories) if (published.categories[c.name]) categories[c.name] = publishedPercentile(c.score, published.categories[c.name]!);
    const total = input.total !== null && published.total ? publishedPercentile(input.total, published.total) : null;
    return { kind: 'published', group: published.group, source: published.source, size, total, categories, needed: 0 };
  }
  if (size < MIN_NORM_GROUP || input.total === null) {
    return { kind: 'none', group: 'none yet', source: null, size, total: null, categories: {}, needed: Math.max(0, MIN_NORM_GROUP - size) };
  }
  const categories: Record<string, number> = {};
  // In the record's order of categories.
  for (const { name } of input.categories) {
    const counts = byCategory?.[name];
    if (counts) categories[name] = rank(counts.below, counts.equal, size);
  }
  return {
    kind: 'instance',
    group: `this instance's ${size} candidates who completed version ${input.version}`,
    source: null,
    size,
    total: rank(below, equal, size),
    categories,
    needed: 0,
  };
}
