// Sending the callbacks owed to applicant-tracking systems: every node claims due callbacks (a
// link's next one only after the one before it is settled) and sends each through the same
// request function and address guard as webhooks. What a callback looks like on the wire is the
// adapter's (src/partners/<ats>/callbacks.ts): this job only schedules, sends and records.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import type { Job } from '../../jobs/runner.js';
import { reportLinks } from '../reports/links.js';
import type { ScoreRecord } from '../scores/format.js';
import { postWebhook, type PostOutcome } from '../webhooks/post.js';
import { claimDueCallbacks, partnerSettings, recordCallbackAttempt, skipCallback, type DueCallback, type Partner, type PartnerSettings } from './repository.js';

/** The event a callback was queued for, as the outbox recorded it. */
export interface CallbackEvent {
  type: string;
  timestamp: string;
  data: {
    instance: string;
    candidateId: string;
    assessmentId: string;
    externalReference?: string;
    /** The score record as GET /v1/score gives it. */
    score: ScoreRecord;
  };
}

/**
 * One HTTP request to the ATS; or why there is none to make yet (no key set: tried again later);
 * or why none is owed (`skip`: a later callback of the same link, already queued, says more).
 */
export type CallbackRequest = { method: 'POST' | 'PATCH' | 'PUT'; url: string; headers: Record<string, string>; body: string } | { notReady: string } | { skip: string };

/**
 * Requests to an ATS's own API (an OAuth token before a callback, a document an event names):
 * through the same address guard and time limit as the callbacks, with up to 256 KB of the answer kept.
 */
export interface PartnerHttp {
  call(method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, headers: Record<string, string>, body?: string): Promise<PostOutcome>;
}

export function partnerHttp(options: { allowPrivate: boolean; timeoutMs?: number }): PartnerHttp {
  return {
    async call(method, url, headers, body = '') {
      try {
        return await postWebhook(url, headers, body, { method, timeoutMs: options.timeoutMs ?? 15_000, allowPrivate: options.allowPrivate, keepBytes: 256 * 1024 });
      } catch (error) {
        return { response: 'connection failed', detail: (error as Error).message, durationMs: 0 };
      }
    },
  };
}

/** What an adapter says a callback is on the wire. */
export interface CallbackFormat {
  request(input: {
    callback: DueCallback;
    event: CallbackEvent;
    /** The signed link of the report; `pdfUrl` the same report as a PDF. */
    reportUrl: string;
    pdfUrl: string;
    settings: PartnerSettings;
    http: PartnerHttp;
    now: Date;
  }): CallbackRequest | Promise<CallbackRequest>;
}

/** The PDF of a signed report link: `.pdf` after the assessment id, the signature unchanged. */
export const pdfLinkOf = (reportUrl: string): string => reportUrl.replace(/^([^?#]*)/, (path) => `${path}.pdf`);

export interface PartnerCallbackOptions {
  db: Database;
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  clock: () => Date;
  publicUrl: string;
  formats: Record<Partner, CallbackFormat>;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: the same guard as webhooks. */
  allowPrivate: boolean;
  everyMs?: number;
  timeoutMs?: number;
  /** Callbacks in flight on this node at once (default 16). */
  maxInFlight?: number;
}

export type PartnerCallbackJob = Job & { settle(): Promise<void> };

export function partnerCallbackJob(options: PartnerCallbackOptions): PartnerCallbackJob {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxInFlight = options.maxInFlight ?? 16;
  const all = new Set<Promise<void>>();
  let found = false;
  const http = partnerHttp({ allowPrivate: options.allowPrivate, timeoutMs });

  async function send(callback: DueCallback): Promise<void> {
    const now = options.clock();
    const event = JSON.parse(callback.body) as CallbackEvent;
    const links = await reportLinks(
      options.db,
      { instanceId: callback.link.instanceId, days: callback.reportDays, candidateId: callback.candidateId, assessmentIds: [callback.assessmentSlug] },
      now,
      options.publicUrl,
    );
    const settings = await partnerSettings(options.db, callback.link.instanceId, callback.link.partner);
    const reportUrl = links.get(callback.assessmentSlug)!;
    const request = await options.formats[callback.link.partner].request({ callback, event, reportUrl, pdfUrl: pdfLinkOf(reportUrl), settings, http, now });
    if ('skip' in request) {
      await skipCallback(options.db, callback.id, request.skip, now);
      return;
    }
    let outcome: PostOutcome;
    if ('notReady' in request) outcome = { response: request.notReady, durationMs: 0 };
    else {
      try {
        outcome = await postWebhook(request.url, request.headers, request.body, { timeoutMs, allowPrivate: options.allowPrivate, method: request.method });
      } catch (error) {
        outcome = { response: 'connection failed', detail: (error as Error).message, durationMs: 0 };
      }
    }
    if (outcome.detail !== undefined)
      options.log.warn({ callback: callback.id, partner: callback.link.partner, failure: outcome.response, detail: outcome.detail }, 'partner callback got no answer');
    const result = await recordCallbackAttempt(options.db, callback.id, callback.attempts, outcome, options.clock());
    if (result === 'failed') options.log.warn({ callback: callback.id, partner: callback.link.partner, status: outcome.status }, 'partner callback given up');
  }

  return {
    name: 'partner-callbacks',
    everyMs: options.everyMs ?? 1000,
    async run(now) {
      const room = maxInFlight - all.size;
      if (room <= 0) return 0;
      const claimed = await claimDueCallbacks(options.db, now, room, 2 * timeoutMs);
      for (const callback of claimed) {
        const work = send(callback)
          .catch((error: unknown) => options.log.error({ err: error, callback: callback.id }, 'could not send a partner callback'))
          .finally(() => all.delete(work));
        all.add(work);
      }
      found = claimed.length > 0 || all.size > 0;
      return claimed.length;
    },
    // A link's next callback becomes due when the one before it is answered: look again soon.
    soonerMs: () => (found ? 50 : undefined),
    async settle() {
      while (all.size > 0) await Promise.allSettled([...all]);
    },
  };
}
