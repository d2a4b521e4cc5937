// The background work of a node: every job claims shared rows, so several nodes share it. The app
// (app.ts) starts them when it is ready and stops them when it closes; tests run them with runOnce.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from './db/database.js';
import { JobRunner } from './jobs/runner.js';
import { statisticsJob } from './jobs/statistics.js';
import { codingGradesJob } from './modules/attempts/coding-grades.js';
import { deadlineSweepJob } from './modules/attempts/sweeper.js';
import { mediaSweepJob } from './modules/assessments/media-sweep.js';
import { bulkInviteJob } from './modules/bulk-invites/job.js';
import { partnerCallbackJob } from './modules/integrations/worker.js';
import { idempotencySweepJob } from './modules/invitations/idempotency.js';
import { expiryJob, reminderJob } from './modules/invitations/lifecycle.js';
import { scoreRecordJob } from './modules/invitations/score-records.js';
import type { InviteDeps } from './modules/invitations/deps.js';
import { retentionJob } from './modules/privacy/service.js';
import { reviewReminderJob } from './modules/reviews/job.js';
import type { Mailer } from './modules/mail/mailer.js';
import { webhookJob } from './modules/webhooks/worker.js';
import { callbackFormats, partnerApis } from './partners/index.js';

// Expired idempotency keys are also deleted when looked up; this sweep only keeps unused ones
// from piling up.
const IDEMPOTENCY_SWEEP_MS = 15 * 60_000;
// Retention periods are whole days; erasing a candidate a few minutes past theirs is on time.
const RETENTION_SWEEP_MS = 10 * 60_000;
// The planner's statistics where autovacuum does not keep them (src/jobs/statistics.ts): a pass
// reads one row per table when nothing is due; the first follows start within a second.
const STATISTICS_EVERY_MS = 60_000;
// Unused media files are kept for days (media-sweep.ts): looking hourly is often enough.
const MEDIA_SWEEP_EVERY_MS = 60 * 60_000;
// Pending rows of bulk invites are looked for this often; a run that finds a full batch runs again at once.
const BULK_INVITE_EVERY_MS = 1000;

export interface BackgroundDeps {
  /** The app's settings the jobs read (AppDeps' config: see app.ts for each one's meaning). */
  config: {
    publicUrl: string;
    sweepEveryMs?: number;
    webhookAllowPrivateNetworks?: boolean;
    webhookEveryMs?: number;
    webhookTimeoutMs?: number;
    ashbyApiUrl?: string;
    hibobApiUrl?: string;
    leverApiUrl?: string;
    smartrecruitersApiUrl?: string;
    bulkInviteEveryMs?: number;
    mailDir?: string;
    devMailDir?: string;
  };
  db: Database;
  /** The mailer the app sends with (timed by the metrics when they are on). */
  mailer: Mailer;
  log: FastifyBaseLogger;
  clock: () => Date;
  inviteDeps: InviteDeps;
}

export function backgroundJobs({ config, db, mailer, log, clock, inviteDeps }: BackgroundDeps): JobRunner {
  const jobs = new JobRunner(log, clock);
  const webhooks = webhookJob({
    db,
    log: log,
    clock,
    allowPrivate: config.webhookAllowPrivateNetworks ?? false,
    everyMs: config.webhookEveryMs,
    timeoutMs: config.webhookTimeoutMs,
  });
  jobs.add(webhooks);
  jobs.add(
    partnerCallbackJob({
      db,
      log: log,
      clock,
      publicUrl: config.publicUrl,
      formats: callbackFormats(partnerApis(config)),
      allowPrivate: config.webhookAllowPrivateNetworks ?? false,
      everyMs: config.webhookEveryMs,
      timeoutMs: config.webhookTimeoutMs,
    }),
  );
  jobs.add(deadlineSweepJob(db, config.sweepEveryMs ?? 5000, log, clock));
  jobs.add(codingGradesJob(db, 15_000));
  jobs.add(idempotencySweepJob(db, IDEMPOTENCY_SWEEP_MS));
  jobs.add(expiryJob(db, 60_000, clock));
  jobs.add(reminderJob(inviteDeps, 60_000, clock));
  jobs.add(reviewReminderJob({ db, mailer, mailFrom: inviteDeps.mailFrom, publicUrl: config.publicUrl, log }, 60_000, clock));
  jobs.add(
    bulkInviteJob(
      { ...inviteDeps, onRowError: (error, reference) => log.error({ err: error, reference }, 'a bulk invite row failed unexpectedly') },
      config.bulkInviteEveryMs ?? BULK_INVITE_EVERY_MS,
    ),
  );
  jobs.add(scoreRecordJob(db, 500));
  jobs.add(retentionJob({ db, mailDir: config.mailDir ?? config.devMailDir, now: clock }, RETENTION_SWEEP_MS, log));
  jobs.add(statisticsJob(db, STATISTICS_EVERY_MS));
  jobs.add(mediaSweepJob(db, MEDIA_SWEEP_EVERY_MS));
  return jobs;
}
