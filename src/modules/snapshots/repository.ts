// Webcam snapshots as stored: the candidate's choice per attempt (webcam_consents) and the still
// images taken after they agreed (webcam_snapshots). Reads for the portal (is a snapshot due?),
// the console's report (the strip and the consent state), the image itself (behind the console's
// instance check), the data export; and the erasure, which deletes the images.
import type { Queryable } from '../../db/database.js';
import { webcamOf } from '../assessments/content-schema.js';
import { versionContent } from '../assessments/repository.js';
import { isUuid } from '../../domain/ids.js';

export type WebcamChoice = 'agreed' | 'declined';
export const WEBCAM_CHOICES: readonly WebcamChoice[] = ['agreed', 'declined'];

/** What the reviewer is told: the candidate agreed, declined, agreed but the camera could not be used, or was never asked. */
export type WebcamState = 'agreed' | 'declined' | 'camera-unavailable' | 'not-asked';

export interface WebcamConsent {
  attemptId: string;
  choice: WebcamChoice;
  intervalSeconds: number;
  chosenAt: Date;
  cameraUnavailableAt: Date | null;
}

const CONSENT = `c.attempt_id AS "attemptId", c.choice, c.interval_seconds AS "intervalSeconds", c.chosen_at AS "chosenAt", c.camera_unavailable_at AS "cameraUnavailableAt"`;

/** The attempt's choice, if one was recorded; with `lock`, the row is locked (FOR UPDATE) for the caller's transaction. */
export async function consentOf(db: Queryable, attemptId: string, lock = false): Promise<WebcamConsent | undefined> {
  const { rows } = await db.query<WebcamConsent>(`SELECT ${CONSENT} FROM webcam_consents c WHERE c.attempt_id = $1${lock ? ' FOR UPDATE' : ''}`, [attemptId]);
  return rows[0];
}

export async function insertConsent(
  tx: Queryable,
  consent: { attemptId: string; choice: WebcamChoice; intervalSeconds: number; at: Date; client: { address: string; agent: string } },
): Promise<WebcamConsent> {
  const { rows } = await tx.query<WebcamConsent>(
    `INSERT INTO webcam_consents AS c (attempt_id, choice, interval_seconds, chosen_at, client_address, client_agent) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${CONSENT}`,
    [consent.attemptId, consent.choice, consent.intervalSeconds, consent.at, consent.client.address, consent.client.agent.slice(0, 500)],
  );
  return rows[0]!;
}

export async function markCameraUnavailable(tx: Queryable, attemptId: string, at: Date, detail: string): Promise<void> {
  await tx.query('UPDATE webcam_consents SET camera_unavailable_at = $2, camera_detail = $3 WHERE attempt_id = $1 AND camera_unavailable_at IS NULL', [attemptId, at, detail]);
}

/** How many snapshots the attempt has, and when the last was taken. */
export async function snapshotTally(db: Queryable, attemptId: string): Promise<{ count: number; lastAt: Date | null }> {
  const { rows } = await db.query<{ count: number; lastAt: Date | null }>('SELECT count(*)::int AS count, max(taken_at) AS "lastAt" FROM webcam_snapshots WHERE attempt_id = $1', [
    attemptId,
  ]);
  return rows[0]!;
}

export async function insertSnapshot(tx: Queryable, snapshot: { attemptId: string; at: Date; bytes: Buffer; width: number; height: number }): Promise<string> {
  const { rows } = await tx.query<{ id: string }>('INSERT INTO webcam_snapshots (attempt_id, taken_at, image, width, height) VALUES ($1, $2, $3, $4, $5) RETURNING id', [
    snapshot.attemptId,
    snapshot.at,
    snapshot.bytes,
    snapshot.width,
    snapshot.height,
  ]);
  return rows[0]!.id;
}

/** What an attempt's pages need: whether to take snapshots, how often, and when the next is due (now, when none was taken yet). */
export interface WebcamSchedule {
  choice: WebcamChoice;
  intervalSeconds: number;
  nextAt: Date;
  cameraUnavailable: boolean;
}

export async function webcamSchedule(db: Queryable, attemptId: string, now: Date): Promise<WebcamSchedule | undefined> {
  const consent = await consentOf(db, attemptId);
  if (!consent) return undefined;
  const { lastAt } = await snapshotTally(db, attemptId);
  const due = lastAt ? new Date(new Date(lastAt).getTime() + consent.intervalSeconds * 1000) : now;
  return { choice: consent.choice, intervalSeconds: consent.intervalSeconds, nextAt: due < now ? now : due, cameraUnavailable: consent.cameraUnavailableAt !== null };
}

/** One attempt's snapshots as the console's report shows them. */
export interface WebcamReport {
  attemptId: string;
  state: WebcamState;
  intervalSeconds: number;
  chosenAt: Date | null;
  cameraUnavailableAt: Date | null;
  snapshots: { id: string; takenAt: Date }[];
}

/**
 * The webcam part of the reports of these attempts, by attempt id: only attempts whose version
 * takes snapshots (or that have a recorded choice) have one.
 */
export async function webcamReports(db: Queryable, attemptIds: string[]): Promise<Map<string, WebcamReport>> {
  const found = new Map<string, WebcamReport>();
  if (attemptIds.length === 0) return found;
  const { rows } = await db.query<{
    id: string;
    assessmentId: string;
    version: number;
    choice: WebcamChoice | null;
    intervalSeconds: number | null;
    chosenAt: Date | null;
    cameraUnavailableAt: Date | null;
    snapshots: { id: string; takenAt: string }[];
  }>(
    `SELECT a.id, a.assessment_id AS "assessmentId", a.version, c.choice, c.interval_seconds AS "intervalSeconds", c.chosen_at AS "chosenAt",
            c.camera_unavailable_at AS "cameraUnavailableAt",
            coalesce((SELECT json_agg(json_build_object('id', s.id, 'takenAt', s.taken_at) ORDER BY s.taken_at, s.id) FROM webcam_snapshots s WHERE s.attempt_id = a.id), '[]') AS snapshots
       FROM attempts a LEFT JOIN webcam_consents c ON c.attempt_id = a.id WHERE a.id = ANY($1::uuid[])`,
    [attemptIds],
  );
  for (const row of rows) {
    const setting = webcamOf(await versionContent(db, row.assessmentId, row.version));
    if (!setting && row.choice === null) continue;
    const snapshots = row.snapshots.map((s) => ({ id: s.id, takenAt: new Date(s.takenAt) }));
    const state: WebcamState =
      row.choice === null ? 'not-asked' : row.choice === 'declined' ? 'declined' : row.cameraUnavailableAt !== null && snapshots.length === 0 ? 'camera-unavailable' : 'agreed';
    found.set(row.id, {
      attemptId: row.id,
      state,
      intervalSeconds: row.intervalSeconds ?? setting!.intervalSeconds,
      chosenAt: row.chosenAt,
      cameraUnavailableAt: row.cameraUnavailableAt,
      snapshots,
    });
  }
  return found;
}

/** A snapshot's image, only if it belongs to an attempt of one of these instances. */
export async function snapshotImage(db: Queryable, instanceIds: string[], snapshotId: string): Promise<{ image: Buffer; candidateId: string } | undefined> {
  if (!isUuid(snapshotId)) return undefined;
  const { rows } = await db.query<{ image: Uint8Array; candidateId: string }>(
    `SELECT s.image, i.candidate_id AS "candidateId" FROM webcam_snapshots s JOIN attempts a ON a.id = s.attempt_id JOIN invitations i ON i.id = a.invitation_id
      WHERE s.id = $1 AND i.instance_id = ANY($2::uuid[])`,
    [snapshotId, instanceIds],
  );
  const row = rows[0];
  return row && { image: Buffer.from(row.image), candidateId: row.candidateId };
}

/** The candidate's choices and snapshots (the images as base64), for the data export. */
export async function snapshotsOfCandidate(db: Queryable, candidateId: string): Promise<Record<string, unknown>[]> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT c.attempt_id AS "attemptId", c.choice, c.interval_seconds AS "intervalSeconds", c.chosen_at AS "chosenAt",
            c.client_address AS "clientAddress", c.client_agent AS "clientAgent", c.camera_unavailable_at AS "cameraUnavailableAt", c.camera_detail AS "cameraDetail",
            coalesce((SELECT json_agg(json_build_object('id', s.id, 'takenAt', s.taken_at, 'width', s.width, 'height', s.height,
                                                        'contentType', 'image/jpeg', 'base64', encode(s.image, 'base64')) ORDER BY s.taken_at, s.id)
                        FROM webcam_snapshots s WHERE s.attempt_id = c.attempt_id), '[]') AS snapshots
       FROM webcam_consents c JOIN attempts a ON a.id = c.attempt_id JOIN invitations i ON i.id = a.invitation_id
      WHERE i.candidate_id = $1 ORDER BY c.chosen_at, c.attempt_id`,
    [candidateId],
  );
  // PostgreSQL's base64 breaks lines every 76 characters; the export gives it in one piece.
  for (const row of rows) for (const s of row.snapshots as { base64: string }[]) s.base64 = s.base64.replace(/\s+/g, '');
  return rows;
}

/**
 * Erasure (and the retention sweep, which erases the same way): the candidate's snapshots are
 * deleted; their choices stay without where they came from (address, browser, the camera's error).
 */
export async function eraseCandidateSnapshots(tx: Queryable, candidateId: string): Promise<void> {
  const attempts = `SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`;
  await tx.query(`DELETE FROM webcam_snapshots WHERE attempt_id IN (${attempts})`, [candidateId]);
  await tx.query(`UPDATE webcam_consents SET client_address = NULL, client_agent = NULL, camera_detail = NULL WHERE attempt_id IN (${attempts})`, [candidateId]);
}
