// /metrics in the Prometheus text format (prom-client), behind the admin token like the admin API:
// request durations by route and status, refusals (429) by route, the PostgreSQL pool, the
// webhook queue and its lag, the deadline sweep's lag, and the process (memory, CPU, event-loop
// delay, from prom-client's defaults). Figures that live in the database are read when scraped,
// with two indexed queries.
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/database.js';

export interface Metrics {
  registry: Registry;
}

export function registerMetrics(app: FastifyInstance, db: Database): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by route template and status',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const refused = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests answered 429 (a key over its budget, an address over its refusal limit)',
    labelNames: ['route'],
    registers: [registry],
  });
  // One child per (method, route template, status), made once: prom-client otherwise hashes the
  // label object on every observation (a tenth of a score read's CPU in the bench).
  const children = new Map<string, ReturnType<typeof duration.labels>>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${request.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = duration.labels({ method: request.method, route, status_code: String(reply.statusCode) });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    if (reply.statusCode === 429) refused.inc({ route });
    done();
  });

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
        `SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 AS lag FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`,
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
        `SELECT extract(epoch FROM now() - min(deadline_at))::float8 AS lag FROM attempts WHERE finished_at IS NULL AND deadline_at <= now()`,
      );
      this.set(Math.max(0, rows[0]?.lag ?? 0));
    },
  });
  return { registry };
}
