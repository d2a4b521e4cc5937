// Renders every failure as a problem document (RFC 9457) with the request id: our own Problems,
// the framework's validation and parsing errors, an unreachable database (503), and anything
// unexpected (500, logged with its stack, shown to nobody).
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailable, isUnavailable } from '../db/database.js';
import { DomainError, type DomainErrorCode } from '../domain/errors.js';
import { PROBLEMS, Problem, problemType, type FieldError, type ProblemCode, type ProblemDocument } from './problem.js';

const RETRY_AFTER_SECONDS = '5';

export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: Problem): FastifyReply {
  const document: ProblemDocument = {
    type: problemType(problem.code),
    title: PROBLEMS[problem.code].title,
    status: problem.status,
    detail: problem.detail,
    requestId: request.id,
  };
  if (problem.errors) document.errors = problem.errors;
  if (problem.headers) reply.headers(problem.headers);
  return reply.code(problem.status).type('application/problem+json; charset=utf-8').send(JSON.stringify(document));
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: { 'x-pattern-message'?: string };
}

const LOCATIONS: Record<string, FieldError['in']> = { body: 'body', querystring: 'query', headers: 'header', params: 'path' };

/** Turns the validator's findings into one entry per offending field, in the client's terms. */
export function fieldErrors(context: string, validation: AjvError[]): FieldError[] {
  return validationFindings(context, validation).map((finding) => finding.entry);
}

/** fieldErrors with the rule each field broke (the validator's keyword: `required`, `format`, `pattern`, …). */
export function validationFindings(context: string, validation: AjvError[]): { entry: FieldError; keyword: string }[] {
  const location = LOCATIONS[context] ?? 'body';
  const seen = new Set<string>();
  const errors: { entry: FieldError; keyword: string }[] = [];
  for (const error of validation) {
    const segments = error.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let detail = error.message ?? 'is invalid';
    if (error.keyword === 'required') {
      segments.push(String(error.params.missingProperty));
      detail = 'is required';
    } else if (error.keyword === 'additionalProperties') {
      segments.push(String(error.params.additionalProperty));
      detail = 'is not a known field';
    } else if (error.keyword === 'pattern') {
      detail = error.parentSchema?.['x-pattern-message'] ?? 'is not in the expected format';
    } else if (error.keyword === 'anyOf' || error.keyword === 'oneOf') {
      // The branches' own errors say more; keep the summary only when nothing else names the field.
      if (validation.some((other) => other !== error && other.instancePath.startsWith(error.instancePath) && other.keyword !== error.keyword)) continue;
    }
    const name = segments.join('.') || (location === 'body' ? '(body)' : '(query)');
    const key = `${name}\u0000${detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const entry: FieldError = { in: location, name, detail };
    if (location === 'body') entry.pointer = `#/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
    errors.push({ entry, keyword: error.keyword });
  }
  // A body that fails a union (a string or an array) reports each branch; keep the first per field.
  const firstPerField = new Map<string, { entry: FieldError; keyword: string }>();
  for (const finding of errors) if (!firstPerField.has(finding.entry.name)) firstPerField.set(finding.entry.name, finding);
  return [...firstPerField.values()];
}

const FRAMEWORK_PROBLEMS: Record<string, { code: ProblemCode; detail: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported-media-type', detail: 'This content type is not accepted here; send application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload-too-large', detail: 'The request body is larger than the limit of 1 MB' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'validation-failed', detail: 'Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'validation-failed', detail: 'The request body is empty; send a JSON document' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'validation-failed', detail: 'The request body is not valid JSON' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'validation-failed', detail: 'The Content-Type header is malformed' },
  FST_ERR_BAD_URL: { code: 'validation-failed', detail: 'The request URL is malformed' },
};

/** Counts a client's refused requests (the limits module's RefusalLimit has this shape). */
export interface ProbeLimit {
  reserve(request: FastifyRequest): Promise<void>;
}

export function registerErrorHandling(app: FastifyInstance, options: { probing?: ProbeLimit } = {}): void {
  // Unknown paths are counted per client address: a scanner walking the URL space is turned
  // away with 429 after a while, a client with one wrong link is not.
  app.setNotFoundHandler(async (request, reply) => {
    await options.probing?.reserve(request);
    return sendProblem(request, reply, new Problem('not-found', `No route ${request.method} ${request.url.split('?')[0]}`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendProblem(request, reply, problemFor(error, request)));
}

/**
 * The one mapping from anything thrown to the problem it is answered with, for every surface
 * (public API, admin API, portal, console): our Problems as they are, domain errors by their code,
 * the framework's validation and parsing errors, an unreachable database (503 with Retry-After),
 * and anything unexpected (500, logged with its stack, its message shown to nobody).
 */
export function problemFor(error: unknown, request: FastifyRequest): Problem {
  if (error instanceof Problem) return error;
  if (error instanceof DomainError) return fromDomain(error);
  const e = error as FastifyError & { validationContext?: string };
  if (e.validation) {
    const errors = fieldErrors(e.validationContext ?? 'body', e.validation as AjvError[]);
    return new Problem('validation-failed', errors.map((f) => `${f.name} ${f.detail}`).join('; '), errors);
  }
  const known = e.code ? FRAMEWORK_PROBLEMS[e.code] : undefined;
  if (known) return new Problem(known.code, known.detail);
  if (error instanceof SyntaxError && e.statusCode === 400) return new Problem('validation-failed', 'The request body is not valid JSON');
  if (isUnavailable(error)) {
    // While the breaker is open a request fails fast without trying the database: the outage is
    // logged once when it begins and once when it ends (src/server.ts), and each such request's
    // 503 is in its request line; a line with a stack for each would be thousands a second.
    if (error instanceof DatabaseUnavailable) request.log.debug({ err: error }, 'database unavailable');
    else request.log.warn({ err: error }, 'database unavailable');
    return new Problem('unavailable', 'The database is unreachable; retry shortly', undefined, { 'retry-after': RETRY_AFTER_SECONDS });
  }
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    const code = (Object.keys(PROBLEMS) as ProblemCode[]).find((c) => PROBLEMS[c].status === e.statusCode) ?? 'validation-failed';
    return new Problem(code, PROBLEMS[code].title);
  }
  request.log.error({ err: error }, 'unhandled error');
  return new Problem('internal', 'Something went wrong on our side; quote the request id when reporting it');
}

const DOMAIN_PROBLEMS: Record<DomainErrorCode, ProblemCode> = {
  invalid: 'validation-failed',
  'not-found': 'not-found',
  conflict: 'conflict',
  forbidden: 'forbidden',
  'too-large': 'payload-too-large',
  'unsupported-type': 'unsupported-media-type',
  'too-soon': 'rate-limited',
};

function fromDomain(error: DomainError): Problem {
  const errors = error.fields?.map((f): FieldError => {
    const entry: FieldError = { in: f.in ?? 'body', name: f.name, detail: f.detail };
    if (entry.in === 'body')
      entry.pointer = `#/${f.name
        .split('.')
        .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/')}`;
    if (f.line !== undefined) entry.line = f.line;
    if (f.column !== undefined) entry.column = f.column;
    return entry;
  });
  return new Problem(DOMAIN_PROBLEMS[error.code], error.message, errors);
}

/**
 * Errors Node's HTTP parser meets before there is a request (a client too slow to send it,
 * headers over 16 KB, bytes that are not HTTP): answered as problem documents too, and the
 * connection closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, detail]: [ProblemCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request-timeout', 'The request was not received in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers-too-large', 'The request headers are larger than 16 KB']
        : ['malformed-request', 'The request is not valid HTTP/1.1'];
  const { status, title } = PROBLEMS[code];
  const body = JSON.stringify({ type: problemType(code), title, status, detail, requestId: randomUUID() } satisfies ProblemDocument);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Errors the router meets before a route is chosen, such as a URL that does not decode. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendProblem(request, reply, new Problem('malformed-request', error.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid: it has a malformed percent-encoding' : error.message));
}
