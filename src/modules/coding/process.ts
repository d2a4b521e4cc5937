// One run of a candidate's program in a fresh child process (child.mjs) executing WebAssembly
// (QuickJS or Pyodide), with Node's permission model, an empty environment, no code generation
// from strings, a time limit per test, a memory watch and truncated output.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CodeTest, CodingLanguage, RunRequest, RunStatus } from './runs.js';

export const OUTPUT_LIMIT = 64 * 1024;
/**
 * What the runtime itself may add to the child's resident memory after it is ready (V8 compiling
 * the WebAssembly's hot code in the background, say), on top of the program's memoryLimitMb.
 */
const RUNTIME_SLACK_MB = 32;
/** How long a runtime may take to start before the run is abandoned. */
const STARTUP_LIMIT_MS = 60_000;

const require = createRequire(import.meta.url);
/** The folder of an installed package (found from its main file: not every package exports package.json). */
function packageDir(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!existsSync(path.join(dir, 'package.json')) || (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }).name !== name) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`package ${name} not found`);
    dir = parent;
  }
  return dir;
}

interface RuntimeFiles {
  entries: Record<string, string>;
  readable: string[];
}

let runtimeFiles: Record<CodingLanguage, RuntimeFiles> | undefined;
function files(language: CodingLanguage): RuntimeFiles {
  if (!runtimeFiles) {
    const pyodide = packageDir('pyodide');
    const core = packageDir('quickjs-emscripten-core');
    const variant = packageDir('@jitl/quickjs-wasmfile-release-sync');
    const ffiTypes = packageDir('@jitl/quickjs-ffi-types');
    runtimeFiles = {
      python: { entries: { pyodide: path.join(pyodide, 'pyodide.mjs') }, readable: [pyodide + path.sep] },
      javascript: {
        entries: { quickjsCore: path.join(core, 'dist', 'index.mjs'), quickjsVariant: path.join(variant, 'dist', 'index.mjs') },
        readable: [core + path.sep, variant + path.sep, ffiTypes + path.sep],
      },
    };
  }
  return runtimeFiles[language];
}

const CHILD = fileURLToPath(new URL('./child.mjs', import.meta.url));
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';

function childArguments(language: CodingLanguage): string[] {
  const runtime = files(language);
  return [
    PERMISSION_FLAG,
    ...[CHILD, ...runtime.readable].map((file) => `--allow-fs-read=${file}`),
    '--disallow-code-generation-from-strings',
    '--max-old-space-size=256',
    '--no-warnings',
    CHILD,
    language,
    JSON.stringify(runtime.entries),
    String(OUTPUT_LIMIT),
  ];
}

/** Resident memory of a process in bytes (Linux), or undefined where it cannot be read. */
function residentBytes(pid: number): number | undefined {
  try {
    const pages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return Number.isFinite(pages) ? pages * 4096 : undefined;
  } catch {
    return undefined;
  }
}

interface ChildMessage {
  type: 'ready' | 'test' | 'done' | 'failed';
  index?: number;
  stdout?: string;
  stderr?: string;
  truncated?: boolean;
  returned?: string;
  error?: string;
  limit?: 'time-limit' | 'memory-limit';
  durationMs?: number;
  /** The runtime cannot go on after this test: the child exits, and the next test needs another. */
  fatal?: boolean;
}

export interface Raw {
  status: RunStatus;
  stdout: string;
  stderr: string;
  truncated: boolean;
  returned?: string;
  error?: string;
  durationMs: number;
}

const NOT_ALLOWED =
  /not allowed in the sandbox|ERR_ACCESS_DENIED|Access to this API has been restricted|Code generation from strings disallowed|PermissionError|does not support processes/;

/**
 * Runs `tests` in one child until they are all done or the child is ended by a limit; returns
 * what it got, the test it was killed on included.
 */
export function runInChild(request: RunRequest, tests: CodeTest[]): Promise<Raw[]> {
  return new Promise((resolve) => {
    const results: Raw[] = [];
    const child: ChildProcess = spawn(process.execPath, childArguments(request.language), {
      env: {},
      cwd: path.dirname(CHILD),
      stdio: ['pipe', 'ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let childStderr = '';
    let ready = false;
    let finished = false;
    let baseline: number | undefined;
    let killedFor: RunStatus | undefined;
    let endedAfterReport = false;
    let testStarted = 0;
    let timer: NodeJS.Timeout | undefined;
    const memoryWatch = setInterval(() => {
      if (!ready || !child.pid) return;
      const resident = residentBytes(child.pid);
      if (resident !== undefined && baseline !== undefined && resident - baseline > (request.memoryLimitMb + RUNTIME_SLACK_MB) * 1024 * 1024) {
        kill('memory-limit');
      }
    }, 25);
    const armTimer = (ms: number, reason: RunStatus) => {
      clearTimeout(timer);
      timer = setTimeout(() => kill(reason), ms);
    };
    const kill = (reason: RunStatus) => {
      if (finished) return;
      killedFor = reason;
      child.kill('SIGKILL');
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearInterval(memoryWatch);
      if (results.length < tests.length && !endedAfterReport) {
        const reason: RunStatus = killedFor ?? (NOT_ALLOWED.test(childStderr) ? 'not-allowed' : 'error');
        results.push({
          status: reason,
          stdout: '',
          stderr: '',
          truncated: false,
          error: !ready
            ? `the runtime did not start${childStderr ? `: ${childStderr.slice(-2000)}` : ''}`
            : reason === 'time-limit'
              ? `stopped after ${request.timeLimitMs} ms (the time limit)`
              : reason === 'memory-limit'
                ? `stopped for using more than ${request.memoryLimitMb} MB (the memory limit)`
                : `the program ended the runtime${childStderr ? `: ${lastLines(childStderr)}` : ''}`,
          durationMs: ready ? Math.round(performance.now() - testStarted) : 0,
        });
      }
      resolve(results);
    };
    armTimer(STARTUP_LIMIT_MS, 'error');
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      if (childStderr.length < OUTPUT_LIMIT) childStderr += chunk.slice(0, OUTPUT_LIMIT - childStderr.length);
    });
    const channel = child.stdio[3] as NodeJS.ReadableStream;
    channel.setEncoding('utf8');
    let buffer = '';
    let received = 0;
    const maxReceived = (tests.length + 2) * (3 * OUTPUT_LIMIT + 16 * 1024);
    channel.on('data', (chunk: string) => {
      received += chunk.length;
      if (received > maxReceived) return kill('error');
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        let message: ChildMessage;
        try {
          message = JSON.parse(line) as ChildMessage;
        } catch {
          continue;
        }
        onMessage(message);
      }
    });
    const onMessage = (message: ChildMessage) => {
      if (message.type === 'ready' && !ready) {
        ready = true;
        if (child.pid) baseline = residentBytes(child.pid);
        testStarted = performance.now();
        armTimer(request.timeLimitMs + 250, 'time-limit');
        const job = {
          source: request.source,
          entry: request.entry,
          timeLimitMs: request.timeLimitMs,
          memoryLimitMb: request.memoryLimitMb,
          tests: tests.map(({ stdin, args }) => ({ stdin, args })),
        };
        child.stdin!.on('error', () => {});
        child.stdin!.write(JSON.stringify(job) + '\n');
      } else if (message.type === 'test' && ready && message.index === results.length) {
        const error = typeof message.error === 'string' ? message.error : undefined;
        results.push({
          status: message.limit ?? (error === undefined ? 'ok' : NOT_ALLOWED.test(error) ? 'not-allowed' : 'error'),
          stdout: String(message.stdout ?? '').slice(0, OUTPUT_LIMIT),
          stderr: String(message.stderr ?? '').slice(0, OUTPUT_LIMIT),
          truncated: message.truncated === true,
          returned: typeof message.returned === 'string' ? message.returned : undefined,
          error: error?.slice(0, 8000),
          durationMs: Math.round(performance.now() - testStarted),
        });
        testStarted = performance.now();
        if (message.fatal === true) {
          endedAfterReport = true;
          clearTimeout(timer);
        } else if (results.length < tests.length) armTimer(request.timeLimitMs + 250, 'time-limit');
        else clearTimeout(timer);
      } else if (message.type === 'done') {
        clearTimeout(timer);
      } else if (message.type === 'failed' && typeof message.error === 'string') {
        childStderr += message.error.slice(0, 4000);
      }
    };
    child.on('error', (error) => {
      childStderr += String(error);
      finish();
    });
    child.on('close', finish);
  });
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-6).join('\n');
}
