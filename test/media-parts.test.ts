// Media read from the store in parts: a range request reads only its range (sixty one-byte ranges
// of a 4 MB video read sixty bytes, not 240 MB; of the probe's 24 MB one, 1.4 GB), a whole file is streamed a part at a time, and
// no more than READS_AT_ONCE reads run at once, however many requests come, so that media never
// takes the database's connections from candidates' saves and the API. The routes run here over
// the suite's store, watched: every query's rows are counted as they come back.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { it } from 'node:test';
import Fastify from 'fastify';
import type { Queryable } from '../src/db/database.js';
import { PART_BYTES, READS_AT_ONCE, mediaRoutes } from '../src/modules/assessments/media-routes.js';
import { storeMediaFile } from '../src/modules/assessments/media-store.js';
import { describeEachStore } from './harness.js';

describeEachStore('media read from the store in parts', (ctx) => {
  it('reads only the range asked for, streams a whole file in parts, and at most a few at once', async () => {
    const video = Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypmp42', 'latin1'), randomBytes(4 * 1024 * 1024 - 12)]);
    const sha256 = createHash('sha256').update(video).digest('hex');
    await storeMediaFile(ctx().db, { sha256, extension: 'mp4', contentType: 'video/mp4', kind: 'video', bytes: video }, new Date('2026-12-01T00:00:00Z'));
    const { rows } = await ctx().db.query<{ storage: string }>(
      `SELECT attstorage AS storage FROM pg_attribute WHERE attrelid = 'assessment_media'::regclass AND attname = 'bytes'`,
    );
    assert.equal(rows[0]!.storage, 'e', 'stored out of line, uncompressed: substring() reads only the chunks it needs');

    let read = 0;
    let largest = 0;
    let running = 0;
    let mostAtOnce = 0;
    const watched: Queryable = {
      async query<T>(text: string, params?: unknown[]) {
        running++;
        mostAtOnce = Math.max(mostAtOnce, running);
        try {
          const result = await ctx().db.query<T>(text, params);
          for (const row of result.rows as Record<string, unknown>[])
            for (const value of Object.values(row))
              if (value instanceof Uint8Array) {
                read += value.byteLength;
                largest = Math.max(largest, value.byteLength);
              }
          return result;
        } finally {
          running--;
        }
      },
    };
    const app = Fastify();
    await app.register(mediaRoutes, { db: watched });
    try {
      const url = `/portal/media/${sha256}.mp4`;
      const ranges = await Promise.all(Array.from({ length: 60 }, () => app.inject({ method: 'GET', url, headers: { range: 'bytes=0-0' } })));
      assert.deepEqual([...new Set(ranges.map((r) => r.statusCode))], [206]);
      assert.ok(ranges.every((r) => r.rawPayload.length === 1 && r.rawPayload[0] === 0 && r.headers['content-range'] === `bytes 0-0/${video.length}`));
      assert.equal(read, 60, 'sixty one-byte ranges read sixty bytes from the store');
      assert.equal(mostAtOnce, READS_AT_ONCE, `at most ${READS_AT_ONCE} queries at once`);

      read = 0;
      const middle = await app.inject({ method: 'GET', url, headers: { range: 'bytes=3000000-3000099' } });
      assert.equal(middle.statusCode, 206);
      assert.ok(middle.rawPayload.equals(video.subarray(3_000_000, 3_000_100)));
      assert.equal(read, 100);

      read = 0;
      largest = 0;
      const whole = await app.inject({ method: 'GET', url });
      assert.equal(whole.statusCode, 200);
      assert.equal(Number(whole.headers['content-length']), video.length);
      assert.ok(whole.rawPayload.equals(video), 'the whole file, whole');
      assert.equal(read, video.length);
      assert.equal(largest, PART_BYTES, `read ${PART_BYTES} bytes at a time at most`);

      read = 0;
      const head = await app.inject({ method: 'HEAD', url, headers: { range: 'bytes=0-99' } });
      assert.equal(head.statusCode, 206);
      assert.equal(read, 0, 'HEAD reads no byte');
    } finally {
      await app.close();
    }
  });
});
