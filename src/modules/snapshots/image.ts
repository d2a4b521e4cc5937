// A webcam snapshot as it is stored: the page sends a small JPEG (320 × 240 at quality 0.6 is a
// few kilobytes); the service checks that its bytes are a JPEG, decodes it with libvips (sharp)
// and encodes it again, so that only pixels are kept: no EXIF, no location, no comment, nothing
// after the image. Pure: no I/O but the decoder.
import sharp from 'sharp';
import { DomainError, invalidInput } from '../../domain/errors.js';

/** The largest snapshot accepted, in bytes (as sent and as stored). */
export const SNAPSHOT_MAX_BYTES = 200 * 1024;
/** A snapshot is stored at most this wide and high (larger ones are scaled down). */
export const SNAPSHOT_MAX_WIDTH = 640;
export const SNAPSHOT_MAX_HEIGHT = 480;
/** The most pixels a snapshot may decode to: a small file may expand to gigabytes. */
const SNAPSHOT_MAX_PIXELS = 1920 * 1080;

export interface StoredImage {
  bytes: Buffer;
  width: number;
  height: number;
}

const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

export const isJpeg = (bytes: Buffer) => bytes.length >= 3 && bytes.subarray(0, 3).equals(JPEG_MAGIC);

/** Checks a snapshot's bytes (a JPEG, not empty, not too large) and returns it re-encoded; throws a domain error saying what is wrong. */
export async function acceptSnapshot(bytes: Buffer): Promise<StoredImage> {
  if (bytes.length === 0) throw invalidInput([{ in: 'body', name: 'image', detail: 'is empty: send the JPEG image as the body' }]);
  if (bytes.length > SNAPSHOT_MAX_BYTES) throw new DomainError('too-large', `The snapshot is ${Math.ceil(bytes.length / 1024)} KB; the limit is ${SNAPSHOT_MAX_BYTES / 1024} KB`);
  if (!isJpeg(bytes)) throw new DomainError('unsupported-type', 'A snapshot is a JPEG image: these bytes are not one');
  try {
    const image = sharp(bytes, { limitInputPixels: SNAPSHOT_MAX_PIXELS, failOn: 'error', sequentialRead: true });
    const meta = await image.metadata();
    if (meta.format !== 'jpeg') throw new DomainError('unsupported-type', 'A snapshot is a JPEG image: these bytes are not one');
    const { data, info } = await image
      .rotate()
      .resize({ width: SNAPSHOT_MAX_WIDTH, height: SNAPSHOT_MAX_HEIGHT, fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 70 })
      .toBuffer({ resolveWithObject: true });
    if (data.length > SNAPSHOT_MAX_BYTES) throw new DomainError('too-large', `The snapshot is larger than ${SNAPSHOT_MAX_BYTES / 1024} KB once encoded`);
    return { bytes: data, width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (/pixel limit/i.test(message)) throw new DomainError('too-large', `The snapshot decodes to more than ${SNAPSHOT_MAX_PIXELS.toLocaleString('en')} pixels`);
    throw invalidInput([{ in: 'body', name: 'image', detail: 'could not be read as a JPEG image' }]);
  }
}
