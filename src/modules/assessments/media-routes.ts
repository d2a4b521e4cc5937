// Media files of published content, served to the portal's and the console's pages at a name
// that is the sha256 of their bytes: a year's immutable caching, the type the service decided from
// the bytes, nosniff, and a policy that lets the file do nothing but be shown (an SVG opened on
// its own runs no script and loads nothing). The address is known only to those shown the content.
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
    return reply
      .type(media.contentType)
      .headers({
        'cache-control': IMMUTABLE,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        'cross-origin-resource-policy': 'same-origin',
        etag: `"${match[1]}"`,
      })
      .send(media.bytes);
  });
}
