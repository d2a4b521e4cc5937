// The audit log, for owners: newest first, filtered by who and by the start of the action.
import type { FastifyInstance } from 'fastify';
import { forbidden, invalidInput } from '../../domain/errors.js';
import { searchAudit } from '../../modules/audit/audit.js';
import type { ConsoleContext } from '../context.js';
import { auditBody } from './views.js';

const PAGE_SIZE = 50;

export function registerAuditRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  scope.get<{ Querystring: { before?: string; actor?: string; action?: string } }>('/console/audit', async (request, reply) => {
    if (request.consoleUser!.user.role !== 'owner') throw forbidden('Only owners read the audit log');
    const { before, actor, action } = request.query;
    if (before !== undefined && !/^[1-9]\d{0,17}$/.test(before)) throw invalidInput([{ name: 'before', in: 'query', detail: 'must be an entry number' }]);
    const entries = await searchAudit(c.db, { limit: PAGE_SIZE + 1, before, actor: actor?.trim() || undefined, action: action?.trim() || undefined });
    let nextHref: string | undefined;
    if (entries.length > PAGE_SIZE) {
      const params = new URLSearchParams({ before: entries[PAGE_SIZE - 1]!.id });
      if (actor) params.set('actor', actor);
      if (action) params.set('action', action);
      nextHref = `/console/audit?${params}`;
    }
    return c.render(request, reply, { section: 'audit' }, 'Audit log', auditBody(entries.slice(0, PAGE_SIZE), { actor, action }, nextHref));
  });
}
