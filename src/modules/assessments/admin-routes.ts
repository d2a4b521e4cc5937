import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { adminSecurity, problemResponses } from '../../http/openapi.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { CONTENT_PACKAGE_MAX_BYTES, CONTENT_PACKAGE_MAX_UNPACKED_BYTES, publishAssessmentPackage, publishAssessment } from './commands.js';
import { IMAGE_MAX_PIXELS, MEDIA_MAX_BYTES, MEDIA_MAX_FILES, MEDIA_MAX_TOTAL_BYTES } from './media.js';
import { listAssessments } from './repository.js';
import { Assessment } from './routes.js';

const CONTENT_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', 'application/json', 'text/plain'];

const ImportResult = Type.Object(
  {
    id: Type.String({ examples: ['customer-support'] }),
    instance: Type.String({ examples: ['demo'] }),
    version: Type.Integer({ examples: [2] }),
    outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')], {
      examples: ['updated'],
      description: 'created: a new assessment; updated: a new version was published; unchanged: the same content was published already',
    }),
    warnings: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'Where the missing text would be written', examples: ['translations.de.questions.q1.prompt'] }),
          line: Type.Optional(Type.Integer({ description: 'The line of the document nearest to it', examples: [42] })),
          column: Type.Optional(Type.Integer({ examples: [7] })),
          message: Type.String({ examples: ['is missing: the Deutsch (de) text of questions.0.prompt, shown in English until it is given'] }),
        }),
        {
          description:
            'Present when the content has translations that leave candidate-facing fields out: each such field, language by language (at most 50, then how many more). A missing text shows in English; the content is published all the same.',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const assessmentAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  // Content arrives as the author wrote it, so that errors can name its lines.
  // (Within this plugin only: JSON elsewhere is parsed, with its depth bounded.)
  app.removeContentTypeParser(CONTENT_TYPES.filter((type) => app.hasContentTypeParser(type)));
  app.addContentTypeParser(CONTENT_TYPES, { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));

  const instanceOf = (name: string) => requireInstance(db, name);

  // A content package is the zip itself as the body, or base64-encoded in JSON.
  app.addContentTypeParser(['application/zip', 'application/x-zip-compressed'], { parseAs: 'buffer', bodyLimit: CONTENT_PACKAGE_MAX_BYTES }, (_request, body, done) =>
    done(null, { content: (body as Buffer).toString('base64') }),
  );
  const MB = 1024 * 1024;
  app.post(
    '/instances/:instance/assessments/package',
    {
      bodyLimit: Math.ceil((CONTENT_PACKAGE_MAX_BYTES * 4) / 3) + 64 * 1024,
      schema: {
        operationId: 'importAssessmentPackage',
        tags: ['admin'],
        summary: 'Publish assessment content with its media files (a zip)',
        description: `A zip of the content document (one YAML or JSON file at its top, or at the top of the one folder it holds) and the media files its Markdown names as \`![alternative text](path/beside/it.png)\` (docs/media.md). The zip is the body (Content-Type application/zip), or its bytes base64-encoded in JSON. Images (PNG, JPEG, WebP, GIF; SVG sanitised) at most ${MEDIA_MAX_BYTES.image / MB} MB and ${IMAGE_MAX_PIXELS.toLocaleString('en')} pixels, audio (MP3, OGG, WAV) ${MEDIA_MAX_BYTES.audio / MB} MB, video (MP4, WebM) ${MEDIA_MAX_BYTES.video / MB} MB; at most ${MEDIA_MAX_FILES} files and ${MEDIA_MAX_TOTAL_BYTES / MB} MB per assessment; the zip at most ${CONTENT_PACKAGE_MAX_BYTES / MB} MB, ${CONTENT_PACKAGE_MAX_UNPACKED_BYTES / MB} MB unpacked. A file's type is read from its bytes; raster images are encoded again without their metadata. A file refused (an unknown type, a polyglot, a decompression bomb, an SVG with script or outside links, over a limit), a reference without its text or to a file not given: \`400\` naming each, and nothing is published.`,
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object({ content: Type.String({ minLength: 1, contentEncoding: 'base64', description: "The zip's bytes, base64-encoded" }) }, { additionalProperties: false }),
        response: { 200: ImportResult, 201: ImportResult, ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'unsupported-media-type', 'payload-too-large') },
      },
    },
    async (request, reply) => {
      const instance = await instanceOf(request.params.instance);
      const zip = Buffer.from(request.body.content, 'base64');
      const result = await runCommand(db, commandRequest(request, now()), (ctx) => publishAssessmentPackage(ctx, { instance, zip }), 'assessment_import');
      return reply.code(result.outcome === 'created' ? 201 : 200).send(result);
    },
  );

  app.post(
    '/instances/:instance/assessments',
    {
      schema: {
        operationId: 'importAssessment',
        tags: ['admin'],
        summary: 'Publish assessment content (YAML or JSON)',
        description:
          'The body is the content document as written (Content-Type application/yaml, application/json or text/plain). Errors name the path and line of each problem. Publishing changed content makes a new version; attempts keep the version they started.',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.String({
          description: 'The assessment document',
          examples: [
            'id: customer-support\nname: Customer Support Essentials\ndescription: Written communication and judgement in a support role.\ndurationMinutes: 25\npassScore: 70\nlowPassScore: 55\ncategories:\n  - id: communication\n    name: Written communication\nquestions:\n  - id: q1\n    category: communication\n    type: single-choice\n    prompt: Which reply is best?\n    options:\n      - text: We cannot help with that.\n      - text: I am sorry about the delay; your order ships today.\n        correct: true\n',
          ],
        }),
        response: { 200: ImportResult, 201: ImportResult, ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'unsupported-media-type') },
      },
    },
    async (request, reply) => {
      const instance = await instanceOf(request.params.instance);
      const result = await runCommand(db, commandRequest(request, now()), (ctx) => publishAssessment(ctx, { instance, source: request.body }), 'assessment_import');
      return reply.code(result.outcome === 'created' ? 201 : 200).send(result);
    },
  );

  app.get(
    '/instances/:instance/assessments',
    {
      schema: {
        operationId: 'listInstanceAssessments',
        tags: ['admin'],
        summary: 'List the assessments of an instance',
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: { 200: Type.Array(Assessment), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => listAssessments(db, [(await instanceOf(request.params.instance)).id]),
  );
};
