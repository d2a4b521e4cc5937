// QTI packages as commands and queries of the assessments module: an import publishes through the
// same path as every import (publishContent: one transaction, audited as assessment.import), and
// an export reads the current version.
import { createHash } from 'node:crypto';
import type { Queryable } from '../../../db/database.js';
import type { CommandContext } from '../../../domain/command.js';
import { notFound } from '../../../domain/errors.js';
import { publishContent, type AssessmentInstance } from '../commands.js';
import { versionMedia } from '../media-store.js';
import { MEDIA_TYPES } from '../media.js';
import { assessmentUuid, currentContent, currentHashes, currentVersion, type ImportResult } from '../repository.js';
import { exportQti, type QtiExport } from './export.js';
import { readQtiPackage, type QtiReport } from './import.js';

export interface QtiImportResult extends ImportResult {
  report: QtiReport;
}

/**
 * Publishes a QTI 3.0 package as an assessment of the instance (a new one, or a new version of the
 * one with its id). A package that cannot be read, or of which nothing imports, publishes nothing:
 * the error names each file and item and why.
 */
export async function importQtiPackage(ctx: CommandContext, input: { instance: AssessmentInstance; bytes: Uint8Array; fileName?: string; id?: string }): Promise<QtiImportResult> {
  const reading = readQtiPackage(input.bytes, input.fileName, input.id);
  let { content, hash } = reading;
  // Without a chosen id, an import is a new assessment: an id the instance has gets the first free -2, -3, ...
  if (input.id === undefined) {
    const taken = await currentHashes(ctx.tx, input.instance.id);
    if (taken.has(content.id)) {
      let n = 2;
      while (taken.has(`${content.id.slice(0, 60)}-${n}`)) n++;
      const id = `${content.id.slice(0, 60)}-${n}`;
      reading.report.notes.push({
        file: 'imsmanifest.xml',
        what: `the id "${content.id}" is taken in this instance: imported as "${id}" (choose the id to publish a new version of it)`,
      });
      content = { ...content, id };
      hash = createHash('sha256').update(JSON.stringify(content)).digest('hex');
      if (reading.report.assessment) reading.report.assessment.id = id;
    }
  }
  const result = await publishContent(ctx, { instance: input.instance, content, hash, files: reading.media });
  return { ...result, report: reading.report };
}

/** The current version of an assessment of the instance as a QTI 3.0 package. */
export async function qtiPackageOf(db: Queryable, instanceId: string, id: string): Promise<QtiExport & { id: string }> {
  const uuid = /^[a-z][a-z0-9-]{0,63}$/.test(id) ? await assessmentUuid(db, instanceId, id) : undefined;
  if (!uuid) throw notFound('No such assessment in this instance');
  const media = await versionMedia(db, uuid, await currentVersion(db, uuid));
  const extension = (contentType: string) => Object.entries(MEDIA_TYPES).find(([, t]) => t.contentType === contentType)?.[0];
  return { id, ...exportQti(await currentContent(db, uuid), new Map(media.map((m) => [`${m.sha256}.${extension(m.contentType)}`, m.bytes]))) };
}
