// Drafts of assessment content, written as YAML in the console's editor: saved, discarded, and
// published as a new version through the same path as an import (publishContent), checked with the
// importer's rules and words. A draft is never shown to candidates: they get published versions
// only, and an attempt already started keeps the version it started on.
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';
import type { Queryable } from '../../db/database.js';
import type { Actor, CommandContext } from '../../domain/command.js';
import { forbidden, invalidInput, notFound } from '../../domain/errors.js';
import { actorName, audit } from '../audit/audit.js';
import { publishContent, refusedContent, type AssessmentInstance } from './commands.js';
import { parseAssessment, type ContentError } from './content.js';
import { questionCount, type AssessmentContent } from './content-schema.js';
import { MediaError, MEDIA_TYPES, acceptMedia, type MediaExtension, type MediaKind } from './media.js';
import { storeMediaFile } from './media-store.js';
import { assessmentUuid, currentContent, type ImportResult } from './repository.js';

/** The most a draft may hold: the importer's own limit. */
export const DRAFT_MAX_BYTES = 512 * 1024;
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;
// Control characters but tab and line breaks: text with them is not a YAML document someone wrote.
// eslint-disable-next-line no-control-regex -- these are the characters refused
const BINARY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffe\uffff]/;

/** Which draft: the one of an assessment (by the id clients use), or (null) the author's draft of a new assessment. */
export interface DraftTarget {
  instance: AssessmentInstance;
  assessment: string | null;
}

export interface Draft {
  source: string;
  savedBy: string;
  savedAt: Date;
  /** The version the draft started from; null for a new assessment. */
  basedOn: number | null;
}

export interface DraftCheck {
  errors: ContentError[];
  /** The fields a translation leaves out (content/translations.ts), when there is no error; they never stop a publish. */
  warnings?: ContentError[];
  /** The content, when there is no error. */
  content?: AssessmentContent;
  hash?: string;
}

/** Who edits content: owners and managers (by e-mail) and the operator; reviewers read only. */
export function draftAuthor(actor: Actor): string {
  return editorOf(actor);
}

function editorOf(actor: Actor): string {
  if (actor.kind === 'user' && actor.role === 'reviewer') throw forbidden('Reviewers may not edit assessments: an owner or a manager does');
  if (actor.kind !== 'user' && actor.kind !== 'admin-token') throw forbidden('Only owners, managers and the operator edit assessments');
  return actorName(actor)!;
}

/** The assessment's internal id (null for a new one); not found when the instance has no such assessment. */
async function targetUuid(db: Queryable, target: DraftTarget): Promise<string | null> {
  if (target.assessment === null) return null;
  const uuid = SLUG.test(target.assessment) ? await assessmentUuid(db, target.instance.id, target.assessment) : undefined;
  if (!uuid) throw notFound('No such assessment in this instance');
  return uuid;
}

/** The draft's text, refused when it is not text a person wrote or is too large. */
function checkText(source: unknown): string {
  if (typeof source !== 'string') throw invalidInput([{ in: 'body', name: 'source', detail: 'must be the YAML text of the assessment' }]);
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > DRAFT_MAX_BYTES)
    throw invalidInput([{ in: 'body', name: 'source', detail: `is ${Math.ceil(bytes / 1024)} KiB; a draft may be at most ${DRAFT_MAX_BYTES / 1024} KiB` }]);
  if (BINARY.test(source)) throw invalidInput([{ in: 'body', name: 'source', detail: 'contains control characters: it is not a text document (binary?)' }]);
  return source;
}

/** The line of the document's top-level `id:`, for an error about it. */
function idLine(source: string): { line?: number; column?: number } {
  const index = source.split(/\r?\n/).findIndex((line) => /^["']?id["']?\s*:/.test(line));
  return index < 0 ? {} : { line: index + 1, column: 1 };
}

/**
 * Checks a draft as publishing it would: the importer's rules and words, and that its `id` is the
 * assessment's it edits (or, for a new assessment, no assessment's of the instance yet).
 */
export async function checkDraft(db: Queryable, target: DraftTarget, source: string): Promise<DraftCheck> {
  const parsed = parseAssessment(source);
  if (!parsed.ok) return { errors: parsed.errors };
  const id = parsed.content.id;
  if (target.assessment !== null && id !== target.assessment) {
    return {
      errors: [
        { path: 'id', ...idLine(source), message: `must stay "${target.assessment}": this is the draft of ${target.assessment} (write a new assessment to publish another one)` },
      ],
    };
  }
  if (target.assessment === null && (await assessmentUuid(db, target.instance.id, id))) {
    return { errors: [{ path: 'id', ...idLine(source), message: `"${id}" is an assessment of this instance already: edit that one, or choose another id` }] };
  }
  return { errors: [], warnings: parsed.warnings, content: parsed.content, hash: parsed.hash };
}

/** Checks a draft's text without saving it (the editor's validation as you type); reviewers are refused. */
export async function validateDraft(ctx: CommandContext, input: DraftTarget & { source: unknown }): Promise<DraftCheck> {
  editorOf(ctx.actor);
  await targetUuid(ctx.tx, input);
  return checkDraft(ctx.tx, input, checkText(input.source));
}

/** The draft of an assessment (or the author's draft of a new one), if there is one. */
export async function findDraft(db: Queryable, target: DraftTarget, author: string): Promise<Draft | undefined> {
  const uuid = await targetUuid(db, target);
  const { rows } = await db.query<Draft>(
    `SELECT source, saved_by AS "savedBy", saved_at AS "savedAt", based_on AS "basedOn" FROM assessment_drafts
      WHERE instance_id = $1 AND ${uuid === null ? 'assessment_id IS NULL AND new_for = $2' : 'assessment_id = $2'}`,
    [target.instance.id, uuid ?? author],
  );
  return rows[0];
}

/** The assessments of an instance that have a draft, by the id clients use. */
export async function draftedAssessments(db: Queryable, instanceId: string): Promise<Set<string>> {
  const { rows } = await db.query<{ slug: string }>('SELECT a.slug FROM assessment_drafts d JOIN assessments a ON a.id = d.assessment_id WHERE d.instance_id = $1', [instanceId]);
  return new Set(rows.map((r) => r.slug));
}

/** Saves the text as the draft (valid or not: a draft is work in progress); candidates never see it. */
export async function saveDraft(ctx: CommandContext, input: DraftTarget & { source: unknown }): Promise<Draft> {
  const by = editorOf(ctx.actor);
  const uuid = await targetUuid(ctx.tx, input);
  const source = checkText(input.source);
  if (uuid === null) {
    await ctx.tx.query(
      `INSERT INTO assessment_drafts (instance_id, assessment_id, new_for, based_on, source, saved_by, saved_at) VALUES ($1, NULL, $2, NULL, $3, $2, $4)
       ON CONFLICT (instance_id, new_for) WHERE assessment_id IS NULL DO UPDATE SET source = EXCLUDED.source, saved_by = EXCLUDED.saved_by, saved_at = EXCLUDED.saved_at`,
      [input.instance.id, by, source, ctx.now],
    );
  } else {
    await ctx.tx.query(
      `INSERT INTO assessment_drafts (instance_id, assessment_id, new_for, based_on, source, saved_by, saved_at)
       SELECT $1, id, NULL, current_version, $3, $4, $5 FROM assessments WHERE id = $2
       ON CONFLICT (assessment_id) WHERE assessment_id IS NOT NULL DO UPDATE SET source = EXCLUDED.source, saved_by = EXCLUDED.saved_by, saved_at = EXCLUDED.saved_at`,
      [input.instance.id, uuid, source, by, ctx.now],
    );
  }
  await audit(ctx, 'assessment.draft.save', `${input.instance.name}/${input.assessment ?? '(new)'}`);
  return (await findDraft(ctx.tx, input, by))!;
}

async function deleteDraft(tx: Queryable, instanceId: string, uuid: string | null, author: string): Promise<boolean> {
  const { rows } = await tx.query<{ id: string }>(
    `DELETE FROM assessment_drafts WHERE instance_id = $1 AND ${uuid === null ? 'assessment_id IS NULL AND new_for = $2' : 'assessment_id = $2'} RETURNING id`,
    [instanceId, uuid ?? author],
  );
  return rows.length > 0;
}

/** Discards the draft; the published versions stay as they are. */
export async function discardDraft(ctx: CommandContext, input: DraftTarget): Promise<void> {
  const by = editorOf(ctx.actor);
  const uuid = await targetUuid(ctx.tx, input);
  if (!(await deleteDraft(ctx.tx, input.instance.id, uuid, by))) throw notFound('There is no draft to discard');
  await audit(ctx, 'assessment.draft.discard', `${input.instance.name}/${input.assessment ?? '(new)'}`);
}

/**
 * Publishes the text given (or the saved draft) as a new version of the assessment, or as a new
 * assessment, after the importer's checks; the draft is then removed. Content equal to the
 * published version's publishes nothing ("unchanged"), whatever order its fields are written in.
 */
export async function publishDraft(ctx: CommandContext, input: DraftTarget & { source?: unknown }): Promise<ImportResult> {
  const by = editorOf(ctx.actor);
  const uuid = await targetUuid(ctx.tx, input);
  let source = input.source;
  if (source === undefined) {
    source = (await findDraft(ctx.tx, input, by))?.source;
    if (source === undefined) throw notFound('There is no draft to publish');
  }
  const check = await checkDraft(ctx.tx, input, checkText(source));
  if (!check.content) throw refusedContent(check.errors);
  let result: ImportResult;
  if (uuid !== null && sameContent(check.content, await currentContent(ctx.tx, uuid))) {
    const { rows } = await ctx.tx.query<{ v: number }>('SELECT current_version AS v FROM assessments WHERE id = $1', [uuid]);
    result = { id: check.content.id, instance: input.instance.name, version: rows[0]!.v, outcome: 'unchanged' };
  } else {
    result = await publishContent(ctx, { instance: input.instance, content: check.content, hash: check.hash! });
  }
  await deleteDraft(ctx.tx, input.instance.id, uuid, by);
  await audit(ctx, 'assessment.draft.publish', `${input.instance.name}/${check.content.id}/${result.version}`);
  return result;
}

/** The longest alternative text, transcript or description of an uploaded file. */
export const MEDIA_TEXT_MAX = 2000;

export interface UploadedMedia {
  /** What the author writes in the content's Markdown to show it: `![text](media:<sha256>.<ext>)`. */
  reference: string;
  sha256: string;
  extension: MediaExtension;
  kind: MediaKind;
  text: string;
}

/**
 * Stores a media file uploaded in the editor, checked and re-encoded as publishing checks the files
 * beside imported content (acceptMedia), with the text its reference needs: the alternative text
 * of an image, the transcript or description of audio and video. Nothing is published: the draft
 * names the file by the reference returned, and publishing records it as the version's.
 */
export async function uploadMedia(ctx: CommandContext, input: DraftTarget & { fileName: unknown; bytes: unknown; text: unknown }): Promise<UploadedMedia> {
  editorOf(ctx.actor);
  await targetUuid(ctx.tx, input);
  const fields: { in: 'body'; name: string; detail: string }[] = [];
  // One line: the text is written between the brackets of the reference (line breaks become spaces).
  const text = typeof input.text === 'string' ? input.text.replace(/\s+/g, ' ').trim() : '';
  const fileName = (typeof input.fileName === 'string' ? input.fileName.split(/[\\/]/).pop()! : '').slice(0, 120) || 'the file';
  let media;
  if (!(input.bytes instanceof Uint8Array) || input.bytes.length === 0) fields.push({ in: 'body', name: 'file', detail: 'choose a picture, a sound or a video to upload' });
  else {
    try {
      media = await acceptMedia(fileName, input.bytes);
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      fields.push({ in: 'body', name: 'file', detail: error.message });
    }
  }
  const kind = media?.kind;
  if (text === '')
    fields.push({
      in: 'body',
      name: 'text',
      detail:
        kind === 'image'
          ? 'is required for a picture: write what it shows, for candidates who cannot see it'
          : kind
            ? `is required for ${kind === 'audio' ? 'a sound' : 'a video'}: write its transcript or a description, for candidates who cannot hear it`
            : 'is required: the alternative text of a picture, the transcript or description of a sound or video',
    });
  else if (text.length > MEDIA_TEXT_MAX) fields.push({ in: 'body', name: 'text', detail: `is ${text.length} characters; it may be at most ${MEDIA_TEXT_MAX}` });
  else if (text.includes(']')) fields.push({ in: 'body', name: 'text', detail: 'must not contain "]": it is written between the brackets of the reference' });
  if (fields.length > 0 || !media) throw invalidInput(fields);
  await storeMediaFile(ctx.tx, media, ctx.now);
  await audit(ctx, 'assessment.media.upload', `${input.instance.name}/${input.assessment ?? '(new)'}/${media.sha256}.${media.extension}`);
  return { reference: `![${text}](media:${media.sha256}.${media.extension})`, sha256: media.sha256, extension: media.extension, kind: MEDIA_TYPES[media.extension].kind, text };
}

/** Two contents are the same whatever the order of their fields (a stored version's is the database's). */
export function sameContent(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

// The order fields are written in: as an author would, the rest after these in stored order.
const FIELD_ORDER = [
  'id',
  'name',
  'type',
  'category',
  'description',
  'roles',
  'readingLevel',
  'instructions',
  'durationMinutes',
  'passScore',
  'lowPassScore',
  'shuffleQuestions',
  'shuffleOptions',
  'weight',
  'points',
  'pilotSeconds',
  'prompt',
  'text',
  'correct',
  'categories',
  'pools',
  'typingTest',
  'practice',
];

function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (value === null || typeof value !== 'object') return value;
  const rank = (key: string) => (FIELD_ORDER.includes(key) ? FIELD_ORDER.indexOf(key) : key === 'questions' ? 1000 : key === 'translations' ? 2000 : 500);
  const keys = Object.keys(value).sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((key) => [key, ordered((value as Record<string, unknown>)[key])]));
}

/** Content as a YAML document to edit: parsing it gives the same content again (questions, then translations last). */
export function contentYaml(content: AssessmentContent): string {
  return stringify(ordered(content), { lineWidth: 0 });
}

export interface ContentSummary {
  id: string;
  name: string;
  durationMinutes: number;
  passScore: number;
  lowPassScore: number;
  shuffleQuestions: boolean;
  shuffleOptions: boolean;
  categories: { id: string; name: string; weight: number; questions: number; draw?: number }[];
  /** Questions by type, with how many each attempt is given. */
  types: Record<string, number>;
  attemptQuestions: number;
  typingTest?: { category: string; targetWpm: number };
  practice?: string;
}

/** What the editor's side panel lists of valid content. */
export function contentSummary(content: AssessmentContent): ContentSummary {
  const draws = new Map((content.pools ?? []).map((p) => [p.category, p.draw]));
  const types: Record<string, number> = {};
  for (const q of content.questions) types[q.type] = (types[q.type] ?? 0) + 1;
  return {
    id: content.id,
    name: content.name,
    durationMinutes: content.durationMinutes,
    passScore: content.passScore,
    lowPassScore: content.lowPassScore,
    shuffleQuestions: content.shuffleQuestions === true,
    shuffleOptions: content.shuffleOptions === true,
    categories: content.categories.map((c) => ({
      id: c.id,
      name: c.name,
      weight: c.weight ?? 1,
      questions: content.questions.filter((q) => q.category === c.id).length,
      ...(draws.has(c.id) ? { draw: draws.get(c.id)! } : {}),
    })),
    types,
    attemptQuestions: questionCount(content),
    ...(content.typingTest ? { typingTest: { category: content.typingTest.category, targetWpm: content.typingTest.targetWpm } } : {}),
    ...(content.practice ? { practice: String((content.practice as { type: unknown }).type) } : {}),
  };
}

export interface VersionEntry {
  version: number;
  createdAt: Date;
  current: boolean;
}

/** The published versions of an assessment, newest first. */
export async function listVersions(db: Queryable, assessmentId: string): Promise<VersionEntry[]> {
  const { rows } = await db.query<VersionEntry>(
    `SELECT v.version, v.created_at AS "createdAt", v.version = a.current_version AS current
       FROM assessment_versions v JOIN assessments a ON a.id = v.assessment_id WHERE v.assessment_id = $1 ORDER BY v.version DESC`,
    [assessmentId],
  );
  return rows;
}
