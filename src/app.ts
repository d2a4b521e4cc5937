// Builds the application: framework settings and documentation first, then the error envelope,
// then each module's routes under the public (/v1) and admin (/admin/v1) prefixes. No I/O of its
// own: the store and the mailer are handed in, so tests build the same app on a real database.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config, TrustProxy } from './config.js';
import type { Database } from './db/database.js';
import { registerAdminAuth } from './modules/keys/admin-auth.js';
import { OneLineRequestLog, requestLoggerFactory } from './http/logging.js';
import { registerDrain } from './http/drain.js';
import { registerJsonDepthLimit } from './http/json-body.js';
import { registerMetrics, registerReplicaMetrics } from './http/metrics.js';
import { readRouting } from './http/read-routing.js';
import { observedMailer } from './modules/mail/observed.js';
import { registerStrictQuery } from './http/strict-query.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandling, sendProblem } from './http/errors.js';
import { problemResponses } from './http/openapi.js';
import { registerOpenApi } from './http/openapi-document.js';
import { backgroundJobs } from './background.js';
import { Problem, ProblemDocument } from './http/problem.js';
import { cachedSerializers } from './http/serialization.js';
import { validatorCompiler } from './http/validation.js';
import { assessmentAdminRoutes } from './modules/assessments/admin-routes.js';
import { qtiAdminRoutes } from './modules/assessments/qti/admin-routes.js';
import { libraryAdminRoutes } from './modules/assessments/library-routes.js';
import { auditAdminRoutes, registerRefusalAudit } from './modules/audit/admin-routes.js';
import { assessmentRoutes } from './modules/assessments/routes.js';
import { attemptAdminRoutes } from './modules/attempts/admin-routes.js';
import { reviewAdminRoutes } from './modules/reviews/admin-routes.js';
import { closeWithdrawn, supersedeAttempt } from './modules/attempts/repository.js';
import { invitationRoutes } from './modules/invitations/routes.js';
import { candidateRoutes } from './modules/invitations/candidate-routes.js';
import { deliveryAdminRoutes } from './modules/invitations/admin-routes.js';
import { devMailbox } from './modules/mail/dev-mailbox.js';
import { keyAdminRoutes } from './modules/keys/admin-routes.js';
import { keyAuthenticator, registerApiKeyAuth } from './modules/keys/authenticate.js';
import { bulkInviteAdminRoutes } from './modules/bulk-invites/admin-routes.js';
import { integrationAdminRoutes } from './modules/integrations/admin-routes.js';
import { partnerApis, partnerConnected, registerPartners } from './partners/index.js';
import { partnerHttp } from './modules/integrations/worker.js';
import { KeyVerifier } from './modules/keys/verifier.js';
import type { Mailer } from './modules/mail/mailer.js';
import { createCounter } from './modules/limits/counter.js';
import { RefusalLimit, RequestBudget } from './modules/limits/rate-limit.js';
import { scoreRoutes } from './modules/scores/routes.js';

/** How often one client address may run a coding question's examples (each run starts a sandbox). */
const CODE_RUNS_PER_MINUTE = 10;
import { portalRoutes } from './portal/routes.js';
import { brandRoutes } from './modules/tenants/brand-routes.js';
import { mediaRoutes } from './modules/assessments/media-routes.js';
import { consoleRoutes } from './console/routes.js';
import { userAdminRoutes } from './modules/users/admin-routes.js';
import { ssoAdminRoutes } from './modules/users/sso-admin-routes.js';
import type { SsoOptions } from './modules/users/sso.js';
import { tenantAdminRoutes } from './modules/tenants/admin-routes.js';
import { JobRunner } from './jobs/runner.js';
import { webhookAdminRoutes } from './modules/webhooks/admin-routes.js';
import { privacyAdminRoutes } from './modules/privacy/admin-routes.js';
import { equalityAdminRoutes } from './modules/equality/admin-routes.js';
import { reportAdminRoutes } from './modules/reports/admin-routes.js';
import { reportLinkRoutes } from './console/reports/links.js';
import { systemClock } from './domain/clock.js';

export interface AppDeps {
  config: Pick<Config, 'publicUrl' | 'adminToken' | 'keyCacheMs'> & {
    /** Reverse proxies whose X-Forwarded-For names the client (TRUST_PROXY). Default false: the
     *  socket's peer is the client, for limits, lockouts, audit, logs and the portal alike. */
    trustProxy?: TrustProxy;
    /** How often open attempts are checked against their deadline, in ms. Default 5000. */
    sweepEveryMs?: number;
    /** The sender of invitation e-mail for instances without their own. */
    mailFrom?: string;
    /** Per-instance template overrides: <templatesDir>/<instance>/invitation.*. */
    templatesDir?: string;
    /** Where .eml files go when there is no relay; enables the /dev/mail page. */
    devMailDir?: string;
    /** The local mailbox whose e-mails to a candidate are deleted when they are erased; default devMailDir. */
    mailDir?: string;
    /** Longest a client may take to send a whole request (headers and body), in ms. Default 30000. */
    requestTimeoutMs?: number;
    /** Shared rate-limit counters; unset (or unreachable): counted in this process. */
    redisUrl?: string;
    /** Requests per minute of a key without its own rate limit. Default 600. */
    rateLimitPerMinute?: number;
    /** Refused credentials per minute per client address before it gets 429. Default 20. */
    authFailuresPerMinute?: number;
    /** The clock of decisions by time (console sessions and periods, the portal's typing test); tests move it. Default: the system clock (the database's for the typing test). */
    now?: () => Date;
    /** Let webhook endpoints resolve to loopback or private addresses (tests' local receivers). Default false. */
    webhookAllowPrivateNetworks?: boolean;
    /** Collect and serve /metrics; default true. */
    metrics?: boolean;
    /** How often each node looks for due webhook deliveries, in ms. Default 1000. */
    webhookEveryMs?: number;
    /** A replica further behind than this is not read (REPLICA_MAX_LAG_MS). Default 2000. */
    replicaMaxLagMs?: number;
    /** How often the replica's lag is checked, in ms. Default 500. */
    replicaCheckEveryMs?: number;
    /** How often the bulk-invite job looks for rows to invite, in ms (default 1000). */
    bulkInviteEveryMs?: number;
    /** Longest wait for a webhook receiver's answer, in ms. Default 15000. */
    webhookTimeoutMs?: number;
    /** Ashby's API for assessment.update callbacks (ASHBY_API_URL). Default https://api.ashbyhq.com. */
    ashbyApiUrl?: string;
    /** HiBob's, Lever's and SmartRecruiters' APIs (HIBOB_API_URL, LEVER_API_URL, SMARTRECRUITERS_API_URL). Defaults: their public addresses. */
    hibobApiUrl?: string;
    leverApiUrl?: string;
    smartrecruitersApiUrl?: string;
    /** Single sign-on may use plain-http issuers (SSO_ALLOW_INSECURE_HTTP; development and tests only). Default false. */
    ssoAllowInsecureHttp?: boolean;
    /** Console session timeouts in ms: idle (default 30 min) and absolute (default 12 h). */
    consoleSessions?: { idleMs?: number; absoluteMs?: number };
  };
  db: Database;
  /** DATABASE_READ_URL's replica: score reads, exports and console lists read there (src/db/replica.ts). */
  readDb?: Database;
  mailer: Mailer;
  logger?: FastifyServerOptions['logger'];
}

export const BODY_LIMIT = 1024 * 1024;
const REDIS_START_WAIT_MS = 1000;
// /readyz answers within this even when PostgreSQL does not (a load balancer's probe has its own timeout).
const READY_TIMEOUT_MS = 1000;
// Requests for unknown paths per client address and minute before 429 (URL probing).
const NOT_FOUND_PER_MINUTE = 120;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// Paths whose every answer is `Cache-Control: no-store`.
const PRIVATE_PREFIXES = ['/v1/', '/v1?', '/admin/', '/admin?', '/portal/api/'];

declare module 'fastify' {
  interface FastifyInstance {
    /** The background jobs of this node (tests run them with runOnce). */
    jobs: JobRunner;
  }
}

export async function buildApp({ config, db: store, readDb, mailer: relay, logger = false }: AppDeps): Promise<FastifyInstance> {
  const requestTimeout = config.requestTimeoutMs ?? 30_000;
  const clock = config.now ?? systemClock;
  const sso: SsoOptions = { publicUrl: config.publicUrl, allowInsecureHttp: config.ssoAllowInsecureHttp ?? false };
  const requestLog = new OneLineRequestLog();
  const app = Fastify({
    // Fastify reports answered requests (which metrics count) to its log controller only when it
    // has a logger: without one given, a silent one.
    logger: logger || { level: 'silent' },
    bodyLimit: BODY_LIMIT,
    // Slow clients (slowloris) are cut off: headers must arrive within 10 s (or the request
    // timeout when shorter), the whole request within the request timeout. Node checks these
    // every connectionsCheckingInterval. Responses, such as a long export, are not limited.
    requestTimeout,
    // Node would answer an HTTP/1.1 request without Host with a bare, empty 400; the hook below
    // answers it with a problem document instead.
    http: { headersTimeout: Math.min(10_000, requestTimeout), connectionsCheckingInterval: Math.min(1000, requestTimeout), requireHostHeader: false },
    clientErrorHandler,
    frameworkErrors,
    // Shutdown is drained by src/http/drain.ts: in-flight requests finish, late ones get a 503
    // problem, idle keep-alive connections are closed after a grace period.
    return503OnClosing: false,
    forceCloseConnections: false,
    // A client's own request id is kept when it is sane, so that both sides can quote it.
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { maxParamLength: 200 },
    // request.ip is the client everywhere (limits, lockouts, audit, logs, the portal): the socket's
    // peer, or with TRUST_PROXY the address X-Forwarded-For gives past the trusted proxies.
    trustProxy: fastifyTrustProxy(config.trustProxy ?? false),
    // One line per request, when it is answered, instead of Fastify's two (src/http/logging.ts).
    logController: requestLog,
    // A request's pino child logger is made only when something is logged through it.
    childLoggerFactory: requestLoggerFactory,
    // Response serializers compiled once per schema text (src/http/serialization.ts).
    schemaController: { compilersFactory: { buildSerializer: cachedSerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Metrics first, so that every route and job below uses the database and the mailer they time.
  const metrics = config.metrics === false ? undefined : registerMetrics(store, clock);
  if (metrics) requestLog.listen(metrics.observeRequest);
  const db = metrics?.db ?? store;
  const mailer = metrics ? observedMailer(relay, metrics.registry) : relay;
  const reads = readDb && readRouting(app, { primary: db, replica: readDb, now: clock, maxLagMs: config.replicaMaxLagMs, checkEveryMs: config.replicaCheckEveryMs });
  if (reads && metrics) registerReplicaMetrics(metrics.registry, reads.router);

  app.setValidatorCompiler(validatorCompiler());
  registerJsonDepthLimit(app);
  app.addSchema(ProblemDocument);
  await registerOpenApi(app, config.publicUrl);

  const counter = createCounter(config.redisUrl, (details, message) => app.log.warn(details, message));
  app.addHook('onClose', () => counter.close());
  // A node starting next to a healthy Redis counts there from its first request; one that cannot
  // reach it starts anyway, a moment later, counting in memory until Redis answers.
  if (config.redisUrl && !(await counter.ready(REDIS_START_WAIT_MS))) {
    app.log.warn('Redis is not reachable at start: counting rate limits in this process until it is');
  }
  registerErrorHandling(app, { probing: new RefusalLimit(counter, NOT_FOUND_PER_MINUTE, 'not-found', 'requests for unknown paths') });
  const drain = registerDrain(app);
  // HTTP/1.1 requires Host (RFC 9112 §3.2); synchronous, as it runs on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      return done(new Problem('malformed-request', 'The Host header is required in an HTTP/1.1 request', [{ in: 'header', name: 'host', detail: 'is required' }]));
    }
    done();
  });
  // Headers of every answer, in one synchronous hook: it runs on every request, /healthz included.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (drain.draining) reply.header('connection', 'close');
    // API answers carry credentials' results (keys travel in X-API-Key, which shared caches do not
    // treat as private): none may be stored, errors included.
    if (PRIVATE_PREFIXES.some((prefix) => request.url.startsWith(prefix))) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  // Probes take no credentials (security: []); like every route they may answer a malformed request with 400.
  const probe = (operationId: string, summary: string, extra: Record<number, unknown> = {}) => ({
    operationId,
    tags: ['health'],
    summary,
    security: [],
    response: { 200: { type: 'object', properties: { status: { type: 'string', examples: ['ok'] } } }, ...problemResponses('malformed-request'), ...extra },
  });
  app.get('/healthz', { schema: probe('health', 'The process is up') }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: probe('ready', 'The database is reachable', problemResponses('unavailable')) }, async (request, reply) => {
    if (drain.leaving) return sendProblem(request, reply, new Problem('unavailable', 'This server is shutting down', undefined, { 'retry-after': '5' }));
    try {
      await withTimeout(db.query('SELECT 1'), READY_TIMEOUT_MS);
      return { status: 'ok' };
    } catch {
      return sendProblem(request, reply, new Problem('unavailable', 'The database is unreachable', undefined, { 'retry-after': '5' }));
    }
  });

  /** The most requests a minute a manager may give a key: the service's default budget. */
  const rateCeiling = config.rateLimitPerMinute ?? 600;
  const inviteDeps = {
    db,
    mailer,
    publicUrl: config.publicUrl,
    mailFrom: config.mailFrom ?? 'Assessment Connect <no-reply@localhost>',
    templatesDir: config.templatesDir,
    log: app.log,
    now: clock,
    attempts: { closeWithdrawn, supersede: supersedeAttempt },
  };
  const verifier = new KeyVerifier(
    db,
    config.keyCacheMs,
    (error) => app.log.warn({ err: error }, 'could not record key use'),
    () => clock().getTime(),
  );
  const authFailuresPerMinute = config.authFailuresPerMinute ?? 20;
  const limits = {
    failures: new RefusalLimit(counter, authFailuresPerMinute, 'v1'),
    budget: new RequestBudget(counter, config.rateLimitPerMinute ?? 600),
  };

  await app.register(
    async (api) => {
      registerApiKeyAuth(api, verifier, limits);
      registerStrictQuery(api);
      reads?.trackWrites(api);
      await api.register(assessmentRoutes, { db });
      await api.register(invitationRoutes, inviteDeps);
      await api.register(scoreRoutes, { db, reads: reads?.router });
      await api.register(candidateRoutes, { db, invite: inviteDeps, publicUrl: config.publicUrl, now: clock });
    },
    { prefix: '/v1' },
  );

  // The native adapters of applicant-tracking systems (src/partners/index.ts), each in its own shapes.
  const partnerDeps = {
    invite: inviteDeps,
    authenticate: keyAuthenticator(verifier, { failures: new RefusalLimit(counter, authFailuresPerMinute, 'partners'), budget: limits.budget }),
    now: clock,
    publicUrl: config.publicUrl,
    http: partnerHttp({ allowPrivate: config.webhookAllowPrivateNetworks ?? false, timeoutMs: config.webhookTimeoutMs }),
    apis: partnerApis(config),
  };
  await app.register(async (scope) => registerPartners(scope, partnerDeps));

  await app.register(
    async (admin) => {
      registerAdminAuth(admin, config.adminToken, new RefusalLimit(counter, authFailuresPerMinute, 'admin'));
      registerRefusalAudit(admin, db, { prefix: '/admin/v1', now: clock });
      await admin.register(auditAdminRoutes, { db });
      await admin.register(tenantAdminRoutes, { db, now: clock });
      await admin.register(keyAdminRoutes, { db, verifier, rateCeiling, now: clock });
      await admin.register(assessmentAdminRoutes, { db, now: clock });
      await admin.register(qtiAdminRoutes, { db, now: clock });
      await admin.register(libraryAdminRoutes, { db, now: clock });
      await admin.register(attemptAdminRoutes, { db });
      await admin.register(reviewAdminRoutes, { db, now: clock });
      await admin.register(deliveryAdminRoutes, inviteDeps);
      await admin.register(userAdminRoutes, { db, now: clock });
      await admin.register(ssoAdminRoutes, { db, now: clock, sso });
      await admin.register(webhookAdminRoutes, { db, now: clock });
      await admin.register(integrationAdminRoutes, { db, now: clock, connected: (partner, instanceId) => partnerConnected(partnerDeps, partner, instanceId) });
      await admin.register(bulkInviteAdminRoutes, { db, now: clock });
      await admin.register(privacyAdminRoutes, { db, mailDir: config.mailDir ?? config.devMailDir, now: clock });
      await admin.register(equalityAdminRoutes, { db, now: clock });
      await admin.register(reportAdminRoutes, { db, now: clock });
    },
    { prefix: '/admin/v1' },
  );

  // /metrics: Prometheus text, behind the admin token like the admin API (never public by accident).
  if (metrics)
    await app.register(async (scope) => {
      registerAdminAuth(scope, config.adminToken, new RefusalLimit(counter, authFailuresPerMinute, 'admin'));
      scope.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
        reply.header('cache-control', 'no-store').type(metrics.registry.contentType);
        return metrics.registry.metrics();
      });
    });

  await app.register(portalRoutes, {
    db,
    publicUrl: config.publicUrl,
    refusals: new RefusalLimit(counter, authFailuresPerMinute, 'portal', 'refused sign-in links and session cookies'),
    codeRuns: new RefusalLimit(counter, CODE_RUNS_PER_MINUTE, 'code-runs', 'runs of code examples'),
    now: clock,
  });
  await app.register(brandRoutes, { db });
  await app.register(mediaRoutes, { db });
  await app.register(consoleRoutes, {
    db,
    invite: inviteDeps,
    publicUrl: config.publicUrl,
    counter,
    verifier,
    now: clock,
    sessions: config.consoleSessions,
    sso,
    rateCeiling: config.rateLimitPerMinute ?? 600,
    partnerConnected: (partner, instanceId) => partnerConnected(partnerDeps, partner, instanceId),
    reads: reads?.router,
  });
  await app.register(reportLinkRoutes, { db, now: clock, refusals: new RefusalLimit(counter, authFailuresPerMinute, 'reports', 'refused report links') });
  if (config.devMailDir) await app.register(devMailbox, { mailDir: config.devMailDir });

  const jobs = backgroundJobs({ config, db, mailer, log: app.log, clock, inviteDeps });
  if (reads) jobs.add(reads.job);
  app.decorate('jobs', jobs);
  app.addHook('onReady', async () => jobs.start());
  app.addHook('onClose', () => jobs.stop());

  return app;
}

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes a function trusting the first `hops`
 * peers from the socket, whatever their address (Fastify 5 trusts nothing for a bare number), so
 * it is only for a service that no client can reach except through its proxies.
 */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return trust > 0 ? (_address: string, hop: number) => hop < trust : false;
  return trust;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms);
    }),
  ]);
}
