// The embedded store's worker thread starts here: it loads tsx's hooks in this thread (a worker
// does not inherit hooks registered by its parent), then the TypeScript of the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./embedded-worker.ts');
