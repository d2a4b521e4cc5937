// Reads from DATABASE_READ_URL's replica (src/db/replica.ts), as the app uses it: the router, the
// job that checks the replica's lag, the log line at each change of its state, and the hook that
// makes an API key's own writes read from the primary for a moment after.
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/store.js';
import { apiClient, markedByCompletions, ReadRouter } from '../db/replica.js';
import type { Job } from '../jobs/runner.js';

export interface ReadRoutingOptions {
  primary: Database;
  replica: Database;
  now: () => Date;
  maxLagMs?: number;
  checkEveryMs?: number;
}

export function readRouting(app: FastifyInstance, options: ReadRoutingOptions) {
  const checkEveryMs = options.checkEveryMs ?? 500;
  const router = new ReadRouter({
    primary: options.primary,
    replica: options.replica,
    now: options.now,
    maxLagMs: options.maxLagMs ?? 2000,
    checkEveryMs,
    onChange(state, { lagMs, cause }) {
      if (state === 'up') app.log.warn({ lagMs }, 'read replica caught up: reads go to it again');
      else if (state === 'behind') app.log.warn({ lagMs }, 'read replica behind by more than REPLICA_MAX_LAG_MS: reads go to the primary until it catches up');
      else app.log.error({ err: cause }, 'read replica unreachable: reads go to the primary until it answers');
    },
  });
  // Completions by candidates mark the instance's keys sticky (instancesWrote) on this router while the app runs.
  const forget = markedByCompletions(router);
  app.addHook('onClose', async () => forget());
  const job: Job = { name: 'read-replica', everyMs: checkEveryMs, firstMs: 0, run: async () => void (await router.check()) };
  return {
    router,
    job,
    /**
     * In `scope` (/v1), a request that may have written (not GET or HEAD) and succeeded makes its
     * key's reads go to the primary for the router's stickyMs. Marked before the answer is sent,
     * so that no next read of the client can come first.
     */
    trackWrites(scope: FastifyInstance) {
      scope.addHook('onSend', (request, reply, payload, done) => {
        if (request.method !== 'GET' && request.method !== 'HEAD' && reply.statusCode < 400 && request.apiKey) router.wrote(apiClient(request.apiKey.id));
        done(null, payload);
      });
    },
  };
}
