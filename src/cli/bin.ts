// The operator CLI's entry: bin/assessment-connect.mjs runs its compiled form (dist/cli/bin.js);
// the tests run this file through tsx.
import { run } from './main.js';

process.exitCode = await run(process.argv.slice(2));
