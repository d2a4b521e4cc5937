// Media files served in parts (HTTP range requests, RFC 9110 §14): a player asks for the part of a
// sound or video file it needs, to start at once or to seek. One range of bytes is answered with
// 206 and Content-Range; a range that cannot be satisfied or is malformed with 416 naming the size;
// a range the file has changed from (If-Range with another tag), another unit or several ranges
// with the whole file. The file is the library's spoken clip, offered to an instance.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { LIBRARY_DIR } from '../src/modules/assessments/library.js';
import { describeEachStore } from './harness.js';

const clip = readFileSync(path.join(LIBRARY_DIR, 'media', 'english-grammar', 'voicemail.wav'));
const sha256 = createHash('sha256').update(clip).digest('hex');
const url = `/portal/media/${sha256}.wav`;

describeEachStore('media files in parts (range requests)', (ctx) => {
  const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => ctx().request({ method, url, headers });

  it('offers the clip, and says that its bytes may be asked for in parts', async () => {
    const instance = await ctx().instance();
    const offered = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/library`, payload: { assessments: ['english-grammar'] } });
    assert.equal(offered.statusCode, 200, offered.body);
    const whole = await get();
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.headers['accept-ranges'], 'bytes');
    assert.equal(Number(whole.headers['content-length']), clip.length);
    assert.ok(whole.rawPayload.equals(clip));
  });

  it('answers one range with 206 and its bytes: from-to, from onwards, the last n, an end past the file clipped', async () => {
    const size = clip.length;
    for (const [range, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-1999', 1000, 1999],
      [`bytes=${size - 10}-`, size - 10, size - 1],
      ['bytes=-500', size - 500, size - 1],
      [`bytes=100-${size + 5000}`, 100, size - 1],
      [`bytes=-${size + 10}`, 0, size - 1],
    ] as const) {
      const part = await get({ range });
      assert.equal(part.statusCode, 206, range);
      assert.equal(part.headers['content-range'], `bytes ${start}-${end}/${size}`, range);
      assert.equal(Number(part.headers['content-length']), end - start + 1, range);
      assert.equal(part.headers['accept-ranges'], 'bytes');
      assert.match(String(part.headers['content-type']), /^audio\/wav/);
      assert.equal(part.headers['x-content-type-options'], 'nosniff', 'the same safe headers as the whole file');
      assert.ok(part.rawPayload.equals(clip.subarray(start, end + 1)), range);
    }
  });

  it('refuses with 416 and the size a range past the end or malformed, and sends no bytes', async () => {
    const size = clip.length;
    for (const range of [`bytes=${size}-`, `bytes=${size + 100}-${size + 200}`, 'bytes=500-100', 'bytes=abc', 'bytes=-0', 'bytes=', 'bytes=1-2-3', 'bytes= -']) {
      const refused = await get({ range });
      assert.equal(refused.statusCode, 416, range);
      assert.equal(refused.headers['content-range'], `bytes */${size}`, range);
      assert.ok(!refused.rawPayload.subarray(0, 4).equals(clip.subarray(0, 4)), `${range}: no bytes of the file`);
    }
  });

  it('sends the whole file for another unit, several ranges, or If-Range naming another version; HEAD says the same without a body', async () => {
    for (const headers of [{ range: 'items=0-5' }, { range: 'bytes=0-1,5-6' }, { range: 'bytes=0-99', 'if-range': '"another"' }] as Record<string, string>[]) {
      const whole = await get(headers);
      assert.equal(whole.statusCode, 200, JSON.stringify(headers));
      assert.equal(whole.rawPayload.length, clip.length);
    }
    const same = await get({ range: 'bytes=0-99', 'if-range': `"${sha256}"` });
    assert.equal(same.statusCode, 206);
    assert.equal(same.rawPayload.length, 100);
    const head = await get({ range: 'bytes=0-99' }, 'HEAD');
    assert.equal(head.statusCode, 206);
    assert.equal(head.headers['content-range'], `bytes 0-99/${clip.length}`);
    assert.equal(head.rawPayload.length, 0);
    assert.equal((await ctx().request({ method: 'GET', url: `/portal/media/${'0'.repeat(64)}.wav`, headers: { range: 'bytes=0-9' } })).statusCode, 404);
  });
});
