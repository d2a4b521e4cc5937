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
import { createHash } from 'node:crypto';
import { resolveMedia } from './media-store.js';
import { PackageError } from './qti/xml.js';
import { readZip } from './qti/zip.js';
import { importAssessment, type ImportResult } from './repository.js';

export interface AssessmentInstance {
  id: string;
  name: string;
}

/**
 * Publishes parsed content (its hash from parseAssessment) as the current version of its
 * assessment, with the media files its Markdown names (`files`: given beside it, by path; or
 * stored already): each checked and stored, its reference rewritten to the stored file. A library
 * entry (`library`) keeps its own hash and is audited by its caller.
 */
export async function publishContent(
  ctx: CommandContext,
  input: { instance: AssessmentInstance; content: AssessmentContent; hash: string; files?: ReadonlyMap<string, Uint8Array>; library?: boolean },
): Promise<ImportResult> {
  const resolved = await resolveMedia(ctx.tx, input.content, input.files ?? new Map());
  if (!resolved.ok) throw refusedContent(resolved.errors);
  const content = resolved.value.content;
  // References rewritten to stored files make other content: its hash is of what is published
  // (a library entry's is its own, of its document and files, so that the library knows it).
  const hash =
    input.library || content === input.content || JSON.stringify(content) === JSON.stringify(input.content)
      ? input.hash
      : createHash('sha256').update(JSON.stringify(content)).digest('hex');
  const result = await importAssessment(ctx.tx, input.instance, content, hash, ctx.now, resolved.value);
  if (!input.library) await audit(ctx, 'assessment.import', `${input.instance.name}/${result.id}`, result.outcome === 'created' ? 201 : 200);
  return result;
}

/**
 * Publishes an assessment written as YAML. A document with problems publishes nothing: the error
 * names each (at most the first 50) with its line and column, in the words of the content's rules.
 */
export async function publishAssessment(
  ctx: CommandContext,
  input: { instance: AssessmentInstance; source: string; files?: ReadonlyMap<string, Uint8Array> },
): Promise<ImportResult & { warnings?: ContentError[] }> {
  const parsed = parseAssessment(input.source);
  if (!parsed.ok) throw refusedContent(parsed.errors);
  const result = await publishContent(ctx, { instance: input.instance, content: parsed.content, hash: parsed.hash, files: input.files });
  // The fields translations leave out are said, not refused (at most as many as errors would be).
  return parsed.warnings.length > 0 ? { ...result, warnings: capped(parsed.warnings) } : result;
}

/** A content package (a zip of the document and its media files): at most this large, and unpacked. */
export const CONTENT_PACKAGE_MAX_BYTES = 60 * 1024 * 1024;
export const CONTENT_PACKAGE_MAX_UNPACKED_BYTES = 80 * 1024 * 1024;

/** The document of a content package and the files beside it, by their paths from its folder. */
export function readContentPackage(zip: Uint8Array): { source: string; files: Map<string, Uint8Array> } {
  let entries: Map<string, Uint8Array>;
  try {
    entries = readZip(zip, {
      packageBytes: CONTENT_PACKAGE_MAX_BYTES,
      uncompressedBytes: CONTENT_PACKAGE_MAX_UNPACKED_BYTES,
      what: 'a content package is a zip of the YAML or JSON document and its media files',
    });
  } catch (error) {
    if (error instanceof PackageError) throw invalidInput([{ in: 'body', name: 'package', detail: error.message }], `The package ${error.message}`);
    throw error;
  }
  // A zip of a folder holds the folder: its files are read from inside it.
  const names = [...entries.keys()];
  const top = names[0]?.split('/')[0];
  const prefix = top && names.every((n) => n.startsWith(`${top}/`)) ? `${top}/` : '';
  const documents = names.filter((n) => n.startsWith(prefix) && !n.slice(prefix.length).includes('/') && /\.(ya?ml|json)$/i.test(n));
  if (documents.length !== 1) {
    const detail = documents.length === 0 ? 'has no YAML or JSON document at its top' : `has ${documents.length} documents at its top (${documents.join(', ')}): give one`;
    throw invalidInput([{ in: 'body', name: 'package', detail }], `The package ${detail}`);
  }
  const files = new Map<string, Uint8Array>();
  for (const [name, bytes] of entries) if (name !== documents[0] && name.startsWith(prefix)) files.set(name.slice(prefix.length), bytes);
  return { source: Buffer.from(entries.get(documents[0]!)!).toString('utf8'), files };
}

/** Publishes a content package: its document with the media files beside it (publishAssessment). */
export async function publishAssessmentPackage(
  ctx: CommandContext,
  input: { instance: AssessmentInstance; zip: Uint8Array },
): Promise<ImportResult & { warnings?: ContentError[] }> {
  const { source, files } = readContentPackage(input.zip);
  return publishAssessment(ctx, { instance: input.instance, source, files });
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
    const imported = await publishLibraryEntry(ctx, input.instance, entry);
    results.push({ id: entry.id, version: imported.version, outcome: imported.outcome });
  }
  const changed = results.filter((r) => r.outcome === 'created' || r.outcome === 'updated').map((r) => r.id);
  if (changed.length > 0) await audit(ctx, 'library.offer', `${input.instance.name}/${changed.join(',')}`.slice(0, 500));
  return results;
}

/**
 * Publishes a library entry with its media files, recording the entry's hash; audited by its
 * caller (offerLibrary as library.offer, the demo's seed as assessment.import).
 */
export async function publishLibraryEntry(ctx: CommandContext, instance: AssessmentInstance, entry: LibraryEntry): Promise<ImportResult> {
  return publishContent(ctx, { instance, content: entry.content, hash: entry.hash, files: entry.files, library: true });
}
