// Publishing a library file as a folder is published: the document with the media files it names
// beside it (catalogue/media/…), zipped, through the admin API's package route.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { readLibraryFile } from '../../src/modules/assessments/library.js';
import { writeZip } from '../../src/modules/assessments/qti/zip.js';
import type { TestContext } from '../harness.js';

export function libraryPackage(file: string): Uint8Array {
  const entry = readLibraryFile(file);
  return writeZip(new Map<string, string | Uint8Array>([[path.basename(file), readFileSync(file, 'utf8')], ...entry.files]));
}

export function publishLibraryFile(ctx: TestContext, instance: string, file: string): Promise<LightMyRequestResponse> {
  return ctx.request({
    method: 'POST',
    url: `/admin/v1/instances/${instance}/assessments/package`,
    headers: { 'content-type': 'application/zip' },
    payload: Buffer.from(libraryPackage(file)),
  });
}
