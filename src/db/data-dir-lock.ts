// One process per data directory. The embedded store is PostgreSQL's files, written by the one
// PGlite that has them open; a second PGlite on the same files (a second `npm start` on the same
// DATA_DIR, even one that stops at once because the port is taken) replays and rewrites them
// under the first, and the store no longer opens after the next crash. So before anything in the
// directory is opened, the process takes an exclusive lock on `<DATA_DIR>/store.lock`: an
// open-file-description lock of the kernel (fcntl F_OFD_SETLK, through fs-native-extensions),
// held by the open descriptor, so that it ends with the process however it ends (SIGKILL and a
// crash included: there is no stale lock to clear), and refuses a second descriptor even in the
// same process. The file holds the holder's process id, for the message of the one refused.
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { tryLock } from 'fs-native-extensions';

/** The lock file's name inside the data directory. */
export const LOCK_FILE = 'store.lock';

/** Another process (or another store of this one) has the data directory open. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    holder: string | undefined,
  ) {
    super(
      `the data directory ${dataDir} is in use by another process${holder ? ` (pid ${holder})` : ''}: its embedded store can be opened by one process at a time. ` +
        'Stop that process first, or start this one with another DATA_DIR (or with DATABASE_URL, for PostgreSQL, which several processes can share).',
    );
    this.name = 'DataDirInUse';
  }
}

export interface DataDirLock {
  /** Lets the directory go (closing the descriptor ends the lock); once. */
  release(): void;
}

/** Takes the data directory for this store, or throws DataDirInUse without touching anything in it. */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  // Read and write (an exclusive lock needs a descriptor open for writing), created if missing,
  // never truncated by the open: the holder's pid is only rewritten once the lock is taken.
  const fd = openSync(file, 'a+', 0o600);
  let locked = false;
  try {
    locked = tryLock(fd);
  } finally {
    if (!locked) closeSync(fd);
  }
  if (!locked) {
    let holder: string | undefined;
    try {
      holder = /^\d+/.exec(readFileSync(file, 'utf8'))?.[0];
    } catch {
      // The message names no pid.
    }
    throw new DataDirInUse(dataDir, holder);
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      closeSync(fd);
    },
  };
}
