// Runs untrusted candidates' code: each run in a fresh child process (child.mjs) executing
// WebAssembly (QuickJS or Pyodide), with Node's permission model, an empty environment, no
// code generation from strings, a time limit per test, a memory watch and truncated output; at
// most `size` children at once, the rest queued. The expected results stay in this process.
// docs/coding-questions.md says what it defends against and what it does not.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

export type CodingLanguage = 'javascript' | 'python';
export const CODING_LANGUAGES: readonly CodingLanguage[] = ['javascript', 'python'];

/**
 * One test. With `stdin` / `expectedStdout` the program runs as a script reading the input and
 * its printed output is compared (trailing spaces of each line and trailing blank lines
 * ignored). With `args` / `expected` the program defines the run's `entry` function, which is
 * called with the JSON arguments, and its JSON result is compared structurally.
 */
export interface CodeTest {
  stdin?: string;
  expectedStdout?: string;
  args?: unknown[];
  expected?: unknown;
}

export interface RunRequest {
  language: CodingLanguage;
  source: string;
  /** The function the tests call; without it every test runs the program as a script. */
  entry?: string;
  tests: CodeTest[];
  /** Per test, from the moment the runtime is ready (its start-up is not counted). */
  timeLimitMs: number;
  /** Memory the program may use above the runtime's own. */
  memoryLimitMb: number;
}

export type RunStatus = 'ok' | 'time-limit' | 'memory-limit' | 'not-allowed' | 'error';

export interface TestResult {
  passed: boolean;
  status: RunStatus;
  stdout: string;
  stderr: string;
  truncated: boolean;
  /** The entry function's result (JSON), when it returned. */
  actual?: unknown;
  expected?: unknown;
  error?: string;
  durationMs: number;
}

export interface RunResult {
  /** `ok` when every test ran to its end (passed or not); otherwise the first test's limit or error. */
  status: RunStatus;
  tests: TestResult[];
  /** The first test's output, for a run whose tests are examples. */
  stdout: string;
  stderr: string;
  durationMs: number;
}

export const OUTPUT_LIMIT = 64 * 1024;
const MAX_TESTS = 100;
const MAX_SOURCE = 100 * 1024;
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

interface Raw {
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
function runInChild(request: RunRequest, tests: CodeTest[]): Promise<Raw[]> {
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

/** Printed outputs are equal when they differ only in trailing spaces and trailing blank lines. */
export function sameOutput(actual: string, expected: string): boolean {
  const normal = (text: string) =>
    text
      .replace(/\r\n/g, '\n')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  return normal(actual) === normal(expected);
}

function judge(test: CodeTest, raw: Raw): TestResult {
  let actual: unknown;
  let status = raw.status;
  let error = raw.error;
  if (raw.returned !== undefined) {
    try {
      actual = JSON.parse(raw.returned);
    } catch {
      status = 'error';
      error = 'the function returned something that is not JSON';
    }
  }
  let passed = status === 'ok';
  if (passed && test.expectedStdout !== undefined) passed = sameOutput(raw.stdout, test.expectedStdout);
  if (passed && test.expected !== undefined) passed = isDeepStrictEqual(actual, test.expected);
  return {
    passed,
    status,
    stdout: raw.stdout,
    stderr: raw.stderr,
    truncated: raw.truncated,
    ...(raw.returned !== undefined ? { actual } : {}),
    ...(test.expected !== undefined ? { expected: test.expected } : test.expectedStdout !== undefined ? { expected: test.expectedStdout } : {}),
    ...(error !== undefined ? { error } : {}),
    durationMs: raw.durationMs,
  };
}

export function checkRequest(request: RunRequest): void {
  if (!CODING_LANGUAGES.includes(request.language)) throw new RangeError(`unknown language ${String(request.language)}`);
  if (typeof request.source !== 'string' || request.source.length > MAX_SOURCE) throw new RangeError(`source must be a string of at most ${MAX_SOURCE} characters`);
  if (request.tests.length === 0 || request.tests.length > MAX_TESTS) throw new RangeError(`a run has 1 to ${MAX_TESTS} tests`);
  if (request.entry !== undefined && !/^[A-Za-z_$][A-Za-z0-9_$]{0,63}$/.test(request.entry)) throw new RangeError('entry must be an identifier');
  if (!(request.timeLimitMs >= 10 && request.timeLimitMs <= 60_000)) throw new RangeError('timeLimitMs must be from 10 to 60000');
  if (!(request.memoryLimitMb >= 8 && request.memoryLimitMb <= 2048)) throw new RangeError('memoryLimitMb must be from 8 to 2048');
}

/** Runs the request in fresh children until every test has a result. */
async function execute(request: RunRequest): Promise<RunResult> {
  checkRequest(request);
  const started = performance.now();
  const raws: Raw[] = [];
  while (raws.length < request.tests.length) {
    const got = await runInChild(request, request.tests.slice(raws.length));
    raws.push(...got);
    // A runtime that did not start will not start for the next test either.
    if (got.length === 0 || (got.at(-1)!.status === 'error' && got.at(-1)!.error?.startsWith('the runtime did not start'))) break;
  }
  while (raws.length < request.tests.length) {
    raws.push({ ...raws.at(-1)!, stdout: '', stderr: '' });
  }
  const tests = request.tests.map((test, index) => judge(test, raws[index]!));
  const firstProblem = tests.find((test) => test.status !== 'ok');
  return {
    status: firstProblem?.status ?? 'ok',
    tests,
    stdout: tests[0]?.stdout ?? '',
    stderr: tests[0]?.stderr ?? '',
    durationMs: Math.round(performance.now() - started),
  };
}

/** A bounded pool: at most `size` runs (child processes) at once, the others wait their turn. */
export class CodeRunner {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly size: number = Math.max(1, availableParallelism()),
    readonly maxQueue: number = 1000,
  ) {}

  /** Runs holding a place (each one child process at a time). */
  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async run(request: RunRequest): Promise<RunResult> {
    checkRequest(request);
    if (this.running >= this.size) {
      if (this.waiting.length >= this.maxQueue) throw new RangeError('too many runs are waiting');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await execute(request);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

let shared: CodeRunner | undefined;
/** The process's pool, sized by the machine's cores. */
export function codeRunner(): CodeRunner {
  shared ??= new CodeRunner();
  return shared;
}

/** Runs candidate code through the process's pool. */
export function runCode(request: RunRequest): Promise<RunResult> {
  return codeRunner().run(request);
}
