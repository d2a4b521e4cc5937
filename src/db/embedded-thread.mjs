// The embedded store's worker thread starts here. In the compiled build (dist/), and in the copy of
// the tree that npm test runs, the worker's JavaScript is beside this file; in src/ it loads tsx's
// hooks in this thread (a worker does not inherit hooks registered by its parent), then the
// TypeScript of the worker itself.
import { existsSync } from 'node:fs';

if (existsSync(new URL('./embedded-worker.js', import.meta.url))) {
  await import('./embedded-worker.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./embedded-worker.ts');
}
