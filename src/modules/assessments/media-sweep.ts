// Media files that nothing shows are deleted: a picture uploaded in the editor whose reference was
// never published (the author changed their mind, or pasted it into a text left unsaved). A file is
// kept while a version uses it (assessment_version_media: for as long as the version exists) or a
// saved draft names it (`media:<sha256>`), and for MEDIA_UNUSED_KEPT_DAYS after it was last given
// (uploaded or published), which covers a text still being written in a browser.
import { runCommand, systemRequest, type Transactional } from '../../domain/command.js';
import type { Job } from '../../jobs/runner.js';

export const MEDIA_UNUSED_KEPT_DAYS = 30;
/** The most files one run deletes (each may be 25 MB); a full batch runs again at once. */
const BATCH = 100;
const DAY_MS = 86_400_000;

/**
 * Deletes up to a batch of unused media files last given more than MEDIA_UNUSED_KEPT_DAYS before
 * `now`; returns how many. A command of the clock's actor. A file that a publish starts using
 * meanwhile is not deleted: its reference locks the row, and the delete that meets it fails on
 * the foreign key and deletes nothing (the next run looks again).
 */
export async function sweepUnusedMedia(db: Transactional, now: Date, limit = BATCH): Promise<number> {
  return runCommand(
    db,
    systemRequest('media-sweep', now),
    async ({ tx, now }) => {
      const { rows } = await tx.query<{ sha256: string }>(
        `DELETE FROM assessment_media WHERE sha256 IN (
           SELECT m.sha256 FROM assessment_media m
            WHERE m.given_at < $1
              AND NOT EXISTS (SELECT 1 FROM assessment_version_media u WHERE u.sha256 = m.sha256)
              AND NOT EXISTS (SELECT 1 FROM assessment_drafts d WHERE strpos(d.source, 'media:' || m.sha256) > 0)
            ORDER BY m.given_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING sha256`,
        [new Date(now.getTime() - MEDIA_UNUSED_KEPT_DAYS * DAY_MS), limit],
      );
      return rows.length;
    },
    'media_sweep',
  );
}

const FOREIGN_KEY_VIOLATION = '23503';

export function mediaSweepJob(db: Transactional, everyMs: number): Job {
  let full = false;
  return {
    name: 'media-sweep',
    everyMs,
    async run(now) {
      try {
        const deleted = await sweepUnusedMedia(db, now);
        full = deleted === BATCH;
        return deleted;
      } catch (error) {
        full = false;
        if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return 0;
        throw error;
      }
    },
    soonerMs: () => (full ? 0 : undefined),
  };
}
