// The assessment library over the admin API: what catalogue/ holds (and whether an instance offers
// each), and offering library assessments to an instance (docs/library.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { adminSecurity, problemResponses } from '../../http/openapi.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { offerLibrary } from './commands.js';
import { offeredIn, readLibrary, type LibraryEntry } from './library.js';

const LibraryAssessment = Type.Object(
  {
    id: Type.String({ examples: ['verbal-reasoning'], description: 'The id it has once offered: in invites (`assessments`) and score filters' }),
    name: Type.String({ examples: ['Verbal Reasoning'] }),
    description: Type.String({ description: 'What it measures' }),
    roles: Type.Array(Type.String(), { examples: [['Administrator', 'Team leader']], description: 'The roles it is written for' }),
    readingLevel: Type.Union([Type.String(), Type.Null()], { examples: ['CEFR B2'] }),
    durationMinutes: Type.Integer({ examples: [20] }),
    questionCount: Type.Integer({ examples: [16], description: 'Questions each attempt is given (the typing test not counted)' }),
    typingTest: Type.Boolean(),
    offered: Type.Optional(
      Type.Union([Type.Literal('current'), Type.Literal('other'), Type.Literal('no')], {
        description:
          'With ?instance: current when the instance offers it as in the library; other when the instance has an assessment of this id with other content (an older library version, or its own); no when it has none',
      }),
    ),
  },
  { additionalProperties: false },
);

const OfferResult = Type.Object(
  {
    id: Type.String({ examples: ['verbal-reasoning'] }),
    version: Type.Union([Type.Integer(), Type.Null()], { examples: [1], description: "The instance's version now offered; null when kept" }),
    outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged'), Type.Literal('kept')], {
      examples: ['created'],
      description:
        'created: now offered; updated: a new version replaced other content (only with update: true); unchanged: already offered as in the library; kept: the instance has other content under this id, left as it was',
    }),
  },
  { additionalProperties: false },
);

const summary = (entry: LibraryEntry) => ({
  id: entry.id,
  name: entry.name,
  description: entry.description,
  roles: entry.roles,
  readingLevel: entry.readingLevel,
  durationMinutes: entry.durationMinutes,
  questionCount: entry.questionCount,
  typingTest: entry.typingTest,
});

export const libraryAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date; libraryDir?: string }> = async (app, { db, now, libraryDir }) => {
  const library = () => readLibrary(libraryDir);

  app.get(
    '/library',
    {
      schema: {
        operationId: 'listLibrary',
        tags: ['admin'],
        summary: 'List the assessment library',
        description: 'The ready assessments of the library (catalogue/), and with ?instance whether that instance offers each.',
        security: adminSecurity,
        querystring: Type.Object({ instance: Type.Optional(InstanceName) }, { additionalProperties: false }),
        response: { 200: Type.Array(LibraryAssessment), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const entries = library();
      if (request.query.instance === undefined) return entries.map(summary);
      const instance = await requireInstance(db, request.query.instance);
      const offered = await offeredIn(db, instance.id, entries);
      return entries.map((e) => ({ ...summary(e), offered: offered.get(e.id)! }));
    },
  );

  app.post(
    '/instances/:instance/library',
    {
      schema: {
        operationId: 'offerLibraryAssessments',
        tags: ['admin'],
        summary: 'Offer library assessments to an instance',
        description:
          "Publishes the named library assessments into the instance, so that its clients may invite to them. An assessment the instance already offers as in the library is unchanged. One the instance has with other content under the same id (an older library version, or its own) is kept as it is unless update is true; then the library's content becomes a new version, and attempts already started keep the version they started.",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Type.Object(
          {
            assessments: Type.Array(Type.String({ pattern: '^[a-z][a-z0-9-]{0,63}$' }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Library ids' }),
            update: Type.Optional(Type.Boolean({ default: false, description: "Replace other content under the same id by the library's, as a new version" })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Array(OfferResult), ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      const input = { instance, ids: request.body.assessments, library: library(), update: request.body.update === true };
      return runCommand(db, commandRequest(request, now()), (ctx) => offerLibrary(ctx, input), 'library_offer');
    },
  );
};
