// What the service logs about a request, and what it never logs: API keys, the admin token,
// session cookies and link tokens stay out of every line, including ones a client put where
// they do not belong (a key in the query string).
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';

const SECRET_IN_URL = /(ack_[A-Za-z0-9_-]+|sessionToken=[^&#\s]+|[?&](?:token|api_?key|key|access_token)=[^&#\s]+)/gi;

/** A URL with anything secret-looking replaced by [redacted]. */
export function scrubUrl(url: string): string {
  return url.replace(SECRET_IN_URL, (match) => {
    const eq = match.indexOf('=');
    return eq >= 0 ? `${match.slice(0, eq + 1)}[redacted]` : 'ack_[redacted]';
  });
}

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

/** Hears a request once it is answered (its last byte written, or its connection failed). */
export type RequestListener = (request: FastifyRequest, reply: FastifyReply) => void;

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
    for (const listener of this.listeners) listener(request, reply);
    // Below the level nothing is written, so nothing is built (the scrubbed URL, the route): at
    // LOG_LEVEL=warn that was 5 % of a node's time answering /healthz in a CPU profile.
    if (!(reply.log as { isLevelEnabled?(level: string): boolean }).isLevelEnabled?.(error ? 'error' : 'info')) return;
    const line = {
      method: request.method,
      route: request.routeOptions.url,
      url: scrubUrl(request.url),
      statusCode: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
