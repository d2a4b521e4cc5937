// The request budget of an API key and the limit on refused credentials per client address.
//
// Budget: each key may make `rate_limit` requests (else RATE_LIMIT_PER_MINUTE) per fixed 60 s
// window; every authenticated /v1 response says where it stands in the RateLimit-Policy and
// RateLimit fields of draft-ietf-httpapi-ratelimit-headers (-09/-10), e.g.
//   RateLimit-Policy: "default";q=600;w=60
//   RateLimit: "default";r=599;t=42
// Over budget: 429 with Retry-After.
//
// Failed authentication: an address whose credentials were refused `authFailuresPerMinute`
// times in a window is turned away with 429 before its credentials are even looked at, so a
// correct key or token from that address is refused too until the window closes. That is the
// point: guessing must not be able to tell a hit from a miss.
//
// A credential that must be looked up is counted *before* the lookup, in one atomic increment
// (reserve), and the count is taken back only when it turns out valid (release). Checking first
// and counting after the lookup let parallel guesses outrun the limit: 500 concurrent wrong keys
// all passed the check before any was counted, and about 205 were looked up instead of 20. With
// the increment first, at most `authFailuresPerMinute` guesses per window are ever evaluated, on
// one node or (with Redis) across all of them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Problem } from '../../http/problem.js';
import { whenReady, type Maybe } from '../../domain/maybe.js';
import type { Counter, WindowState } from './counter.js';

export const WINDOW_MS = 60_000;
const WINDOW_SECONDS = WINDOW_MS / 1000;
export const POLICY_NAME = 'default';

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

export class RequestBudget {
  constructor(
    private readonly counter: Counter,
    private readonly defaultPerMinute: number,
  ) {}

  /** Counts a request of a key; sets the RateLimit fields; throws 429 when over budget (at once when the count is). */
  spend(keyId: string, keyLimit: number | null, reply: FastifyReply): Maybe<void> {
    const quota = keyLimit ?? this.defaultPerMinute;
    return whenReady(this.counter.hit(`key:${keyId}`, WINDOW_MS), (state) => this.answer(quota, state, reply));
  }

  private answer(quota: number, state: WindowState, reply: FastifyReply): void {
    const remaining = Math.max(0, quota - state.count);
    const reset = seconds(state.resetMs);
    const policy = `"${POLICY_NAME}";q=${quota};w=${WINDOW_SECONDS}`;
    const standing = `"${POLICY_NAME}";r=${remaining};t=${reset}`;
    reply.header('ratelimit-policy', policy);
    reply.header('ratelimit', standing);
    if (state.count > quota) {
      throw new Problem('rate-limited', `This API key may make ${quota} requests per minute; retry in ${reset} s`, undefined, {
        'ratelimit-policy': policy,
        ratelimit: standing,
        'retry-after': String(reset),
      });
    }
  }
}

/**
 * Refusals per client address in a window: refused credentials (one count for the public and one
 * for the admin API), and requests for paths that do not exist (URL probing). Past the limit the
 * address gets 429 before its request is looked at.
 */
export class RefusalLimit {
  constructor(
    private readonly counter: Counter,
    private readonly perMinute: number,
    /** Separates the counts, e.g. 'v1', 'admin', 'not-found'. */
    private readonly scope: string,
    /** What is refused, for the message: 'refused credentials', 'requests for unknown paths'. */
    private readonly what = 'refused credentials',
  ) {}

  /** Refuses an address that has been refused too often in the current window (at once when the count is known at once). */
  check(request: FastifyRequest): Maybe<void> {
    return whenReady(this.counter.peek(this.key(request)), (state) => {
      if (state.count >= this.perMinute) throw this.refusal(request, state.resetMs);
    });
  }

  private refusal(request: FastifyRequest, resetMs: number): Problem {
    const reset = String(seconds(resetMs));
    request.log.warn({ ip: request.ip, scope: this.scope }, `too many ${this.what} from this address`);
    return new Problem('rate-limited', `Too many ${this.what} from this address; retry in ${reset} s`, undefined, { 'retry-after': reset });
  }

  /**
   * Counts a refusal of the request's address up front, atomically, and refuses the request (429)
   * when that makes too many: call it before evaluating a credential (or serving an unknown path),
   * and `release` when the credential turns out valid.
   */
  async reserve(request: FastifyRequest): Promise<void> {
    const state = await this.counter.hit(this.key(request), WINDOW_MS);
    if (state.count > this.perMinute) throw this.refusal(request, state.resetMs);
  }

  /**
   * Counts a refusal after the fact. Prefer `reserve` before an evaluation: check, evaluate, then
   * count lets parallel attempts pass the check before any of them is counted.
   */
  async failed(request: FastifyRequest): Promise<void> {
    await this.counter.hit(this.key(request), WINDOW_MS);
  }

  /** Takes back a reservation whose credential was valid. */
  async release(request: FastifyRequest): Promise<void> {
    await this.counter.undo(this.key(request));
  }

  private key(request: FastifyRequest): string {
    return `auth:${this.scope}:${request.ip}`;
  }
}
