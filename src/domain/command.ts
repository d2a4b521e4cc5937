// Commands: every change of state is one function of the module that owns the state, taking a
// context and a typed input. It checks every rule, writes, records its audit entry and enqueues
// its events, all in the context's transaction, and returns a typed result or throws a domain
// error (errors.ts). A command that throws leaves nothing behind: no row, no audit entry, no event.
// Surfaces (the API, the admin API, the console, the portal, partner adapters, the CLI, jobs) only
// translate to and from commands: parse and authenticate, build the context, call, render.

/** The statements a command runs, in its transaction (the store's Queryable has this shape). */
export interface Statements {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/** What runs a command: a store that opens transactions (the store's Database has this shape). */
export interface Transactional {
  transaction<T>(fn: (tx: Statements) => Promise<T>, name?: string): Promise<T>;
}

/** Who asks for a change. */
export type Actor =
  /** A client application, by its API key's id. */
  | { kind: 'api-key'; id: string; clientIp?: string; userAgent?: string }
  /** The operator, through the admin API (the CLI). */
  | { kind: 'admin-token'; clientIp?: string; userAgent?: string }
  /** A console user, by e-mail, with their role. */
  | { kind: 'user'; id: string; email: string; role: 'owner' | 'manager' | 'reviewer'; clientIp?: string; userAgent?: string }
  /** A candidate in the portal. */
  | { kind: 'candidate'; id: string; clientIp?: string; userAgent?: string }
  /**
   * Someone not signed in who claims to be `name` (`user:<e-mail>` as typed at sign-in, or as an
   * identity provider asserted it): sign-in, the second factor, single sign-on. Audited under that name.
   */
  | { kind: 'anonymous'; name: string; clientIp?: string; userAgent?: string }
  /** The service itself: a job, a deadline. */
  | { kind: 'system'; job: string };

export interface CommandContext {
  /** The transaction every write of the command goes through. */
  tx: Statements;
  actor: Actor;
  /** The request (or job run) that asked, for the audit log and the logs. */
  requestId: string;
  /** The one clock of the command: every time it writes or decides by. */
  now: Date;
  /** Work for after the commit (forgetting a cache, say), run only if the command commits. */
  afterCommit(work: () => void): void;
}

/** A command's context without its transaction: what a surface knows before it runs one. */
export type CommandRequest = Omit<CommandContext, 'tx' | 'afterCommit'>;

/**
 * Runs a command in a transaction of its own: committed when it returns, rolled back (with its
 * audit entry and events) when it throws. `name` names the transaction in metrics.
 */
export async function runCommand<T>(db: Transactional, request: CommandRequest, command: (ctx: CommandContext) => Promise<T>, name?: string): Promise<T> {
  const after: (() => void)[] = [];
  const result = await db.transaction((tx) => command({ ...request, tx, afterCommit: (work) => after.push(work) }), name);
  for (const work of after) work();
  return result;
}

/**
 * Runs a command whose change is one statement, atomic by itself, without a transaction around it:
 * its statements go to the store one by one (what it reads, then the one statement that writes;
 * a statement before it may check and find nothing to change) and its work for after the commit
 * runs once it returns. For the busiest write, an answer saved, where BEGIN and
 * COMMIT would cost two more round trips than the change itself. A command that writes twice runs
 * through runCommand.
 */
export async function runOneStatementCommand<T>(db: Statements, request: CommandRequest, command: (ctx: CommandContext) => Promise<T>): Promise<T> {
  const after: (() => void)[] = [];
  const result = await command({ ...request, tx: db, afterCommit: (work) => after.push(work) });
  for (const work of after) work();
  return result;
}

/** The same command context acting as someone not signed in who claims to be `name` (audited so). */
export const asClaimant = (ctx: CommandContext, name: string, client: { ip?: string; userAgent?: string }): CommandContext => ({
  ...ctx,
  actor: { kind: 'anonymous', name, clientIp: client.ip, userAgent: client.userAgent },
});

/** The system actor of a job run, with its clock reading. */
export const systemRequest = (job: string, now: Date, requestId = `job:${job}`): CommandRequest => ({ actor: { kind: 'system', job }, requestId, now });
