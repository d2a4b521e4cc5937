// Runs untrusted candidates' code: each run in a fresh child process (process.ts, child.mjs)
// executing WebAssembly (QuickJS or Pyodide); at most `size` runs at once, the rest queued. The
// expected results stay in this process, which judges each test's output here.
// docs/coding-questions.md says what it defends against and what it does not.
import { availableParallelism } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { runInChild, type Raw } from './process.js';
import { CODING_LANGUAGES, type CodeTest, type RunRequest, type RunResult, type TestResult } from './runs.js';

const MAX_TESTS = 100;
const MAX_SOURCE = 100 * 1024;

export type { CodeTest, CodingLanguage, RunRequest, RunResult, RunStatus, TestResult } from './runs.js';
export { CODING_LANGUAGES } from './runs.js';
export { OUTPUT_LIMIT } from './process.js';

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

/**
 * Which line a run waits in: `grading` (a submitted attempt's hidden tests) before every
 * `examples` run (a candidate's "Run the examples"), so grading never waits behind them.
 */
export type RunLane = 'grading' | 'examples';

export interface RunOptions {
  /** Default `grading`. */
  lane?: RunLane;
  /** Whose run it is (an attempt): one examples run of an owner at a time, the others wait behind it. */
  owner?: string;
}

/** An owner asked for more runs than may wait behind their own (CodeRunner's `ownerMaxWaiting`). */
export class OwnerRunsWaiting extends RangeError {
  constructor(waiting: number) {
    super(`${waiting} runs of this candidate are waiting already`);
  }
}

/**
 * A bounded pool: at most `size` runs (child processes) at once, the others wait their turn,
 * grading runs first. A candidate's examples runs go one at a time, each entering the pool's line
 * only once the candidate's previous one is done: ten runs of a program that loops take one place
 * in the pool, not all of them, and another candidate's run starts beside them.
 */
export class CodeRunner {
  private running = 0;
  private readonly waiting: Record<RunLane, Array<() => void>> = { grading: [], examples: [] };
  /** Each owner's last run (running or waiting), and how many of theirs there are. */
  private readonly owners = new Map<string, { last: Promise<void>; count: number }>();

  /**
   * `ownerMaxWaiting`: how many examples runs of one owner may wait behind the one running (by
   * default as many as one client address may start in a minute: the portal's limit comes first).
   */
  constructor(
    readonly size: number = Math.max(1, availableParallelism()),
    readonly maxQueue: number = 1000,
    readonly ownerMaxWaiting: number = 10,
  ) {}

  /** Runs holding a place (each one child process at a time). */
  get active(): number {
    return this.running;
  }

  /** Runs waiting in the pool's line (not those waiting behind their owner's own run). */
  get queued(): number {
    return this.waiting.grading.length + this.waiting.examples.length;
  }

  /** Runs waiting in one lane of the pool's line. */
  queuedIn(lane: RunLane): number {
    return this.waiting[lane].length;
  }

  async run(request: RunRequest, options: RunOptions = {}): Promise<RunResult> {
    checkRequest(request);
    const lane = options.lane ?? 'grading';
    if (lane !== 'examples' || options.owner === undefined) return this.inPool(request, lane);
    const owner = options.owner;
    const line = this.owners.get(owner) ?? { last: Promise.resolve(), count: 0 };
    if (line.count > this.ownerMaxWaiting) throw new OwnerRunsWaiting(this.ownerMaxWaiting);
    const before = line.last;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    line.last = mine;
    line.count++;
    this.owners.set(owner, line);
    try {
      await before;
      return await this.inPool(request, lane);
    } finally {
      done();
      if (--line.count === 0) this.owners.delete(owner);
    }
  }

  private async inPool(request: RunRequest, lane: RunLane): Promise<RunResult> {
    if (this.running >= this.size) {
      if (this.queued >= this.maxQueue) throw new RangeError('too many runs are waiting');
      await new Promise<void>((resolve) => this.waiting[lane].push(resolve));
    } else this.running++;
    try {
      return await execute(request);
    } finally {
      const next = this.waiting.grading.shift() ?? this.waiting.examples.shift();
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
export function runCode(request: RunRequest, options?: RunOptions): Promise<RunResult> {
  return codeRunner().run(request, options);
}
