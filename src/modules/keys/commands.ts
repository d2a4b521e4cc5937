// The commands that change API keys: create, change (label, rate budget) and revoke. The admin
// API (the CLI) and the console call the same ones, so a rule about keys is written here once:
// the label's length and characters, the rate budget's bounds and the operator's ceiling for
// managers, an expiry in the future, instances that exist. Each writes its audit entry in its
// transaction and, once committed, has this node's key cache forget what it knew.
import type { CommandContext } from '../../domain/command.js';
import { forbidden, invalidInput, notFound } from '../../domain/errors.js';
import { BIDI_CONTROL, BIDI_MESSAGE } from '../../domain/text.js';
import { audit } from '../audit/audit.js';
import { findInstancesByName } from '../tenants/repository.js';
import { getKeySummary, insertKey, revokeKey as revokeRow, updateKey, type KeySummary } from './repository.js';
import { generateApiKey } from './secret.js';
import type { KeyVerifier } from './verifier.js';

export interface KeyDeps {
  /** This node's cache of verified keys, forgotten after every change. */
  verifier: Pick<KeyVerifier, 'forget'>;
  /** The most requests a minute a manager may give a key (RATE_LIMIT_PER_MINUTE); owners and the operator may give more. */
  rateCeiling: number;
}

const MAX_RATE = 1_000_000;
const KEY_ID = /^key_[0-9a-f]{16}$/;

function checkLabel(label: string | undefined): string | undefined {
  const trimmed = label?.trim();
  if (!trimmed) return undefined;
  if (trimmed.length > 200) throw invalidInput([{ in: 'body', name: 'label', detail: 'is longer than 200 characters' }]);
  if (BIDI_CONTROL.test(trimmed)) throw invalidInput([{ in: 'body', name: 'label', detail: BIDI_MESSAGE }]);
  return trimmed;
}

/** A rate budget within bounds, and within the operator's ceiling when a manager gives it. */
function checkRate(ctx: CommandContext, deps: KeyDeps, rate: number): number {
  if (!Number.isInteger(rate) || rate < 1 || rate > MAX_RATE)
    throw invalidInput([{ in: 'body', name: 'rateLimit', detail: `must be a whole number of requests per minute, 1 to ${MAX_RATE}` }]);
  if (ctx.actor.kind === 'user' && ctx.actor.role !== 'owner' && rate > deps.rateCeiling) {
    throw invalidInput([
      { in: 'body', name: 'rateLimit', detail: `must be at most ${deps.rateCeiling} requests per minute, the ceiling the operator set; ask the operator for more` },
    ]);
  }
  return rate;
}

export interface NewKey {
  /** Names of the instances the key is granted. */
  instances: string[];
  label?: string;
  rateLimit?: number;
  expiresAt?: Date;
}

/** Issues a key; the key itself is in the result and nowhere else (only its hash is stored). */
export async function createKey(ctx: CommandContext, deps: KeyDeps, input: NewKey): Promise<{ summary: KeySummary; key: string }> {
  const names = [...new Set(input.instances)];
  if (names.length === 0) throw invalidInput([{ in: 'body', name: 'instances', detail: 'must name at least one instance' }]);
  const instances = await findInstancesByName(ctx.tx, names);
  const unknown = names.filter((name) => !instances.some((i) => i.name === name));
  if (unknown.length > 0) throw invalidInput(unknown.map((name) => ({ in: 'body' as const, name: 'instances', detail: `no instance is named "${name}"` })));
  const label = checkLabel(input.label);
  const rateLimit = input.rateLimit === undefined ? undefined : checkRate(ctx, deps, input.rateLimit);
  if (input.expiresAt && input.expiresAt.getTime() <= ctx.now.getTime()) throw invalidInput([{ in: 'body', name: 'expiresAt', detail: 'must be in the future' }]);
  const generated = generateApiKey();
  await insertKey(ctx.tx, {
    id: generated.id,
    hash: generated.hash,
    prefix: generated.prefix,
    label,
    rateLimit,
    expiresAt: input.expiresAt,
    instanceIds: instances.map((i) => i.id),
  });
  await audit(ctx, 'key.create', generated.id, 201);
  return { summary: (await getKeySummary(ctx.tx, generated.id))!, key: generated.key };
}

/** Changes a key's label or rate budget (null: the service default). A manager may keep or lower a budget above the ceiling, not raise one. */
export async function changeKey(ctx: CommandContext, deps: KeyDeps, input: { id: string; label?: string; rateLimit?: number | null }): Promise<KeySummary> {
  const key = KEY_ID.test(input.id) ? await getKeySummary(ctx.tx, input.id) : undefined;
  if (!key) throw notFound(`No key ${input.id}`);
  const changes: { label?: string; rateLimit?: number | null } = {};
  if (input.label !== undefined) {
    const label = checkLabel(input.label);
    if (label === undefined) throw invalidInput([{ in: 'body', name: 'label', detail: 'must not be empty' }]);
    changes.label = label;
  }
  if (input.rateLimit !== undefined) changes.rateLimit = input.rateLimit === null || input.rateLimit === key.rateLimit ? input.rateLimit : checkRate(ctx, deps, input.rateLimit);
  if (!(await updateKey(ctx.tx, key.id, changes))) throw notFound(`No key ${input.id}`);
  await audit(ctx, 'key.update', key.id);
  ctx.afterCommit(() => deps.verifier.forget());
  return (await getKeySummary(ctx.tx, key.id))!;
}

/** Revokes a key: refused at once on this node, within the key cache's time on the others. Revoking again is harmless. */
export async function revokeKey(ctx: CommandContext, deps: KeyDeps, input: { id: string }): Promise<KeySummary> {
  if (!KEY_ID.test(input.id) || !(await revokeRow(ctx.tx, input.id, ctx.now))) throw notFound(`No key ${input.id}`);
  await audit(ctx, 'key.revoke', input.id);
  ctx.afterCommit(() => deps.verifier.forget());
  return (await getKeySummary(ctx.tx, input.id))!;
}

/**
 * A key of an instance that a console user manages wholly: a manager may change only keys whose
 * every instance they manage (an owner manages every instance).
 */
export async function managedKey(ctx: CommandContext, input: { id: string; instance: string; managed: string[] }): Promise<KeySummary> {
  const key = KEY_ID.test(input.id) ? await getKeySummary(ctx.tx, input.id) : undefined;
  if (!key || !key.instances.includes(input.instance)) throw notFound('No such key in this instance');
  if (!key.instances.every((name) => input.managed.includes(name))) throw forbidden('This key is also granted to an instance you do not manage; ask an owner');
  return key;
}
