// Delivering the outbox: every node claims due deliveries and sends them, at most a few at once
// per endpoint and a fair share of the node's slots per instance, so a slow or dead receiver holds
// only its own deliveries, one tenant's hanging endpoints never hold another tenant's, and neither
// holds the API (which only writes rows). Each attempt is recorded; the schedule of retries is in repository.ts.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { Job } from '../../jobs/runner.js';
import { postWebhook, type PostOutcome } from './post.js';
import { claimDue, recordAttempt, releaseClaims, type DueDelivery } from './repository.js';
import { webhookHeaders } from './signing.js';
import { wallMs, type Clock } from '../../domain/clock.js';

export interface WebhookWorkerOptions {
  db: Database;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  /** The app's clock: when a delivery is due, and the time of each attempt recorded. */
  clock: Clock;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: let endpoints resolve to loopback or private addresses. */
  allowPrivate: boolean;
  /** How often to look for due deliveries, in ms (default 1000). */
  everyMs?: number;
  /** Longest wait for a receiver's answer (default 15 s). */
  timeoutMs?: number;
  /** Deliveries in flight on this node at once (default 64), per endpoint (default 8) and per instance (default a quarter of the node's, at least perEndpoint). */
  maxInFlight?: number;
  perEndpoint?: number;
  perInstance?: number;
  /** The sender, replaceable in tests that count calls; default an HTTP POST. */
  post?: typeof postWebhook;
}

export type WebhookJob = Job & { settle(): Promise<void> };

export function webhookJob(options: WebhookWorkerOptions): WebhookJob {
  const { clock } = options;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxInFlight = options.maxInFlight ?? 64;
  const perEndpoint = options.perEndpoint ?? 8;
  const perInstance = options.perInstance ?? Math.max(perEndpoint, Math.floor(maxInFlight / 4));
  /** In flight per instance, and the endpoints each instance was seen with (to leave them out of the claim while it is at its share). */
  const byInstance = new Map<string, number>();
  const endpointsOf = new Map<string, Set<string>>();
  const post = options.post ?? postWebhook;
  const inFlight = new Map<string, Set<Promise<void>>>();
  const all = new Set<Promise<void>>();
  let found = false;

  async function deliver(delivery: DueDelivery): Promise<void> {
    // webhook-timestamp is when this attempt is really sent (receivers compare it with their own
    // clock to refuse replays), not the scheduling clock.
    const headers = webhookHeaders(delivery.secrets, delivery.messageId, Math.floor(wallMs() / 1000), delivery.body);
    let outcome: PostOutcome;
    try {
      outcome = await post(delivery.url, headers, delivery.body, { timeoutMs, allowPrivate: options.allowPrivate });
    } catch (error) {
      outcome = { response: 'connection failed', detail: (error as Error).message, durationMs: 0 };
    }
    // The tenant sees the category (outcome.response, recorded); the detail, which may name
    // internal hosts and addresses, goes only to the operator's log.
    if (outcome.detail !== undefined)
      options.log.warn({ endpoint: delivery.endpointId, messageId: delivery.messageId, failure: outcome.response, detail: outcome.detail }, 'webhook delivery got no answer');
    const result = await recordAttempt(options.db, delivery, outcome, clock());
    if (result === 'failed') options.log.warn({ endpoint: delivery.endpointId, messageId: delivery.messageId, status: outcome.status }, 'webhook delivery given up');
  }

  return {
    name: 'webhooks',
    everyMs: options.everyMs ?? 1000,
    async run(now) {
      const room = maxInFlight - all.size;
      if (room <= 0) return 0;
      const busy = new Set([...inFlight.entries()].filter(([, set]) => set.size >= perEndpoint).map(([id]) => id));
      for (const [instance, count] of byInstance) if (count >= perInstance) for (const endpoint of endpointsOf.get(instance) ?? []) busy.add(endpoint);
      // A node holds what it claimed for twice the timeout; after that another node may retry it.
      const claimed = await claimDue(options.db, now, room, 2 * timeoutMs, [...busy]);
      const extra: string[] = [];
      let started = 0;
      for (const delivery of claimed) {
        const set = inFlight.get(delivery.endpointId) ?? new Set();
        const seen = endpointsOf.get(delivery.instanceId) ?? new Set();
        endpointsOf.set(delivery.instanceId, seen.add(delivery.endpointId));
        const ofInstance = byInstance.get(delivery.instanceId) ?? 0;
        if (set.size >= perEndpoint || ofInstance >= perInstance) {
          extra.push(delivery.id);
          continue;
        }
        started++;
        byInstance.set(delivery.instanceId, ofInstance + 1);
        inFlight.set(delivery.endpointId, set);
        const work = deliver(delivery)
          .catch((error: unknown) => options.log.error({ err: error, endpoint: delivery.endpointId }, 'could not record a webhook attempt'))
          .finally(() => {
            set.delete(work);
            all.delete(work);
            const left = (byInstance.get(delivery.instanceId) ?? 1) - 1;
            if (left > 0) byInstance.set(delivery.instanceId, left);
            else byInstance.delete(delivery.instanceId);
            if (set.size === 0) inFlight.delete(delivery.endpointId);
          });
        set.add(work);
        all.add(work);
      }
      await releaseClaims(options.db, extra);
      // Work may be waiting behind an endpoint whose slots were all taken: the claim skipped it,
      // so finding nothing proves nothing until its deliveries are answered.
      found = started > 0 || extra.length > 0 || all.size > 0;
      return started;
    },
    // While there is work, or deliveries are in flight, look again soon rather than a whole
    // interval later: a receiver gets its backlog at the pace it answers (up to perEndpoint at a
    // time). Looking only after runs that found something held one endpoint to about 9 a second:
    // the run 20 ms after a claim found its endpoint still busy, claimed nothing, and the next
    // look came a second later.
    soonerMs: () => (found ? 20 : undefined),
    /** Waits for the deliveries under way (tests, and shutdown). */
    async settle() {
      while (all.size > 0) await Promise.allSettled([...all]);
    },
  };
}
