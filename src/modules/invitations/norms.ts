// The norm each of a candidate's scored results is read against, for GET /v1/candidates/{id}:
// published norms where the assessment's content cites them, else the instance's own candidates
// who completed the same version (scores/norms.ts). The score record itself stays as published.
import type { Queryable } from '../../db/database.js';
import { versionContent } from '../assessments/repository.js';
import { normOf, publishedByName, type Norm } from '../scores/norms.js';
import { scoredResultsOfCandidate } from './repository/invitations.js';

/** By assessment id (slug): the norm of each completed and scored invitation of the candidate. */
export async function normsOfCandidate(db: Queryable, candidateId: string): Promise<Map<string, Norm>> {
  const rows = await scoredResultsOfCandidate(db, candidateId);
  const norms = new Map<string, Norm>();
  for (const row of rows) {
    const content = await versionContent(db, row.assessmentId, row.version);
    norms.set(
      row.slug,
      await normOf(db, {
        assessmentId: row.assessmentId,
        version: row.version,
        total: Number(row.total),
        categories: row.categories.map((c) => ({ name: c.name, score: Number(c.score) })),
        published: publishedByName(content.norms, content.categories),
      }),
    );
  }
  return norms;
}
