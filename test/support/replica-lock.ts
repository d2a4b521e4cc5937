// One suite at a time on the machine's streaming replica (TEST_REPLICA_URL): test/replica.test.ts
// pauses its replay and stops it, which would fail another suite reading it meanwhile (the test
// runner runs two files at once). A directory made atomically is the lock; one older than ten
// minutes is taken to be left by a killed run.
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const STALE_MS = 10 * 60_000;

/** Waits for the replica to be free and holds it; the function returned frees it. */
export async function holdReplica(): Promise<() => void> {
  const port = new URL(process.env.TEST_REPLICA_URL!).port || '5432';
  const dir = path.join(tmpdir(), `ac-test-replica-${port}.lock`);
  for (;;) {
    try {
      mkdirSync(dir);
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_MS) rmSync(dir, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
