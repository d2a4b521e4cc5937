// What a recruiter does to the chosen rows of the candidates list: compare them, export them as
// CSV, decide on them or tag them. One form (the rows' boxes belong to it), one route that
// translates each button to its command or page: the decisions are the decisions module's
// commands, each candidate's rules and audit entry as when decided alone, in one transaction.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { runCommand } from '../../domain/command.js';
import { DomainError, invalidInput } from '../../domain/errors.js';
import { commandRequest } from '../../http/command.js';
import type { Database } from '../../db/database.js';
import { CANDIDATE_SORTS, type CandidateSort } from '../../modules/candidates/repository.js';
import { addTagToCandidates, BULK_MAX, decideCandidates } from '../../modules/decisions/commands.js';
import type { Instance } from '../../modules/tenants/repository.js';
import type { Permission } from '../context.js';
import { DECISION_TEXT } from './decisions.js';
import { COMPARE_MAX, idsOf } from './compare.js';
import { parseOrder } from '../lists.js';

/** The candidates list's order: newest invitation first unless asked. */
export const parseCandidateOrder = (value: string | undefined) => parseOrder(value, CANDIDATE_SORTS, { sort: 'invited' as CandidateSort, descending: true });

/** The list's line after an action (its `done` parameter): only the shapes this route writes. */
export function doneText(value: string | undefined): string | undefined {
  const decided = /^decided:(\d{1,3}):(advance|hold|reject)$/.exec(value ?? '');
  if (decided) return `${DECISION_TEXT[decided[2]!]}: decided for ${decided[1]} ${decided[1] === '1' ? 'candidate' : 'candidates'}.`;
  const tagged = /^tagged:(\d{1,3})$/.exec(value ?? '');
  if (tagged) return `Tag added to ${tagged[1]} ${tagged[1] === '1' ? 'candidate' : 'candidates'}.`;
  return undefined;
}

export interface BulkRouteDeps {
  db: Database;
  now: () => Date;
  instanceOf: (request: FastifyRequest, name: string | undefined, permission: Permission) => Instance;
  /** The list again (its query `back`) with these errors, status 400. */
  again: (request: FastifyRequest, reply: FastifyReply, back: string, errors: readonly { name: string; detail: string }[]) => Promise<unknown>;
  /** The chosen candidates as the list's CSV. */
  csv: (instance: Instance, ids: string[]) => Promise<string>;
}

const ACTIONS = ['compare', 'export', 'decide', 'tag'] as const;

export function registerBulkRoutes(scope: FastifyInstance, deps: BulkRouteDeps): void {
  scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/candidates/bulk', async (request, reply) => {
    const body = request.body ?? {};
    const one = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const action = one('action') ?? '';
    if (!(ACTIONS as readonly string[]).includes(action)) throw invalidInput([{ in: 'body', name: 'action', detail: `must be one of ${ACTIONS.join(', ')}` }]);
    const instance = deps.instanceOf(request, one('instance'), action === 'decide' || action === 'tag' ? 'manage' : 'names');
    // The way back: the list's own query, read as one and written again (never a path), without the last outcome.
    const backQuery = new URLSearchParams((one('back') ?? '').slice(0, 2000));
    backQuery.delete('done');
    backQuery.set('instance', instance.name);
    const back = backQuery.toString();
    const ids = idsOf(body.ids);
    const target = { id: instance.id, name: instance.name };
    try {
      switch (action) {
        case 'compare': {
          if (ids.length < 2 || ids.length > COMPARE_MAX)
            throw invalidInput([{ in: 'body', name: 'ids', detail: `chooses ${ids.length}: tick 2 to ${COMPARE_MAX} candidates to compare` }]);
          const query = new URLSearchParams([['instance', instance.name], ...ids.map((id): [string, string] => ['ids', id])]);
          if (one('assessment')) query.set('assessment', one('assessment')!);
          return reply.redirect(`/console/compare?${query}`, 303);
        }
        case 'export': {
          if (ids.length === 0 || ids.length > BULK_MAX)
            throw invalidInput([{ in: 'body', name: 'ids', detail: `chooses ${ids.length}: tick 1 to ${BULK_MAX} candidates to export (or download the whole list)` }]);
          return reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="candidates-${instance.name}-chosen.csv"`)
            .send(await deps.csv(instance, ids));
        }
        case 'decide': {
          const decision = one('decision') ?? '';
          const count = await runCommand(
            deps.db,
            commandRequest(request, deps.now()),
            (ctx) => decideCandidates(ctx, { instance: target, candidateIds: ids, decision, note: one('note') ?? null }),
            'candidate_marks',
          );
          backQuery.set('done', `decided:${count}:${decision}`);
          return reply.redirect(`/console/candidates?${backQuery}`, 303);
        }
        default: {
          const count = await runCommand(
            deps.db,
            commandRequest(request, deps.now()),
            (ctx) => addTagToCandidates(ctx, { instance: target, candidateIds: ids, tag: one('tag') ?? '' }),
            'candidate_marks',
          );
          backQuery.set('done', `tagged:${count}`);
          return reply.redirect(`/console/candidates?${backQuery}`, 303);
        }
      }
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'invalid' || !error.fields) throw error;
      return deps.again(request, reply, back, error.fields);
    }
  });
}
