// The operator CLI's entry: bin/assessment-connect.mjs runs its compiled form (dist/cli/bin.js)
// with the process's streams and environment; the tests call main.ts's run() in their own process
// (test/support/cli.ts).
import { run } from './main.js';

process.exitCode = await run(process.argv.slice(2));
