// The data directory's lock (data-dir-lock.ts): exclusive between processes and between stores of
// one process, refused before anything in the directory is touched, and gone with its holder
// however the holder ends (SIGKILL here). test/data-dir-lock.test.ts runs it through real servers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { runnable } from '../../test/support/runnable.js';
import { DataDirInUse, lockDataDir } from './data-dir-lock.js';
import { openDatabase } from './database.js';

describe('the data directory lock', () => {
  const dirs: string[] = [];
  const fresh = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-dirlock-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second holder in the same process, naming the directory and the holder, until released', async () => {
    const dir = fresh();
    const lock = lockDataDir(dir);
    assert.throws(
      () => lockDataDir(dir),
      (error: unknown) => error instanceof DataDirInUse && error.message.includes(`the data directory ${dir} is in use by another process (pid ${process.pid})`),
    );
    // The store refuses before it makes or opens anything in the directory.
    await assert.rejects(openDatabase({ dataDir: dir }), DataDirInUse);
    assert.deepEqual(readdirSync(dir), ['store.lock'], 'no pgdata made');
    lock.release();
    lock.release();
    lockDataDir(dir).release();
  });

  it('is held by another process until it is killed (SIGKILL), then free at once', async () => {
    const dir = fresh();
    const module = runnable(fileURLToPath(new URL('./data-dir-lock.ts', import.meta.url)));
    const holder = spawn(
      process.execPath,
      [
        ...module.loader,
        '--input-type=module',
        '-e',
        `const { lockDataDir } = await import(${JSON.stringify(module.file)}); lockDataDir(${JSON.stringify(dir)}); console.log('held'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
      holder.on('exit', (code) => reject(new Error(`the holder exited (${code})`)));
    });
    assert.throws(() => lockDataDir(dir), new RegExp(`in use by another process \\(pid ${holder.pid}\\)`));
    const exited = new Promise((resolve) => holder.on('exit', (_code, signal) => resolve(signal)));
    holder.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    assert.ok(existsSync(path.join(dir, 'store.lock')), 'the file stays; the lock does not');
    lockDataDir(dir).release();
  });
});
