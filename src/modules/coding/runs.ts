// What a run of a candidate's program is asked and what it answers.

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
