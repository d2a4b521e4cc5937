// The input of the invite command, parsed once for every surface that invites: the public API
// (POST /v1/invite, whose body schema this is), the console's invite form, the rows of a CSV file
// (bulk invites) and the applicant-tracking systems' adapters. parseInviteInput checks a body by
// the schema and normalises it (names trimmed, the assessments' ids trimmed, split on commas when
// given as one string, folded once each); it answers the command's input or every field's error,
// with the rule it broke, in the words of a 400 of /v1/invite.
//
// Whitespace around the e-mail address is dropped before it is checked: a form field or a CSV cell
// often carries it. The public API's body is checked by the same schema (InviteBody) before its
// handler runs, which then calls the parser's second half, normaliseInvite: a JSON client's padded
// address is refused by the schema, as it always was.
import { Type, type Static } from 'typebox';
import { validationFindings } from '../../http/errors.js';
import { BIDI_CONTROLS } from '../../domain/text.js';
import { validatorCompiler } from '../../http/validation.js';
import type { InviteRequest } from './deps.js';

// A name: no control characters (bidirectional ones included), at least one visible character;
// trimmed before use. (The visible character is not \S, which a lone control character such as NUL
// would satisfy.)
const Name = (description: string, examples: string[]) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: `^[^\\u0000-\\u001f\\u007f${BIDI_CONTROLS}]*[^\\s\\u0000-\\u001f\\u007f${BIDI_CONTROLS}][^\\u0000-\\u001f\\u007f${BIDI_CONTROLS}]*$`,
    'x-pattern-message': 'must contain a visible character and no control characters (bidirectional ones included: U+202A-U+202E, U+2066-U+2069)',
    description,
    examples,
  });

/** The most assessments one invite may name. */
export const MAX_ASSESSMENTS = 50;

export const InviteBody = Type.Object(
  {
    email: Type.String({
      examples: ['jane.doe@example.com'],
      minLength: 1,
      maxLength: 254,
      format: 'email',
      description: "Candidate's e-mail address; identifies the candidate within the instance, case-insensitively",
    }),
    firstName: Name("Candidate's first name (trimmed; updated on every invite)", ['Jane']),
    lastName: Name("Candidate's last name (trimmed; updated on every invite)", ['Doe']),
    assessments: Type.Union(
      [
        Type.Array(Type.String({ minLength: 1, maxLength: 64, examples: ['customer-support'] }), {
          minItems: 1,
          maxItems: MAX_ASSESSMENTS,
          examples: [['customer-support', 'data-entry']],
        }),
        Type.String({ minLength: 1, maxLength: 4000, examples: ['customer-support,data-entry'], description: 'Comma-separated ids, accepted too' }),
      ],
      {
        description: `Ids of published assessments of the instance, 1-${MAX_ASSESSMENTS}; duplicates are folded. A single comma-separated string is accepted too.`,
        examples: [['customer-support', 'data-entry']],
      },
    ),
    extraTimePercent: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 200,
        description:
          'An accommodation: extra time on every assessment of this invite, as a percentage of its time limit (50: one and a half times as long), rounded up to whole minutes. The candidate sees only their own time limit, never why; the report in the console shows it to the operator. Applies to assessments not yet started; absent: unchanged (0 for a new invitation).',
        examples: [25],
      }),
    ),
    language: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        'x-pattern-message': 'must be a BCP 47 language tag such as de, es or pt-BR',
        maxLength: 35,
        description: "The candidate's language as a BCP 47 tag (e.g. `de`, `pt-BR`), for the portal and e-mails of this invite's assessments; absent: unchanged.",
        examples: ['de'],
      }),
    ),
    externalReference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: `^[^\\u0000-\\u001f\\u007f${BIDI_CONTROLS}]+$`,
        'x-pattern-message': 'must be 1-200 characters without control characters',
        description:
          'Your own reference for the invitations this invite opens (an application or requisition id in your system), 1-200 characters. It is returned by `GET /v1/candidates/{candidateId}` and carried by every webhook event of these invitations as `data.externalReference`; the score record itself does not change. Absent: unchanged.',
        examples: ['application-48213'],
      }),
    ),
  },
  {
    description: 'Fields other than these are ignored.',
    examples: [{ email: 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe', assessments: ['customer-support', 'data-entry'] }],
  },
);

export type InviteBodyType = Static<typeof InviteBody>;

/** A field that is not as the rules want it: the field (dotted: `assessments.2`), the rule it broke, and why, for people. */
export interface InputError {
  field: string;
  /** The rule: the schema's keyword (`required`, `format`, `pattern`, `minLength`, `maxLength`, `type`, …), or `empty` and `too-many` for the assessments' list. */
  code: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: InputError[] };

const validate = validatorCompiler()({ schema: InviteBody, httpPart: 'body', method: 'POST', url: '/v1/invite' }) as ((data: unknown) => boolean) & { errors?: unknown[] };

/** The invite command's input from a body of any surface, or what is wrong with it, field by field. */
export function parseInviteInput(raw: unknown): Parsed<InviteRequest> {
  const body = raw !== null && typeof raw === 'object' && typeof (raw as { email?: unknown }).email === 'string' ? { ...raw, email: (raw as { email: string }).email.trim() } : raw;
  if (!validate(body)) {
    const errors = validationFindings('body', (validate.errors ?? []) as never).map((f) => ({ field: f.entry.name, code: f.keyword, message: f.entry.detail }));
    return { ok: false, errors };
  }
  return normaliseInvite(body as InviteBodyType);
}

/**
 * The second half of parseInviteInput, for a body already checked by the same schema (POST
 * /v1/invite's, which Fastify checks before its handler runs: checking it again would cost the
 * busiest write about 8 µs for nothing).
 */
export function normaliseInvite(valid: InviteBodyType): Parsed<InviteRequest> {
  const assessments = assessmentIds(valid.assessments);
  if (!assessments.ok) return assessments;
  const value: InviteRequest = { email: valid.email, firstName: valid.firstName.trim(), lastName: valid.lastName.trim(), assessments: assessments.value };
  if (valid.extraTimePercent !== undefined) value.extraTimePercent = valid.extraTimePercent;
  if (valid.language !== undefined) value.language = valid.language;
  if (valid.externalReference !== undefined) value.externalReference = valid.externalReference;
  return { ok: true, value };
}

/** The ids of assessments of an invite, each trimmed, once each, in order: a list, or one comma-separated string. */
export function assessmentIds(value: string | readonly string[]): Parsed<string[]> {
  const ids = (typeof value === 'string' ? value.split(',') : value).map((id) => id.trim());
  const empty = ids.findIndex((id) => id === '');
  if (empty >= 0) return { ok: false, errors: [{ field: `assessments.${empty}`, code: 'empty', message: 'must not be empty' }] };
  const unique = [...new Set(ids)];
  if (unique.length > MAX_ASSESSMENTS) return { ok: false, errors: [{ field: 'assessments', code: 'too-many', message: `must name at most ${MAX_ASSESSMENTS} assessments` }] };
  return { ok: true, value: unique };
}
