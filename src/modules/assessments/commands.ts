// The commands of assessments: publish content (a YAML document from the admin API, the console or
// the CLI; parsed content from the catalogue at the demo's seed) and offer library assessments to
// an instance. Each publishes in one transaction with its audit entry: a new assessment, a new
// version of one (attempts already started keep theirs), or nothing when the content is the same.
import type { CommandContext } from '../../domain/command.js';
import { invalidInput, type DomainError } from '../../domain/errors.js';
import { audit } from '../audit/audit.js';
import { MAX_REPORTED_ERRORS, parseAssessment, type ContentError } from './content.js';
import type { AssessmentContent } from './content-schema.js';
import { offeredIn, type LibraryEntry, type OfferResult } from './library.js';
import { importAssessment, type ImportResult } from './repository.js';

export interface AssessmentInstance {
  id: string;
  name: string;
}

/** Publishes parsed content (its hash from parseAssessment) as the current version of its assessment. */
export async function publishContent(ctx: CommandContext, input: { instance: AssessmentInstance; content: AssessmentContent; hash: string }): Promise<ImportResult> {
  const result = await importAssessment(ctx.tx, input.instance, input.content, input.hash, ctx.now);
  await audit(ctx, 'assessment.import', `${input.instance.name}/${result.id}`, result.outcome === 'created' ? 201 : 200);
  return result;
}

/**
 * Publishes an assessment written as YAML. A document with problems publishes nothing: the error
 * names each (at most the first 50) with its line and column, in the words of the content's rules.
 */
export async function publishAssessment(ctx: CommandContext, input: { instance: AssessmentInstance; source: string }): Promise<ImportResult & { warnings?: ContentError[] }> {
  const parsed = parseAssessment(input.source);
  if (!parsed.ok) throw refusedContent(parsed.errors);
  const result = await publishContent(ctx, { instance: input.instance, content: parsed.content, hash: parsed.hash });
  // The fields translations leave out are said, not refused (at most as many as errors would be).
  return parsed.warnings.length > 0 ? { ...result, warnings: capped(parsed.warnings) } : result;
}

/** At most MAX_REPORTED_ERRORS problems, then one saying how many more. */
function capped(problems: ContentError[]): ContentError[] {
  const kept = problems.slice(0, MAX_REPORTED_ERRORS);
  const more = problems.length - kept.length;
  return more > 0 ? [...kept, { path: '', message: `and ${more} more` }] : kept;
}

/** The error of a refused document: each problem (path, line, column) as a field of the content. */
export function refusedContent(errors: ContentError[]): DomainError {
  const count = errors.length;
  return invalidInput(
    errors.map((e) => ({ in: 'content' as const, name: e.path || '(document)', line: e.line, column: e.column, detail: e.message })),
    `The assessment has ${count} problem${count === 1 ? '' : 's'}: ${errors
      .slice(0, 3)
      .map((e) => `${e.line ? `line ${e.line}: ` : ''}${e.path || '(document)'} ${e.message}`)
      .join('; ')}`,
  );
}

/**
 * Offers library assessments (by id, from `library`) to an instance. Content the instance already
 * has under one of the ids is replaced only with `update`, and then by a new version; otherwise it
 * is kept as it is and said so.
 */
export async function offerLibrary(
  ctx: CommandContext,
  input: { instance: AssessmentInstance; ids: string[]; library: readonly LibraryEntry[]; update: boolean },
): Promise<OfferResult[]> {
  const byId = new Map(input.library.map((e) => [e.id, e]));
  const unknown = input.ids.filter((id) => !byId.has(id));
  if (unknown.length > 0) throw invalidInput(unknown.map((id) => ({ in: 'body' as const, name: 'assessments', detail: `"${id}" is not an assessment of the library` })));
  const entries = [...new Set(input.ids)].map((id) => byId.get(id)!);
  const offered = await offeredIn(ctx.tx, input.instance.id, entries);
  const results: OfferResult[] = [];
  for (const entry of entries) {
    if (offered.get(entry.id) === 'other' && !input.update) {
      results.push({ id: entry.id, version: null, outcome: 'kept' });
      continue;
    }
    const imported = await importAssessment(ctx.tx, input.instance, entry.content, entry.hash, ctx.now);
    results.push({ id: entry.id, version: imported.version, outcome: imported.outcome });
  }
  const changed = results.filter((r) => r.outcome === 'created' || r.outcome === 'updated').map((r) => r.id);
  if (changed.length > 0) await audit(ctx, 'library.offer', `${input.instance.name}/${changed.join(',')}`.slice(0, 500));
  return results;
}
