// Pieces of route schemas shared by several modules, so that the OpenAPI document says the same
// thing about the same header or error everywhere.
import { Type } from 'typebox';
import { MAX_JSON_DEPTH } from './json-body.js';
import { PROBLEMS, type ProblemCode } from './problem.js';

const ProblemRef = Type.Unsafe<unknown>({ $ref: 'Problem#' });

/** Documents the problem responses a route can give; they are rendered by the error handler. */
export function problemResponses(...codes: ProblemCode[]) {
  const responses: Record<number, unknown> = {};
  for (const code of codes) {
    const status = PROBLEMS[code].status;
    responses[status] = { ...ProblemRef, description: PROBLEMS[code].title };
  }
  return responses;
}

export const instanceHeader = (required: boolean) =>
  Type.Object({
    instance: required
      ? Type.String({ minLength: 1, description: 'Name of the tenant instance the request is about', examples: ['demo'] })
      : Type.Optional(
          Type.String({
            minLength: 1,
            description: 'Name of the tenant instance; absent: every instance the API key is granted',
            examples: ['demo'],
          }),
        ),
  });

export const publicSecurity = [{ apiKey: [] }];
export const adminSecurity = [{ adminToken: [] }];

/** A date-time in responses; handlers may return a Date, serialised as ISO 8601. */
export const DateTime = (options: { description?: string; examples?: string[] } = {}) =>
  Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', examples: ['2026-11-23T10:21:02.531Z'], ...options });

/**
 * Response headers every /v1 operation sends, added to the generated document in one place (the
 * route schemas describe bodies; these fields come from the authentication hook, not handlers).
 */
export const LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description:
      'The request budget of the API key (draft-ietf-httpapi-ratelimit-headers): `"default";q=<requests>;w=60`, requests per fixed 60-second window. Sent on every response to an authenticated request.',
    schema: { type: 'string', examples: ['"default";q=600;w=60'] },
  },
  RateLimit: {
    description: 'Where the key stands in the current window: `"default";r=<remaining>;t=<seconds until the window closes>`.',
    schema: { type: 'string', examples: ['"default";r=599;t=42'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 1, examples: [18] },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key, replayed without doing the work again.',
    schema: { type: 'string', enum: ['true'] },
  },
  Link: {
    description: 'With `limit`, while more records remain: `</v1/score?…&limit=N&cursor=…>; rel="next"` (RFC 8288), the next page, relative to the server.',
    schema: { type: 'string', examples: ['</v1/score?limit=100&cursor=AWmO0t3Yq2v8TzQ1yR4lXc9KbE7nHf0sU2pLgVwAjD6oMhZe5B>; rel="next"'] },
  },
} as const;

interface OpenApiDocument {
  components?: { headers?: Record<string, unknown> };
  paths?: Record<string, Record<string, { operationId?: string; description?: string; requestBody?: unknown; responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
}

/** Said of every operation that takes a body. */
export const DEPTH_NOTE = `A JSON body may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep; deeper is \`400\` (and the connection is closed). Its text must be Unicode: half of a UTF-16 surrogate pair escaped alone (such as \`\\udfff\`) is \`400\` too.`;

/** Said of every /v1 operation: the query string is strict. */
export const STRICT_QUERY_NOTE =
  'Query parameters are strict: one this operation does not declare (a typo such as `sendinvite`, or `candidateIds[]`) is `400`, naming it in `errors` with a suggestion when a declared parameter is close, rather than being ignored.';

/** Declares the RateLimit fields on every /v1 response, Retry-After on 429 and 503, and the replay marker on invite. */
export function documentLimitHeaders<T>(document: T): T {
  const doc = document as OpenApiDocument;
  // The document is the API's: the candidate portal's and the console's own routes (pages and
  // the form and JSON endpoints behind them) are not part of it, whatever their schemas say.
  for (const route of Object.keys(doc.paths ?? {})) {
    if (!/^\/(v1|admin\/v1)\/|^\/(healthz|readyz)$/.test(route)) delete doc.paths![route];
  }
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...LIMIT_HEADERS } };
  const ref = (name: keyof typeof LIMIT_HEADERS) => ({ $ref: `#/components/headers/${name}` });
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (operation.requestBody !== undefined) operation.description = operation.description ? `${operation.description} ${DEPTH_NOTE}` : DEPTH_NOTE;
    }
  }
  for (const [route, operations] of Object.entries(doc.paths ?? {})) {
    if (!route.startsWith('/v1/')) continue;
    for (const operation of Object.values(operations)) {
      operation.description = operation.description ? `${operation.description} ${STRICT_QUERY_NOTE}` : STRICT_QUERY_NOTE;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const headers: Record<string, unknown> = { ...response.headers };
        if (status !== '401') {
          headers['RateLimit-Policy'] = ref('RateLimit-Policy');
          headers.RateLimit = ref('RateLimit');
        }
        if (status === '429' || status === '503') headers['Retry-After'] = ref('Retry-After');
        if (status === '200' && operation.operationId === 'invite') headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
        if (status === '200' && operation.operationId === 'listScores') headers.Link = ref('Link');
        response.headers = headers;
      }
    }
  }
  return document;
}
