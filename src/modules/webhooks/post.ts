// One HTTP request of a webhook (or of an ATS's callback): to the address the guarded lookup checked, at most `timeoutMs`
// for the whole exchange, no redirect followed (a 3xx is an answer, and a failure), and only the
// first 1 KB of the answer read and kept (an ATS adapter reading a document of the ATS's API asks for more).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ForbiddenAddress, guardedLookup, isForbiddenAddress } from './ssrf.js';
import { monotonicMs } from '../../domain/clock.js';

export interface PostOutcome {
  /** The HTTP status, undefined when there was no answer. */
  status?: number;
  /**
   * The first 1 KB of the answer, or, without one, what went wrong as a category the tenant may
   * see (FAILURE_CATEGORIES): never a DNS name, an address or a system message.
   */
  response: string;
  /** Without an answer: the full reason (addresses, system errors), for the operator's log only. */
  detail?: string;
  durationMs: number;
}

/** What a tenant is told of a delivery that got no answer. */
export const FAILURE_CATEGORIES = [
  'invalid URL',
  'address not allowed',
  'timeout',
  'connection refused',
  'host not found',
  'connection reset',
  'host unreachable',
  'TLS error',
  'connection failed',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/**
 * Failures that are the service's own refusal, not the receiver's trouble (an address the guard
 * refuses, a URL that does not parse): asking again will not change them, so a delivery or
 * callback that meets one fails at once, with its category, and waits for the tenant to fix the
 * address and send it again (a webhook replay, a callback retry).
 */
export function refusedByPolicy(outcome: Pick<PostOutcome, 'status' | 'response'>): boolean {
  return outcome.status === undefined && (outcome.response === 'address not allowed' || outcome.response === 'invalid URL');
}

/** The category of a failed request's error: the tenant's view of it. */
export function failureCategory(error: NodeJS.ErrnoException | ForbiddenAddress): FailureCategory {
  const code = String(error.code ?? '');
  if (error instanceof ForbiddenAddress || code === 'EFORBIDDENADDRESS') return 'address not allowed';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NODATA' || code === 'EAI_NONAME') return 'host not found';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'connection reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EHOSTDOWN' || code === 'ENETDOWN') return 'host unreachable';
  if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (/^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(code) || /certificate|ssl|tls/i.test(error.message)) return 'TLS error';
  return 'connection failed';
}

const KEEP_BYTES = 1024;

/**
 * One request to a receiver outside (a webhook endpoint, an ATS's callback): POST unless `method`
 * says otherwise; an empty body is sent as none (Content-Length: 0, no Content-Type).
 */
export function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: { timeoutMs: number; allowPrivate: boolean; method?: 'POST' | 'PATCH' | 'PUT' | 'GET'; keepBytes?: number },
): Promise<PostOutcome> {
  const started = monotonicMs();
  const keep = options.keepBytes ?? KEEP_BYTES;
  return new Promise((resolve) => {
    let settled = false;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    const done = (outcome: Omit<PostOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.round(monotonicMs() - started) });
    };
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return done({ response: 'invalid URL', detail: 'the endpoint URL is not valid' });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isForbiddenAddress(host) && !options.allowPrivate) return done({ response: 'address not allowed', detail: new ForbiddenAddress(host, host).message });
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: options.method ?? 'POST',
        headers: {
          ...(body === '' ? {} : { 'content-type': 'application/json' }),
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'AssessmentConnect-Webhooks/1',
        },
        lookup: guardedLookup(options.allowPrivate),
        agent: false,
        signal: controller.signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < keep) {
            chunks.push(chunk.subarray(0, keep - kept));
            kept += Math.min(chunk.length, keep - kept);
          }
          if (kept >= keep) response.destroy();
        });
        const finish = () => done({ status: response.statusCode, response: Buffer.concat(chunks).toString('utf8') });
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      done(
        controller.signal.aborted
          ? { response: 'timeout', detail: `no answer within ${options.timeoutMs} ms` }
          : { response: failureCategory(error), detail: `${error.code ?? 'error'}: ${error.message}`.slice(0, KEEP_BYTES) },
      ),
    );
    request.end(body);
  });
}
