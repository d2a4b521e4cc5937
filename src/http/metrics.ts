// /metrics in the Prometheus text format (prom-client), behind the admin token like the admin API:
// request durations by route and status, refusals (429) by route, the PostgreSQL pool, the hot
// paths' statements and transactions, the webhook queue and its lag, the deadline sweep's lag, and the process (memory, CPU,
// event-loop delay, from prom-client's defaults). Figures that live in the database are read
// when scraped, with three indexed queries.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/database.js';
import type { ReadRouter } from '../db/replica.js';
import { timedDatabase } from '../db/timing.js';
import { FastHistogram, type HistogramChild } from './fast-histogram.js';
import type { RequestListener } from './logging.js';

export interface Metrics {
  registry: Registry;
  /** The database, its hot paths timed: what the routes and jobs are to use. */
  db: Database;
  /** Counts an answered request (route, status, duration): to be called once per request. */
  observeRequest: RequestListener;
}

/** The service's metrics; `now` is the app's clock, by which the lags are measured. */
export function registerMetrics(db: Database, now: () => Date): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const duration = new FastHistogram(
    'http_request_duration_seconds',
    'Time to answer a request, by route template and status',
    ['method', 'route', 'status_code'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registry,
  );
  const refused = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests answered 429 (a key over its budget, an address over its refusal limit)',
    labelNames: ['route'],
    registers: [registry],
  });
  // One child per (method, route template, status), found without building a string: the method
  // and the route are the same few strings on every request, their hashes kept by V8.
  const children = new Map<string, Map<string, Map<number, HistogramChild>>>();
  const observeRequest: RequestListener = (request, reply, answered) => {
    const route = answered.route ?? 'unmatched';
    const status = reply.statusCode;
    let byRoute = children.get(request.method);
    if (!byRoute) children.set(request.method, (byRoute = new Map()));
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = duration.child({ method: request.method, route, status_code: String(status) })));
    child.observe(answered.ms / 1000);
    if (status === 429) refused.inc({ route });
  };

  new Gauge({
    name: 'db_pool_connections',
    help: 'PostgreSQL connections of this node by state (absent on the embedded store)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = db.poolStats?.();
      if (!stats) return;
      this.set({ state: 'in_use' }, stats.total - stats.idle);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
  new Gauge({
    name: 'webhook_queue_depth',
    help: 'Webhook deliveries waiting to be sent (now or at a scheduled retry)',
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`);
      this.set(rows[0]!.n);
    },
  });
  new Gauge({
    name: 'webhook_delivery_lag_seconds',
    help: 'How long the most overdue webhook delivery has been due (0 when none is)',
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ lag: number | null }>(
        `SELECT extract(epoch FROM $1::timestamptz - min(next_attempt_at))::float8 AS lag FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $1`,
        [now()],
      );
      this.set(Math.max(0, rows[0]?.lag ?? 0));
    },
  });
  new Gauge({
    name: 'deadline_sweep_lag_seconds',
    help: 'How long past its deadline the oldest open attempt is (0 when none is): the sweep completes them within SWEEP_EVERY_MS',
    registers: [registry],
    async collect() {
      const { rows } = await db.query<{ lag: number | null }>(
        `SELECT extract(epoch FROM $1::timestamptz - min(deadline_at))::float8 AS lag FROM attempts WHERE finished_at IS NULL AND deadline_at <= $1`,
        [now()],
      );
      this.set(Math.max(0, rows[0]?.lag ?? 0));
    },
  });
  const queries = new FastHistogram(
    'db_query_duration_seconds',
    "Time of the hot paths' statements and transactions, by name (score reads, invite, answer save, attempt start and completion, the sweep, the webhook claim, the read model's fill, the console's search), failed ones included",
    ['query'],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registry,
  );
  const byName = new Map<string, HistogramChild>();
  const timed = timedDatabase(db, (name, seconds) => {
    let child = byName.get(name);
    if (!child) {
      child = queries.child({ query: name });
      byName.set(name, child);
    }
    child.observe(seconds);
  });

  return { registry, db: timed, observeRequest };
}

/** The read replica's figures (DATABASE_READ_URL): its lag and state, and where the reads went. */
export function registerReplicaMetrics(registry: Registry, router: ReadRouter): void {
  new Gauge({
    name: 'db_replica_lag_seconds',
    help: "How far the read replica's replay is behind the primary, as last checked",
    registers: [registry],
    collect() {
      this.set(router.lagMs / 1000);
    },
  });
  new Gauge({
    name: 'db_replica_up',
    help: 'Whether reads go to the replica (1), or to the primary because the replica is behind by more than REPLICA_MAX_LAG_MS or unreachable (0), by state',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      for (const state of ['up', 'behind', 'down'] as const) this.set({ state }, router.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'db_reads_total',
    help: "Reads that may go to the replica, by where they went: the replica, or the primary (the client's own recent write: sticky; the replica behind or down)",
    labelNames: ['target'],
    registers: [registry],
    collect() {
      for (const [target, count] of Object.entries(router.reads)) this.set({ target }, count);
      this.set({ target: 'fell_back' }, router.fellBack);
    },
  });
}
