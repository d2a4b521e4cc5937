// Runs the operator CLI (bin/assessment-connect.mjs) against a listening test server, as an
// operator would: its exit code, standard output and standard error.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ADMIN_TOKEN } from '../harness.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

export function runCli(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/assessment-connect.mjs', ...args, '--url', url], { cwd: ROOT, env: { ...process.env, ADMIN_TOKEN }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
