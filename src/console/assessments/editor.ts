// The assessment editor of the console: an assessment's whole content as YAML, in a form that
// works without JavaScript (a textarea and buttons), which content-editor.js turns into CodeMirror
// with checks as you type (the importer's words, by line), an outline and a live preview. Drafts
// are saved, discarded and published by the assessments module's commands (drafts.ts); a page
// lists an assessment's versions and the line changes between any two (or the draft).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput, notFound } from '../../domain/errors.js';
import type { SafeHtml } from '../../html/html.js';
import { commandRequest } from '../../http/command.js';
import type { ContentError } from '../../modules/assessments/content.js';
import { diffText } from '../../modules/assessments/diff.js';
import {
  DRAFT_MAX_BYTES,
  contentSummary,
  contentYaml,
  discardDraft,
  findDraft,
  listVersions,
  publishDraft,
  saveDraft,
  uploadMedia,
  validateDraft,
  type ContentSummary,
  type DraftTarget,
  type VersionEntry,
} from '../../modules/assessments/drafts.js';
import { MEDIA_MAX_BYTES } from '../../modules/assessments/media.js';
import { storedReferences } from '../../modules/assessments/media-store.js';
import { assessmentUuid, currentContent, versionContent } from '../../modules/assessments/repository.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { Permission } from '../context.js';
import { pagePolicyWithStyleNonce, styleNonce } from '../../http/page-headers.js';
import { NEW_TEMPLATE, checkPanel, editorBody, outlinePanel, previewFrame, versionsBody, type EditorMedia } from './editor-views.js';

export { NEW_TEMPLATE };

const ASSETS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'assets');
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;

const authorOf = (request: FastifyRequest) => `user:${request.consoleUser!.user.email.toLowerCase()}`;

export interface EditorRouteDeps {
  db: Database;
  now: () => Date;
  /** The instance named (or the first the user may see), if the signed-in user may `permission` it (else 403). */
  instanceOf: (request: FastifyRequest, name: unknown, permission: Permission) => Instance;
  /** Sends a console page in the assessments section. */
  render: (request: FastifyRequest, reply: FastifyReply, instance: Instance, title: string, body: SafeHtml, status?: number) => unknown;
  /** Whether the signed-in user may manage the instance (edit its assessments). */
  mayManage: (request: FastifyRequest, instance: Instance) => boolean;
}

// The console's pages may not frame nor be framed. The editor frames its preview (frame-src), and
// the preview alone may be framed, by the console's own pages (frame-ancestors).
const csp = (reply: FastifyReply) => String(reply.getHeader('content-security-policy') ?? '');
const framesPreview = {
  onSend: async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('content-security-policy', `${csp(reply)}; frame-src 'self'`);
  },
};
const framedByConsole = {
  onSend: async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('content-security-policy', csp(reply).replace("frame-ancestors 'none'", "frame-ancestors 'self'"));
    reply.header('x-frame-options', 'SAMEORIGIN');
  },
};

/** The draft's target from the path (an assessment's id, or null for a new one), checked: the editor's and the builder's. */
export async function draftTargetOf(db: Database, instance: Instance, id: string | null): Promise<DraftTarget & { uuid: string | null }> {
  if (id === null) return { instance: { id: instance.id, name: instance.name }, assessment: null, uuid: null };
  const uuid = SLUG.test(id) ? await assessmentUuid(db, instance.id, id) : undefined;
  if (!uuid) throw notFound('No such assessment in this instance');
  return { instance: { id: instance.id, name: instance.name }, assessment: id, uuid };
}

export function registerEditorRoutes(scope: FastifyInstance, deps: EditorRouteDeps): void {
  const { db } = deps;

  /** The editor's target from the path (an assessment's id, or "new"), checked. */
  const targetOf = (instance: Instance, id: string | null) => draftTargetOf(db, instance, id);

  async function editorPage(
    request: FastifyRequest,
    reply: FastifyReply,
    instance: Instance,
    id: string | null,
    given?: { source: string; errors?: ContentError[]; media?: Omit<EditorMedia, 'files'> },
    notice?: string,
  ) {
    const target = await targetOf(instance, id);
    const draft = await findDraft(db, target, authorOf(request));
    let source = given?.source;
    let name = 'New assessment';
    let currentVersion: number | undefined;
    if (target.uuid !== null) {
      const content = await currentContent(db, target.uuid);
      name = content.name;
      currentVersion = (await listVersions(db, target.uuid)).find((v) => v.current)?.version;
      source ??= draft?.source ?? contentYaml(content);
    }
    source ??= draft?.source ?? NEW_TEMPLATE;
    let errors = given?.errors;
    let warnings: ContentError[] | undefined;
    let summary: ContentSummary | undefined;
    if (!errors) {
      // The page opens with the text checked, so that the check panel is right without JavaScript too.
      try {
        const check = await runCommand(db, commandRequest(request, deps.now()), (ctx) => validateDraft(ctx, { ...target, source }), 'assessment_draft_check');
        errors = check.errors;
        warnings = check.warnings;
        summary = check.content && contentSummary(check.content);
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid') throw error;
      }
    }
    const nonce = styleNonce();
    reply.header('content-security-policy', pagePolicyWithStyleNonce(nonce));
    const body = editorBody({
      styleNonce: nonce,
      instance: instance.name,
      csrf: request.consoleUser!.csrfToken,
      assessment: target.assessment,
      name,
      source,
      draft,
      currentVersion,
      errors,
      warnings,
      summary,
      notice,
      media: { ...given?.media, files: mediaFiles(source, given?.media?.uploaded) },
    });
    const refused = given?.errors !== undefined || (given?.media?.errors?.length ?? 0) > 0;
    return deps.render(request, reply, instance, target.assessment === null ? 'New assessment' : `Edit ${name}`, body, refused ? 400 : 200);
  }

  /** The stored files the text names, the one just uploaded first. */
  const mediaFiles = (source: string, uploaded?: EditorMedia['uploaded']): EditorMedia['files'] => {
    const named = storedReferences(source);
    return uploaded && !named.some((f) => f.sha256 === uploaded.sha256) ? [uploaded, ...named] : named;
  };

  const NOTICES: Record<string, string> = {
    saved: 'Draft saved. Candidates do not see it until it is published.',
    discarded: 'Draft discarded.',
  };
  const noticeOf = (q: { saved?: string; discarded?: string; published?: string; outcome?: string }) => {
    if (q.published !== undefined && /^\d{1,9}$/.test(q.published))
      return q.outcome === 'unchanged'
        ? `Nothing changed: version ${q.published} stays published.`
        : `Published version ${q.published}. Candidates invited from now on get it; those who started keep theirs.`;
    if (q.saved !== undefined) return NOTICES.saved;
    if (q.discarded !== undefined) return NOTICES.discarded;
    return undefined;
  };

  type EditorQuery = { instance?: string; saved?: string; discarded?: string; published?: string; outcome?: string };
  scope.get<{ Querystring: EditorQuery }>('/console/assessments/new', framesPreview, async (request, reply) =>
    editorPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), null, undefined, noticeOf(request.query)),
  );
  scope.get<{ Params: { id: string }; Querystring: EditorQuery }>('/console/assessments/:id/edit', framesPreview, async (request, reply) =>
    editorPage(request, reply, deps.instanceOf(request, request.query.instance, 'manage'), request.params.id, undefined, noticeOf(request.query)),
  );

  async function editorPost(request: FastifyRequest<{ Body: Record<string, string | undefined> }>, reply: FastifyReply, id: string | null) {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const target = await targetOf(instance, id);
    const here = (query: string) =>
      `${id === null ? '/console/assessments/new' : `/console/assessments/${encodeURIComponent(id)}/edit`}?instance=${encodeURIComponent(instance.name)}&${query}`;
    const source = body.source;
    const request_ = commandRequest(request, deps.now());
    try {
      switch (body.action) {
        case 'save':
          await runCommand(db, request_, (ctx) => saveDraft(ctx, { ...target, source }), 'assessment_draft_save');
          return reply.redirect(here('saved=1'), 303);
        case 'discard':
          await runCommand(db, request_, (ctx) => discardDraft(ctx, target), 'assessment_draft_discard');
          return reply.redirect(here('discarded=1'), 303);
        case 'publish': {
          const result = await runCommand(db, request_, (ctx) => publishDraft(ctx, { ...target, source: source ?? '' }), 'assessment_draft_publish');
          return reply.redirect(
            `/console/assessments/${encodeURIComponent(result.id)}/edit?instance=${encodeURIComponent(instance.name)}&published=${result.version}&outcome=${result.outcome}`,
            303,
          );
        }
        default:
          throw invalidInput([{ in: 'body', name: 'action', detail: 'must be save, discard or publish' }]);
      }
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields || error.fields[0]?.name === 'action') throw error;
      const errors = error.fields.map((f) => ({ path: f.in === 'content' ? f.name : f.name, line: f.line, column: f.column, message: f.detail }));
      // The text comes back to be fixed, unless it is larger than a draft may be.
      const back = typeof source === 'string' && Buffer.byteLength(source, 'utf8') <= DRAFT_MAX_BYTES ? source : '';
      return editorPage(request, reply, instance, id, { source: back, errors });
    }
  }

  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments/new', framesPreview, async (request, reply) => editorPost(request, reply, null));
  scope.post<{ Params: { id: string }; Body: Record<string, string | undefined> }>('/console/assessments/:id/edit', framesPreview, async (request, reply) =>
    editorPost(request, reply, request.params.id),
  );

  // A picture, sound or video uploaded from the editor's form (its Upload button posts the whole form
  // as multipart): stored by the module's command, then the editor again with the text as it was
  // (unsaved) and the reference to paste, or the refusal beside its field and nothing stored.
  scope.post<{ Body: Record<string, unknown> }>(
    '/console/assessments/media',
    {
      ...framesPreview,
      // The file is read up to one byte past the largest a file may be, so that a larger one is told its size.
      config: { multipartOptions: { limits: { fileSize: MEDIA_MAX_BYTES.video + 1, files: 1, fields: 10, fieldSize: DRAFT_MAX_BYTES * 4 }, throwFileSizeLimit: false } as never },
      bodyLimit: MEDIA_MAX_BYTES.video + DRAFT_MAX_BYTES * 4 + 64 * 1024,
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const instance = deps.instanceOf(request, body.instance, 'manage');
      const id = typeof body.assessment === 'string' && body.assessment !== '' ? body.assessment : null;
      const target = await targetOf(instance, id);
      const file = body.file as { bytes?: unknown; filename?: unknown } | undefined;
      const text = typeof body.source === 'string' ? body.source : '';
      const source = Buffer.byteLength(text, 'utf8') <= DRAFT_MAX_BYTES ? text : '';
      try {
        const uploaded = await runCommand(
          db,
          commandRequest(request, deps.now()),
          (ctx) => uploadMedia(ctx, { ...target, fileName: file?.filename, bytes: file?.bytes, text: body.text }),
          'assessment_media_upload',
        );
        return editorPage(request, reply, instance, id, { source, media: { uploaded } });
      } catch (error) {
        if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
        return editorPage(request, reply, instance, id, { source, media: { errors: error.fields.map((f) => ({ name: f.name, detail: f.detail })) } });
      }
    },
  );

  /** The text of a validate or preview request, checked as publishing would (reviewers refused). */
  async function check(request: FastifyRequest<{ Body: Record<string, string | undefined> }>) {
    const body = request.body ?? {};
    const instance = deps.instanceOf(request, body.instance, 'manage');
    const target = await targetOf(instance, body.assessment ? body.assessment : null);
    const result = await runCommand(db, commandRequest(request, deps.now()), (ctx) => validateDraft(ctx, { ...target, source: body.source }), 'assessment_draft_check');
    return { instance, result };
  }

  // Validation as you type (content-editor.js): the problems with their lines, and the panels' markup.
  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments/validate', async (request, reply) => {
    try {
      const { result } = await check(request);
      const summary = result.content && contentSummary(result.content);
      return reply
        .type('application/json; charset=utf-8')
        .send({ errors: result.errors, summary: summary ?? null, check: checkPanel(result.errors, result.warnings).toString(), outline: outlinePanel(summary).toString() });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      const errors = error.fields.map((f) => ({ path: f.name, message: f.detail }));
      return reply
        .code(400)
        .type('application/json; charset=utf-8')
        .send({ errors, summary: null, check: checkPanel(errors).toString(), outline: outlinePanel(undefined).toString() });
    }
  });

  // The preview of the text posted, shown in the editor's iframe: this page alone may be framed, by the console itself.
  scope.post<{ Body: Record<string, string | undefined> }>('/console/assessments/preview', framedByConsole, async (request, reply) => {
    let page: SafeHtml;
    let status = 200;
    try {
      const { instance, result } = await check(request);
      page = previewFrame(instance.name, result.content, result.errors);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      page = previewFrame(
        '',
        undefined,
        error.fields.map((f) => ({ path: f.name, message: f.detail })),
      );
      status = 400;
    }
    return reply.code(status).type('text/html; charset=utf-8').send(page.toString());
  });

  // ---- versions and changes ------------------------------------------------------------------

  const versionParam = (value: string | undefined, versions: VersionEntry[], hasDraft: boolean, name: string): string | undefined => {
    if (value === undefined || value === '') return undefined;
    if ((value === 'draft' && hasDraft) || versions.some((v) => String(v.version) === value)) return value;
    throw invalidInput([{ in: 'query', name, detail: hasDraft ? 'must be "draft" or a version of this assessment' : 'must be a version of this assessment' }]);
  };

  scope.get<{ Params: { id: string }; Querystring: { instance?: string; from?: string; to?: string } }>('/console/assessments/:id/versions', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'read');
    const target = await targetOf(instance, request.params.id);
    const canManage = deps.mayManage(request, instance);
    const draft = canManage ? await findDraft(db, target, authorOf(request)) : undefined;
    const versions = await listVersions(db, target.uuid!);
    const current = versions.find((v) => v.current)!.version;
    const to = versionParam(request.query.to, versions, draft !== undefined, 'to') ?? (draft ? 'draft' : String(current));
    const from = versionParam(request.query.from, versions, draft !== undefined, 'from') ?? String(draft ? current : Math.max(1, current - 1));
    const yamlOf = async (which: string) => (which === 'draft' ? draft!.source : contentYaml(await versionContent(db, target.uuid!, Number(which))));
    const label = (which: string) => (which === 'draft' ? 'the draft' : `version ${which}`);
    const diff = from === to ? undefined : { from: label(from), to: label(to), lines: diffText(await yamlOf(from), await yamlOf(to)) };
    const content = await currentContent(db, target.uuid!);
    return deps.render(
      request,
      reply,
      instance,
      `Versions of ${content.name}`,
      versionsBody(instance.name, { id: target.assessment!, name: content.name }, versions, { canManage, hasDraft: draft !== undefined, from, to, diff }),
    );
  });

  // A version's content as YAML (what the editor starts from): parsing it gives the same content.
  scope.get<{ Params: { id: string; version: string }; Querystring: { instance?: string } }>('/console/assessments/:id/versions/:version/yaml', async (request, reply) => {
    const instance = deps.instanceOf(request, request.query.instance, 'read');
    const target = await targetOf(instance, request.params.id);
    const content = /^[1-9]\d{0,8}$/.test(request.params.version) ? await versionContent(db, target.uuid!, Number(request.params.version)) : undefined;
    if (!content) throw notFound('No such version of this assessment');
    return reply
      .type('application/yaml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${target.assessment}-v${request.params.version}.yaml"`)
      .send(contentYaml(content));
  });

  const script = readFileSync(path.join(ASSETS, 'content-editor.js'));
  scope.get('/console/assets/content-editor.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=300').send(script),
  );
}
