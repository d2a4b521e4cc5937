// The nesting depth of every JSON body is bounded. Deeply nested documents parse fine but break
// whatever walks them recursively later (the idempotency fingerprint overflowed the stack at
// about 5,000 levels and answered 500), and no request of this API needs more than a few levels.
// The depth is counted before Fastify's own parser sees the body, for every route that takes JSON.
//
// Its text must also be Unicode. JSON may escape half of a UTF-16 surrogate pair alone ("\udfff"),
// which no character is: PostgreSQL refuses it inside jsonb (a saved answer answered 500, found by
// fuzzing) and writes it into text as U+FFFD, not what was sent. Such a body is refused whole.
import type { FastifyInstance } from 'fastify';
import { LONE_SURROGATE_MESSAGE, loneSurrogatePath } from '../domain/text.js';
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

/** The JSON pointer of the first string (key or value) in `value` holding half a surrogate pair; null when none does. */
export function loneSurrogateAt(value: unknown): string | null {
  const path = loneSurrogatePath(value);
  return path === null ? null : ['#', ...path.map((k) => String(k).replaceAll('~', '~0').replaceAll('/', '~1'))].join('/');
}

export function notUnicode(pointer: string): Problem {
  return new Problem(
    'validation-failed',
    'The JSON body holds text that is not Unicode: half of a surrogate pair escaped alone (such as \\udfff); escape both halves or send the character as UTF-8',
    [{ in: 'body', name: pointer === '#' ? '(body)' : pointer.slice(2), pointer, detail: LONE_SURROGATE_MESSAGE }],
  );
}

/**
 * The JSON body parser of every route: the whole body is read (within the body limit), its depth
 * counted, then parsed by Fastify's own parser (which also refuses __proto__ and constructor
 * poisoning). A body too deep is a 400 problem. (Counting in a stream in front of the parser,
 * stopping the read at the first level too deep, left connections stalled until the request
 * timeout: found by fuzzing.) Text holding half a surrogate pair is a 400 problem too; it can only be
 * written as a \u escape, so bodies without one are not walked.
 */
export function registerJsonDepthLimit(app: FastifyInstance, maxDepth = MAX_JSON_DEPTH): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() !== '' && jsonDepth(text) > maxDepth) return done(tooDeep(maxDepth), undefined);
    if (!text.includes('\\u')) return parse(request, text, done);
    return parse(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const at = loneSurrogateAt(value);
      return at === null ? done(null, value) : done(notUnicode(at), undefined);
    });
  });
}
