// The admin API's one gate: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time
// (both sides hashed to the same length, then timingSafeEqual). An address whose tokens were
// refused too often is turned away (429) whatever its token, so that guessing is slow and a
// correct guess cannot be told from a wrong one while the address is blocked.
import type { FastifyInstance } from 'fastify';
import { Problem } from '../../http/problem.js';
import type { RefusalLimit } from '../limits/rate-limit.js';
import { secretsEqual } from './secret.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** True once the admin token of the request was accepted. */
    adminAuthenticated: boolean;
  }
}

export function registerAdminAuth(app: FastifyInstance, adminToken: string | undefined, failures: RefusalLimit): void {
  app.decorateRequest('adminAuthenticated', false);
  app.addHook('onRequest', async (request) => {
    if (adminToken === undefined) {
      throw new Problem('admin-disabled', 'The admin API is off: set ADMIN_TOKEN to enable it');
    }
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const valid = match !== null && secretsEqual(match[1]!, adminToken);
    // A refused token is counted before it is answered, in one atomic step (no check-then-count
    // race for parallel guesses); a correct one only looks whether the address is blocked.
    if (valid || header === '') await failures.check(request);
    else await failures.reserve(request);
    if (!valid) throw new Problem('unauthorized', 'A valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>');
    request.adminAuthenticated = true;
  });
}
