// Authentication of the public API: one onRequest hook for the whole /v1 prefix, and
// the resolution of the `instance` header into the instances a request may see.
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Problem } from '../../http/problem.js';
import { whenReady, type Maybe } from '../../domain/maybe.js';
import type { RefusalLimit, RequestBudget } from '../limits/rate-limit.js';
import type { KeyGrant, KeyRecord } from './repository.js';
import type { KeyVerifier, Verification } from './verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyRecord | null;
  }
}

// One message for every refused key, so that the reason (unknown, revoked, expired) is not told.
const UNAUTHORIZED = 'A valid API key is required in the X-API-Key header';
const FORBIDDEN = 'This API key is not granted the requested instance';

/**
 * Checks the key of every request, then spends one request of its budget. An address whose keys
 * were refused too often is turned away (429) before its key is looked at; a missing header is
 * not counted as a refusal, only a presented key that is not valid.
 *
 * A key that needs a database lookup is counted as a refusal *before* the lookup, atomically
 * (RefusalLimit.reserve), and the count is taken back when the key is valid: so at most the limit
 * of guesses per window is ever looked up, however many arrive at once. A key this node verified
 * a moment ago (KeyVerifier's cache) needs no lookup and only looks whether the address is
 * blocked. Concurrent requests with the same key on this node share one lookup and one count, so
 * a client sending many requests at once with its (not yet cached) key is not taken for a guesser.
 */
export function registerApiKeyAuth(app: FastifyInstance, verifier: KeyVerifier, limits: { failures: RefusalLimit; budget: RequestBudget }): void {
  app.decorateRequest('apiKey', null);
  const authenticate = keyAuthenticator(verifier, limits);
  const admit = (request: FastifyRequest, key: KeyRecord | undefined, done: HookHandlerDoneFunction) => {
    if (!key) return done(new Problem('unauthorized', UNAUTHORIZED));
    request.apiKey = key;
    done();
  };
  // A callback hook, so that a key verified a moment ago, counted in memory, passes at once.
  app.addHook('onRequest', (request, reply, done) => {
    const header = request.headers['x-api-key'];
    let outcome: Maybe<KeyRecord | undefined>;
    try {
      outcome = authenticate(request, reply, typeof header === 'string' ? header : '');
    } catch (error) {
      return done(error as Error);
    }
    if (outcome instanceof Promise) outcome.then((key) => admit(request, key, done), done);
    else admit(request, outcome, done);
  });
}

/**
 * The check of a presented API key shared by every surface that takes one (the v1 API in
 * X-API-Key, the ATS adapters in HTTP Basic): the refused-key limit of the client's address, the
 * lookup (shared by concurrent requests with the same key), and one request spent of the key's
 * budget. The key when it is valid; undefined (a refusal counted) when it is not.
 */
export function keyAuthenticator(verifier: KeyVerifier, limits: { failures: RefusalLimit; budget: RequestBudget }) {
  /** Lookups in flight on this node, by client address and presented key. */
  const inFlight = new Map<string, Promise<Verification>>();

  async function evaluate(request: FastifyRequest, presented: string): Promise<Verification> {
    await limits.failures.reserve(request);
    let result: Verification;
    try {
      result = await verifier.verify(presented);
    } catch (error) {
      // The lookup failed (the database is away): that is no refused credential. Without giving
      // the count back, a client's own requests during an outage blocked its address (429) for the
      // rest of the window after the database was back (found by the outage suite).
      await limits.failures.release(request).catch(() => {});
      throw error;
    }
    if (result.valid) await limits.failures.release(request);
    return result;
  }

  /** One request of the key's budget spent; the key. */
  const spent = (key: KeyRecord, reply: FastifyReply): Maybe<KeyRecord> => whenReady(limits.budget.spend(key.id, key.rateLimit, reply), () => key);

  /** A key that must be looked up (shared by concurrent requests with it from one address). */
  async function looked(request: FastifyRequest, reply: FastifyReply, presented: string): Promise<KeyRecord | undefined> {
    const id = `${request.ip}\u0000${presented}`;
    let pending = inFlight.get(id);
    if (!pending) {
      pending = evaluate(request, presented).finally(() => inFlight.delete(id));
      inFlight.set(id, pending);
    }
    const result = await pending;
    return result.valid ? spent(result.key, reply) : undefined;
  }

  // No header, or a key this node verified a moment ago: the address's refusals are looked at and
  // the budget spent, at once when both are counted in memory.
  return (request: FastifyRequest, reply: FastifyReply, presented: string): Maybe<KeyRecord | undefined> => {
    if (presented === '') return whenReady(limits.failures.check(request), () => undefined);
    const cached = verifier.cachedValid(presented, request.raw.socket);
    if (!cached) return looked(request, reply, presented);
    return whenReady(limits.failures.check(request), () => spent(cached, reply));
  };
}

/**
 * The instances a request may see: the one named by the `instance` header when the key is granted
 * it, or every instance the key is granted when the header is absent and not required.
 */
export function instanceScope(request: FastifyRequest, options: { required: boolean }): KeyGrant[] {
  const key = request.apiKey;
  if (!key) throw new Problem('unauthorized', UNAUTHORIZED);
  const header = request.headers.instance;
  if (header === undefined) {
    if (options.required) {
      throw new Problem('validation-failed', 'The instance header is required', [{ in: 'header', name: 'instance', detail: 'is required: name the tenant instance' }]);
    }
    return key.instances;
  }
  const name = Array.isArray(header) ? header.join(',') : header.trim();
  if (name === '') {
    throw new Problem('validation-failed', 'The instance header is empty', [{ in: 'header', name: 'instance', detail: 'must not be empty' }]);
  }
  const grant = key.instances.find((instance) => instance.name === name);
  // Unknown and not granted answer alike, so that instance names cannot be probed.
  if (!grant) throw new Problem('forbidden', FORBIDDEN);
  return [grant];
}
