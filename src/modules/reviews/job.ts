// Reminders of overdue reviews: every so often, assignments whose review is overdue (the
// instance's reviewDueHours after the attempt's completion or the assignment, whichever is later)
// and whose reviewer has not reviewed are claimed, each recorded as reminded by the command
// remindOverdueReview in the same transaction, and after the commit each reviewer gets one
// e-mail with a link to their queue. Recorded before sending: a reviewer is reminded at most once
// per assignment, even if the relay fails (the failure is logged).
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import { runCommand, systemRequest } from '../../domain/command.js';
import { html } from '../../html/html.js';
import type { Job } from '../../jobs/runner.js';
import type { Mailer } from '../mail/mailer.js';
import { remindOverdueReview } from './commands.js';
import { claimOverdue, type OverdueAssignment } from './repository.js';

const BATCH = 100;

export interface ReminderDeps {
  db: Database;
  mailer: Mailer;
  /** The service's sender, "Name <address>". */
  mailFrom: string;
  /** The console's base address, for the link. */
  publicUrl: string;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

/** The reminder e-mail: which instance and assessment, when it was due, and the queue's link; never the candidate's name. */
export function reminderMessage(publicUrl: string, due: OverdueAssignment) {
  const link = `${publicUrl.replace(/\/+$/, '')}/console/reviews?instance=${encodeURIComponent(due.instance)}`;
  const when = `${new Date(due.dueAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const subject = `A review waits for you in ${due.instance}`;
  const text = `Hello,\n\nAn answer to ${due.assessmentName} (question ${due.questionId}) was assigned to you for review in ${due.instance}; it was due ${when}.\n\nYour review queue: ${link}\n\nThis reminder is sent once.\n`;
  const body = html`<p>Hello,</p><p>An answer to ${due.assessmentName} (question ${due.questionId}) was assigned to you for review in ${due.instance}; it was due ${when}.</p><p><a href="${link}">Open your review queue</a></p><p>This reminder is sent once.</p>`;
  return { to: { name: due.email, address: due.email }, subject, text, html: body.toString() };
}

/** One run: claims up to BATCH overdue assignments, records each reminder, then sends the e-mails. */
export async function remindOverdueReviews(deps: ReminderDeps, now: Date): Promise<number> {
  const due = await runCommand(
    deps.db,
    systemRequest('review-reminders', now),
    async (ctx) => {
      const claimed = await claimOverdue(ctx.tx, ctx.now, BATCH);
      const marked: OverdueAssignment[] = [];
      for (const row of claimed) if (await remindOverdueReview(ctx, row)) marked.push(row);
      return marked;
    },
    'review_reminders',
  );
  for (const row of due) {
    const outcome = await deps.mailer.send(deps.mailFrom, reminderMessage(deps.publicUrl, row));
    if (outcome.status === 'FAILED') deps.log.warn({ attemptId: row.attemptId, questionId: row.questionId, detail: outcome.detail }, 'review reminder not sent');
  }
  return due.length;
}

export function reviewReminderJob(deps: ReminderDeps, everyMs: number, clock: () => Date): Job {
  return { name: 'review-reminders', everyMs, run: () => remindOverdueReviews(deps, clock()) };
}
