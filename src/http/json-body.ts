// The nesting depth of every JSON body is bounded. Deeply nested documents parse fine but break
// whatever walks them recursively later (the idempotency fingerprint overflowed the stack at
// about 5,000 levels and answered 500), and no request of this API needs more than a few levels.
// The bytes are counted as they arrive, before the body parser (Fastify's own, which also refuses
// __proto__ and constructor poisoning) sees them, so the check holds for every route, also for
// routes with parsers of their own.
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Problem } from './problem.js';

/** Deepest nesting of arrays and objects a JSON body may have (the top-level value is level 1). */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Counts the nesting of arrays and objects in JSON text fed piece by piece, without parsing;
 * brackets inside strings do not count. Works on UTF-8 bytes: the characters it looks at are
 * ASCII, which never occur inside a multi-byte sequence.
 */
export class DepthCounter {
  private depth = 0;
  private inString = false;
  private escaped = false;
  deepest = 0;

  feed(bytes: Uint8Array): number {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) {
        this.inString = true;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (++this.depth > this.deepest) this.deepest = this.depth;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth--;
      }
    }
    return this.deepest;
  }
}

/** The deepest nesting of arrays and objects in a JSON text. */
export function jsonDepth(text: string): number {
  return new DepthCounter().feed(Buffer.from(text, 'utf8'));
}

export function tooDeep(maxDepth: number): Problem {
  return new Problem('validation-failed', `The JSON body is nested more than ${maxDepth} levels deep (arrays and objects); at most ${maxDepth} are allowed`, [
    { in: 'body', name: '(body)', pointer: '#', detail: `is nested more than ${maxDepth} levels deep` },
  ]);
}

const JSON_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Passes a JSON body through, failing it (400 problem) as soon as it nests deeper than maxDepth. */
export function registerJsonDepthLimit(app: FastifyInstance, maxDepth = MAX_JSON_DEPTH): void {
  app.addHook('preParsing', async (request, reply, payload) => {
    if (!JSON_TYPE.test(String(request.headers['content-type'] ?? ''))) return payload;
    const counter = new DepthCounter();
    let refused = false;
    const guarded = new Transform({
      transform(chunk: Buffer, _encoding, callback: TransformCallback) {
        if (refused) return callback();
        if (counter.feed(chunk) <= maxDepth) return callback(null, chunk);
        refused = true;
        callback();
        // The rest of the body is never read: the connection cannot carry another request.
        reply.header('connection', 'close');
        // Failed on a later turn of the event loop: the body parser attaches its error listener
        // only after this hook has returned, and data may already be flowing before it does.
        setImmediate(() => guarded.destroy(tooDeep(maxDepth)));
      },
      flush(callback: TransformCallback) {
        // A refused body never ends: it fails (above), so that the parser never sees a truncated one.
        if (!refused) callback();
      },
    });
    // Never an unhandled 'error' event, whatever the order; the parser's own listener answers.
    guarded.on('error', () => {});
    payload.on('error', (error) => guarded.destroy(error));
    return payload.pipe(guarded);
  });
}
