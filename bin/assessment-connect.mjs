#!/usr/bin/env node
// The operator CLI. Runs the TypeScript sources through tsx, like `npm start` does.
import { register } from 'tsx/esm/api';

register();
const { run } = await import('../src/cli/main.ts');
process.exitCode = await run(process.argv.slice(2));
