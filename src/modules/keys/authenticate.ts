// Authentication of the public API (DESIGN §4): one onRequest hook for the whole /v1 prefix, and
// the resolution of the `instance` header into the instances a request may see.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Problem } from '../../http/problem.js';
import type { RefusalLimit, RequestBudget } from '../limits/rate-limit.js';
import type { KeyGrant, KeyRecord } from './repository.js';
import type { KeyVerifier } from './verifier.js';

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
 * were refused too often is turned away first (429), before its key is looked at; a missing
 * header is not counted as a refusal, only a presented key that is not valid.
 */
export function registerApiKeyAuth(app: FastifyInstance, verifier: KeyVerifier, limits: { failures: RefusalLimit; budget: RequestBudget }): void {
  app.decorateRequest('apiKey', null);
  app.addHook('onRequest', async (request, reply) => {
    await limits.failures.check(request);
    const header = request.headers['x-api-key'];
    const result = await verifier.verify(typeof header === 'string' ? header : undefined);
    if (!result.valid) {
      if (result.reason !== 'MISSING') await limits.failures.failed(request);
      throw new Problem('unauthorized', UNAUTHORIZED);
    }
    request.apiKey = result.key;
    await limits.budget.spend(result.key.id, result.key.rateLimit, reply);
  });
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
      throw new Problem('validation-failed', 'The instance header is required', [
        { in: 'header', name: 'instance', detail: 'is required: name the tenant instance' },
      ]);
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
