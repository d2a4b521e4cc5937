// The media of assessment content at publish: each `![text](file)` in the content's Markdown names
// a file given with it (beside the YAML in a folder or zip) or one stored already
// (`media:<sha256>.<ext>`, as published content says it). Given files are checked and re-encoded
// (media.ts), stored by their sha256, and the reference is rewritten to the stored name, so that
// the version's content says exactly which bytes it shows. The text in brackets is required: the
// alternative text of an image, the description or transcript of audio and video. Formulas
// ($…$, $$…$$) are checked here too: TeX that does not convert to MathML is refused.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { Queryable } from '../../db/database.js';
import { FORMULA, mathmlReadable, texProblem } from '../../html/math.js';
import type { Formula } from '../../html/markdown.js';
import { formulasIn } from './formula-image.js';
import { formulaProblems } from './formula-check.js';
import type { ContentError } from './content.js';
import type { AssessmentContent } from './content-schema.js';
import { MEDIA_MAX_FILES, MEDIA_MAX_TOTAL_BYTES, MEDIA_TYPES, MediaError, acceptMedia, type MediaExtension, type StoredMedia } from './media.js';

/** A reference to a stored file as published content holds it. */
export const STORED_REFERENCE = /^media:([0-9a-f]{64})\.(png|jpg|webp|gif|svg|mp3|ogg|wav|mp4|webm)$/;
/** `![text](target)` in Markdown (a target without spaces or parentheses). */
const REFERENCE = /!\[([^\]\n]*)\]\(\s*([^()\s]+)\s*\)/g;
/** Fields whose strings are code or answers, never Markdown. */
const NOT_MARKDOWN = new Set(['starterCode', 'tests', 'examples', 'accept', 'key', 'languages', 'entry', 'id', 'category']);

export interface MediaUse {
  name: string;
  sha256: string;
}

export interface ResolvedMedia {
  content: AssessmentContent;
  /** The files to store (new or already stored), by sha256. */
  files: Map<string, StoredMedia>;
  /** Each file the version uses, with the name its author gave. */
  uses: MediaUse[];
}

/** Calls `visit` with every Markdown string of the content and replaces it with what it returns. */
function mapMarkdown(value: unknown, visit: (text: string, path: (string | number)[]) => string, path: (string | number)[] = []): unknown {
  if (typeof value === 'string') return visit(value, path);
  if (Array.isArray(value)) return value.map((item, index) => mapMarkdown(item, visit, [...path, index]));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, NOT_MARKDOWN.has(key) ? item : mapMarkdown(item, visit, [...path, key])]));
  }
  return value;
}

/**
 * The files the content's Markdown names beside it (not the stored ones), by their normal path
 * from the document's folder, each once; for reading them from a folder (the library's).
 */
export function givenMediaNames(content: AssessmentContent): string[] {
  const names = new Set<string>();
  mapMarkdown(content, (text) => {
    for (const match of text.matchAll(REFERENCE)) {
      const name = STORED_REFERENCE.test(match[2]!) ? undefined : normalName(match[2]!);
      if (name !== undefined) names.add(name);
    }
    return text;
  });
  return [...names].sort();
}

/** A file name as given beside the content: relative, inside the folder. */
function normalName(name: string): string | undefined {
  if (name.includes('\\') || name.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(name)) return undefined;
  const normal = posix.normalize(decodeURIComponent(name)).replace(/^\.\//, '');
  return normal === '..' || normal.startsWith('../') ? undefined : normal;
}

/** The stored files among these sha256s, held (KEY SHARE) against the sweep of unused files until the transaction ends. */
async function storedFiles(db: Queryable, hashes: string[]): Promise<Set<string>> {
  if (hashes.length === 0) return new Set();
  const { rows } = await db.query<{ sha256: string }>('SELECT sha256 FROM assessment_media WHERE sha256 = ANY($1::text[]) FOR KEY SHARE', [hashes]);
  return new Set(rows.map((r) => r.sha256));
}

/**
 * Resolves the content's media references against the given files and the stored ones: returns
 * the content with every reference to a stored name, or the problems (each at its path).
 */
export async function resolveMedia(
  db: Queryable,
  content: AssessmentContent,
  given: ReadonlyMap<string, Uint8Array>,
): Promise<{ ok: true; value: ResolvedMedia } | { ok: false; errors: ContentError[] }> {
  const errors: ContentError[] = [];
  const references: { path: string; text: string; target: string }[] = [];
  const formulas: { formula: Formula; display: boolean; path: string }[] = [];
  mapMarkdown(content, (text, path) => {
    for (const match of text.matchAll(REFERENCE)) references.push({ path: path.join('.'), text: match[1]!, target: match[2]! });
    // Formulas are turned into MathML when shown; TeX that would not convert is refused now.
    const refused = new Set<string>();
    for (const match of text.matchAll(FORMULA)) {
      const tex = match[1] ?? match[2]!;
      const problem = texProblem(tex);
      if (problem) errors.push({ path: path.join('.'), message: `has the formula $${tex.slice(0, 80)}$, which is not TeX that converts: ${problem}` });
      if (problem) refused.add(tex);
    }
    // And a formula the report's PDF could not draw (too deep, too large, too many shapes), TeX or MathML: checked below.
    for (const found of formulasIn(text)) if (!('tex' in found.formula && refused.has(found.formula.tex))) formulas.push({ ...found, path: path.join('.') });
    return text;
  });
  const problems = await formulaProblems(formulas);
  formulas.forEach(({ formula, path }, i) => {
    if (problems[i]) errors.push({ path, message: `has the formula ${formulaName(formula)}, which the report's PDF cannot draw: ${problems[i]}` });
  });
  const accepted = new Map<string, StoredMedia>(); // by the given name
  const files = new Map<string, StoredMedia>();
  const uses = new Map<string, MediaUse>();
  const storedRefs = new Map<string, MediaExtension>();
  for (const ref of references) {
    const stored = STORED_REFERENCE.exec(ref.target);
    const name = stored ? undefined : normalName(ref.target);
    if (!stored && name === undefined) {
      errors.push({ path: ref.path, message: `names "${ref.target}": a media file is named by its path beside the content (such as figures/chart.png)` });
      continue;
    }
    if (stored) {
      const extension = stored[2] as MediaExtension;
      storedRefs.set(stored[1]!, extension);
      if (ref.text.trim() === '') errors.push({ path: ref.path, message: missingText(MEDIA_TYPES[extension].kind, ref.target) });
      continue;
    }
    let media = accepted.get(name!);
    if (!media) {
      const bytes = given.get(name!);
      if (!bytes) {
        errors.push({ path: ref.path, message: `names the file "${name}", which was not given: put it beside the content (import a folder or a zip)` });
        continue;
      }
      try {
        // A file that is, byte for byte, one stored already (from an export) is that file.
        const same = await findMedia(db, createHash('sha256').update(bytes).digest('hex'));
        const extension = same && (Object.entries(MEDIA_TYPES).find(([, t]) => t.contentType === same.contentType)?.[0] as MediaExtension | undefined);
        media =
          same && extension
            ? { sha256: createHash('sha256').update(bytes).digest('hex'), extension, contentType: same.contentType, kind: MEDIA_TYPES[extension].kind, bytes: same.bytes }
            : await acceptMedia(name!, bytes);
      } catch (error) {
        if (!(error instanceof MediaError)) throw error;
        errors.push({ path: ref.path, message: `names the file ${error.message}` });
        continue;
      }
      accepted.set(name!, media);
      files.set(media.sha256, media);
      uses.set(media.sha256, { name: name!, sha256: media.sha256 });
    }
    if (ref.text.trim() === '') errors.push({ path: ref.path, message: missingText(media.kind, name!) });
  }
  const known = await storedFiles(db, [...storedRefs.keys()]);
  for (const [sha256, extension] of storedRefs) {
    if (!known.has(sha256) && !files.has(sha256))
      errors.push({ path: '', message: `names the stored file media:${sha256}.${extension}, which this service does not have: give the file itself` });
    else if (!uses.has(sha256)) uses.set(sha256, { name: `${sha256}.${extension}`, sha256 });
  }
  if (uses.size > MEDIA_MAX_FILES) errors.push({ path: '', message: `uses ${uses.size} media files; an assessment may use at most ${MEDIA_MAX_FILES}` });
  const total = [...files.values()].reduce((sum, f) => sum + f.bytes.length, 0);
  if (total > MEDIA_MAX_TOTAL_BYTES) {
    errors.push({ path: '', message: `has ${(total / 1024 / 1024).toFixed(1)} MB of media files; an assessment may have at most ${MEDIA_MAX_TOTAL_BYTES / 1024 / 1024} MB` });
  }
  if (errors.length > 0) return { ok: false, errors };
  const rewritten = mapMarkdown(content, (text) =>
    text.replace(REFERENCE, (whole, alt: string, target: string) => {
      if (STORED_REFERENCE.test(target)) return whole;
      const media = accepted.get(normalName(target)!)!;
      return `![${alt}](media:${media.sha256}.${media.extension})`;
    }),
  ) as AssessmentContent;
  return { ok: true, value: { content: rewritten, files, uses: [...uses.values()] } };
}

/** A formula as an error names it: its TeX, or its MathML as text a person reads. */
const formulaName = (formula: Formula) => ('tex' in formula ? `$${formula.tex.slice(0, 80)}$` : `“${mathmlReadable(formula.mathml).slice(0, 80)}” (MathML)`);

function missingText(kind: string, name: string): string {
  return kind === 'image'
    ? `shows the image "${name}" without alternative text: write what it shows between the brackets, ![like this](${name})`
    : `plays the ${kind} "${name}" without a description: write its transcript or a description between the brackets, ![like this](${name})`;
}

/** Stores the files (once each) and records which the version uses, in the publishing transaction. */
export async function storeVersionMedia(tx: Queryable, assessmentId: string, version: number, resolved: ResolvedMedia, now: Date): Promise<void> {
  for (const file of resolved.files.values()) await storeMediaFile(tx, file, now);
  for (const use of resolved.uses) {
    await tx.query(
      `INSERT INTO assessment_version_media (assessment_id, version, sha256, name) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [assessmentId, version, use.sha256, use.name.slice(0, 255)],
    );
  }
}

/**
 * Stores one accepted file (acceptMedia) by its sha256, once: what publishing stores, and what the
 * editor's upload stores before a draft names it (`media:<sha256>.<ext>`, found at publish). A
 * file given again only has its `given_at` moved on (see sweepUnusedMedia).
 */
export async function storeMediaFile(tx: Queryable, file: StoredMedia, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO assessment_media (sha256, content_type, size, width, height, bytes, created_at, given_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (sha256) DO UPDATE SET given_at = greatest(assessment_media.given_at, EXCLUDED.given_at)`,
    [file.sha256, file.contentType, file.bytes.length, file.width ?? null, file.height ?? null, file.bytes, now],
  );
}

/** The stored files a text names (`![text](media:<sha256>.<ext>)`), each once, with the text first given it. */
export function storedReferences(text: string): { text: string; sha256: string; extension: MediaExtension }[] {
  const found = new Map<string, { text: string; sha256: string; extension: MediaExtension }>();
  for (const match of text.matchAll(REFERENCE)) {
    const stored = STORED_REFERENCE.exec(match[2]!);
    if (stored && !found.has(stored[1]!)) found.set(stored[1]!, { text: match[1]!.trim(), sha256: stored[1]!, extension: stored[2] as MediaExtension });
  }
  return [...found.values()];
}

/** A stored media file's type and size, read without its bytes (to serve it in parts: mediaPart). */
export async function mediaFile(db: Queryable, sha256: string): Promise<{ contentType: string; size: number } | undefined> {
  const { rows } = await db.query<{ contentType: string; size: number }>('SELECT content_type AS "contentType", size FROM assessment_media WHERE sha256 = $1', [sha256]);
  return rows[0];
}

/**
 * `length` bytes of a stored file from byte `start` (0-based). The bytes are stored out of line
 * and uncompressed (STORAGE EXTERNAL, migration 0046), so PostgreSQL reads only the chunks of
 * the file that hold the part, not the whole file.
 */
export async function mediaPart(db: Queryable, sha256: string, start: number, length: number): Promise<Buffer> {
  const { rows } = await db.query<{ part: Uint8Array }>('SELECT substring(bytes FROM $2::int + 1 FOR $3::int) AS part FROM assessment_media WHERE sha256 = $1', [
    sha256,
    start,
    length,
  ]);
  const part = rows[0]?.part;
  if (!part) throw new Error(`the media file ${sha256} is gone`);
  return Buffer.from(part.buffer, part.byteOffset, part.byteLength);
}

/** A stored media file, to serve. */
export async function findMedia(db: Queryable, sha256: string): Promise<{ contentType: string; bytes: Buffer } | undefined> {
  const { rows } = await db.query<{ contentType: string; bytes: Buffer }>('SELECT content_type AS "contentType", bytes FROM assessment_media WHERE sha256 = $1', [sha256]);
  const row = rows[0];
  return row ? { contentType: row.contentType, bytes: Buffer.from(row.bytes) } : undefined;
}

/** The files a version uses, with their bytes, by the names its authors gave (for export). */
export async function versionMedia(db: Queryable, assessmentId: string, version: number): Promise<{ name: string; sha256: string; contentType: string; bytes: Buffer }[]> {
  const { rows } = await db.query<{ name: string; sha256: string; contentType: string; bytes: Buffer }>(
    `SELECT u.name, m.sha256, m.content_type AS "contentType", m.bytes
       FROM assessment_version_media u JOIN assessment_media m ON m.sha256 = u.sha256
      WHERE u.assessment_id = $1 AND u.version = $2 ORDER BY u.name`,
    [assessmentId, version],
  );
  return rows.map((r) => ({ ...r, bytes: Buffer.from(r.bytes) }));
}

/**
 * The stored pictures these Markdown texts show, as stored (PNG, JPEG, WebP, GIF or SVG), by their
 * stored name (`<sha256>.<ext>`): what the report's PDF draws (src/console/reports/pictures.ts),
 * read here so that the thread that draws needs no database.
 */
export async function storedPictures(db: Queryable, texts: string[]): Promise<Record<string, Uint8Array>> {
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(REFERENCE)) if (/^media:[0-9a-f]{64}\.(png|jpg|webp|gif|svg)$/.test(match[2]!)) names.add(match[2]!.slice(6));
  const out: Record<string, Uint8Array> = {};
  for (const name of names) {
    const media = await findMedia(db, name.slice(0, 64));
    if (media) out[name] = media.bytes;
  }
  return out;
}
