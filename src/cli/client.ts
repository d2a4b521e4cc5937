// The CLI's way to the admin API: the project's typed client (openapi-fetch over the generated
// schema in clients/typescript, whose paths include /admin/v1), so that every path, parameter,
// body and answer is checked against the OpenAPI document the service serves.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../clients/typescript/src/schema.js';

export type AdminClient = Client<paths>;
type Problem = components['schemas']['Problem'];

/** A mistake in the command line: exit code 2. */
export class UsageError extends Error {}

/** An answer of the service that is not a success: its problem document is printed with --json. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

/**
 * Where a run of the CLI writes, reads and finds its settings: the process's own (bin.ts), or
 * strings and a given environment when it runs inside another program (the tests).
 */
export interface Io {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  stdin: AsyncIterable<string | Buffer>;
  env: Record<string, string | undefined>;
}

export interface Context {
  url: string;
  client: AdminClient;
  json: boolean;
  io: Io;
}

const TIMEOUT_MS = 30_000;

export function adminClient(url: string, token: string): AdminClient {
  return createClient<paths>({
    baseUrl: url.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    fetch: (request) => fetch(request, { signal: AbortSignal.timeout(TIMEOUT_MS) }),
  });
}

/** What openapi-fetch resolves to, whichever the operation. */
interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

function isProblem(value: unknown): value is Pick<Problem, 'detail'> & Partial<Pick<Problem, 'errors'>> {
  return typeof value === 'object' && value !== null && 'detail' in value && typeof value.detail === 'string';
}

const messageOf = (error: unknown) => (error instanceof Error ? String(error.cause ?? error.message) : String(error));

async function settle<T>(ctx: Context, pending: Promise<Outcome<T>>): Promise<Outcome<T>> {
  let outcome: Outcome<T>;
  try {
    outcome = await pending;
  } catch (error) {
    throw new Error(`cannot reach the server at ${ctx.url} (${messageOf(error)}); is it running (npm start)?`);
  }
  if (!outcome.response.ok) {
    const body = outcome.error;
    const lines = [`${outcome.response.status} ${isProblem(body) ? body.detail : typeof body === 'string' ? body : outcome.response.statusText}`];
    // Each field's error once: not again when the detail already says it (a detail made of the fields).
    if (isProblem(body))
      for (const e of body.errors ?? []) if (!body.detail.includes(`${e.name}: ${e.detail}`)) lines.push(`  ${e.line ? `line ${e.line}: ` : ''}${e.name}: ${e.detail}`);
    throw new ApiError(lines.join('\n'), body);
  }
  return outcome;
}

/**
 * The answer of a successful request: its document, or null for 204 No Content (whose schema is
 * null: every 2xx is a success). Another 2xx without the document its operation promises is an error.
 */
export async function ok<T>(ctx: Context, pending: Promise<Outcome<T>>): Promise<T> {
  const { data, response } = await settle(ctx, pending);
  if (data !== undefined) return data;
  if (response.status === 204) return null as T;
  throw new ApiError(`${response.status}: the server answered no document`, undefined);
}

/** A successful request that answers nothing (204). */
export async function done(ctx: Context, pending: Promise<Outcome<unknown>>): Promise<void> {
  await settle(ctx, pending);
}

/** A command's result: `data` is printed with --json, `text` otherwise. */
export interface Result {
  data: unknown;
  text: string;
}

export type Options = Record<string, string | boolean | undefined>;
export type Command = (ctx: Context, args: string[], options: Options) => Promise<Result>;
