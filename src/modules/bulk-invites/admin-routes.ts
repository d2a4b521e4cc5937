// Bulk invites with the admin token (the CLI's `invite --csv`): upload a CSV file with its
// assessments (the preview comes back: bad rows, duplicates, known candidates), start it, follow
// it, cancel it, and download the result file. The rows are invited by the background job.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { invalidInput } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { cancelBulkInvite, importBulkInvite, prepareBulkInvite, startBulkInvite } from './commands.js';
import type { Mapping } from './csv.js';
import { FIELDS, MAX_FILE_BYTES, MAX_ROWS, guessMapping, readCsv, type Field } from './csv.js';
import { getBulkInvite, listRows, resultCsv, type BulkInviteView, type BulkRowView } from './repository.js';

const Id = Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'The bulk invite', examples: ['12'] });

const Counts = Type.Object(
  {
    pending: Type.Integer({ description: 'Rows to invite, not yet tried' }),
    invited: Type.Integer(),
    failed: Type.Integer({ description: 'Rows the invite refused when their turn came (an assessment unpublished since the preview)' }),
    invalid: Type.Integer({ description: 'Rows breaking a rule of the invite; never invited' }),
    duplicate: Type.Integer({ description: 'Rows with the e-mail of an earlier row; never invited' }),
    skipped: Type.Integer({ description: 'Rows left when the bulk invite was cancelled' }),
  },
  { additionalProperties: false },
);

const BulkInvite = Type.Object(
  {
    id: Id,
    fileName: Type.String(),
    status: Type.Union([Type.Literal('draft'), Type.Literal('ready'), Type.Literal('running'), Type.Literal('done'), Type.Literal('cancelled')], {
      description: 'ready: previewed, not started; running: the rows are being invited in the background; done: every row was tried',
    }),
    headers: Type.Array(Type.String(), { description: "The file's header row" }),
    mapping: Type.Record(Type.String(), Type.String(), {
      description: 'Field of the invite to the header of its column',
      examples: [{ email: 'E-mail', firstName: 'First name' }],
    }),
    assessments: Type.Array(Type.String()),
    sendInvite: Type.Boolean(),
    rowCount: Type.Integer(),
    counts: Counts,
    existing: Type.Integer({ description: 'Rows whose candidate exists already (they are invited again: a fresh link)' }),
    createdAt: DateTime(),
    startedAt: Type.Union([DateTime(), Type.Null()]),
    finishedAt: Type.Union([DateTime(), Type.Null()]),
  },
  { additionalProperties: false },
);

const RowProblem = Type.Object(
  {
    line: Type.Integer({ description: 'The line of the file (the header is line 1)' }),
    email: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('invalid'), Type.Literal('duplicate'), Type.Literal('failed'), Type.Literal('pending'), Type.Literal('invited'), Type.Literal('skipped')]),
    errors: Type.Array(Type.Object({ column: Type.String(), detail: Type.String() }, { additionalProperties: false }), {
      description: "What breaks a rule of the invite, by the file's column, in the words of POST /v1/invite",
    }),
    notes: Type.Array(Type.String(), { description: 'An existing candidate or a live invitation: the row is invited again' }),
    duplicateOf: Type.Union([Type.Integer(), Type.Null()], { description: 'The earlier line with the same e-mail' }),
    detail: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

const Created = Type.Object(
  { bulkInvite: BulkInvite, rows: Type.Array(RowProblem, { description: 'The rows the preview names, in line order' }) },
  { additionalProperties: false },
);

function view(bulk: BulkInviteView) {
  const mapping: Record<string, string> = {};
  for (const [field, index] of Object.entries(bulk.mapping)) if (typeof index === 'number') mapping[field] = bulk.headers[index] ?? `column ${index + 1}`;
  return {
    id: bulk.id,
    fileName: bulk.fileName,
    status: bulk.status,
    headers: bulk.headers,
    mapping,
    assessments: bulk.assessments,
    sendInvite: bulk.sendInvite,
    rowCount: bulk.rowCount,
    counts: bulk.counts,
    existing: bulk.existing,
    createdAt: bulk.createdAt.toISOString(),
    startedAt: bulk.startedAt?.toISOString() ?? null,
    finishedAt: bulk.finishedAt?.toISOString() ?? null,
  };
}

const problemRow = (r: BulkRowView) => ({ line: r.line, email: r.email, status: r.status, errors: r.errors, notes: r.notes, duplicateOf: r.duplicateOf, detail: r.detail });

// The file travels base64-encoded in JSON: its bytes as they are, so that the encoding is checked here.
const BODY_LIMIT = Math.ceil((MAX_FILE_BYTES * 4) / 3) + 64 * 1024;

export const bulkInviteAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  const tags = ['admin'];
  app.post(
    '/instances/:instance/bulk-invites',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        operationId: 'createBulkInvite',
        tags,
        summary: 'Upload a CSV file of candidates to invite, and get its preview',
        description: `The file: UTF-8 (a byte-order mark is fine), comma- or semicolon-separated, a header row, at most ${MAX_ROWS} rows and ${MAX_FILE_BYTES / 1024 / 1024} MB. Its columns are matched to the fields of an invite by their headers (\`mapping\` overrides the guess): \`email\`, \`firstName\`, \`lastName\`, \`assessments\` (a row's own assessment ids, separated by \`;\` or \`|\`), \`language\`, \`externalReference\`, \`extraTimePercent\`. Every row is checked by the rules of POST /v1/invite; the answer names every bad row, duplicate and known candidate. Nothing is invited until \`start\`. A file that cannot be read, or no e-mail column: \`400\`, and nothing is stored.`,
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object(
          {
            fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, examples: ['candidates.csv'] })),
            content: Type.String({ minLength: 1, maxLength: BODY_LIMIT, contentEncoding: 'base64', description: "The file's bytes, base64-encoded" }),
            assessments: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
                maxItems: 50,
                examples: [['customer-support']],
                description:
                  "The default assessments: for every row when the file has no `assessments` column, otherwise for the rows whose cell is empty. A row's own `assessments` (ids separated by `;` or `|`) are used when it names some. Required (one or more) when the file has no such column.",
              }),
            ),
            sendInvite: Type.Optional(Type.Boolean({ default: true, description: 'E-mail each candidate their link (default true)' })),
            mapping: Type.Optional(
              Type.Object(Object.fromEntries(FIELDS.map((f) => [f, Type.Optional(Type.String({ minLength: 1, maxLength: 200 }))])), {
                additionalProperties: false,
                description: `Field of the invite (${FIELDS.join(', ')}) to the header of the column that gives it, where the guess from the headers is wrong`,
                examples: [{ email: 'Work e-mail' }],
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 201: Created, ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'payload-too-large') },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(request.body.content.replace(/\s/g, ''))) throw invalidInput([{ in: 'body', name: 'content', detail: 'must be base64' }]);
      const table = readCsv(Buffer.from(request.body.content, 'base64'));
      const mapping: Mapping = guessMapping(table.headers, table.rows);
      for (const [field, header] of Object.entries(request.body.mapping ?? {}) as [Field, string][]) {
        const index = table.headers.indexOf(header.trim());
        if (index < 0) throw invalidInput([{ in: 'body', name: `mapping.${field}`, detail: `the file has no column "${header}" (its columns: ${table.headers.join(', ')})` }]);
        for (const [other, at] of Object.entries(mapping)) if (at === index) delete mapping[other as Field];
        mapping[field] = index;
      }
      const id = await runCommand(
        db,
        commandRequest(request, now()),
        async (ctx) => {
          const made = await importBulkInvite(ctx, { instanceId: instance.id, fileName: request.body.fileName ?? 'upload.csv', table, mapping });
          await prepareBulkInvite(ctx, { instanceId: instance.id, id: made.id, mapping, assessments: request.body.assessments ?? [], sendInvite: request.body.sendInvite ?? true });
          return made.id;
        },
        'bulk_invite_create',
      );
      const bulk = await getBulkInvite(db, instance.id, id);
      reply.code(201);
      return { bulkInvite: view(bulk), rows: (await listRows(db, id, { problemsOnly: true })).map(problemRow) };
    },
  );

  const Params = Type.Object({ instance: InstanceName, id: Id });

  app.post(
    '/instances/:instance/bulk-invites/:id/start',
    {
      schema: {
        operationId: 'startBulkInvite',
        tags,
        summary: 'Start inviting the rows of a previewed bulk invite',
        description:
          'The rows are invited in the background, one at a time, by the same invite as POST /v1/invite; follow with GET. A restart of the service continues where it stopped. Not previewed, started already or nothing to invite: `409`.',
        security: adminSecurity,
        params: Params,
        response: { 200: BulkInvite, ...problemResponses('unauthorized', 'not-found', 'conflict') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      await runCommand(db, commandRequest(request, now()), (ctx) => startBulkInvite(ctx, { instanceId: instance.id, id: request.params.id }), 'bulk_invite_start');
      return view(await getBulkInvite(db, instance.id, request.params.id));
    },
  );

  app.post(
    '/instances/:instance/bulk-invites/:id/cancel',
    {
      schema: {
        operationId: 'cancelBulkInvite',
        tags,
        summary: 'Cancel a bulk invite: rows not yet invited are left',
        description: 'Rows invited already stay invited. Done or cancelled already: `409`.',
        security: adminSecurity,
        params: Params,
        response: { 200: BulkInvite, ...problemResponses('unauthorized', 'not-found', 'conflict') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      await runCommand(db, commandRequest(request, now()), (ctx) => cancelBulkInvite(ctx, { instanceId: instance.id, id: request.params.id }), 'bulk_invite_cancel');
      return view(await getBulkInvite(db, instance.id, request.params.id));
    },
  );

  app.get(
    '/instances/:instance/bulk-invites/:id',
    {
      schema: {
        operationId: 'getBulkInvite',
        tags,
        summary: 'A bulk invite: its state and its rows counted by outcome',
        security: adminSecurity,
        params: Params,
        response: { 200: BulkInvite, ...problemResponses('unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return view(await getBulkInvite(db, instance.id, request.params.id));
    },
  );

  app.get(
    '/instances/:instance/bulk-invites/:id/result',
    {
      schema: {
        operationId: 'getBulkInviteResult',
        tags,
        summary: 'The result file of a bulk invite (CSV)',
        description:
          'One line per row of the upload: `line,email,outcome,candidateId,link` (the link column: e-mailed, e-mail failed, or why the row was not invited). Cells starting with =, +, - or @ are prefixed with an apostrophe so that no spreadsheet runs them.',
        security: adminSecurity,
        params: Params,
        response: {
          200: { description: 'The result file', content: { 'text/csv': { schema: Type.String() } } },
          ...problemResponses('unauthorized', 'not-found'),
        },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      const text = await resultCsv(db, instance.id, request.params.id);
      return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="bulk-invite-${request.params.id}-result.csv"`).send(text);
    },
  );
};
