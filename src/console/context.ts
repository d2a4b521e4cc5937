// What every section of the console is given: the store, the app's clock, the signed-in user's
// instances checked for a permission, and the page layout. Each section (a folder of routes and
// views) registers its routes with one of these; `routes.ts` makes it once, after the hooks that
// sign the user in and check the form's token have run for every request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Partner } from '../modules/integrations/repository.js';
import type { Database } from '../db/database.js';
import { runCommand, type CommandContext } from '../domain/command.js';
import type { SafeHtml } from '../html/html.js';
import { commandRequest } from '../http/command.js';
import type { InviteDeps } from '../modules/invitations/deps.js';
import type { ReadRouter } from '../db/replica.js';
import type { KeyVerifier } from '../modules/keys/verifier.js';
import type { Counter } from '../modules/limits/counter.js';
import { sightOf } from '../modules/reviews/blind.js';
import type { Instance } from '../modules/tenants/repository.js';
import type { SessionTimes, SignedIn } from '../modules/users/repository.js';
import type { SsoOptions } from '../modules/users/sso.js';
import { consolePage, type Frame } from './layout.js';

export interface ConsoleDeps {
  db: Database;
  /** What inviting and resending e-mail need, as for POST /v1/invite. */
  invite: InviteDeps;
  publicUrl: string;
  counter: Counter;
  verifier: KeyVerifier;
  /** The app's clock: session timeouts, the overview's periods, every command's time; tests move it. */
  now: () => Date;
  sessions?: Partial<SessionTimes>;
  /**
   * The most requests per minute a manager may give a key (RATE_LIMIT_PER_MINUTE, the operator's
   * default budget): more is for the operator (admin API, CLI) or an owner to grant. Default 600.
   */
  rateCeiling?: number;
  /** How single sign-on reaches identity providers (the callback's base, plain http or not). */
  sso?: SsoOptions;
  /** What an ATS's adapter does once an owner connects it (HiBob publishes the packages): a sentence saying how it went. */
  partnerConnected?: (partner: Partner, instanceId: string) => Promise<string | undefined>;
  /** DATABASE_READ_URL's replica: the candidates list and its CSV read there (src/db/replica.ts). */
  reads?: ReadRouter;
}

/**
 * What a user may do in an instance: read it, see its candidates by name (every reader but a
 * reviewer under blind review: modules/reviews/blind.ts), score its answers, or manage it.
 */
export type Permission = 'read' | 'names' | 'review' | 'manage';

export interface Principal extends SignedIn {
  visible: Instance[];
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleUser: Principal | null;
  }
}

/** The instances a user may act on with a permission: owners all; managers theirs; reviewers theirs, but never to manage, nor to see names under blind review. */
export function instancesFor(user: SignedIn['user'], all: Instance[], permission: Permission): Instance[] {
  if (user.role === 'owner') return all;
  if (permission === 'manage' && user.role !== 'manager') return [];
  const granted = all.filter((i) => user.instances.includes(i.name));
  return permission === 'names' ? granted.filter((i) => sightOf(user, i) === 'named') : granted;
}

/** The signed-in user of a request (every section's route runs after the sign-in hook). */
export const userOf = (request: FastifyRequest): Principal => request.consoleUser!;

export interface ConsoleContext {
  db: Database;
  now: () => Date;
  deps: ConsoleDeps;
  /** Sends a whole page. */
  page(reply: FastifyReply, body: SafeHtml, status?: number): FastifyReply;
  /** Sends a console page: the body in the frame of its section and instance. */
  render(request: FastifyRequest, reply: FastifyReply, at: { section: Frame['section']; instance?: Instance }, title: string, body: SafeHtml, status?: number): FastifyReply;
  frameOf(request: FastifyRequest, section: Frame['section'], instance: Instance | undefined): Frame;
  /** The instance of a request (?instance= or the first the user may see), checked for the permission. */
  instanceOf(request: FastifyRequest, name: unknown, permission: Permission): Instance;
  /** Whether the signed-in user has the permission in this instance. */
  may(request: FastifyRequest, instance: Instance, permission: Permission): boolean;
  /** Runs a command for the request, at the app's time. */
  command<T>(request: FastifyRequest, name: string, work: (ctx: CommandContext) => Promise<T>): Promise<T>;
}

export function consoleContext(deps: ConsoleDeps, parts: Pick<ConsoleContext, 'page' | 'frameOf' | 'instanceOf'>): ConsoleContext {
  return {
    db: deps.db,
    now: deps.now,
    deps,
    ...parts,
    render: (request, reply, at, title, body, status = 200) => parts.page(reply, consolePage(parts.frameOf(request, at.section, at.instance), title, body), status),
    may: (request, instance, permission) => instancesFor(userOf(request).user, userOf(request).visible, permission).some((i) => i.id === instance.id),
    command: (request, name, work) => runCommand(deps.db, commandRequest(request, deps.now()), work, name),
  };
}
