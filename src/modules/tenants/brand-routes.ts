// The public side of branding: an instance's logo and its theme stylesheet, fetched by the
// candidate's browser from the portal's pages. Nothing here is secret: a logo is what every
// candidate of the instance sees. The logo is served as an image that can do nothing else
// (nosniff, a CSP that allows nothing), at a URL with its hash for a year's caching.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Queryable } from '../../db/database.js';
import { Problem } from '../../http/problem.js';
import { themeCss } from './branding.js';
import { INSTANCE_NAME_PATTERN, findInstanceByName, findLogo } from './repository.js';

const NAME = new RegExp(INSTANCE_NAME_PATTERN);
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=300';

export async function brandRoutes(app: FastifyInstance, { db }: { db: Queryable }): Promise<void> {
  const none = (what: string) => new Problem('not-found', what);

  async function sendLogo(reply: FastifyReply, instance: string, hash: string | undefined) {
    const logo = NAME.test(instance) ? await findLogo(db, instance) : undefined;
    if (!logo || (hash !== undefined && !logo.sha256.startsWith(hash))) throw none(`Instance "${instance}" has no such logo`);
    return reply
      .type(logo.contentType)
      .headers({ 'cache-control': hash ? IMMUTABLE : SHORT, 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'", etag: `"${logo.sha256}"` })
      .send(logo.bytes);
  }

  /** The logo at its hashed URL (brandOf's logoPath): cached for a year. */
  app.get<{ Params: { instance: string; hash: string } }>('/brand/:instance/logo/:hash', { schema: { hide: true } }, async (request, reply) => {
    if (!/^[0-9a-f]{16}$/.test(request.params.hash)) throw none('No such logo');
    return sendLogo(reply, request.params.instance, request.params.hash);
  });

  /** The logo at a stable URL, for pages outside this service. */
  app.get<{ Params: { instance: string } }>('/brand/:instance/logo', { schema: { hide: true } }, async (request, reply) => sendLogo(reply, request.params.instance, undefined));

  /**
   * The instance's accent colour as a stylesheet (the portal's CSP forbids inline style). A name
   * that is no instance gets exactly what an instance without a colour gets (same status, headers
   * and body), so that this public URL does not tell which instances exist.
   */
  app.get<{ Params: { instance: string } }>('/brand/:instance/theme.css', { schema: { hide: true } }, async (request, reply) => {
    const instance = NAME.test(request.params.instance) ? await findInstanceByName(db, request.params.instance) : undefined;
    return reply
      .type('text/css; charset=utf-8')
      .headers({ 'cache-control': SHORT, 'x-content-type-options': 'nosniff' })
      .send(instance?.accentColor ? themeCss(instance.accentColor) : '/* no accent colour set */\n');
  });
}
