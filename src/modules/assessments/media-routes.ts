// Media files of published content, served to the portal's and the console's pages at a name
// that is the sha256 of their bytes: a year's immutable caching, the type the service decided from
// the bytes, nosniff, and a policy that lets the file do nothing but be shown (an SVG opened on
// its own runs no script and loads nothing). The address is known only to those shown the content.
// A player may ask for part of a file (a Range of bytes, RFC 9110 §14), to start or to seek.
import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { Problem } from '../../http/problem.js';
import { findMedia } from './media-store.js';
import { MEDIA_TYPES, type MediaExtension } from './media.js';

const IMMUTABLE = 'private, max-age=31536000, immutable';
const NAME = /^([0-9a-f]{64})\.(png|jpg|webp|gif|svg|mp3|ogg|wav|mp4|webm)$/;

export async function mediaRoutes(app: FastifyInstance, { db }: { db: Queryable }): Promise<void> {
  app.get<{ Params: { file: string } }>('/portal/media/:file', { schema: { hide: true } }, async (request, reply) => {
    const match = NAME.exec(request.params.file);
    const media = match ? await findMedia(db, match[1]!) : undefined;
    if (!match || !media || MEDIA_TYPES[match[2] as MediaExtension].contentType !== media.contentType) throw new Problem('not-found', 'No such media file');
    const etag = `"${match[1]}"`;
    reply.type(media.contentType).headers({
      'cache-control': IMMUTABLE,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'cross-origin-resource-policy': 'same-origin',
      'accept-ranges': 'bytes',
      etag,
    });
    const ifRange = request.headers['if-range'];
    const range = ifRange === undefined || ifRange === etag ? byteRange(request.headers.range, media.bytes.length) : 'whole';
    if (range === 'whole') return reply.send(media.bytes);
    if (range === 'unsatisfiable') return reply.code(416).header('content-range', `bytes */${media.bytes.length}`).type('text/plain; charset=utf-8').send('Range Not Satisfiable');
    return reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${media.bytes.length}`)
      .send(media.bytes.subarray(range.start, range.end + 1));
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
