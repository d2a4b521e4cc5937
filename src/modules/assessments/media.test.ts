// Media files as accepted: the type read from the bytes, images re-encoded without metadata, SVG
// kept only when nothing active is in it, and each hostile file refused with a clear reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { MEDIA_MAX_BYTES, MediaError, acceptMedia, detectType, sanitiseSvg } from './media.js';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A PNG whose header claims width × height, with a few bytes of image data: a decompression bomb. */
function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A WAV header followed by `size` bytes of silence. */
function wav(size: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + size, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(size, 40);
  return Buffer.concat([header, Buffer.alloc(size, 0x80)]);
}

async function refused(file: string, bytes: Buffer, reason: RegExp) {
  await assert.rejects(acceptMedia(file, bytes), (error: unknown) => {
    assert.ok(error instanceof MediaError, String(error));
    assert.match(error.message, reason);
    assert.ok(error.message.startsWith(`${file}: `), error.message);
    return true;
  });
}

describe('media files', () => {
  it('reads the type from the bytes, never from the name', async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    assert.equal(detectType(png), 'png');
    const stored = await acceptMedia('chart.jpg', png);
    assert.equal(stored.contentType, 'image/png');
    assert.deepEqual([stored.width, stored.height], [4, 3]);
    assert.match(stored.sha256, /^[0-9a-f]{64}$/);
    await refused('notes.png', Buffer.from('just some text, named as a picture'), /not an accepted media type, judged by its bytes/);
  });

  it('re-encodes a JPEG without its metadata', async () => {
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'secret-location-48.85N' } })
      .toBuffer();
    assert.ok(jpeg.includes('secret-location-48.85N'));
    const stored = await acceptMedia('photo.jpg', jpeg);
    assert.equal(stored.contentType, 'image/jpeg');
    assert.ok(!stored.bytes.includes('secret-location-48.85N'), 'the EXIF is gone');
    assert.equal((await sharp(stored.bytes).metadata()).exif, undefined);
  });

  it('keeps audio as it is and refuses audio over the limit', async () => {
    const small = wav(1000);
    const stored = await acceptMedia('clip.wav', small);
    assert.equal(stored.contentType, 'audio/wav');
    assert.ok(stored.bytes.equals(small));
    await refused('long.wav', wav(MEDIA_MAX_BYTES.audio + 1), /is 10\.0 MB; audio files may be at most 10 MB/);
  });

  it('refuses a polyglot: a JPEG that is also a page, a PNG that is also a zip', async () => {
    const jpeg = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .jpeg()
      .toBuffer();
    await refused('polyglot.jpg', Buffer.concat([jpeg, Buffer.from('<html><script>alert(document.cookie)</script></html>')]), /JPG file with HTML markup inside it \(a polyglot\)/);
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const zipTail = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(26), Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)]);
    await refused('polyglot.png', Buffer.concat([png, zipTail]), /PNG file with a zip archive inside it \(a polyglot\)/);
    await refused('polyglot.mp3', Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from('<body onload=alert(1)>')]), /MP3 file with HTML markup/);
  });

  it('refuses a decompression bomb by its header, before decoding it', async () => {
    const bomb = pngClaiming(60000, 60000);
    assert.ok(bomb.length < 10000, `the bomb is small: ${bomb.length} bytes`);
    const started = process.hrtime.bigint();
    await refused('bomb.png', bomb, /(is 60000 × 60000 pixels|decodes to more than 16,777,216 pixels).*decompression bomb/);
    assert.ok(Number(process.hrtime.bigint() - started) / 1e6 < 2000, 'refused without decoding');
  });

  it('keeps a plain SVG and refuses one with script, an event handler or an outside link', async () => {
    const plain = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>Square</title><rect width="10" height="10" fill="#369"/></svg>';
    const stored = await acceptMedia('square.svg', Buffer.from(plain));
    assert.equal(stored.contentType, 'image/svg+xml');
    assert.match(stored.bytes.toString(), /<rect [^>]*fill="#369"/);
    await refused(
      'script.svg',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script><rect width="1" height="1"/></svg>'),
      /SVG with content that could run or load something \(<script>\)/,
    );
    await refused(
      'onload.svg',
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="1" height="1"/></svg>'),
      /could run or load something \(onload\)/,
    );
    await refused(
      'href.svg',
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><image xlink:href="https://evil.example/track.png" width="1" height="1"/></svg>',
      ),
      /a link to "https:\/\/evil\.example\/track\.png"/,
    );
    assert.throws(() => sanitiseSvg('entity.svg', '<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>'), /entity declaration/);
  });
});

describe('SVGs with outside references, and audio or video that is also something else', () => {
  const svg = (inside: string, attributes = 'width="10" height="10"') => `<svg xmlns="http://www.w3.org/2000/svg" ${attributes}>${inside}</svg>`;

  it('refuses an SVG that loads anything from outside, in its styles, its paint or its filters, escapes and all', () => {
    for (const [name, source] of [
      ['import', svg('<style>@import url(http://evil.example/x.css);</style><rect width="5" height="5"/>')],
      ['import-string', svg('<style>@import "http://evil.example/x.css";</style><rect width="5" height="5"/>')],
      ['font-face', svg('<style>@font-face { font-family: x; src: url(https://evil.example/font.woff); }</style><text>hi</text>')],
      ['fill', svg('<rect width="5" height="5" fill="url(http://evil.example/p.svg#paint)"/>')],
      ['filter', svg('<rect width="5" height="5" filter="url(https://evil.example/f.svg#blur)"/>')],
      ['style-attribute', svg('<rect width="5" height="5" style="fill: url(//evil.example/p#x)"/>')],
      ['escape', svg('<style>rect { fill: u\\72l(http://evil.example/p#x) }</style><rect width="5" height="5"/>')],
      ['hex-escape', svg('<rect width="5" height="5" style="fill: \\75 \\72 \\6c (http://evil.example/p#x)"/>')],
      ['image-set', svg('<style>rect { fill: image-set("http://evil.example/a.png" 1x) }</style><rect width="5" height="5"/>')],
    ] as const) {
      assert.throws(
        () => sanitiseSvg(`${name}.svg`, source),
        (error: unknown) => error instanceof MediaError && /is an SVG with content that could run or load something \(.*(outside|import|image-set)/.test(error.message),
        name,
      );
    }
  });

  it('keeps references inside the file (url(#id)) and a style that loads nothing', () => {
    const kept = sanitiseSvg(
      'gradient.svg',
      svg(
        '<defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient><filter id="f"><feGaussianBlur stdDeviation="1"/></filter></defs><style>rect { stroke: #333 }</style><rect width="5" height="5" fill="url(#g)" filter="url( \'#f\' )"/>',
      ),
    );
    assert.match(kept, /fill="url\(#g\)"/);
    assert.match(kept, /<style>rect \{ stroke: #333 \}<\/style>/);
  });

  it('refuses an SVG wider or taller than an image may be', () => {
    assert.throws(
      () => sanitiseSvg('wide.svg', svg('<rect width="5" height="5"/>', 'width="100000" height="10"')),
      /is 100000 × 10 pixels; an image may be at most 8192 pixels a side/,
    );
    assert.throws(() => sanitiseSvg('tall.svg', svg('<rect width="5" height="5"/>', 'width="10" height="300in"')), /is 10 × 28800 pixels/);
    assert.throws(() => sanitiseSvg('viewbox.svg', svg('<rect width="5" height="5"/>', 'viewBox="0 0 50000 50000"')), /is 50000 × 50000 pixels/);
    assert.match(sanitiseSvg('fine.svg', svg('<rect width="5" height="5"/>', 'width="100%" viewBox="0 0 800 600"')), /viewBox="0 0 800 600"/);
  });

  it('refuses audio that is also a page or a PDF (a polyglot)', async () => {
    const frame = Buffer.from([0xff, 0xfb, 0x90, 0x64, ...Buffer.alloc(200)]);
    await refused('img.mp3', Buffer.concat([frame, Buffer.from('<img src=x onerror=alert(document.domain)>')]), /is a MP3 file with HTML markup inside it \(a polyglot\)/);
    await refused('svg.mp3', Buffer.concat([frame, Buffer.from('<svg onload=alert(1)>')]), /is a MP3 file with HTML markup inside it/);
    await refused(
      'pdf.mp3',
      Buffer.concat([Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from('%PDF-1.7\n1 0 obj<<>>endobj')]),
      /is a MP3 file with a PDF document inside it/,
    );
    await refused(
      'pdf.mp4',
      Buffer.concat([Buffer.from('\x00\x00\x00\x18ftypmp42', 'latin1'), Buffer.alloc(100), Buffer.from('%PDF-1.4')]),
      /is a MP4 file with a PDF document inside it/,
    );
    // Plain audio is kept.
    assert.equal((await acceptMedia('plain.mp3', Buffer.concat([frame, Buffer.alloc(1000, 0x55)]))).contentType, 'audio/mpeg');
  });
});
