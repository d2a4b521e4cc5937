// invite --csv FILE: invite the candidates of a CSV file in bulk. The file is uploaded (its bad
// rows, duplicates and known candidates are printed), the rows are invited by the service in the
// background, and the command follows them to the end with a progress line (or leaves them with
// --no-wait; `invite status <id>` looks again). invite cancel <id> stops one.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, type Context, type Options, UsageError, ok } from './client.js';
import { list, needArg, required, text } from './options.js';

const POLL_MS = 1000;

type BulkInvite = Awaited<ReturnType<typeof get>>;

function get(ctx: Context, instance: string, id: string) {
  return ok(ctx, ctx.client.GET('/admin/v1/instances/{instance}/bulk-invites/{id}', { params: { path: { instance, id } } }));
}

const progress = (b: BulkInvite) => {
  const tried = b.counts.invited + b.counts.failed + b.counts.skipped;
  return `${tried}/${tried + b.counts.pending} rows tried: ${b.counts.invited} invited, ${b.counts.failed} refused`;
};

const summary = (b: BulkInvite) =>
  `Bulk invite ${b.id} ${b.status}: ${b.counts.invited} invited, ${b.counts.failed} refused, ${b.counts.invalid} invalid and ${b.counts.duplicate} duplicate rows not invited` +
  (b.counts.skipped > 0 ? `, ${b.counts.skipped} left by the cancel` : '') +
  (b.counts.pending > 0 ? `, ${b.counts.pending} still to invite` : '') +
  '.';

async function saveResult(ctx: Context, instance: string, id: string, file: string | undefined): Promise<string> {
  if (file === undefined) return '';
  const { data, response } = await ctx.client.GET('/admin/v1/instances/{instance}/bulk-invites/{id}/result', { params: { path: { instance, id } }, parseAs: 'text' });
  if (!response.ok || data === undefined) throw new Error(`${response.status}: could not read the result file`);
  writeFileSync(file, data);
  return `\nResult file: ${file}`;
}

async function follow(ctx: Context, instance: string, id: string): Promise<BulkInvite> {
  for (;;) {
    const bulk = await get(ctx, instance, id);
    if (bulk.status !== 'running') return bulk;
    if (!ctx.json) ctx.io.stderr.write(`${progress(bulk)}\n`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

const FIELDS = ['email', 'firstName', 'lastName', 'assessments', 'externalReference', 'language', 'extraTimePercent'] as const;
type Field = (typeof FIELDS)[number];

/** --map field=Header[,field=Header...]: the columns the headers do not name (the service guesses the rest). */
function mapping(options: Options): Partial<Record<Field, string>> | undefined {
  const given = text(options, 'map');
  if (given === undefined) return undefined;
  const result: Partial<Record<Field, string>> = {};
  for (const pair of given.split(',')) {
    const at = pair.indexOf('=');
    const field = pair.slice(0, at).trim() as Field;
    const header = pair.slice(at + 1).trim();
    if (at < 0 || !FIELDS.includes(field) || header === '') throw new UsageError(`--map takes field=Header pairs separated by commas; the fields are ${FIELDS.join(', ')}`);
    result[field] = header;
  }
  return result;
}

export const inviteCommands: Record<string, Command> = {
  async invite(ctx, args, options) {
    if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]} (invite --csv FILE --instance NAME [--assessment ID,...])`);
    const instance = required(options, 'instance');
    const file = required(options, 'csv');
    // The file's own assessments column names each row's; --assessment is the default for rows that name none.
    const assessments = list(text(options, 'assessment')) ?? [];
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const created = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/bulk-invites', {
        params: { path: { instance } },
        body: { fileName: path.basename(file), content: bytes.toString('base64'), assessments, sendInvite: options['no-email'] !== true, mapping: mapping(options) },
      }),
    );
    const id = created.bulkInvite.id;
    const lines = created.rows
      .filter((r) => r.status !== 'pending')
      .map((r) =>
        r.status === 'invalid'
          ? `line ${r.line}: ${r.errors.map((e) => `${e.column}: ${e.detail}`).join('; ')}`
          : r.status === 'duplicate'
            ? `line ${r.line}: ${r.email} is a duplicate of line ${r.duplicateOf}`
            : `line ${r.line}: ${r.detail ?? r.status}`,
      );
    const notes = created.rows.filter((r) => r.notes.length > 0).map((r) => `line ${r.line}: ${r.email} ${r.notes.join('; ')}`);
    const head = [
      `Bulk invite ${id}: ${created.bulkInvite.rowCount} rows, ${created.bulkInvite.counts.pending} to invite.`,
      ...(lines.length > 0 ? [`Not invited (${lines.length}):`, ...lines.map((l) => `  ${l}`)] : []),
      ...(notes.length > 0 ? [`Known already (${notes.length}), invited again:`, ...notes.map((l) => `  ${l}`)] : []),
    ];
    if (created.bulkInvite.counts.pending === 0) {
      ctx.io.stdout.write(`${head.join('\n')}\n`);
      throw new Error('no row of the file can be invited; nothing was started');
    }
    const started = await ok(ctx, ctx.client.POST('/admin/v1/instances/{instance}/bulk-invites/{id}/start', { params: { path: { instance, id } } }));
    if (options['no-wait'] === true) {
      return {
        data: { ...created, bulkInvite: started },
        text: [...head, `Started; follow it with: assessment-connect invite status ${id} --instance ${instance}`].join('\n'),
      };
    }
    const finished = await follow(ctx, instance, id);
    const saved = await saveResult(ctx, instance, id, text(options, 'result'));
    return { data: { ...created, bulkInvite: finished }, text: [...head, summary(finished)].join('\n') + saved };
  },

  async 'invite status'(ctx, [id], options) {
    const instance = required(options, 'instance');
    const bulk = await get(ctx, instance, needArg(id, 'invite status needs the bulk invite id, as invite --csv printed it'));
    const saved = await saveResult(ctx, instance, bulk.id, text(options, 'result'));
    return { data: bulk, text: (bulk.status === 'running' ? `${progress(bulk)}\n` : '') + summary(bulk) + saved };
  },

  async 'invite cancel'(ctx, [id], options) {
    const instance = required(options, 'instance');
    const bulk = await ok(
      ctx,
      ctx.client.POST('/admin/v1/instances/{instance}/bulk-invites/{id}/cancel', {
        params: { path: { instance, id: needArg(id, 'invite cancel needs the bulk invite id') } },
      }),
    );
    return { data: bulk, text: summary(bulk) };
  },
};
