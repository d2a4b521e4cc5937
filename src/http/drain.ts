// Draining on shutdown (SIGTERM). From the moment the app starts closing:
// - the listener closes at once: new connections are refused, so clients go elsewhere;
// - every request still arriving on an open keep-alive connection gets a complete 503 problem
//   with `Retry-After` (behind a load balancer the client retries on another node), and every
//   response, also of requests already being handled, says `Connection: close`;
// - keep-alive connections that sit idle are closed only after a grace period. Node's
//   server.close() would close them at once, racing with clients that are just sending their
//   next request on them: those requests would be cut off. Within the grace period every active
//   client has its connection closed by a complete answer instead.
import type { FastifyInstance } from 'fastify';
import { Problem } from './problem.js';

/** How long idle keep-alive connections stay open once draining began. */
const GRACE_MS = 500;

/** Whether the app is draining; the caller adds `Connection: close` to every answer while it is. */
export interface Drain {
  readonly draining: boolean;
}

export function registerDrain(app: FastifyInstance): Drain {
  const state = { draining: false };
  let timer: NodeJS.Timeout | undefined;

  // Synchronous: it runs on every request.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!state.draining) return done();
    reply.header('connection', 'close');
    done(new Problem('unavailable', 'This server is shutting down; retry the request', undefined, { 'retry-after': '1', connection: 'close' }));
  });
  app.addHook('preClose', async () => {
    state.draining = true;
    const server = app.server;
    const closeIdle = server.closeIdleConnections.bind(server);
    // server.close(), which Fastify calls next, closes idle connections through this method.
    server.closeIdleConnections = () => {};
    timer = setTimeout(closeIdle, GRACE_MS);
  });
  app.addHook('onClose', async () => clearTimeout(timer));
  return state;
}
