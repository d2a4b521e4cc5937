// The audit log, for owners: newest first, filtered by who and by the start of the action, sorted
// by number, who or action, 50 a page with the total. The old "older entries" links (`before`, an
// entry number) still give the 50 entries before it, newest first.
import type { FastifyInstance } from 'fastify';
import { forbidden, invalidInput } from '../../domain/errors.js';
import { AUDIT_SORTS, countAudit, searchAudit } from '../../modules/audit/audit.js';
import type { ConsoleContext } from '../context.js';
import { parseOrder, parsePage } from '../lists.js';
import { auditBody } from './views.js';

const PAGE_SIZE = 50;
/** The log is counted this far (or to the end of the page asked for); past it, "more than". */
export const AUDIT_COUNTED = 10_000;

export function registerAuditRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  scope.get<{ Querystring: { before?: string; actor?: string; action?: string; sort?: string; page?: string } }>('/console/audit', async (request, reply) => {
    if (request.consoleUser!.user.role !== 'owner') throw forbidden('Only owners read the audit log');
    const { before } = request.query;
    if (before !== undefined && !/^[1-9]\d{0,17}$/.test(before)) throw invalidInput([{ name: 'before', in: 'query', detail: 'must be an entry number' }]);
    const order = parseOrder(request.query.sort, AUDIT_SORTS, { sort: 'number', descending: true });
    const page = parsePage(request.query.page);
    const filter = { actor: request.query.actor?.trim() || undefined, action: request.query.action?.trim() || undefined };
    const [entries, counted] = await Promise.all([
      before !== undefined ? searchAudit(c.db, { ...filter, limit: PAGE_SIZE, before }) : searchAudit(c.db, { ...filter, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE, order }),
      countAudit(c.db, filter, Math.max(AUDIT_COUNTED, page * PAGE_SIZE)),
    ]);
    const list = { entries, order, page, size: PAGE_SIZE, ...counted, keyset: before !== undefined };
    return c.render(request, reply, { section: 'audit' }, 'Audit log', auditBody(list, filter));
  });
}
