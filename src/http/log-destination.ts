// Where the service's log lines go: standard output, asynchronously (a request never waits for
// it), gathered into writes of about CHUNK_CHARS characters or every FLUSH_MS, whichever first.
import { writeSync } from 'node:fs';
import pino from 'pino';

/**
 * A write is made once this many characters of lines are waiting… Each write costs the process a
 * string join, a UTF-8 copy and a turn of libuv's thread pool: at 4 Ki characters (one write per
 * ~16 request lines) that was 2-3 µs of a score read's CPU. 64 Ki characters stay under V8's
 * 128 KiB large-object threshold even as a two-byte string, so a chunk dies young.
 */
const CHUNK_CHARS = 64 * 1024;
/** …or this often while any are. */
const FLUSH_MS = 200;

/** What pino needs of a destination: lines in, and ways to push out what waits. */
export interface LogDestination {
  write(line: string): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
  /** Writes what waits and closes the writer; resolves once it is closed. */
  end(): Promise<void>;
}

/** Writes all of `text` to `fd` now, waiting out a full pipe (EAGAIN) for up to about 10 s. */
function writeAllSync(fd: number, text: string): void {
  let rest = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 0; rest.length > 0 && tries < 1000;) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      tries++;
      Atomics.wait(pause, 0, 0, 10);
    }
  }
}

/**
 * Lines are kept in a list and handed to the writer (pino's sonic-boom on `fd`) joined, a chunk at a
 * time. sonic-boom's own gathering (its minLength) appends each line to one growing string and
 * measures that whole string's UTF-8 length on every write: at a line per request that cost a score
 * read 2-3 µs of CPU and a copy of the pending text (about 2 KiB of garbage per request); here a line
 * costs a push and an addition. One write per line would cost a system call per request, about 10 %
 * of a score read's throughput at 7,000 requests/s. What still waits when the process exits is
 * written synchronously.
 */
export function logDestination(fd = 1, options: { chunkChars?: number; flushMs?: number } = {}): LogDestination {
  const chunkChars = options.chunkChars ?? CHUNK_CHARS;
  // The writer writes each chunk as it comes (minLength 1: at 0 its flush would not wait for the
  // writes under way).
  const writer = pino.destination({ dest: fd, sync: false, minLength: 1 });
  let lines: string[] = [];
  let waiting = 0;
  const take = (): string => {
    const chunk = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    waiting = 0;
    return chunk;
  };
  const handOver = () => {
    if (lines.length > 0) writer.write(take());
  };
  const timer = setInterval(handOver, options.flushMs ?? FLUSH_MS).unref();
  // At exit there is no event loop to finish an asynchronous write: what the writer holds is
  // written synchronously, then what waits here.
  const atExit = () => {
    const chunk = take();
    try {
      writer.flushSync();
      if (chunk !== '') writeAllSync(fd, chunk);
    } catch {
      // The output is gone (a closed pipe): nothing more can be said.
    }
  };
  process.on('exit', atExit);
  return {
    write(line) {
      lines.push(line);
      waiting += line.length;
      if (waiting >= chunkChars) handOver();
      return true;
    },
    flush(callback) {
      handOver();
      writer.flush(callback);
    },
    flushSync() {
      atExit();
    },
    end() {
      clearInterval(timer);
      process.off('exit', atExit);
      handOver();
      return new Promise((resolve) => {
        writer.once('close', () => resolve());
        writer.end();
      });
    },
  };
}
