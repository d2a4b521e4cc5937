// One catalogue of the errors the service answers with, each an RFC 9457 problem document
// Handlers throw a Problem; the error handler in errors.ts renders every failure,
// ours or the framework's, through the same envelope carrying the request id.
import { Type, type Static } from 'typebox';

export const PROBLEMS = {
  'validation-failed': { status: 400, title: 'Validation failed' },
  'malformed-request': { status: 400, title: 'Bad Request' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Not Found' },
  conflict: { status: 409, title: 'Conflict' },
  'payload-too-large': { status: 413, title: 'Payload Too Large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type' },
  'request-timeout': { status: 408, title: 'Request Timeout' },
  'idempotency-key-reused': { status: 422, title: 'Idempotency Key Reused' },
  'rate-limited': { status: 429, title: 'Too Many Requests' },
  'headers-too-large': { status: 431, title: 'Request Header Fields Too Large' },
  internal: { status: 500, title: 'Internal Server Error' },
  'admin-disabled': { status: 503, title: 'Admin API Disabled' },
  unavailable: { status: 503, title: 'Service Unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

export const FieldError = Type.Object(
  {
    in: Type.Union([Type.Literal('body'), Type.Literal('query'), Type.Literal('header'), Type.Literal('path'), Type.Literal('content')], {
      examples: ['body'],
      description: 'Where the offending value was: the JSON body, a query parameter, a header, a path segment, or imported content',
    }),
    name: Type.String({ examples: ['email'], description: 'The field, parameter or header; for nested body fields a dotted path such as `assessments.2`' }),
    pointer: Type.Optional(Type.String({ examples: ['#/email'], description: 'JSON Pointer (RFC 6901) into the body, for body fields' })),
    line: Type.Optional(Type.Integer({ examples: [12], description: 'Line of imported content (1-based)' })),
    column: Type.Optional(Type.Integer({ examples: [5], description: 'Column of imported content (1-based)' })),
    detail: Type.String({ description: 'What is wrong with it', examples: ['must match format "email"'] }),
  },
  { additionalProperties: false },
);
export type FieldError = Static<typeof FieldError>;

export const ProblemDocument = Type.Object(
  {
    type: Type.String({ description: 'URI naming the kind of problem; stable, safe to branch on', examples: ['urn:assessment-connect:problem:validation-failed'] }),
    title: Type.String({ examples: ['Validation failed'], description: 'Short summary of the kind of problem' }),
    status: Type.Integer({ examples: [400], description: 'The HTTP status code' }),
    detail: Type.String({ description: 'What went wrong with this request, for a human', examples: ['email must match format "email"'] }),
    requestId: Type.String({
      examples: ['06ca2b52-a784-4d99-b611-50afcf7995ed'],
      description: 'Identifier of this request, also sent as the X-Request-Id header; quote it when reporting a problem',
    }),
    errors: Type.Optional(Type.Array(FieldError, { description: 'For validation problems: each offending field or parameter and why' })),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details', additionalProperties: false },
);
export type ProblemDocument = Static<typeof ProblemDocument>;

export const problemType = (code: ProblemCode) => `urn:assessment-connect:problem:${code}`;

export class Problem extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.status = PROBLEMS[code].status;
  }
}

export const invalid = (errors: FieldError[], detail?: string) => new Problem('validation-failed', detail ?? errors.map((e) => `${e.name}: ${e.detail}`).join('; '), errors);
