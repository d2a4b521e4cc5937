// The commands of a recruiter's marks on a candidate: a decision (advance, hold, reject) with a
// note, and tags. They are the company's own: never shown to the candidate, shown to reviewers in
// the console and to client applications in GET /v1/candidates/{id}. The console and the v1 API
// call the same commands; each checks the candidate, the values and who asks, writes and records
// its audit entry in one transaction.
import type { Actor, CommandContext } from '../../domain/command.js';
import { forbidden, invalidInput, notFound } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { audit } from '../audit/audit.js';
import { findCandidate } from '../candidates/repository.js';
import { DECISIONS, clearDecision, marksOf, replaceTags, writeDecision, type CandidateMarks, type Decision } from './repository.js';

export const NOTE_MAX = 2000;
export const TAGS_MAX = 20;
/** A tag's key (tagKey): lower case letters, digits, - and _, 1-32 characters, starting with a letter or digit. */
const TAG = /^[a-z0-9][a-z0-9_-]{0,31}$/;
// Control characters but tab and line breaks, and bidirectional overrides (text that reads otherwise than it is stored).
// eslint-disable-next-line no-control-regex -- these are the characters refused
const REFUSED_IN_NOTE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/;

export interface MarkTarget {
  instance: { id: string; name: string };
  candidateId: string;
}

/** Who decides: client applications (by key), the operator, owners and managers; reviewers score answers, they do not decide. */
function checkMayMark(actor: Actor): string {
  switch (actor.kind) {
    case 'user':
      if (actor.role === 'reviewer') throw forbidden('Reviewers may not decide on candidates or tag them: an owner or a manager does');
      return `user:${actor.email.toLowerCase()}`;
    case 'api-key':
      return `key:${actor.id}`;
    case 'admin-token':
      return 'admin-token';
    default:
      throw forbidden('Only people and client applications decide on candidates');
  }
}

async function requireCandidate(ctx: CommandContext, target: MarkTarget): Promise<void> {
  const candidate = await findCandidate(ctx.tx, [target.instance.id], target.candidateId);
  if (!candidate) throw notFound('No such candidate in this instance');
  if (candidate.email === null) throw invalidInput([{ in: 'path', name: 'candidateId', detail: 'was erased: nothing more is kept about them' }]);
}

/** A tag as compared: lower case, runs of spaces as one -. "Round 1", "round 1" and "ROUND-1" are one tag. */
export const tagKey = (tag: string): string => tag.trim().toLowerCase().replace(/\s+/g, '-');

/** A tag as typed and shown: trimmed, runs of spaces as one. */
const tagLabel = (tag: string): string => tag.trim().replace(/\s+/g, ' ');

/**
 * Tags as stored: each as the user typed it (trimmed) with the key it is compared by (tagKey);
 * of two that compare equal the first given stays; in key order. An invalid error names each
 * refused one.
 */
export function normaliseTags(tags: readonly string[]): { tag: string; label: string }[] {
  const byKey = new Map<string, string>();
  for (const typed of tags) {
    const label = tagLabel(typed);
    if (label !== '' && !byKey.has(tagKey(label))) byKey.set(tagKey(label), label);
  }
  const normal = [...byKey.entries()].map(([tag, label]) => ({ tag, label })).sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  const bad = normal.filter((t) => !TAG.test(t.tag));
  if (bad.length > 0)
    throw invalidInput(
      bad.slice(0, 5).map((t) => ({
        in: 'body' as const,
        name: 'tags',
        detail: `"${t.label.slice(0, 40)}" is not a tag: 1-32 letters, digits, spaces, - or _, starting with a letter or digit`,
      })),
    );
  if (normal.length > TAGS_MAX) throw invalidInput([{ in: 'body', name: 'tags', detail: `lists ${normal.length} tags; a candidate may have at most ${TAGS_MAX}` }]);
  return normal;
}

/** Sets the candidate's decision (null removes it) with an optional note; the latest stands, the audit log keeps each. */
export async function decideCandidate(ctx: CommandContext, input: MarkTarget & { decision: string | null; note?: string | null }): Promise<CandidateMarks> {
  const by = checkMayMark(ctx.actor);
  if (input.decision !== null && !(DECISIONS as readonly string[]).includes(input.decision))
    throw invalidInput([{ in: 'body', name: 'decision', detail: `must be one of ${DECISIONS.join(', ')} (or none)` }]);
  const note = input.note?.trim() || null;
  if (note !== null && note.length > NOTE_MAX) throw invalidInput([{ in: 'body', name: 'note', detail: `is ${note.length} characters; at most ${NOTE_MAX}` }]);
  if (note !== null && REFUSED_IN_NOTE.test(note)) throw invalidInput([{ in: 'body', name: 'note', detail: 'must not contain control or bidirectional override characters' }]);
  if (input.decision === null && note !== null) throw invalidInput([{ in: 'body', name: 'note', detail: 'needs a decision to go with it' }]);
  await requireCandidate(ctx, input);
  if (input.decision === null) await clearDecision(ctx.tx, input.candidateId);
  else await writeDecision(ctx.tx, { instanceId: input.instance.id, candidateId: input.candidateId, decision: input.decision as Decision, note, by, at: ctx.now });
  await audit(ctx, input.decision === null ? 'candidate.decision.clear' : `candidate.decision.${input.decision}`, `${input.instance.name}/${input.candidateId}`);
  return marksOf(ctx.tx, input.candidateId);
}

/** Makes the candidate's tags exactly these (normalised: see normaliseTags). */
export async function tagCandidate(ctx: CommandContext, input: MarkTarget & { tags: readonly string[] }): Promise<CandidateMarks> {
  checkMayMark(ctx.actor);
  const tags = normaliseTags(input.tags);
  await requireCandidate(ctx, input);
  await replaceTags(ctx.tx, { instanceId: input.instance.id, candidateId: input.candidateId, tags });
  await audit(ctx, 'candidate.tags', `${input.instance.name}/${input.candidateId}`);
  return marksOf(ctx.tx, input.candidateId);
}

/** At most this many candidates are decided on or tagged at once (a page of the list is 50). */
export const BULK_MAX = 100;

function chosen(candidateIds: readonly string[]): string[] {
  const ids = [...new Set(candidateIds)];
  if (ids.length === 0) throw invalidInput([{ in: 'body', name: 'ids', detail: 'chooses no candidate: tick at least one' }]);
  if (ids.length > BULK_MAX) throw invalidInput([{ in: 'body', name: 'ids', detail: `chooses ${ids.length} candidates; at most ${BULK_MAX} at once` }]);
  const bad = ids.find((id) => !isUuid(id));
  if (bad !== undefined) throw invalidInput([{ in: 'body', name: 'ids', detail: `"${bad.slice(0, 40)}" is not a candidate id` }]);
  return ids;
}

/**
 * The same decision (and note) for each of the chosen candidates: each as decideCandidate decides
 * one, with its audit entry, all in the command's one transaction, so that one refused (erased,
 * another instance's) leaves every one as it was.
 */
export async function decideCandidates(
  ctx: CommandContext,
  input: { instance: MarkTarget['instance']; candidateIds: readonly string[]; decision: string; note?: string | null },
): Promise<number> {
  checkMayMark(ctx.actor);
  const ids = chosen(input.candidateIds);
  for (const candidateId of ids) await decideCandidate(ctx, { instance: input.instance, candidateId, decision: input.decision, note: input.note });
  return ids.length;
}

/** One more tag on each of the chosen candidates, beside the tags they have (as tagCandidate sets them), in one transaction. */
export async function addTagToCandidates(ctx: CommandContext, input: { instance: MarkTarget['instance']; candidateIds: readonly string[]; tag: string }): Promise<number> {
  checkMayMark(ctx.actor);
  const ids = chosen(input.candidateIds);
  if (input.tag.trim() === '') throw invalidInput([{ in: 'body', name: 'tag', detail: 'is empty: type the tag to add' }]);
  normaliseTags([input.tag]);
  for (const candidateId of ids) {
    const { tags } = await marksOf(ctx.tx, candidateId);
    await tagCandidate(ctx, { instance: input.instance, candidateId, tags: [...tags, input.tag] });
  }
  return ids.length;
}
