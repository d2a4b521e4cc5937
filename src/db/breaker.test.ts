// The pool's circuit breaker against real PostgreSQL behind a TCP relay the test can cut and
// restore: queries work, then fail fast while the server is unreachable, then work again by
// themselves once it is back.
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { describe, it, mock } from 'node:test';
import { freePort } from '../../test/harness.js';
import { movingClock } from '../../test/support/clock.js';
import { DatabaseUnavailable, isPoolBusy, isUnavailable, openDatabase } from './database.js';

/** A TCP relay to PostgreSQL on a fixed local port that can be cut (listener and connections) and restored. */
async function relay(target: URL) {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const up = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server!.close(() => resolve());
    });
  await up();
  return { port, up, down };
}

/**
 * A relay to PostgreSQL that ends every new connection the way a server shutting down can: the
 * message that completes the connection (ReadyForQuery) and the FATAL error that ends it
 * (57P01, "terminating connection due to administrator command") in one TCP write, so that the
 * client hears both in the same tick it was handed out in.
 */
async function shutdownRelay(target: URL) {
  const port = await freePort();
  const fatal = errorResponse({ S: 'FATAL', V: 'FATAL', C: '57P01', M: 'terminating connection due to administrator command' });
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Messages: a type byte and a length (which counts itself); the first 'Z' completes the connection.
      for (let at = 0; at + 5 <= pending.length;) {
        const end = at + 1 + pending.readInt32BE(at + 1);
        if (end > pending.length) break;
        if (pending[at] === 0x5a) {
          client.end(Buffer.concat([pending.subarray(0, end), fatal]));
          upstream.destroy();
          return;
        }
        at = end;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function errorResponse(fields: Record<string, string>): Buffer {
  const body = Buffer.concat([...Object.entries(fields).map(([code, text]) => Buffer.from(`${code}${text}\0`)), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const base = process.env.TEST_DATABASE_URL;

/** The test database's URL, reached through a relay on this machine's `port`. */
function throughRelay(port: number): string {
  const url = new URL(base!);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

describe('circuit breaker of the PostgreSQL pool', { skip: base ? false : 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  it('fails fast while PostgreSQL is unreachable and recovers by itself', async () => {
    const cut = await relay(new URL(base!));
    // The breaker's open interval passes on this clock: the test moves it instead of waiting.
    const clock = movingClock();
    const db = await openDatabase({ databaseUrl: throughRelay(cut.port), poolSize: 4, now: clock.now });
    const heard: string[] = [];
    let outage: { ms: number; failedFast: number } | undefined;
    db.watchAvailability!({
      down: (cause) => heard.push(`down: ${isUnavailable(cause)}`),
      up: (o) => {
        heard.push('up');
        outage = o;
      },
    });
    try {
      assert.deepEqual((await db.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }]);

      await cut.down();
      const first = await db.query('SELECT 1').catch((error: unknown) => error);
      assert.ok(isUnavailable(first), `the first failure is a connection failure: ${String(first)}`);
      // While the breaker is open, queries and transactions fail without trying the network.
      for (const attempt of [() => db.query('SELECT 1'), () => db.transaction((tx) => tx.query('SELECT 1'))]) {
        const error = await attempt().catch((e: unknown) => e);
        assert.ok(error instanceof DatabaseUnavailable, String(error));
        assert.ok(isUnavailable(error));
      }

      await cut.up();
      // After the open interval one probe goes through, and its success closes the breaker (a
      // probe that meets a pooled connection the outage broke fails, and opens it again).
      let recovered = false;
      for (let i = 0; i < 50 && !recovered; i++) {
        clock.offset += 500;
        recovered = await db.query('SELECT 1').then(
          () => true,
          () => false,
        );
      }
      assert.ok(recovered, 'queries work again once PostgreSQL is back, without reopening the store');
      await db.transaction(async (tx) => assert.equal((await tx.query<{ n: number }>('SELECT 2 AS n')).rows[0]!.n, 2));
      // One outage is heard as one beginning and one end, however many queries failed between.
      assert.deepEqual(heard, ['down: true', 'up']);
      assert.ok(outage!.failedFast >= 2, `the queries that failed fast are counted (${outage!.failedFast})`);
      assert.ok(outage!.ms >= 500, `the outage lasted from the first failure to the probe that got through (${outage!.ms} ms)`);
    } finally {
      await db.close();
      await cut.down().catch(() => {});
    }
  });

  it('survives a connection lost while a transaction or an export holds it between queries', async () => {
    const cut = await relay(new URL(base!));
    const clock = movingClock();
    const db = await openDatabase({ databaseUrl: throughRelay(cut.port), poolSize: 2, now: clock.now });
    try {
      const inTransaction = db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await cut.down();
        // The loss arrives as an 'error' event while no query is running: it must not crash.
        await new Promise((r) => setTimeout(r, 200));
        await tx.query('SELECT 2');
      });
      await assert.rejects(inTransaction);

      await cut.up();
      clock.offset += 600; // past the breaker's open interval
      const rows = db.batches!<{ n: number }>('SELECT g AS n FROM generate_series(1, 5000) g', [], 1000);
      assert.equal((await rows.next()).value?.length, 1000);
      await cut.down();
      await new Promise((r) => setTimeout(r, 200));
      await assert.rejects(rows.next());
      await cut.up();
      clock.offset += 600; // past the breaker's open interval
      assert.equal((await db.query<{ n: number }>('SELECT 3 AS n')).rows[0]!.n, 3, 'the store works on');
    } finally {
      await db.close();
      await cut.down().catch(() => {});
    }
  });

  it('survives a connection that ends in the same breath as it opens (a server shutting down)', async () => {
    const relay = await shutdownRelay(new URL(base!));
    const clock = movingClock();
    const db = await openDatabase({ databaseUrl: throughRelay(relay.port), poolSize: 2, now: clock.now });
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    // The node test runner would report an uncaught error too, but as a failure of no test in particular.
    process.on('uncaughtException', record);
    try {
      for (const attempt of [() => db.transaction((tx) => tx.query('SELECT 1')), () => db.session((conn) => conn.query('SELECT 1')), () => db.query('SELECT 1')]) {
        await assert.rejects(attempt());
        clock.offset += 600; // past the breaker's open interval: each attempt connects
      }
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(uncaught.map(String), [], 'the error reaches the caller, never the process');
    } finally {
      process.off('uncaughtException', record);
      await db.close();
      await relay.close();
    }
  });

  it('answers a request that finds every connection busy with 503, and does not open the breaker for the others', async () => {
    const db = await openDatabase({ databaseUrl: base!, poolSize: 1, poolWaitMs: 200 });
    try {
      const holding = db.transaction((tx) => tx.query('SELECT pg_sleep(0.6)'));
      await new Promise((r) => setTimeout(r, 50));
      const waited = await db.query('SELECT 1').catch((error: unknown) => error);
      assert.ok(isPoolBusy(waited), String(waited));
      assert.ok(isUnavailable(waited), 'the waiting request gets a 503');
      await holding;
      // The server was busy, not away: the next query runs at once instead of failing fast.
      assert.deepEqual((await db.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }]);
    } finally {
      await db.close();
    }
  });
});

describe('an export read through a cursor', { skip: base ? false : 'needs TEST_DATABASE_URL (PostgreSQL)' }, () => {
  it('is read to its end however long its reader pauses (past the driver’s 15 s read timeout)', async () => {
    const db = await openDatabase({ databaseUrl: base! });
    // The driver's read timeout is a setTimeout: mocked, the test moves time past it at once.
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let read = 0;
      for await (const rows of db.batches!<{ n: number }>('SELECT g AS n FROM generate_series(1, 5000) g', [], 1000)) {
        assert.equal(rows[0]!.n, read + 1, 'batches come in order, none skipped');
        read += rows.length;
        // A slow client: the pause between two batches outlasts the driver's 15 s.
        if (read === 1000) mock.timers.tick(20_000);
      }
      assert.equal(read, 5000, 'the export is not cut short as if it had ended');
    } finally {
      mock.timers.reset();
      await db.close();
    }
  });
});
