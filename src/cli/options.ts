// Reading the command line: required and numeric options, lists, tables for the text output.
import { type Context, type Options, UsageError } from './client.js';

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** A string option, or undefined when it is not given. */
export const text = (options: Options, name: string): string | undefined => {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
};

export function positiveInteger(options: Options, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

/** A number of days in a range, or `off` (null). */
export function daysOrOff(options: Options, name: string, max: number): number | null | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (value === 'off') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be a number of days from 1 to ${max}, or off`);
  return n;
}

/** A comma-separated list option (`a,b`), or undefined when it is not given. */
export const list = (value: string | boolean | undefined): string[] | undefined =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** A positional argument the command needs. */
export function needArg(value: string | undefined, message: string): string {
  if (!value) throw new UsageError(message);
  return value;
}

/** Rows as columns padded to their widest cell; `-` for a missing value, lists joined by commas. */
export function table<T extends object>(rows: readonly T[], columns: (keyof T & string)[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (value: unknown) =>
    value === null || value === undefined ? '-' : Array.isArray(value) ? value.join(',') : value instanceof Object ? JSON.stringify(value) : String(value);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

/** The first line of standard input, so that a password never appears in the process list or shell history. */
export async function passwordFromStdin(ctx: Context): Promise<string> {
  let input = '';
  for await (const chunk of ctx.io.stdin) {
    input += String(chunk);
    if (input.includes('\n')) break;
  }
  const password = input.split(/\r?\n/)[0] ?? '';
  if (!password) throw new UsageError('--password-stdin: no password on standard input');
  return password;
}

/** --email or --candidate, exactly one. */
export function candidateSelector(options: Options): { email: string } | { candidateId: string } {
  const email = text(options, 'email');
  const candidate = text(options, 'candidate');
  if ((email === undefined) === (candidate === undefined)) throw new UsageError('give exactly one of --email E and --candidate ID');
  if (email !== undefined) {
    if (email === '') throw new UsageError('--email needs an address');
    return { email };
  }
  if (!candidate) throw new UsageError('--candidate needs an id');
  return { candidateId: candidate };
}
