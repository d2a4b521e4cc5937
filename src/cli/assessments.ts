// assessment import / list, library list / offer, attempt list, review list / score, delivery list / resend.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { zipSync } from 'fflate';
import { ApiError, type Command, type Context, UsageError, ok } from './client.js';
import { needArg, positiveInteger, required, table, text } from './options.js';

/** The server's page size of delivery records when --limit is not given. */
const DELIVERY_PAGE = 50;

const OUTCOME_VERBS = { created: 'Published', updated: 'Published a new version of', unchanged: 'Unchanged:' } as const;

function deliveryStatus(value: string | undefined): 'SENT' | 'FAILED' | undefined {
  if (value === undefined || value === 'SENT' || value === 'FAILED') return value;
  throw new UsageError('--status must be SENT or FAILED');
}

/** A folder's files (dot files left out), by their paths inside it, as a zip. */
function zipFolder(folder: string): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir).sort()) {
      if (entry.startsWith('.')) continue;
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full, `${prefix}${entry}/`);
      else files[`${prefix}${entry}`] = readFileSync(full);
    }
  };
  walk(folder, '');
  return zipSync(files, { level: 6 });
}

/** A folder or zip of the content document and its media files (docs/media.md). */
async function importPackage(ctx: Context, path: string, instance: string): Promise<{ data: unknown; text: string }> {
  let bytes: Uint8Array;
  try {
    bytes = statSync(path).isDirectory() ? zipFolder(path) : readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const data = await ok(
    ctx,
    ctx.client.POST('/admin/v1/instances/{instance}/assessments/package', {
      params: { path: { instance } },
      body: { content: Buffer.from(bytes).toString('base64') },
    }),
  );
  return { data, text: `${OUTCOME_VERBS[data.outcome]} ${data.id} (version ${data.version}) in ${instance} from ${basename(path)}` };
}

async function importQti(ctx: Context, file: string, instance: string, id?: string): Promise<{ data: unknown; text: string }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const data = await ok(
    ctx,
    ctx.client.POST('/admin/v1/instances/{instance}/assessments/qti', {
      params: { path: { instance } },
      body: { fileName: basename(file), content: bytes.toString('base64'), ...(id === undefined ? {} : { id }) },
    }),
  );
  const r = data.report;
  const lines = [
    `${OUTCOME_VERBS[data.outcome]} ${data.id} (version ${data.version}) in ${instance} from ${basename(file)}`,
    `Imported ${r.imported.length} item${r.imported.length === 1 ? '' : 's'}${r.notImported.length > 0 ? `; not imported: ${r.notImported.length}` : ''}`,
    ...r.notImported.map((n) => `  not imported: ${n.file}${n.item ? ` (${n.item})` : ''}: ${n.what}: ${n.why}`),
    ...r.notes.map((n) => `  note: ${n.file}${n.item ? ` (${n.item})` : ''}: ${n.what}`),
  ];
  return { data, text: lines.join('\n') };
}

export const assessmentCommands: Record<string, Command> = {
  async 'assessment import'(ctx, [file], options) {
    const qti = text(options, 'qti');
    if (qti !== undefined) return importQti(ctx, qti, required(options, 'instance'), text(options, 'id'));
    if (!file) throw new UsageError('assessment import needs a file');
    const instance = required(options, 'instance');
    let folder = false;
    try {
      folder = statSync(file).isDirectory();
    } catch {
      // read below, with its error
    }
    if (folder || file.toLowerCase().endsWith('.zip')) return importPackage(ctx, file, instance);
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // The body is the document as written, YAML or JSON, sent as it is (not encoded as a JSON string).
    const type = file.endsWith('.json') ? 'application/json' : 'application/yaml';
    const data = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/assessments', {
        params: { path: { instance } },
        body: raw,
        bodySerializer: (document) => document,
        headers: { 'content-type': type },
      }),
    );
    // Texts the content's translations leave out: published all the same, shown in English.
    const warnings = (data.warnings ?? []).map((w) => `  ${w.line ? `line ${w.line}: ` : ''}${w.path} ${w.message}`);
    const missing = warnings.length > 0 ? [`Missing translations (shown in English until given):`, ...warnings] : [];
    return { data, text: [`${OUTCOME_VERBS[data.outcome]} ${data.id} (version ${data.version}) in ${instance}`, ...missing].join('\n') };
  },
  async 'assessment export'(ctx, [id], options) {
    const assessment = needArg(id, 'assessment export needs the assessment id');
    const out = text(options, 'qti');
    if (out === undefined) throw new UsageError('assessment export needs --qti FILE.zip (the package to write)');
    const instance = required(options, 'instance');
    const { data, error, response } = await ctx.client.GET('/admin/v1/instances/{instance}/assessments/{id}/qti', {
      params: { path: { instance, id: assessment } },
      parseAs: 'arrayBuffer',
    });
    if (!response.ok || data === undefined) {
      const problem = error as { detail?: string } | undefined;
      throw new ApiError(`${response.status} ${problem?.detail ?? response.statusText}`, problem);
    }
    writeFileSync(out, Buffer.from(data as ArrayBuffer));
    const omitted = response.headers.get('x-qti-omitted') ?? '';
    return {
      data: { id: assessment, file: out, bytes: (data as ArrayBuffer).byteLength, omitted: omitted === '' ? [] : omitted.split('; ') },
      text: `Wrote ${out}: ${assessment} as a QTI 3.0 package${omitted === '' ? '' : `\nLeft out (no QTI equivalent): ${omitted}`}`,
    };
  },
  async 'assessment list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/assessments', { params: { path: { instance } } }));
    return { data, text: table(data, ['id', 'name', 'version', 'durationMinutes', 'questionCount', 'typingTest', 'passScore', 'lowPassScore']) };
  },
  async 'library list'(ctx, _args, options) {
    const instance = typeof options.instance === 'string' ? options.instance : undefined;
    const data = await ok(ctx, ctx.client.GET('/admin/v1/library', { params: { query: instance === undefined ? {} : { instance } } }));
    const rows = data.map((a) => ({ ...a, roles: a.roles.join(', ') }));
    return {
      data,
      text: table(rows, instance === undefined ? ['id', 'name', 'durationMinutes', 'readingLevel', 'roles'] : ['id', 'offered', 'name', 'durationMinutes', 'readingLevel']),
    };
  },
  async 'library offer'(ctx, ids, options) {
    if (ids.length === 0) throw new UsageError('library offer needs at least one library id');
    const instance = required(options, 'instance');
    const data = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/library', { params: { path: { instance } }, body: { assessments: ids, update: options.update === true } }),
    );
    const said = {
      created: (id: string, v: number | null) => `Offered ${id} (version ${v})`,
      updated: (id: string, v: number | null) => `Replaced ${id} by the library's content (version ${v}); started attempts keep theirs`,
      unchanged: (id: string) => `Unchanged: ${id} is offered as in the library`,
      kept: (id: string) => `Kept: ${instance} has its own content under ${id} (--update replaces it with a new version)`,
    };
    return { data, text: data.map((r) => said[r.outcome](r.id, r.version)).join('\n') };
  },
  async 'attempt list'(ctx, _args, options) {
    const path = { instance: required(options, 'instance'), candidateId: required(options, 'candidate') };
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/candidates/{candidateId}/attempts', { params: { path } }));
    const text = data
      .map((a) =>
        [
          `${a.assessmentId} (version ${a.version}): started ${a.startedAt}, ${a.finishedAt ? `ended ${a.finishedAt} (${a.endReason})` : `open until ${a.deadlineAt}`}`,
          `  red flag: ${a.redFlag ? `yes: ${a.redFlagReasons.join('; ')}` : 'no'}${a.typingNetWpm === null ? '' : `; typing ${a.typingNetWpm} wpm, ${a.typingAccuracy}% accurate`}`,
          ...a.signals.map((s) => `  ${s.at}  ${s.source.padEnd(7)}  ${s.kind}${s.detail ? `: ${s.detail}` : ''}`),
        ].join('\n'),
      )
      .join('\n\n');
    return { data, text: text || '(no attempts)' };
  },
  async 'review list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/reviews', { params: { path: { instance } } }));
    const text = data
      .map((r) => `attempt ${r.attemptId}  question ${r.questionId}  (${r.assessmentId}, candidate ${r.candidateId})\n${r.prompt}\n> ${r.answer.replace(/\n/g, '\n> ')}`)
      .join('\n\n');
    return { data, text: text || '(nothing awaits review)' };
  },
  async 'review score'(ctx, [attemptId, questionId, score], options) {
    const instance = required(options, 'instance');
    if (!attemptId || !questionId || score === undefined) throw new UsageError('review score needs <attempt-id> <question-id> <0-100>');
    const value = Number(score);
    if (!Number.isFinite(value) || value < 0 || value > 100) throw new UsageError('the score is a percentage from 0 to 100');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/reviews', { params: { path: { instance } }, body: { attemptId, questionId, score: value } }));
    return { data, text: `Scored. The attempt is now ${data.scoreStatus} (total ${data.totalScore}).` };
  },
  async 'delivery list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const query = { status: deliveryStatus(text(options, 'status')), limit: positiveInteger(options, 'limit') ?? DELIVERY_PAGE };
    const data = await ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/deliveries', { params: { path: { instance }, query } }));
    return { data, text: table(data, ['id', 'attemptedAt', 'status', 'recipient', 'durationMs', 'response']) };
  },
  async 'delivery resend'(ctx, [deliveryId], options) {
    const instance = required(options, 'instance');
    const id = needArg(deliveryId, 'delivery resend needs the delivery id, as shown by delivery list');
    const data = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/deliveries/{id}/resend', { params: { path: { instance, id } } }));
    return { data, text: `Sent again as delivery ${data.id}: ${data.status} (${data.response})` };
  },
};
