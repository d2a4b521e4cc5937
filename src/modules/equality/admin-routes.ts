// Admin API of an instance's voluntary self-identification: whether candidates are offered the
// form after submitting an assessment, and its questions. The answers themselves are never served
// here (only the data export of one candidate holds theirs, and the console's adverse-impact report
// counts them).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { InstanceName } from '../tenants/admin-routes.js';
import { requireInstance } from '../tenants/repository.js';
import { changeSelfIdSettings, selfIdSettingsView } from './commands.js';
import { LABEL_MAX, OPTIONS_MAX, OPTIONS_MIN, QUESTIONS_MAX, defaultQuestions } from './questions.js';

const Id = (examples: string[]) =>
  Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,39}$', 'x-pattern-message': 'must be 1-40 characters of a-z, 0-9 and -, starting with a letter or digit', examples });
const Label = (examples: string[]) => Type.String({ minLength: 1, maxLength: LABEL_MAX, examples });

const Question = Type.Object(
  {
    id: Id(['sex']),
    label: Label(['Sex']),
    options: Type.Array(Type.Object({ id: Id(['female']), label: Label(['Female']) }, { additionalProperties: false }), {
      minItems: OPTIONS_MIN,
      maxItems: OPTIONS_MAX,
      description: `${OPTIONS_MIN}-${OPTIONS_MAX} options with ids unique within the question. "Prefer not to say" (id prefer-not-to-say) is added to every question by the service and may not be one of them.`,
    }),
  },
  { additionalProperties: false },
);

const SettingsView = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Candidates are offered the optional form after submitting an assessment', examples: [true] }),
    questions: Type.Array(Question, {
      description: 'The questions in effect, without "prefer not to say" (offered on every one). The default set is shown in English; candidates see it in their language.',
      examples: [defaultQuestions()],
    }),
    isDefault: Type.Boolean({ description: 'The questions are the default set (the US EEO categories: sex, race/ethnicity, age band)', examples: [true] }),
    updatedAt: Type.Union([DateTime(), Type.Null()], { description: 'When they were last changed; null: never' }),
    updatedBy: Type.Union([Type.String(), Type.Null()], { description: 'Who changed them last (`user:<e-mail>` or `admin-token`); null: never', examples: ['admin-token'] }),
  },
  { additionalProperties: false },
);

const Change = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: 'Offer the form (true) or not (false); absent: unchanged', examples: [false] })),
    questions: Type.Optional(
      Type.Union([Type.Array(Question, { minItems: 1, maxItems: QUESTIONS_MAX }), Type.Null()], {
        description: `The instance's own questions (1-${QUESTIONS_MAX}), shown to candidates in these words whatever their language; null: back to the default set (shown in the candidate's language); absent: unchanged. Answers already given keep their option ids: the adverse-impact report shows an answer to an option no longer offered by its id.`,
      }),
    ),
  },
  { additionalProperties: false, examples: [{ enabled: true, questions: null }] },
);

export const equalityAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  const params = Type.Object({ instance: InstanceName });

  app.get(
    '/instances/:instance/self-identification',
    {
      schema: {
        operationId: 'getSelfIdentification',
        tags: ['admin'],
        summary: "The instance's voluntary self-identification: on or off, and its questions",
        description:
          "After submitting an assessment, candidates may be offered an optional form of questions about themselves (by default sex, race/ethnicity and age band, the US EEO categories), stored apart from answers and scores and used only in the counts of the console's adverse-impact report. On by default with the default questions.",
        security: adminSecurity,
        params,
        response: { 200: SettingsView, ...problemResponses('unauthorized', 'not-found') },
      },
    },
    async (request) => selfIdSettingsView(db, (await requireInstance(db, request.params.instance)).id),
  );

  app.put(
    '/instances/:instance/self-identification',
    {
      schema: {
        operationId: 'setSelfIdentification',
        tags: ['admin'],
        summary: "Turn the instance's voluntary self-identification on or off, or change its questions",
        description:
          'Fields left out stay as they are. Each question has an id, a label and 2-20 options; "prefer not to say" is added to every question. Turning it off stops offering the form; answers already given stay until the candidate is erased (by request or by the retention period).',
        security: adminSecurity,
        params,
        body: Change,
        response: { 200: SettingsView, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) => {
      const instance = await requireInstance(db, request.params.instance);
      return runCommand(db, commandRequest(request, now()), (ctx) => changeSelfIdSettings(ctx, { instance, ...request.body }), 'self_id_settings');
    },
  );
};
