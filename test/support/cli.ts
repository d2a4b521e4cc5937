// Runs the operator CLI against a server inside the test's own process: src/cli/main.ts's run()
// with its output caught in strings, an environment and a standard input of the test's, which
// saves starting node and tsx for every command. test/build.test.ts runs bin/ on the build as a
// process, as an operator does.
import { run } from '../../src/cli/main.js';
import { ADMIN_TOKEN } from '../harness.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `assessment-connect <args>` with the test process's environment and `env` over it: its exit
 * code and output; `input` is its standard input (none: an empty one).
 */
export async function cli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: (async function* () {
      if (input !== undefined) yield input;
    })(),
    env: { ...process.env, ...env },
  };
  try {
    return { code: await run(args, io), stdout, stderr };
  } catch (error) {
    // What node does with an uncaught error: the stack on standard error, exit code 1.
    return { code: 1, stdout, stderr: `${stderr}${error instanceof Error ? error.stack : String(error)}\n` };
  }
}

/** `assessment-connect <args> --url <url>` with the tests' admin token. */
export function runCli(url: string, args: string[], input?: string): Promise<CliRun> {
  return cli([...args, '--url', url], { ADMIN_TOKEN }, input);
}
