import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Database } from '../../db/database.js';
import { apiClient, instanceClient, type ReadRouter } from '../../db/replica.js';
import { instanceHeader, problemResponses, publicSecurity } from '../../http/openapi.js';
import { invalid } from '../../http/problem.js';
import { instanceScope } from '../keys/authenticate.js';
import { ScoreRecord } from './schema.js';
import { CURSOR_LENGTH, CursorCodec } from './cursor.js';
import { ScoreReads } from './candidate-reads.js';
import { PAGE_SIZE, recordTextBatches, recordTextPage, type ScoreFilter } from './repository.js';
import { isUuid } from '../../domain/ids.js';

const MAX_IDS = 500;

function idList(name: 'candidateIds' | 'assessmentIds', value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  // One id (a read by one candidate, the usual one): no list to split, check or deduplicate.
  if (!value.includes(',')) {
    const id = value.trim();
    if (id === '') throw invalid([{ in: 'query', name, detail: 'element 1 is empty' }]);
    return [id];
  }
  const ids = value.split(',').map((id) => id.trim());
  const empty = ids.findIndex((id) => id === '');
  if (empty >= 0) throw invalid([{ in: 'query', name, detail: `element ${empty + 1} is empty` }]);
  if (ids.length > MAX_IDS) throw invalid([{ in: 'query', name, detail: `lists ${ids.length} ids; at most ${MAX_IDS} are allowed` }]);
  return [...new Set(ids)];
}

const MAX_LIMIT = 1000;
// Assessment ids are slugs (the CHECK on assessments.slug). Anything else, NUL included, which
// PostgreSQL refuses in a text parameter, is an unknown id and never reaches the database.
const SLUG = /^[a-z][a-z0-9-]{0,63}$/;

/** No instance in scope, or a filter whose every id is unknown. */
const matchesNothing = (filter: ScoreFilter) => filter.instanceIds.length === 0 || filter.candidateIds?.length === 0 || filter.assessmentIds?.length === 0;

/** 60 Ki characters: under V8's 128 KiB large-object threshold even as a two-byte string. */
const EXPORT_PIECE_CHARS = 60 * 1024;

/**
 * `reads` (DATABASE_READ_URL): the records are read from the replica, or from the primary for a
 * key that just wrote, or while the replica is behind or away (src/db/replica.ts). Cursors' secret
 * is read from the primary.
 */
export const scoreRoutes: FastifyPluginAsyncTypebox<{ db: Database; reads?: ReadRouter }> = async (app, { db: primary, reads: router }) => {
  const cursors = new CursorCodec(primary);
  const gathered = new Map<Database, ScoreReads>([[primary, new ScoreReads(primary)]]);
  if (router) gathered.set(router.replica, new ScoreReads(router.replica));
  /** Records as one JSON array, written as they are (the read model's texts, not serialized again). */
  const json = (reply: FastifyReply, texts: string[]) => reply.type('application/json; charset=utf-8').send(`[${texts.join(',')}]`);

  /** One page of an opt-in paginated read, with the Link to the next one while more remain. */
  async function page(
    db: Database,
    reply: FastifyReply,
    apiKeyId: string,
    filter: ScoreFilter,
    query: { candidateIds?: string; assessmentIds?: string; limit: number; cursor?: string },
  ) {
    const { limit, cursor } = query;
    const after = cursor === undefined ? '0' : await cursors.decode(cursor, apiKeyId);
    if (after === undefined) throw invalid([{ in: 'query', name: 'cursor', detail: 'is not a cursor this service gave out to this API key: copy it from the Link header' }]);
    if (matchesNothing(filter)) return json(reply, []);
    const { ids, texts } = await recordTextPage(db, filter, after, limit + 1);
    if (texts.length > limit) {
      const next = new URLSearchParams();
      for (const name of ['candidateIds', 'assessmentIds'] as const) {
        const value = query[name];
        if (value !== undefined) next.set(name, String(value));
      }
      next.set('limit', String(limit));
      next.set('cursor', await cursors.encode(ids[limit - 1]!, apiKeyId));
      reply.header('link', `</v1/score?${next.toString()}>; rel="next"`);
    }
    return json(reply, texts.slice(0, limit));
  }

  /** The first page read row by row (some record of it is not stored yet), with its last id. */
  async function rowsPage(db: Database, filter: ScoreFilter) {
    const { ids, texts } = await recordTextPage(db, filter, '0');
    return { lastId: ids.at(-1) ?? null, count: texts.length, texts };
  }

  /**
   * The whole result as one JSON array, written as the rows are read, in pieces of about
   * EXPORT_PIECE_CHARS. V8 puts a string over 128 KiB in its large-object space, which only a full
   * collection frees: whole-batch strings (~380 KB each) piled up there until the next one, and
   * the server grew by 99-120 MB during a 1,000,000-record export (test/reliability/export.test.ts);
   * small pieces die young (5-55 MB). The pieces are written as strings (object mode), which
   * the socket copies out without a Buffer per piece waiting for the collector. The first page
   * may come as one text joined by PostgreSQL (~400 KB for 1,000 records): one such string per
   * export, not one per batch (1-4 MB of growth for 1,000,000 records in the bench).
   */
  async function* exportJson(db: Database, filter: ScoreFilter, first: { lastId: string | null; texts: string[] }) {
    let out = '[';
    let separator = '';
    const pieces = function* (texts: string[]) {
      for (const text of texts) {
        out += separator + text;
        separator = ',';
        if (out.length >= EXPORT_PIECE_CHARS) {
          yield out;
          out = '';
        }
      }
    };
    yield* pieces(first.texts);
    // Each yield waits until the response has taken the previous piece (backpressure), and a
    // client that goes away ends this generator, which closes the cursor and frees its connection.
    for await (const texts of recordTextBatches(db, filter, first.lastId!)) yield* pieces(texts);
    yield out + ']';
  }

  app.get(
    '/score',
    {
      schema: {
        operationId: 'listScores',
        tags: ['scores'],
        summary: 'Read candidate scores',
        description: [
          'One record per (candidate, assessment) invitation in scope: the instance named by the `instance` header, or every instance the API key is granted.',
          '`candidateIds` and `assessmentIds` are comma-separated lists; given both, a record must match both.',
          `An empty element or more than ${MAX_IDS} ids in a list is \`400\`; unknown ids match nothing.`,
          'Without filters every record in scope is returned. Records come in a stable order (the order the invitations were made), and large results are streamed.',
          'Where the service reads from a replica (DATABASE_READ_URL), an API key reads its own writes (an invite, a cancellation) at once, and others’ changes (another key’s invites, completions) at most REPLICA_MAX_LAG_MS (2 s by default) and one lag check (0.5 s) late.',
          'Pagination is opt-in: with `limit` the answer holds at most that many records and, when more remain, a `Link: <…>; rel="next"` header (RFC 8288) whose URL, relative to the server, fetches the next page (same filters, an opaque `cursor`). Without `limit` the whole result comes in one answer, as specified.',
          `The cursor is opaque and tamper-evident: ${CURSOR_LENGTH} base64url characters, encrypted and authenticated (AES-256-GCM) with a secret all nodes share, bound to the API key it was given to, and revealing nothing (not even a position). A cursor that was altered, made up or given to another API key is \`400\` naming \`cursor\`.`,
        ].join(' '),
        security: publicSecurity,
        headers: instanceHeader(false),
        querystring: Type.Object({
          candidateIds: Type.Optional(
            Type.String({
              examples: ['9d7e6c95-b46b-46da-979a-dca23f37f114,0b6f3c52-8e1d-4a7b-9c2e-5f4d3a2b1c0e'],
              description: `Candidate identifiers separated by commas (at most ${MAX_IDS})`,
            }),
          ),
          assessmentIds: Type.Optional(Type.String({ examples: ['customer-support,data-entry'], description: `Assessment identifiers separated by commas (at most ${MAX_IDS})` })),
          limit: Type.Optional(
            Type.Integer({
              examples: [100],
              minimum: 1,
              maximum: MAX_LIMIT,
              description: `Opt-in pagination: at most this many records (1–${MAX_LIMIT}); a \`Link\` header with rel="next" points to the next page`,
            }),
          ),
          cursor: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              pattern: '^[A-Za-z0-9_-]+$',
              examples: ['AWmO0t3Yq2v8TzQ1yR4lXc9KbE7nHf0sU2pLgVwAjD6oMhZe5B'],
              description: 'Where the next page starts: copy it from the `Link` header of the previous page; only with `limit`',
            }),
          ),
        }),
        response: { 200: Type.Array(ScoreRecord), ...problemResponses('validation-failed', 'unauthorized', 'forbidden', 'rate-limited', 'unavailable') },
      },
    },
    async (request, reply) => {
      const candidateIds = idList('candidateIds', request.query.candidateIds);
      const assessmentIds = idList('assessmentIds', request.query.assessmentIds);
      const scope = instanceScope(request, { required: false });
      // Candidate ids are UUIDs and assessment ids slugs: any other id is unknown, and unknown ids match nothing.
      const filter: ScoreFilter = {
        instanceIds: scope.map((i) => i.id),
        candidateIds: candidateIds?.filter((id) => isUuid(id)),
        assessmentIds: assessmentIds?.filter((id) => SLUG.test(id)),
      };
      // The key's own writes, and completions in its instances (instancesWrote), are read from the primary for a moment.
      const db = router
        ? router.for(
            apiClient(request.apiKey!.id),
            scope.map((i) => instanceClient(i.id)),
          )
        : primary;
      if (request.query.limit !== undefined) return page(db, reply, request.apiKey!.id, filter, { ...request.query, limit: request.query.limit });
      if (request.query.cursor !== undefined) throw invalid([{ in: 'query', name: 'cursor', detail: 'is only valid together with limit' }]);
      if (matchesNothing(filter)) return json(reply, []);
      // The first page as stored when every record of it is ready (the usual case), else as rows.
      const first = (await gathered.get(db)!.firstPage(filter)) ?? (await rowsPage(db, filter));
      if (first.count < PAGE_SIZE) return json(reply, first.texts);
      const stream = Readable.from(exportJson(db, filter, first), { objectMode: true });
      stream.on('error', (error) => request.log.error({ err: error }, 'score export failed mid-stream'));
      return reply.type('application/json; charset=utf-8').send(stream as never);
    },
  );
};
