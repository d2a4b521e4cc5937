// Draining on shutdown (SIGTERM, SIGINT). Two phases:
// 1. Leaving (from the signal, for SHUTDOWN_DELAY_MS): `/readyz` answers 503 at once, so that a
//    load balancer takes the node out of rotation, but the listener stays open and every request
//    is served as usual (keep-alive connections too: answering them with `Connection: close` made
//    clients that had just sent their next request on them see a reset). Closing
//    the listener at once would reset every connection the kernel had already accepted into the
//    listen queue but node had not yet taken: under a burst of new connections, about half.
// 2. Closing (app.close()): the listener closes, new connections are refused; every request still
//    arriving on an open keep-alive connection gets a complete 503 problem with `Retry-After`, and
//    requests already being handled finish. Keep-alive connections that sit idle are closed only
//    after a grace period: Node's server.close() would close them at once, racing with clients
//    that are just sending their next request on them.
// Signals: the first SIGTERM/SIGINT/SIGHUP starts the shutdown. Under `npm start` the same signal
// often arrives twice (sent to the process group by systemd or a terminal, and forwarded by npm
// or by the WORKERS primary); a repeat within a second is the same request and is ignored. A
// later repeat (an impatient Ctrl-C) exits at once.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Problem } from './problem.js';
import { monotonicMs } from '../domain/clock.js';

/** How long idle keep-alive connections stay open once the listener closed. */
const GRACE_MS = 500;
/** A repeat of the shutdown signal within this time is the same signal delivered twice. */
const DUPLICATE_SIGNAL_MS = 1000;

export interface Drain {
  /** From the shutdown signal on: /readyz says 503. */
  readonly leaving: boolean;
  /** From app.close() on: the listener is closed and new requests get a 503 problem. */
  readonly draining: boolean;
}

const drains = new WeakMap<FastifyInstance, { leaving: boolean; draining: boolean }>();

export function registerDrain(app: FastifyInstance): Drain {
  const state = { leaving: false, draining: false };
  drains.set(app, state);
  let timer: NodeJS.Timeout | undefined;

  // Synchronous: it runs on every request.
  app.addHook('onRequest', (_request, reply, done) => {
    if (!state.draining) return done();
    reply.header('connection', 'close');
    done(new Problem('unavailable', 'This server is shutting down; retry the request', undefined, { 'retry-after': '1', connection: 'close' }));
  });
  app.addHook('preClose', async () => {
    state.leaving = true;
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

/**
 * Shuts the app down in both phases: leaving for `delayMs` (listener open, /readyz 503), then
 * closing. Resolves once every request has been answered and the app is closed.
 */
export async function shutDown(app: FastifyInstance, delayMs: number): Promise<void> {
  const state = drains.get(app);
  if (state) state.leaving = true;
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  await app.close();
}

export interface StopReason {
  signal?: NodeJS.Signals;
  err?: unknown;
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * Runs `stop` once, on the first stop signal or uncaught error, then exits: 0 after a signal, 1
 * after an error, a failed stop, or when stopping takes longer than `backstopMs`.
 */
export function onStop(stop: (reason: StopReason) => Promise<void>, options: { backstopMs: number; log: FastifyBaseLogger }): void {
  const { log } = options;
  let began: number | undefined;
  const begin = (reason: StopReason) => {
    began = monotonicMs();
    setTimeout(() => {
      log.error({ ms: options.backstopMs }, 'shutdown took too long; exiting');
      process.exit(1);
    }, options.backstopMs).unref();
    stop(reason).then(
      () => process.exit(reason.err === undefined ? 0 : 1),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (began === undefined) return begin({ signal });
    if (monotonicMs() - began < DUPLICATE_SIGNAL_MS) return log.info({ signal }, 'shutting down already');
    log.error({ signal }, 'second signal while shutting down; exiting now');
    process.exit(1);
  };
  const onError = (err: unknown) => {
    if (began === undefined) return begin({ err });
    log.error({ err }, 'error while shutting down; exiting now');
    process.exit(1);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
}
