// The request line: what it holds, what it never holds, and that none is written below info.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { OneLineRequestLog, RequestLogger, loggerOptions, plainStream, requestLoggerFactory } from './logging.js';
import { redactPlainQuery, scrubUrl, scrubUrlFully } from './scrub-url.js';

/** Request loggers the /items/:id route saw, with whether each had made its child when its handler returned. */
let seen: { log: RequestLogger; madeWhenAnswered: boolean }[] = [];

async function linesOf(level: string, requests: string[], extra: Record<string, unknown> = {}, messages = ['request', 'request errored']): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const app = Fastify({
    logger: { ...(loggerOptions(level, { write: (line: string) => written.push(line) }) as object), ...extra },
    logController: new OneLineRequestLog(),
    childLoggerFactory: requestLoggerFactory,
  });
  app.get('/items/:id', async (request) => {
    if (request.log instanceof RequestLogger) seen.push({ log: request.log, madeWhenAnswered: request.log.isMade });
    return { ok: true };
  });
  app.get('/said', async (request) => {
    request.log.debug('below the level');
    request.log.info({ n: 1 }, 'said');
    return { ok: true };
  });
  app.get('/broken', async () => {
    throw new Error('kaput');
  });
  try {
    for (const url of requests) await app.inject({ method: 'GET', url });
  } finally {
    await app.close();
  }
  return written.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => messages.includes(line.msg as string));
}

describe('request logging', () => {
  it('writes one line per answered request with its id, method, route, scrubbed path, status and time', async () => {
    const [line, ...rest] = await linesOf('info', ['/items/7?token=s3cret&x=1']);
    assert.equal(rest.length, 0);
    assert.equal(line!.msg, 'request');
    assert.equal(line!.method, 'GET');
    assert.equal(line!.route, '/items/:id');
    assert.equal(line!.url, '/items/7?token=[redacted]&x=1');
    assert.equal(line!.statusCode, 200);
    assert.equal(typeof line!.ms, 'number');
    assert.equal(typeof line!.reqId, 'string');
    assert.ok(!JSON.stringify(line).includes('s3cret'));
  });

  it('writes the line of a request that failed, and no request lines below info', async () => {
    const lines = await linesOf('info', ['/broken']);
    assert.deepEqual(
      lines.map((line) => [line.msg, line.route, line.statusCode]),
      [['request', '/broken', 500]],
    );
    assert.deepEqual(await linesOf('warn', ['/items/7', '/items/8?token=x', '/broken']), []);
  });

  it("writes the line in one template exactly as pino would, and through pino when the logger is not pino's plain one", async () => {
    const requests = ['/items/7?token=s3cret&x=1', '/items/%22quoted%22?q=a@b.example', '/nowhere\\here', '/broken'];
    const fast = await linesOf('info', requests);
    // A log formatter (even one that changes nothing) makes the line go through pino.
    const throughPino = await linesOf('info', requests, { formatters: { log: (object: Record<string, unknown>) => object } });
    const comparable = (line: Record<string, unknown>) => ({ ...line, time: 0, reqId: '', ms: 0, err: undefined });
    assert.equal(fast.length, 4);
    assert.deepEqual(fast.map(comparable), throughPino.map(comparable));
    // The same keys in the same order (an unmatched path has no route, as pino leaves undefined out).
    assert.deepEqual(
      fast.map((line) => Object.keys(line)),
      throughPino.map((line) => Object.keys(line)),
    );
    assert.deepEqual(Object.keys(fast[0]!), ['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'route', 'url', 'statusCode', 'ms', 'ip', 'msg']);
    assert.equal(fast[2]!.route, undefined);
    assert.equal(fast[2]!.statusCode, 404);
    assert.equal(typeof fast[0]!.time, 'number');
    // The first went the short way, the second through pino.
    const sink = { write: () => true };
    const plain = Fastify({ logger: loggerOptions('info', sink) });
    const formatted = Fastify({ logger: { ...(loggerOptions('info', sink) as object), formatters: { log: (object: Record<string, unknown>) => object } } });
    assert.equal(plainStream(plain.log), sink);
    assert.equal(plainStream(plain.log.child({ reqId: 'r' })), sink);
    assert.equal(plainStream(formatted.log), null);
    // Levels written as labels ("level":"info") are not the template's either.
    const labelled = Fastify({ logger: { ...(loggerOptions('info', sink) as object), formatters: { level: (label: string) => ({ level: label }) } } });
    assert.equal(plainStream(labelled.log), null);
    assert.equal(plainStream(plain.log), sink, 'asked again, the plain logger is still plain');
    await Promise.all([plain.close(), formatted.close(), labelled.close()]);
  });

  it("makes a request's pino child only when something is logged through it, with the same bindings", async () => {
    seen = [];
    const [quiet] = await linesOf('info', ['/items/1']);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.madeWhenAnswered, false, 'a request that logs nothing makes no child');
    assert.equal(seen[0]!.log.isMade, false, 'nor does its request line');
    assert.equal(quiet!.reqId, seen[0]!.log.bindings.reqId);

    // A line written in the handler goes through the child, bound to the request's id, as does the request line.
    const lines = await linesOf('info', ['/said'], {}, ['said', 'request', 'below the level']);
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['said', 'request'],
    );
    assert.equal(lines[0]!.n, 1);
    assert.equal(typeof lines[0]!.reqId, 'string');
    assert.equal(lines[0]!.reqId, lines[1]!.reqId);

    // A binding with a serializer of its own is written as pino writes it: the child is made.
    seen = [];
    const serialized = await linesOf('info', ['/items/2'], {
      serializers: { ...(loggerOptions('info') as { serializers: object }).serializers, reqId: (id: string) => `r-${id}` },
    });
    assert.match(serialized[0]!.reqId as string, /^r-/);
    assert.equal(seen[0]!.log.isMade, true);
  });

  it('scrubs keys and tokens wherever a client put them in the URL', () => {
    assert.equal(scrubUrl('/v1/score?api_key=ack_abc&candidateIds=1'), '/v1/score?api_key=[redacted]&candidateIds=1');
    assert.equal(scrubUrl('/portal/?sessionToken=xyz'), '/portal/?sessionToken=[redacted]');
    assert.equal(scrubUrl('/x/ack_secretvalue'), '/x/ack_[redacted]');
  });

  it('scrubs a plain query by its names alone, as the whole scrub would', () => {
    assert.equal(scrubUrl('/v1/score?candidateIds=a,b'), '/v1/score?candidateIds=a,b');
    assert.equal(scrubUrl('/x?Q=Jane&instance=a&TOKEN=t&'), '/x?Q=[redacted]&instance=a&TOKEN=[redacted]&');
    assert.equal(scrubUrl('/x?a=1& Token =t&\u212Aey=k&ſecret=s'), '/x?a=1& Token =[redacted]&\u212Aey=[redacted]&ſecret=s');
    // Random URLs of plain characters, parameter names of the list among them: the shortcut agrees with the whole scrub on each.
    // The Kelvin sign lowers to `k` (so \u212Aey is a key), the long s (ſ) does not lower to `s`.
    const pieces = ['q', 'Q', 'token', 'Signature', ' key', '\u212Aey', 'ſecret', '\t', 'candidateIds', 'x', '=', '=', '&', '&', '?', '/', 'a b', '1', ''];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      let url = '/v1/score?';
      for (let n = next() % 12; n > 0; n--) url += pieces[next() % pieces.length];
      assert.equal(redactPlainQuery(url), scrubUrlFully(url), url);
      assert.equal(scrubUrl(url), scrubUrlFully(url), url);
    }
  });
});
