// Candidates' data rights: access (export everything stored about a person), erasure (remove it
// from every table and from the local mailbox, in one transaction),
// and storage limitation (a per-instance retention period enforced by a periodic sweep).
import { randomUUID } from 'node:crypto';
import { runCommand, systemRequest, type CommandContext } from '../../domain/command.js';
import type { Clock } from '../../domain/clock.js';
import { audit } from '../audit/audit.js';
import { forgetExpiredRevocations } from '../reports/links.js';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Job } from '../../jobs/runner.js';
import { simpleParser, type AddressObject } from 'mailparser';
import type { Database, Queryable } from '../../db/database.js';
import { DomainError, notFound as notFoundError } from '../../domain/errors.js';
import type { Instance } from '../tenants/repository.js';
import { candidateData, claimExpiredCandidate, eraseCandidateRows, findCandidate, type CandidateData, type Selector } from './repository.js';

export interface PrivacyDeps {
  db: Database;
  /** The local mailbox (.eml files) when there is one; its e-mails to the person are deleted. */
  mailDir?: string;
}

export interface ErasureResult {
  /** The candidate's id, which stays as the anonymous id of their score records. */
  id: string;
  instance: string;
  /** False when the candidate had been erased before (nothing personal was left). */
  erased: boolean;
  erasedAt: Date;
  /** E-mail files deleted from the local mailbox. */
  mailFilesDeleted: number;
}

export type CandidateExport = {
  id: string;
  instance: string;
  exportedAt: Date;
  candidate: { id: string; email: string | null; firstName: string | null; lastName: string | null; createdAt: Date; updatedAt: Date; erasedAt: Date | null };
} & CandidateData;

const describe = (selector: Selector) => ('email' in selector ? 'with this e-mail address' : `with id ${selector.candidateId}`);

function notFound(instance: Instance, selector: Selector): DomainError {
  const hint = 'email' in selector ? ' (never invited there, or erased: an erased candidate keeps only the id)' : '';
  return notFoundError(`No candidate ${describe(selector)} in instance "${instance.name}"${hint}`);
}

/**
 * Everything stored about one candidate (a command, for its audit entry: `candidate.export`, the
 * instance and the candidate id, never the address or name), read in one transaction.
 */
export async function exportCandidate(ctx: CommandContext, input: { instance: Instance; selector: Selector }): Promise<CandidateExport> {
  const { instance, selector } = input;
  const candidate = await findCandidate(ctx.tx, instance.id, selector);
  if (!candidate) throw notFound(instance, selector);
  const data = await candidateData(ctx.tx, candidate.id);
  await audit(ctx, 'candidate.export', `${instance.name}/${candidate.id}`);
  const { id, email, firstName, lastName, createdAt, updatedAt, erasedAt } = candidate;
  return { id, instance: instance.name, exportedAt: ctx.now, candidate: { id, email, firstName, lastName, createdAt, updatedAt, erasedAt }, ...data };
}

/**
 * Erases the candidate (a command): in its transaction the rows are locked, cleared and deleted,
 * the erasure is audited (instance and candidate id, never the address or name), and the local
 * mailbox's e-mails to them are deleted before the commit (a failed commit leaves the rows for a
 * retry; the e-mails are gone either way). Erasing an erased candidate by id runs again (finding
 * nothing, unless something arrived since) and says `erased: false`; by e-mail it is 404, since the
 * address is no longer stored.
 */
export async function eraseCandidate(ctx: CommandContext, input: { instance: Instance; selector: Selector; mailDir?: string }): Promise<ErasureResult> {
  const { instance } = input;
  const candidate = await findCandidate(ctx.tx, instance.id, input.selector, true);
  if (!candidate) throw notFound(instance, input.selector);
  // The addresses e-mails went to: the candidate's, and any a delivery recorded (an invite that
  // was in flight during an earlier erasure may have written one since; erasing again by id
  // cleans it up).
  const sentTo = await recipients(ctx.tx, candidate);
  await eraseCandidateRows(ctx.tx, candidate, ctx.now);
  await audit(ctx, 'candidate.erase', `${instance.name}/${candidate.id}`, 200, { evenBySystem: true });
  let mailFilesDeleted = 0;
  if (input.mailDir) for (const address of sentTo) mailFilesDeleted += await deleteMailTo(input.mailDir, address);
  return { id: candidate.id, instance: instance.name, erased: candidate.erasedAt === null, erasedAt: candidate.erasedAt ?? ctx.now, mailFilesDeleted };
}

async function recipients(tx: Queryable, candidate: { id: string; email: string | null }): Promise<string[]> {
  const { rows } = await tx.query<{ recipient: string }>('SELECT DISTINCT lower(recipient) AS recipient FROM deliveries WHERE candidate_id = $1', [candidate.id]);
  return [...new Set([...(candidate.email ? [candidate.email.toLowerCase()] : []), ...rows.map((r) => r.recipient)])];
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return list.flatMap((a) => a.value.map((v) => (v.address ?? '').toLowerCase()));
}

/** Deletes the .eml files addressed to (or mentioning) this address; returns how many. */
export async function deleteMailTo(mailDir: string, email: string): Promise<number> {
  let files: string[];
  try {
    files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const wanted = email.toLowerCase();
  let deleted = 0;
  for (const file of files) {
    const full = path.join(mailDir, file);
    let raw: Buffer;
    try {
      raw = await readFile(full);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    let match = raw.toString('utf8').toLowerCase().includes(wanted);
    if (!match) {
      const mail = await simpleParser(raw);
      match = [...addresses(mail.to), ...addresses(mail.cc), ...addresses(mail.bcc)].includes(wanted);
    }
    if (match) {
      await rm(full, { force: true });
      deleted++;
    }
  }
  return deleted;
}

/**
 * Erases every candidate due under their instance's retention period at the clock's time, one transaction
 * each, audited as actor `retention-sweep`. Several nodes may sweep at once: each candidate is
 * claimed with FOR UPDATE SKIP LOCKED. Returns how many were erased.
 */
export async function sweepRetention(deps: PrivacyDeps & { now: Clock; limit?: number }): Promise<number> {
  const { now } = deps;
  const limit = deps.limit ?? 100;
  let erased = 0;
  while (erased < limit) {
    const done = await runCommand(deps.db, systemRequest('retention-sweep', now(), `retention-${randomUUID()}`), async (ctx) => {
      const due = await claimExpiredCandidate(ctx.tx, ctx.now);
      if (!due) return false;
      const candidate = await findCandidate(ctx.tx, due.instanceId, { candidateId: due.id });
      const sentTo = candidate ? await recipients(ctx.tx, candidate) : [];
      await eraseCandidateRows(ctx.tx, due, ctx.now);
      if (deps.mailDir) for (const address of sentTo) await deleteMailTo(deps.mailDir, address);
      await audit(ctx, 'candidate.erase', `${due.instance}/${due.id}`, 200, { evenBySystem: true });
      return true;
    });
    if (!done) break;
    erased++;
  }
  return erased;
}

/** Runs the retention sweep every `everyMs`; returns a stop function that waits for a running sweep. */
export function retentionJob(deps: PrivacyDeps & { now: Clock }, everyMs: number, log: FastifyBaseLogger): Job {
  return {
    name: 'retention-sweep',
    everyMs,
    async run() {
      const erased = await sweepRetention(deps);
      if (erased > 0) log.info({ erased }, 'erased candidates whose retention period ended');
      // Revocations of report links that have expired anyway need not be kept either.
      await forgetExpiredRevocations(deps.db, deps.now());
      return erased;
    },
  };
}
