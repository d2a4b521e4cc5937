// Log lines gathered into chunks: none lost, none reordered, and what waits at exit still written.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runnable } from '../../test/support/runnable.js';
import { logDestination } from './log-destination.js';

const flushed = (destination: ReturnType<typeof logDestination>) => new Promise<void>((resolve, reject) => destination.flush((error) => (error ? reject(error) : resolve())));

describe('log destination', () => {
  it('keeps short lines until a chunk is full or flushed, then writes them in order', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-log-'));
    const file = path.join(dir, 'out.log');
    const fd = openSync(file, 'w');
    // No timer within the test: only a full chunk or a flush writes.
    const destination = logDestination(fd, { chunkChars: 100, flushMs: 3_600_000 });
    try {
      destination.write('{"n":1}\n');
      destination.write('{"n":2}\n');
      assert.equal(readFileSync(file, 'utf8'), '', 'two short lines wait for more');
      await flushed(destination);
      assert.equal(readFileSync(file, 'utf8'), '{"n":1}\n{"n":2}\n');

      const lines = Array.from({ length: 5000 }, (_, i) => `{"n":${i},"text":"${'é'.repeat(i % 7)}"}\n`);
      for (const line of lines) destination.write(line);
      await flushed(destination);
      assert.equal(readFileSync(file, 'utf8'), `{"n":1}\n{"n":2}\n${lines.join('')}`);
    } finally {
      await destination.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes what waits when the process exits, whether it ends by itself or by process.exit', () => {
    const module = runnable(path.join(import.meta.dirname, 'log-destination.ts'));
    for (const ending of ['', 'process.exit(3);']) {
      const script = `import { logDestination } from ${JSON.stringify(module.file)};
        const d = logDestination(1, { flushMs: 3_600_000 });
        for (let i = 0; i < 3; i++) d.write('line ' + i + '\\n');
        ${ending}`;
      let out: string;
      try {
        out = execFileSync(process.execPath, [...module.loader, '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
      } catch (error) {
        const failed = error as { status: number; stdout: string };
        assert.equal(failed.status, 3);
        out = failed.stdout;
      }
      assert.equal(out, 'line 0\nline 1\nline 2\n', ending || 'ending by itself');
    }
  });
});
