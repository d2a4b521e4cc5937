// Counts for the console's overview: how invitations of a period moved through the funnel.
import type { Queryable } from '../../db/database.js';

export interface Funnel {
  /** Candidates invited in the period (each once, however many assessments). */
  invited: number;
  /** Of them, candidates who started, completed, and passed (or low-passed) at least one assessment. */
  started: number;
  completed: number;
  passedCandidates: number;
  /** Invitations (a candidate and an assessment) made in the period; the counts below are of these. */
  invitations: number;
  passed: number;
  lowPassed: number;
  failed: number;
  pendingScore: number;
  redFlags: number;
}

/** Candidates (and invitations) invited since `since` in the instance, by how far they got. */
export async function funnel(db: Queryable, instanceId: string, since: Date): Promise<Funnel> {
  const { rows } = await db.query<Funnel>(
    `SELECT count(DISTINCT candidate_id)::int AS invited,
            count(DISTINCT candidate_id) FILTER (WHERE started_at IS NOT NULL)::int AS started,
            count(DISTINCT candidate_id) FILTER (WHERE assessment_status = 'COMPLETED')::int AS completed,
            count(DISTINCT candidate_id) FILTER (WHERE score_status IN ('PASS', 'LOW_PASS'))::int AS "passedCandidates",
            count(*)::int AS invitations,
            count(*) FILTER (WHERE score_status = 'PASS')::int AS passed,
            count(*) FILTER (WHERE score_status = 'LOW_PASS')::int AS "lowPassed",
            count(*) FILTER (WHERE score_status = 'FAIL')::int AS failed,
            count(*) FILTER (WHERE assessment_status = 'COMPLETED' AND score_status = 'PENDING')::int AS "pendingScore",
            count(*) FILTER (WHERE red_flag)::int AS "redFlags"
       FROM invitations WHERE instance_id = $1 AND created_at >= $2`,
    [instanceId, since],
  );
  return rows[0]!;
}

/** Total scores of the completed, scored invitations of one assessment, in 10-point bins (the last holds 100). */
export async function scoreDistribution(db: Queryable, assessmentId: string): Promise<{ bins: number[]; passRate: number | null; count: number }> {
  const { rows } = await db.query<{ bin: number; n: number; passed: number }>(
    `SELECT least(floor(total_score / 10), 9)::int AS bin, count(*)::int AS n, count(*) FILTER (WHERE score_status IN ('PASS', 'LOW_PASS'))::int AS passed
       FROM invitations WHERE assessment_id = $1 AND assessment_status = 'COMPLETED' AND score_status <> 'PENDING' GROUP BY 1`,
    [assessmentId],
  );
  const bins = Array.from({ length: 10 }, () => 0);
  let count = 0;
  let passed = 0;
  for (const row of rows) {
    bins[row.bin] = row.n;
    count += row.n;
    passed += row.passed;
  }
  return { bins, passRate: count === 0 ? null : Math.round((passed / count) * 1000) / 10, count };
}

/** Score distributions of every assessment of the instance with a completed, scored invitation: 10-point bins (the last holds 100) and its pass marks. */
export async function scoreDistributions(
  db: Queryable,
  instanceId: string,
): Promise<{ assessmentId: string; name: string; passScore: number; lowPassScore: number; bins: number[]; count: number }[]> {
  const { rows } = await db.query<{ id: string; name: string; pass: string; low: string; bin: number; n: number }>(
    `SELECT a.id, a.name, a.pass_score::text AS pass, a.low_pass_score::text AS low, least(floor(i.total_score / 10), 9)::int AS bin, count(*)::int AS n
       FROM invitations i JOIN assessments a ON a.id = i.assessment_id
      WHERE i.instance_id = $1 AND i.assessment_status = 'COMPLETED' AND i.score_status <> 'PENDING'
      GROUP BY a.id, a.name, a.pass_score, a.low_pass_score, 5 ORDER BY a.name, a.id`,
    [instanceId],
  );
  const byAssessment = new Map<string, { assessmentId: string; name: string; passScore: number; lowPassScore: number; bins: number[]; count: number }>();
  for (const row of rows) {
    let found = byAssessment.get(row.id);
    if (!found) {
      found = { assessmentId: row.id, name: row.name, passScore: Number(row.pass), lowPassScore: Number(row.low), bins: Array.from({ length: 10 }, () => 0), count: 0 };
      byAssessment.set(row.id, found);
    }
    found.bins[row.bin] = row.n;
    found.count += row.n;
  }
  return [...byAssessment.values()];
}

/** Assessments completed in the instance on each of the `days` UTC days that end with `now`'s, oldest first. */
export async function completionsByDay(db: Queryable, instanceId: string, now: Date, days: number): Promise<{ day: string; completed: number }[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = new Date(today - (days - 1) * 86_400_000);
  const { rows } = await db.query<{ day: string; n: number }>(
    `SELECT to_char(finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS n
       FROM invitations WHERE instance_id = $1 AND assessment_status = 'COMPLETED' AND finished_at >= $2 AND finished_at < $3
      GROUP BY 1`,
    [instanceId, first, new Date(today + 86_400_000)],
  );
  const counted = new Map(rows.map((r) => [r.day, r.n]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    return { day, completed: counted.get(day) ?? 0 };
  });
}
