// Runs the operator CLI as an operator would, against a server: from its TypeScript (src/cli/bin.ts,
// through tsx, as the other suites run the sources; test/build.test.ts runs bin/ on the build).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ADMIN_TOKEN } from '../harness.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** `assessment-connect <args> --url <url>` with the tests' admin token: its exit code and output; `input` is its standard input. */
export function runCli(url: string, args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/bin.ts', ...args, '--url', url], {
      cwd: ROOT,
      env: { ...process.env, ADMIN_TOKEN },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
