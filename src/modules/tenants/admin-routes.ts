import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { runCommand } from '../../domain/command.js';
import { commandRequest } from '../../http/command.js';
import { DateTime, adminSecurity, problemResponses } from '../../http/openapi.js';
import { BIDI_CONTROLS, BIDI_MESSAGE } from '../../http/validation.js';
import { LANGUAGES } from '../../i18n/i18n.js';
import { LOGO_MAX_BYTES, brandOf } from './branding.js';
import { changeTenantSettings, createTenant, removeTenantLogo, setTenantLogo } from './commands.js';
import { INSTANCE_NAME_PATTERN, listInstances, type Instance as InstanceRow } from './repository.js';

export const InstanceName = Type.String({
  pattern: INSTANCE_NAME_PATTERN,
  'x-pattern-message': 'must be 1-63 characters of a-z, 0-9 and -, starting with a letter',
  description: 'Instance name: 1-63 characters of a-z, 0-9 and -, starting with a letter',
  examples: ['demo'],
});

const Instance = Type.Object(
  {
    name: Type.String({ examples: ['demo'] }),
    portalUrl: Type.Union([Type.String(), Type.Null()], {
      examples: ['https://assessments.acme.example'],
      description: 'Base URL of candidate links; null: the service PUBLIC_URL',
    }),
    inviteTtlDays: Type.Integer({ examples: [14], description: 'How long invite links stay valid, in days' }),
    mailFromName: Type.Union([Type.String(), Type.Null()], { examples: ['Acme Hiring'], description: 'Sender name of invitation e-mail; null: that of MAIL_FROM' }),
    mailFromAddress: Type.Union([Type.String(), Type.Null()], { examples: ['hiring@acme.example'], description: 'Sender address of invitation e-mail; null: MAIL_FROM' }),
    retentionDays: Type.Union([Type.Integer(), Type.Null()], {
      examples: [365],
      description: 'Days after the last of their assessments was completed when a candidate is erased automatically; null: off',
    }),
    reportLinkDays: Type.Integer({ description: 'Days a report link (reportUrl) stays valid', examples: [90] }),
    reminderDays: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Days before an invitation expires when the candidate is reminded by e-mail, once; null: off',
      examples: [2],
    }),
    displayName: Type.Union([Type.String(), Type.Null()], {
      examples: ['Acme Ltd'],
      description: 'The company as candidates see it; null: the sender name, else the instance name',
    }),
    company: Type.String({ examples: ['Acme Ltd'], description: 'What candidates are shown as the company: displayName, else mailFromName, else name' }),
    accentColor: Type.Union([Type.String(), Type.Null()], { examples: ['#0B57D0'], description: "The portal's accent colour; null: the default" }),
    supportEmail: Type.Union([Type.String(), Type.Null()], {
      examples: ['recruiting@acme.example'],
      description: 'Where candidates write with questions; null: the sender address, else "the company that invited you"',
    }),
    privacyUrl: Type.Union([Type.String(), Type.Null()], {
      examples: ['https://acme.example/privacy'],
      description: "The company's privacy notice, linked in the portal's footer; null: none",
    }),
    logoUrl: Type.Union([Type.String(), Type.Null()], {
      examples: ['/brand/acme/logo/3f79bb7b435b0532'],
      description: 'Path of the logo on this service (its hash in it: a new logo gets a new path); null: no logo',
    }),
    defaultLanguage: Type.String({
      examples: ['en'],
      description: "The portal's and e-mails' language when neither the invitation nor the candidate's browser names one with a catalogue",
    }),
    maxWebhookEndpoints: Type.Integer({ examples: [10], description: 'How many webhook endpoints the instance may register (default 10)' }),
    requireTwoFactor: Type.Boolean({ examples: [false], description: 'Every console user of the instance must have a second factor (default false)' }),
    timeZone: Type.String({ examples: ['Europe/Berlin'], description: "The time zone of candidates' deadlines (IANA; default UTC)" }),
    reviewersPerAnswer: Type.Integer({ examples: [2], description: 'How many reviewers score each free-text answer, 1-5 (default 1)' }),
    blindReview: Type.Boolean({
      examples: [true],
      description:
        "Reviewers see neither the candidate's name nor the other reviews before submitting their own, and users with the reviewer role see candidates only in the review queue (by an opaque label per answer) until their reviews of a candidate are in (default false)",
    }),
    reviewAgreement: Type.String({
      examples: ['agree-within'],
      description: 'mean, or agree-within (the mean when all reviews are within reviewAgreementPoints; else a lead settles)',
    }),
    reviewAgreementPoints: Type.Integer({ examples: [20], description: 'The distance in percentage points within which reviews agree (default 20)' }),
    reviewDueHours: Type.Union([Type.Integer(), Type.Null()], {
      examples: [48],
      description: 'Hours after completion or assignment when an assigned reviewer is reminded, once; null: no reminders',
    }),
    reviewUnassigned: Type.Boolean({ examples: [true], description: 'Reviewers may take answers nobody was assigned (default true)' }),
    createdAt: DateTime({ examples: ['2026-11-02T13:45:07.060Z'] }),
  },
  { additionalProperties: false },
);

const CODES = Object.keys(LANGUAGES);
const DefaultLanguage = Type.String({
  pattern: `^(${CODES.join('|')})$`,
  'x-pattern-message': `must be a language with a catalogue: ${CODES.join(', ')}`,
  description: `The portal's and e-mails' language when neither the invitation nor the candidate's browser names one with a catalogue: one of ${CODES.join(', ')} (default en)`,
  examples: ['de'],
});

const PortalUrl = Type.String({
  pattern: '^https?://[^\\s]+$',
  maxLength: 500,
  description: 'Base URL of the portal for this instance',
  examples: ['https://assessments.acme.example'],
});
// Names shown to candidates: no control characters, bidirectional ones included.
const NO_CONTROL = `^[^\\u0000-\\u001f\\u007f${BIDI_CONTROLS}]+$`;
const NO_CONTROL_MESSAGE = `must not contain control characters; ${BIDI_MESSAGE}`;
export const Settings = Type.Object(
  {
    portalUrl: Type.Optional(PortalUrl),
    inviteTtlDays: Type.Optional(Type.Integer({ examples: [14], minimum: 1, maximum: 365, description: 'Days an invite link stays valid (default 14)' })),
    mailFromName: Type.Optional(
      Type.String({
        examples: ['Acme Hiring'],
        minLength: 1,
        maxLength: 100,
        pattern: `^[^\\r\\n${BIDI_CONTROLS}]+$`,
        'x-pattern-message': `must be one line; ${BIDI_MESSAGE}`,
        description: 'Sender name of invitation e-mail',
      }),
    ),
    mailFromAddress: Type.Optional(Type.String({ examples: ['hiring@acme.example'], format: 'email', maxLength: 254, description: 'Sender address of invitation e-mail' })),
    retentionDays: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()], {
        examples: [365],
        description:
          'Erase candidates automatically this many days (1-3650) after the last of their assessments was completed, once all are; null turns it off (the default). Checked by a periodic sweep on every node.',
      }),
    ),
    reportLinkDays: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Days a report link (the reportUrl of GET /v1/candidates/{candidateId}) stays valid, 1-3650 (default 90)' }),
    ),
    reminderDays: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 60 }), Type.Null()], {
        description:
          'Remind candidates by e-mail (a fresh link) this many days (1-60) before an invitation they have not started expires, once per invitation; null turns it off. Default 2. Invitations made with less time than this get no reminder.',
      }),
    ),
    displayName: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100, pattern: NO_CONTROL, 'x-pattern-message': NO_CONTROL_MESSAGE }), Type.Null()], {
        examples: ['Acme Ltd'],
        description:
          "The company's name as candidates see it in the portal, the e-mail and the report (1-100 characters, trimmed); null clears it (then the sender name, else the instance name, is shown)",
      }),
    ),
    accentColor: Type.Optional(
      Type.Union([Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' }), Type.Null()], {
        examples: ['#0B57D0'],
        description:
          "The portal's accent colour, #RRGGBB. It must reach the WCAG AA contrast of 4.5:1 against white (links and buttons are that colour on white): a lighter colour is refused with its ratio. null: the default",
      }),
    ),
    supportEmail: Type.Optional(
      Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()], {
        examples: ['recruiting@acme.example'],
        description: 'Where candidates write with questions, shown on every portal page and in the e-mail; null: the sender address, else "the company that invited you"',
      }),
    ),
    privacyUrl: Type.Optional(
      Type.Union([Type.String({ maxLength: 500, pattern: '^\\S+$' }), Type.Null()], {
        examples: ['https://acme.example/privacy'],
        description: "The company's privacy notice, linked in the portal's footer: an https:// address (http:// only for localhost); null: none",
      }),
    ),
    defaultLanguage: Type.Optional(DefaultLanguage),
    maxWebhookEndpoints: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1000,
        examples: [10],
        description:
          'How many webhook endpoints the instance may register, 1-1000 (default 10): a registration beyond it is refused (409). Endpoints already there stay. Only the operator sets it.',
      }),
    ),
    timeZone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        examples: ['Europe/Berlin'],
        description:
          'The time zone in which candidates\' e-mails give deadlines, named with its offset ("7 December 2026 at 10:15 (Europe/Berlin, UTC+01:00)"): a name of the IANA time zone database (default UTC)',
      }),
    ),
    requireTwoFactor: Type.Optional(
      Type.Boolean({
        examples: [true],
        description:
          'Every console user of the instance (and every owner) must have a second factor: one without is sent to set it up after signing in, and may not turn it off. Only the operator sets it.',
      }),
    ),
    reviewersPerAnswer: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 5, examples: [2], description: 'How many reviewers score each free-text answer before it has its final score, 1-5 (default 1)' }),
    ),
    blindReview: Type.Optional(
      Type.Boolean({
        examples: [true],
        description:
          "Blind review: until a reviewer has submitted their own review of an answer, the console's review screen hides the candidate's name and e-mail and the other reviewers' scores and comments (default false)",
      }),
    ),
    reviewAgreement: Type.Optional(
      Type.Union([Type.Literal('mean'), Type.Literal('agree-within')], {
        examples: ['agree-within'],
        description:
          'How the reviews of an answer make its final score: mean (their mean, the default), or agree-within (their mean when all are within reviewAgreementPoints of each other; otherwise the answer waits for a lead, an owner, a manager or a user marked lead, who settles it)',
      }),
    ),
    reviewAgreementPoints: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100,
        examples: [20],
        description: 'agree-within: the largest distance, in percentage points, between the highest and the lowest review that still agree, 0-100 (default 20)',
      }),
    ),
    reviewDueHours: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1, maximum: 720 }), Type.Null()], {
        examples: [48],
        description:
          "An assigned review is overdue this many hours (1-720) after the attempt's completion or the assignment, whichever is later; its reviewer is then e-mailed once. null turns reminders off (the default)",
      }),
    ),
    reviewUnassigned: Type.Optional(
      Type.Boolean({
        examples: [true],
        description: "Reviewers' queues also offer answers nobody was assigned (default true); an answer with assignees is only theirs to review",
      }),
    ),
  },
  { additionalProperties: false },
);

export const tenantAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database; now: () => Date }> = async (app, { db, now }) => {
  app.post(
    '/instances',
    {
      schema: {
        operationId: 'createInstance',
        tags: ['admin'],
        summary: 'Create a tenant instance',
        security: adminSecurity,
        body: Type.Object({ name: InstanceName, ...Settings.properties }, { additionalProperties: false }),
        response: { 201: Instance, ...problemResponses('validation-failed', 'unauthorized', 'conflict') },
      },
    },
    async (request, reply) => {
      const { name, ...settings } = request.body;
      const created = await runCommand(db, commandRequest(request, now()), (ctx) => createTenant(ctx, { name, settings }), 'instance_create');
      return reply.code(201).send(view(created));
    },
  );

  app.patch(
    '/instances/:instance',
    {
      schema: {
        operationId: 'updateInstance',
        tags: ['admin'],
        summary: "Change an instance's settings",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        body: Settings,
        response: { 200: Instance, ...problemResponses('validation-failed', 'unauthorized', 'not-found') },
      },
    },
    async (request) =>
      view(
        await runCommand(db, commandRequest(request, now()), (ctx) => changeTenantSettings(ctx, { instance: request.params.instance, changes: request.body }), 'instance_update'),
      ),
  );

  app.get(
    '/instances',
    {
      schema: {
        operationId: 'listInstances',
        tags: ['admin'],
        summary: 'List tenant instances',
        security: adminSecurity,
        response: { 200: Type.Array(Instance), ...problemResponses('unauthorized') },
      },
    },
    async () => (await listInstances(db)).map(view),
  );

  // The logo arrives as its bytes; what they are is read from them, not taken from the header.
  const keepBytes = (_request: unknown, body: string | Buffer, done: (error: null, body: Buffer) => void) => done(null, Buffer.from(body));
  app.addContentTypeParser(/^image\//, { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, keepBytes);
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, keepBytes);

  app.put(
    '/instances/:instance/logo',
    {
      schema: {
        operationId: 'setInstanceLogo',
        tags: ['admin'],
        summary: "Set an instance's logo",
        description: `The body is the image itself, with Content-Type image/png, image/jpeg or image/webp, at most ${LOGO_MAX_BYTES / 1024} KB. Its bytes must be of the declared type and decode to at most 4096 × 4096 pixels; it is decoded and encoded again (metadata dropped, at most 1024 pixels a side). SVG is refused (it can carry scripts; it is not sanitised here). The logo is shown in the portal's header with the display name as its text alternative, and served at \`logoUrl\` (public, cached for a year: a new logo gets a new URL) and at /brand/{instance}/logo.`,
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: { 200: Instance, ...problemResponses('validation-failed', 'unauthorized', 'not-found', 'payload-too-large', 'unsupported-media-type') },
      },
    },
    async (request) => {
      const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const input = { instance: request.params.instance, declaredType: request.headers['content-type'], bytes };
      return view(await runCommand(db, commandRequest(request, now()), (ctx) => setTenantLogo(ctx, input), 'instance_logo_set'));
    },
  );

  app.delete(
    '/instances/:instance/logo',
    {
      schema: {
        operationId: 'removeInstanceLogo',
        tags: ['admin'],
        summary: "Remove an instance's logo",
        description: "The portal's header shows the display name as text again. Removing a logo that is not there changes nothing.",
        security: adminSecurity,
        params: Type.Object({ instance: InstanceName }),
        response: { 200: Instance, ...problemResponses('unauthorized', 'not-found') },
      },
    },
    async (request) => view(await runCommand(db, commandRequest(request, now()), (ctx) => removeTenantLogo(ctx, { instance: request.params.instance }), 'instance_logo_remove')),
  );
};

/** An instance as the admin API shows it: the logo as its URL path, the company as candidates see it. */
function view(instance: InstanceRow) {
  const { logoSha256: _hash, id: _id, ...rest } = instance;
  return { ...rest, company: brandOf(instance).company, logoUrl: brandOf(instance).logoPath };
}
