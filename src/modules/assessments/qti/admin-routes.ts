// QTI 3.0 packages over the admin API (the CLI's `assessment export --qti` and `assessment import --qti`).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../../db/database.js';
import { runCommand } from '../../../domain/command.js';
import { invalidInput } from '../../../domain/errors.js';
import { commandRequest } from '../../../http/command.js';
import { adminSecurity, problemResponses } from '../../../http/openapi.js';
import { InstanceName } from '../../tenants/admin-routes.js';
import { requireInstance } from '../../tenants/repository.js';
import { importQtiPackage, qtiPackageOf } from './commands.js';
import { MAX_ITEMS } from './import.js';
import { MAX_ENTRIES, MAX_PACKAGE_BYTES, MAX_UNCOMPRESSED_BYTES } from './zip.js';

// The package travels base64-encoded in JSON (or as the raw zip, turned into the same body here).
const BODY_LIMIT = Math.ceil((MAX_PACKAGE_BYTES * 4) / 3) + 64 * 1024;
const MB = 1024 * 1024;

const Report = Type.Object(
  {
    assessment: Type.Optional(Type.Object({ id: Type.String(), name: Type.String(), questions: Type.Integer() }, { additionalProperties: false })),
    imported: Type.Array(Type.Object({ file: Type.String(), item: Type.String(), question: Type.String(), type: Type.String() }, { additionalProperties: false }), {
      description: 'Each item imported: its file, its QTI identifier, the question id it became and its type here',
    }),
    notImported: Type.Array(Type.Object({ file: Type.String(), item: Type.Optional(Type.String()), what: Type.String(), why: Type.String() }, { additionalProperties: false }), {
      description: 'Each item that did not import (an unsupported interaction, an adaptive or template item, ...), and why',
    }),
    notes: Type.Array(Type.Object({ file: Type.String(), item: Type.Optional(Type.String()), what: Type.String() }, { additionalProperties: false }), {
      description: 'What changed or was left out within what imported (feedback, images, a default time limit, ...)',
    }),
  },
  { additionalProperties: false },
);

const QtiImportResult = Type.Object(
  {
    id: Type.String({ examples: ['customer-support'] }),
    instance: Type.String({ examples: ['demo'] }),
    version: Type.Integer({ examples: [1] }),
    outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')]),
    report: Report,
  },
  { additionalProperties: false },
);

export const qtiAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  app.addContentTypeParser(
    ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'],
    { parseAs: 'buffer', bodyLimit: MAX_PACKAGE_BYTES },
    (request, body, done) => {
      const name = request.headers['x-file-name'];
      done(null, { content: (body as Buffer).toString('base64'), ...(typeof name === 'string' && name !== '' ? { fileName: name.slice(0, 255) } : {}) });
    },
  );

  app.get(
    '/instances/:instance/assessments/:id/qti',
    {
      schema: {
        operationId: 'exportAssessmentQti',
        tags: ['admin'],
        summary: 'The current version of an assessment as a QTI 3.0 package (zip)',
        description:
          'An IMS QTI 3.0 content package: imsmanifest.xml, assessment.xml (one section per category) and one item file per question (docs/qti.md has the mapping). Coding questions, the typing test and proctoring settings do not map to QTI: they are left out, and the header `x-qti-omitted` names them.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName, id: Type.String({ minLength: 1, maxLength: 64, examples: ['customer-support'] }) }),
        response: {
          200: { description: 'The package', content: { 'application/zip': { schema: Type.String({ format: 'binary' }) } } },
          ...problemResponses('validation-failed', 'unauthorized', 'not-found'),
        },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      const exported = await qtiPackageOf(db, instance.id, request.params.id);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="${exported.id}-qti.zip"`)
        .header('x-qti-omitted', exported.omitted.map((o) => o.what.replace(/[^\x20-\x7e]/g, '?')).join('; '))
        .send(Buffer.from(exported.zip) as unknown as string);
    },
  );

  app.post(
    '/instances/:instance/assessments/qti',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        operationId: 'importAssessmentQti',
        tags: ['admin'],
        summary: 'Publish a QTI 3.0 package as an assessment, with an import report',
        description: `The package (a zip with imsmanifest.xml, QTI 3.0 items and at most one test) base64-encoded in JSON, or the zip itself as the body (Content-Type application/zip; the header x-file-name names it). At most ${MAX_PACKAGE_BYTES / MB} MB, ${MAX_ENTRIES} entries, ${MAX_UNCOMPRESSED_BYTES / MB} MB unpacked and ${MAX_ITEMS} items; a DOCTYPE or entity declaration refuses a file. The report names every item imported and everything that did not map, with the file, the item and why. A package that cannot be read, or of which nothing imports: \`400\` naming each problem, and nothing is published. Items with nothing to answer (an introduction) become the instructions. Without \`id\` the package is a new assessment; with it, changed content makes a new version of that one, and attempts keep theirs.`,
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object(
          {
            fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, examples: ['customer-support-qti.zip'] })),
            id: Type.Optional(
              Type.String({
                pattern: '^[a-z][a-z0-9-]{0,63}$',
                examples: ['demotoets'],
                description:
                  "The assessment's id here (an existing one gets a new version when the content changed); without it, a new assessment with the test's identifier when it is readable, else its title as a slug, made unique in the instance (demotoets, demotoets-2, ...)",
              }),
            ),
            content: Type.String({ minLength: 1, maxLength: BODY_LIMIT, contentEncoding: 'base64', description: "The zip's bytes, base64-encoded" }),
          },
          { additionalProperties: false },
        ),
        response: { 200: QtiImportResult, 201: QtiImportResult, ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'payload-too-large') },
      },
    },
    async (request, reply) => {
      const instance = await requireInstance(db, request.params.instance);
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(request.body.content.replace(/\s/g, ''))) throw invalidInput([{ in: 'body', name: 'content', detail: 'must be base64' }]);
      const bytes = Buffer.from(request.body.content, 'base64');
      const result = await runCommand(
        db,
        commandRequest(request, now()),
        (ctx) => importQtiPackage(ctx, { instance, bytes, fileName: request.body.fileName, id: request.body.id }),
        'assessment_import_qti',
      );
      return reply.code(result.outcome === 'created' ? 201 : 200).send(result);
    },
  );
};
