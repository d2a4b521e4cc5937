// Media files nothing shows are deleted 30 days after they were last given: a file a published
// version uses is kept however old, so is one a saved draft names, and one given again counts from
// then; the sweep is a background job on every node (registered, run here by its runner).
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import sharp from 'sharp';
import { acceptMedia } from '../src/modules/assessments/media.js';
import { storeMediaFile } from '../src/modules/assessments/media-store.js';
import { MEDIA_UNUSED_KEPT_DAYS, sweepUnusedMedia } from '../src/modules/assessments/media-sweep.js';
import { describeEachStore, sampleAssessment } from './harness.js';

const DAY = 86_400_000;
const picture = async (background: string) =>
  acceptMedia(
    `${background.slice(1)}.png`,
    await sharp({ create: { width: 12, height: 12, channels: 3, background } })
      .png()
      .toBuffer(),
  );

describeEachStore('the sweep of unused media files', (ctx) => {
  const now = new Date('2026-06-01T12:00:00Z');
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const storedNames = async () => new Set((await ctx().db.query<{ sha256: string }>('SELECT sha256 FROM assessment_media')).rows.map((r) => r.sha256));
  let instance: string;

  before(async () => {
    instance = await ctx().instance('media-sweep');
  });

  it(`deletes a file nothing uses ${MEDIA_UNUSED_KEPT_DAYS} days after it was last given, and keeps what a version uses, a draft names, or was given again`, async () => {
    const unusedOld = await picture('#a11');
    const unusedRecent = await picture('#a22');
    const givenAgain = await picture('#a33');
    const inDraft = await picture('#a44');
    for (const [file, at] of [
      [unusedOld, ago(MEDIA_UNUSED_KEPT_DAYS + 1)],
      [unusedRecent, ago(MEDIA_UNUSED_KEPT_DAYS - 1)],
      [givenAgain, ago(90)],
      [inDraft, ago(90)],
    ] as const)
      await storeMediaFile(ctx().db, file, at);
    // Uploaded again in the editor ten days ago: counts from then.
    await storeMediaFile(ctx().db, givenAgain, ago(10));
    // A saved draft names one (the author pasted its reference and saved, not yet published).
    await ctx().db.query(
      `INSERT INTO assessment_drafts (instance_id, new_for, source, saved_by, saved_at) SELECT id, 'user:author@example.com', $1, 'user:author@example.com', $2 FROM instances WHERE name = $3`,
      [`prompt: "![A red square](media:${inDraft.sha256}.png)"`, ago(60), instance],
    );
    // Published with content 90 days before: used by a version, kept however old.
    const used = await picture('#a55');
    const yaml = sampleAssessment('swept').replace('prompt: What is 2 + 2?', 'prompt: "![A square](square.png) What is 2 + 2?"');
    const published = await ctx().request({
      method: 'POST',
      url: `/admin/v1/instances/${instance}/assessments/package`,
      headers: { 'content-type': 'application/zip' },
      payload: Buffer.from(zipSync({ 'swept.yaml': strToU8(yaml), 'square.png': used.bytes })),
    });
    assert.equal(published.statusCode, 201, published.body);
    await ctx().db.query('UPDATE assessment_media SET created_at = $2, given_at = $2 WHERE sha256 = $1', [used.sha256, ago(90)]);

    assert.equal(await sweepUnusedMedia(ctx().db, now), 1);
    const left = await storedNames();
    assert.equal(left.has(unusedOld.sha256), false, 'unused, last given 31 days ago: deleted');
    for (const [what, file] of [
      ['unused, given 29 days ago', unusedRecent],
      ['given again 10 days ago', givenAgain],
      ['named by a saved draft', inDraft],
      ['used by a published version', used],
    ] as const)
      assert.equal(left.has(file.sha256), true, `${what}: kept`);
    assert.equal(await sweepUnusedMedia(ctx().db, now), 0, 'nothing more to delete');
    const served = await ctx().request({ method: 'GET', url: `/portal/media/${used.sha256}.png` });
    assert.equal(served.statusCode, 200, 'the version still shows its picture');
    assert.equal((await ctx().request({ method: 'GET', url: `/portal/media/${unusedOld.sha256}.png` })).statusCode, 404);

    // Days later, by the node's job: the draft is gone and the recent file has had its 30 days.
    await ctx().db.query('DELETE FROM assessment_drafts WHERE source LIKE $1', [`%${inDraft.sha256}%`]);
    await ctx().db.query('UPDATE assessment_media SET given_at = given_at - $2::interval WHERE sha256 = ANY($1::text[])', [
      [unusedRecent.sha256, inDraft.sha256, givenAgain.sha256, used.sha256],
      `${400} days`,
    ]);
    assert.equal(await ctx().app.jobs.runOnce('media-sweep'), 3);
    const last = await storedNames();
    assert.deepEqual(
      [unusedRecent, inDraft, givenAgain, used].map((f) => last.has(f.sha256)),
      [false, false, false, true],
      'only the version’s picture is left',
    );
  });
});
