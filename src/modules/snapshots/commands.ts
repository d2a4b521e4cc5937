// The commands of webcam snapshots, all the candidate's, from the portal: their choice before
// starting an assessment that takes snapshots (agree or decline: declining still lets them take
// it), the page's report that the camera could not be used, and one snapshot. Each checks the
// attempt's state and the choice, writes in the command's transaction, and decides by its clock.
import type { CommandContext } from '../../domain/command.js';
import { DomainError, conflict, forbidden, invalidInput } from '../../domain/errors.js';
import { webcamOf } from '../assessments/content-schema.js';
import { versionContent } from '../assessments/repository.js';
import { audit } from '../audit/audit.js';
import { acceptSnapshot } from './image.js';
import { WEBCAM_CHOICES, consentOf, insertConsent, insertSnapshot, markCameraUnavailable, snapshotTally, type WebcamChoice, type WebcamConsent } from './repository.js';

/** The most snapshots one attempt keeps (an 8-hour attempt at one a minute would need 480: the interval of a long one should be longer). */
export const SNAPSHOTS_PER_ATTEMPT = 200;

/** How much sooner than its interval a snapshot may come (a page's timer, a slow network): 10 % of the interval, at least 5 seconds. */
export const slackSeconds = (intervalSeconds: number) => Math.max(5, Math.round(intervalSeconds / 10));

/** What the commands need of an attempt (the attempts module's Attempt has it). */
interface AttemptRef {
  id: string;
  assessmentId: string;
  version: number;
  deadlineAt: Date;
  finishedAt: Date | null;
}

const isOpen = (attempt: AttemptRef, now: Date) => attempt.finishedAt === null && new Date(attempt.deadlineAt).getTime() > now.getTime();

/** The attempt's webcam setting (from the version it was started on), or undefined when it takes no snapshots. */
async function settingOf(ctx: CommandContext, attempt: AttemptRef) {
  return webcamOf(await versionContent(ctx.tx, attempt.assessmentId, attempt.version));
}

/**
 * Records the candidate's choice for an attempt whose assessment takes snapshots, in the
 * transaction that starts it (a start without a choice is refused, and starts nothing). The first
 * choice stands: starting again (a second tab, a retry) returns it unchanged. An assessment
 * without snapshots asks nothing: undefined, and nothing is written.
 */
export async function chooseWebcam(
  ctx: CommandContext,
  input: { attempt: AttemptRef; choice: unknown; client: { address: string; agent: string } },
): Promise<WebcamConsent | undefined> {
  const setting = await settingOf(ctx, input.attempt);
  if (!setting) return undefined;
  const existing = await consentOf(ctx.tx, input.attempt.id);
  if (existing) return existing;
  if (!WEBCAM_CHOICES.includes(input.choice as WebcamChoice))
    throw invalidInput([
      { in: 'body', name: 'webcam', detail: 'must be "agreed" or "declined": this assessment takes webcam snapshots, and the candidate chooses before starting' },
    ]);
  if (!isOpen(input.attempt, ctx.now)) throw conflict('This attempt is finished: there is nothing left to agree to');
  const consent = await insertConsent(ctx.tx, {
    attemptId: input.attempt.id,
    choice: input.choice as WebcamChoice,
    intervalSeconds: setting.intervalSeconds,
    at: ctx.now,
    client: input.client,
  });
  // The consent row is the candidate's record (when, from where, which interval they were told);
  // audit() keeps the log to people and client applications, as for every candidate's command.
  await audit(ctx, `attempt.webcam.${consent.choice}`, input.attempt.id);
  return consent;
}

/** The consent that lets snapshots in, or why not. */
async function agreedConsent(ctx: CommandContext, attempt: AttemptRef): Promise<WebcamConsent> {
  if (!(await settingOf(ctx, attempt))) throw forbidden('This assessment takes no webcam snapshots');
  const consent = await consentOf(ctx.tx, attempt.id, true);
  if (!consent || consent.choice !== 'agreed') throw forbidden('The candidate did not agree to webcam snapshots for this attempt');
  if (!isOpen(attempt, ctx.now)) throw conflict('This attempt is finished: no more snapshots are taken');
  return consent;
}

// eslint-disable-next-line no-control-regex -- control characters are what it removes
const CONTROL = /[\u0000-\u001f\u007f]/g;

/**
 * The page could not use the camera (refused, missing, in use): recorded once per attempt, for the
 * reviewer ("camera unavailable"). A second report changes nothing.
 */
export async function reportCameraUnavailable(ctx: CommandContext, input: { attempt: AttemptRef; detail: unknown }): Promise<void> {
  if (typeof input.detail !== 'string' || input.detail.length > 200)
    throw invalidInput([{ in: 'body', name: 'detail', detail: 'must be text of at most 200 characters (the browser error name)' }]);
  await agreedConsent(ctx, input.attempt);
  await markCameraUnavailable(ctx.tx, input.attempt.id, ctx.now, input.detail.replace(CONTROL, ' ').trim());
}

/**
 * Stores one snapshot of an open attempt whose candidate agreed: a JPEG (checked and re-encoded,
 * image.ts), at most one per (interval − slack) seconds, at most SNAPSHOTS_PER_ATTEMPT. Taken at
 * the command's clock. Returns its id and when the next one is due.
 */
export async function takeSnapshot(ctx: CommandContext, input: { attempt: AttemptRef; bytes: Buffer }): Promise<{ id: string; takenAt: Date; nextAt: Date }> {
  const image = await acceptSnapshot(input.bytes);
  // Locking the consent row takes the attempt's snapshots one at a time: two at once cannot both pass the checks below.
  const consent = await agreedConsent(ctx, input.attempt);
  const { count, lastAt } = await snapshotTally(ctx.tx, input.attempt.id);
  const gapMs = (consent.intervalSeconds - slackSeconds(consent.intervalSeconds)) * 1000;
  if (lastAt !== null) {
    const wait = new Date(lastAt).getTime() + gapMs - ctx.now.getTime();
    if (wait > 0)
      throw new DomainError(
        'too-soon',
        `A snapshot was taken ${Math.round((ctx.now.getTime() - new Date(lastAt).getTime()) / 1000)} s ago; this attempt takes one every ${consent.intervalSeconds} s (the next in ${Math.ceil(wait / 1000)} s)`,
      );
  }
  if (count >= SNAPSHOTS_PER_ATTEMPT) throw conflict(`This attempt has its ${SNAPSHOTS_PER_ATTEMPT} snapshots: no more are kept`);
  const id = await insertSnapshot(ctx.tx, { attemptId: input.attempt.id, at: ctx.now, ...image });
  return { id, takenAt: ctx.now, nextAt: new Date(ctx.now.getTime() + consent.intervalSeconds * 1000) };
}
