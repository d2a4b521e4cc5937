// The admin API's one gate: `Authorization: Bearer $ADMIN_TOKEN`, compared in constant time.
import type { FastifyInstance } from 'fastify';
import { secretsEqual } from '../modules/keys/secret.js';
import { Problem } from './problem.js';

export function registerAdminAuth(app: FastifyInstance, adminToken: string | undefined): void {
  app.addHook('onRequest', async (request) => {
    if (adminToken === undefined) {
      throw new Problem('admin-disabled', 'The admin API is off: set ADMIN_TOKEN to enable it');
    }
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match || !secretsEqual(match[1]!, adminToken)) {
      throw new Problem('unauthorized', 'A valid admin token is required: Authorization: Bearer <ADMIN_TOKEN>');
    }
  });
}
