// A worker thread of ThreadJobs (thread-jobs.ts) starts here, and loads the module its workerData
// names (`module`: the URL of its .js). In the compiled build (dist/), and in the copy of the tree
// that npm test runs, the module's JavaScript is there; in src/ this thread loads tsx's hooks (a
// worker does not inherit hooks registered by its parent), then the module's TypeScript.
import { existsSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const compiled = new URL(workerData.module);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(compiled.href.replace(/\.js$/, '.ts'));
}
// Loaded: jobs' time limits run from here, not counting the thread's start.
parentPort.postMessage({ ready: true });
