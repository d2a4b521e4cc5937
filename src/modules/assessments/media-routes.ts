// Media files of published content, served to the portal's and the console's pages at a name
// that is the sha256 of their bytes: a year's immutable caching, the type the service decided from
// the bytes, nosniff, and a policy that lets the file do nothing but be shown (an SVG opened on
// its own runs no script and loads nothing). The address is known only to those shown the content.
// A player may ask for part of a file (a Range of bytes, RFC 9110 §14), to start or to seek. A
// file is read from the store in parts, only the part asked for and at most PART_BYTES a query
// (a whole file is streamed part by part), and at most READS_AT_ONCE parts are read at once in a
// process, so that media never holds more than that many of the database's connections, nor more
// than that many parts in memory, however many files are asked for.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { monotonicMs } from '../../domain/clock.js';
import { Slots } from '../../domain/slots.js';
import { Problem } from '../../http/problem.js';
import { mediaFile, mediaPart } from './media-store.js';
import { MEDIA_TYPES, type MediaExtension } from './media.js';

const IMMUTABLE = 'private, max-age=31536000, immutable';
const NAME = /^([0-9a-f]{64})\.(png|jpg|webp|gif|svg|mp3|ogg|wav|mp4|webm)$/;
/** The most bytes one query reads. */
export const PART_BYTES = 1024 * 1024;
/** The most media reads at once in a process, and how long a read waits for its turn before a 503. */
export const READS_AT_ONCE = 3;
const READ_WAIT_MS = 5000;

export async function mediaRoutes(app: FastifyInstance, { db }: { db: Queryable }): Promise<void> {
  const reads = new Slots(READS_AT_ONCE);
  /** A query of media, run in its turn; a 503 when no turn comes within READ_WAIT_MS. */
  const inTurn = async <T>(query: () => Promise<T>): Promise<T> => {
    const release = await reads.acquire(monotonicMs() + READ_WAIT_MS);
    if (!release) throw new Problem('unavailable', 'Too many media files are being read: try again in a moment', undefined, { 'retry-after': '1' });
    try {
      return await query();
    } finally {
      release();
    }
  };
  const part = (sha256: string, start: number, length: number) => inTurn(() => mediaPart(db, sha256, start, length));
  /** Bytes start…end (inclusive) of a file: one part, or a stream of parts. */
  const bytes = async (sha256: string, start: number, end: number): Promise<Buffer | Readable> => {
    if (end - start + 1 <= PART_BYTES) return part(sha256, start, end - start + 1);
    const first = await part(sha256, start, PART_BYTES);
    return Readable.from(
      (async function* () {
        yield first;
        for (let at = start + PART_BYTES; at <= end; at += PART_BYTES) yield await part(sha256, at, Math.min(PART_BYTES, end - at + 1));
      })(),
    );
  };

  app.get<{ Params: { file: string } }>('/portal/media/:file', { schema: { hide: true } }, async (request, reply) => {
    const match = NAME.exec(request.params.file);
    const media = match ? await inTurn(() => mediaFile(db, match[1]!)) : undefined;
    if (!match || !media || MEDIA_TYPES[match[2] as MediaExtension].contentType !== media.contentType) throw new Problem('not-found', 'No such media file');
    const sha256 = match[1]!;
    const etag = `"${sha256}"`;
    reply.type(media.contentType).headers({
      'cache-control': IMMUTABLE,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'cross-origin-resource-policy': 'same-origin',
      'accept-ranges': 'bytes',
      etag,
    });
    const ifRange = request.headers['if-range'];
    const range = ifRange === undefined || ifRange === etag ? byteRange(request.headers.range, media.size) : 'whole';
    if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${media.size}`).type('text/plain; charset=utf-8').send('Range Not Satisfiable');
    const { start, end } = range === 'whole' ? { start: 0, end: media.size - 1 } : range;
    if (range !== 'whole') reply.code(206).header('content-range', `bytes ${start}-${end}/${media.size}`);
    reply.header('content-length', end - start + 1);
    // HEAD: the headers GET would send, and no byte read.
    if (request.method === 'HEAD' || media.size === 0) return reply.send();
    return reply.send(await bytes(sha256, start, end));
  });
}

/**
 * The part of a file of `size` bytes a Range header asks for: the whole file without one, for
 * another unit or for several ranges (a server may answer those whole); unsatisfiable for a
 * malformed byte range or one that starts past the end.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'whole' | 'unsatisfiable' {
  if (header === undefined) return 'whole';
  const spec = /^\s*bytes\s*=(.*)$/i.exec(header);
  if (!spec) return 'whole';
  if (spec[1]!.includes(',')) return 'whole';
  const parts = /^\s*(\d*)-(\d*)\s*$/.exec(spec[1]!);
  if (!parts || (parts[1] === '' && parts[2] === '')) return 'unsatisfiable';
  if (parts[1] === '') {
    const suffix = Number(parts[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(parts[1]);
  const end = parts[2] === '' ? size - 1 : Math.min(Number(parts[2]), size - 1);
  return start >= size || Number(parts[2] || start) < start ? 'unsatisfiable' : { start, end };
}
