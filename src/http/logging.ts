// What the service logs about a request: pino's options, and the one line per request written
// straight to pino's stream (through pino's internal symbols, for speed). What it never logs:
// API keys, the admin token and session cookies in headers are redacted here; the URL is
// scrubbed by scrub-url.ts.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import pino from 'pino';
import { wallMs } from '../domain/clock.js';
import { scrubUrl } from './scrub-url.js';

export function loggerOptions(level: string, stream?: { write(line: string): unknown }): NonNullable<FastifyServerOptions['logger']> {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]', 'token', 'key'],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: { method: string; url: string; ip?: string; id?: string }) => ({ method: request.method, url: scrubUrl(request.url), remoteAddress: request.ip }),
    },
  } as NonNullable<FastifyServerOptions['logger']>;
}

/** What is known of a request once it is answered, worked out once for its line and every listener. */
export interface Answered {
  /** The route's template (`/v1/score`), undefined when no route matched. */
  route: string | undefined;
  /** Time from the request's arrival to its answer, in ms. */
  ms: number;
}

/** Hears a request once it is answered (its last byte written, or its connection failed). */
export type RequestListener = (request: FastifyRequest, reply: FastifyReply, answered: Answered) => void;

const { chindingsSym, formattersSym, hooksSym, messageKeySym, mixinSym, nestedKeySym, needsMetadataGsym, serializersSym, streamSym, stringifiersSym, timeSym, wildcardFirstSym } =
  pino.symbols;
// (Not in pino's types, though among its symbols: a child's message prefix.)
const msgPrefixSym = (pino.symbols as unknown as Record<string, symbol>).msgPrefixSym!;
type PinoInternals = Record<symbol, unknown>;
interface LineStream {
  write(line: string): unknown;
}

type LogArgs = [object: unknown, message?: string, ...rest: unknown[]];

/**
 * A request's logger (request.log and reply.log): the server's logger and the request's bindings
 * (its reqId). pino's child bound to them is made the first time a line is written through it,
 * at a level that is on; most requests write only their request line, which is built from the
 * server's bindings and the request's without it (requestLine). Fastify hands pino options with
 * each child, and pino then builds the child's formatters and serializers anew: that was about
 * 2 µs of a score read's CPU, for every request.
 */
export class RequestLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;

  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindings: Record<string, unknown>,
  ) {}

  /** pino's child logger for this request, made now if it was not yet. */
  get made(): FastifyBaseLogger {
    return (this.#made ??= this.parent.child(this.bindings));
  }

  /** Whether the child was made: a line written through it, its level set, a child asked of it, or a binding only pino can write. */
  get isMade(): boolean {
    return this.#made !== undefined;
  }

  get level(): string {
    return (this.#made ?? this.parent).level;
  }

  set level(level: string) {
    this.made.level = level;
  }

  isLevelEnabled(level: string): boolean {
    return ((this.#made ?? this.parent) as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level);
  }

  fatal(...args: LogArgs): void {
    if (this.isLevelEnabled('fatal')) this.made.fatal(...args);
  }

  error(...args: LogArgs): void {
    if (this.isLevelEnabled('error')) this.made.error(...args);
  }

  warn(...args: LogArgs): void {
    if (this.isLevelEnabled('warn')) this.made.warn(...args);
  }

  info(...args: LogArgs): void {
    if (this.isLevelEnabled('info')) this.made.info(...args);
  }

  debug(...args: LogArgs): void {
    if (this.isLevelEnabled('debug')) this.made.debug(...args);
  }

  trace(...args: LogArgs): void {
    if (this.isLevelEnabled('trace')) this.made.trace(...args);
  }

  silent(): void {}

  child(bindings: Record<string, unknown>, options?: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory: a RequestLogger for each request. A route with a log level or
 * serializers of its own (none has one today) gets pino's child at once, with them.
 */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => {
  for (const _ in options) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings);
};

/**
 * The stream a logger writes to, when its lines are pino's plain ones (as loggerOptions makes
 * them): numeric level, epoch time, "msg", no mixin, prefix, nesting, formatters or hooks. Then a
 * request line built in one template (requestLine) is the very line pino would write. Looked at on
 * every line (a few property reads): loggers sharing a stream may be set up differently. Whether a
 * level formatter writes `"level":n` alone is asked once per formatter function.
 */
export function plainStream(log: FastifyBaseLogger): LineStream | null {
  if (log instanceof RequestLogger && !log.isMade) return plainStreamOf(log.parent);
  const internals = log as unknown as PinoInternals;
  const stream = internals[streamSym] as LineStream | undefined;
  if (!stream || typeof stream.write !== 'function' || (stream as unknown as PinoInternals)[needsMetadataGsym]) return null;
  if (internals[timeSym] !== pino.stdTimeFunctions.epochTime || internals[messageKeySym] !== 'msg' || internals[mixinSym] || internals[nestedKeySym] || internals[msgPrefixSym])
    return null;
  const formatters = internals[formattersSym] as { level?: (label: string, n: number) => { level?: unknown }; log?: unknown } | undefined;
  const hooks = internals[hooksSym] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  if (formatters?.log !== undefined || hooks?.logMethod || hooks?.streamWrite) return null;
  return formatters?.level && numericLevel(formatters.level) ? stream : null;
}

/** plainStream of a server's logger, whose setup is fixed when it is made: asked once. */
const plainStreams = new WeakMap<object, LineStream | null>();
function plainStreamOf(log: FastifyBaseLogger): LineStream | null {
  let stream = plainStreams.get(log);
  if (stream === undefined) {
    stream = plainStream(log);
    plainStreams.set(log, stream);
  }
  return stream;
}

/** For each server logger, the text (`,"key":`) of each binding key it writes as plain JSON, or null. */
const bindingKeys = new WeakMap<object, Map<string, string | null>>();

/** `,"key":` when the logger writes a string bound to `key` as JSON.stringify does (no serializer or redaction of its own); else null. */
function plainKey(parent: PinoInternals, key: string): string | null {
  let keys = bindingKeys.get(parent);
  if (!keys) bindingKeys.set(parent, (keys = new Map()));
  let text = keys.get(key);
  if (text === undefined) {
    const serializers = parent[serializersSym] as Record<string, unknown>;
    const stringifiers = parent[stringifiersSym] as Record<string | symbol, unknown>;
    text = serializers[key] || stringifiers[key] || stringifiers[wildcardFirstSym] ? null : `,${JSON.stringify(key)}:`;
    keys.set(key, text);
  }
  return text;
}

/**
 * The bindings' text of a logger (pino's chindings: `,"pid":…,"hostname":…,"reqId":…`). For a
 * RequestLogger whose child was not made, the text pino would give the child: its parent's and
 * then each binding's, when every binding is a string with no serializer or redaction of its own
 * (as reqId is); otherwise the child is made and its own text taken.
 */
function bindingsText(log: FastifyBaseLogger): string {
  if (!(log instanceof RequestLogger) || log.isMade) return (log as unknown as PinoInternals)[chindingsSym] as string;
  const parent = log.parent as unknown as PinoInternals;
  let text = parent[chindingsSym] as string;
  for (const key in log.bindings) {
    const value = log.bindings[key];
    const keyText = typeof value === 'string' && Object.hasOwn(log.bindings, key) ? plainKey(parent, key) : null;
    if (keyText === null) return (log.made as unknown as PinoInternals)[chindingsSym] as string;
    text += keyText + JSON.stringify(value);
  }
  return text;
}

const numericLevels = new WeakMap<object, boolean>();
function numericLevel(format: (label: string, n: number) => { level?: unknown }): boolean {
  let numeric = numericLevels.get(format);
  if (numeric === undefined) {
    const level = format('info', 30);
    numeric = level.level === 30 && Object.keys(level).length === 1;
    numericLevels.set(format, numeric);
  }
  return numeric;
}

/**
 * The request line of a plain logger (see plainStream): the JSON pino writes for
 * `log.info({ method, route, url, statusCode, ms, ip }, 'request')`, keys in the same order, with
 * the logger's bindings (pid, hostname, the request's reqId). Built in one template instead of
 * through pino: at 9,000 score reads a second that was 3-5 µs of a read's ~95 µs of CPU.
 */
function requestLine(log: FastifyBaseLogger, request: FastifyRequest, reply: FastifyReply, { route, ms }: Answered): string {
  return (
    `{"level":30,"time":${wallMs()}${bindingsText(log)},"method":${quoted(request.method)}` +
    `${route === undefined ? '' : `,"route":${quoted(route)}`},"url":${JSON.stringify(scrubUrl(request.url))}` +
    `,"statusCode":${reply.statusCode},"ms":${Math.round(ms * 10) / 10},"ip":${JSON.stringify(request.ip)},"msg":"request"}\n`
  );
}

/** The JSON texts of the few strings every line repeats (methods, route templates), each made once. */
const quotedTexts = new Map<string, string>();
function quoted(text: string): string {
  let json = quotedTexts.get(text);
  if (json === undefined) {
    json = JSON.stringify(text);
    if (quotedTexts.size < 1000) quotedTexts.set(text, json);
  }
  return json;
}

/**
 * What an operator needs of every request, in one line written when it is answered: its id
 * (reqId, bound to the request's logger), method, route and path (secrets scrubbed), status, time
 * and client address. Half the lines of Fastify's own request logging (which also writes one when
 * the request arrives), with fewer fields each.
 */
export class OneLineRequestLog extends LogController {
  private listeners: RequestListener[] = [];

  /**
   * Has `listener` hear every answered request, as the line is written (metrics count requests
   * here: an onResponse hook would cost each request Fastify's hook runner and its three closures
   * more). Fastify reports requests to its log controller only when it has a logger.
   */
  listen(listener: RequestListener): void {
    this.listeners.push(listener);
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const log = reply.log;
    // Below the level nothing is written, so nothing is built (the scrubbed URL, the route): at
    // LOG_LEVEL=warn that was 5 % of a node's time answering /healthz in a CPU profile.
    const written = (log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.(error ? 'error' : 'info') === true;
    if (!written && this.listeners.length === 0) return;
    // The route's template is a new object of Fastify's at each look: looked at once.
    const answered: Answered = { route: request.routeOptions.url, ms: reply.elapsedTime };
    for (const listener of this.listeners) listener(request, reply, answered);
    if (!written) return;
    if (!error) {
      const stream = plainStream(log);
      if (stream) {
        stream.write(requestLine(log, request, reply, answered));
        return;
      }
    }
    const line = {
      method: request.method,
      route: answered.route,
      url: scrubUrl(request.url),
      statusCode: reply.statusCode,
      ms: Math.round(answered.ms * 10) / 10,
      ip: request.ip,
    };
    if (error) log.error({ ...line, err: error }, 'request errored');
    else log.info(line, 'request');
  }
}
