// Console accounts, for owners: made with a one-time password, disabled and enabled, given a new
// password. The users module's commands hold the rules (an owner cannot lock themself out).
import { isUuid } from '../../domain/ids.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, forbidden, notFound } from '../../domain/errors.js';
import { EMAIL_MESSAGE, isEmailAddress } from '../../domain/email.js';
import { listInstances } from '../../modules/tenants/repository.js';
import { ROLES, listUsers, type Role, type User } from '../../modules/users/repository.js';
import { byText, pageOf, parseOrder, parsePage, type Compare } from '../lists.js';
import { addUser, resetPassword, setUserDisabled } from '../../modules/users/service.js';
import type { ConsoleContext } from '../context.js';
import { usersBody } from './views.js';

const USERS_PAGE = 50;
const USER_SORTS = ['email', 'role', 'state'] as const;
const USER_ORDER: Record<(typeof USER_SORTS)[number], Compare<User>> = {
  email: byText((u) => u.email),
  role: (a, b) => ROLES.indexOf(a.role) - ROLES.indexOf(b.role),
  state: (a, b) => Number(a.disabled) - Number(b.disabled),
};

function requireOwner(request: FastifyRequest): void {
  if (request.consoleUser!.user.role !== 'owner') throw forbidden('Only owners manage users');
}

export function registerUserRoutes(scope: FastifyInstance, c: ConsoleContext): void {
  async function usersPage(
    request: FastifyRequest,
    reply: FastifyReply,
    created?: { email: string; password: string },
    errors?: { name: string; detail: string }[],
    status = 200,
    values?: { email: string; role: string; instances: string[] },
    query: { sort?: string; page?: string } = {},
  ) {
    const instances = (await listInstances(c.db)).map((i) => i.name);
    const order = parseOrder(query.sort, USER_SORTS, { sort: 'email', descending: false });
    const page = parsePage(query.page);
    const list = { ...pageOf(await listUsers(c.db), order, USER_ORDER, page, USERS_PAGE), order, page, size: USERS_PAGE };
    const body = usersBody(list, instances, request.consoleUser!.csrfToken, created, errors, values);
    return c.render(request, reply, { section: 'users' }, 'Users', body, status);
  }

  scope.get<{ Querystring: { sort?: string; page?: string } }>('/console/users', async (request, reply) => {
    requireOwner(request);
    return usersPage(request, reply, undefined, undefined, 200, undefined, request.query);
  });

  scope.post<{ Body: Record<string, string | string[] | undefined> }>('/console/users', async (request, reply) => {
    requireOwner(request);
    const body = request.body ?? {};
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const role = typeof body.role === 'string' ? body.role : '';
    const instances = body.instances === undefined ? [] : ([] as string[]).concat(body.instances);
    if (!isEmailAddress(email)) return usersPage(request, reply, undefined, [{ name: 'email', detail: EMAIL_MESSAGE }], 400, { email, role, instances });
    if (!(ROLES as readonly string[]).includes(role))
      return usersPage(request, reply, undefined, [{ name: 'role', detail: `must be one of ${ROLES.join(', ')}` }], 400, { email, role, instances });
    try {
      const made = await c.command(request, 'user_create', (ctx) => addUser(ctx, { email, role: role as Role, instances: role === 'owner' ? undefined : instances }));
      return usersPage(request, reply, { email: made.user.email, password: made.password! });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === 'not-found') throw error;
      const errors = error.fields?.map((f) => ({ name: f.name, detail: f.detail })) ?? [{ name: 'email', detail: error.message }];
      return usersPage(request, reply, undefined, errors, error.code === 'conflict' ? 409 : 400, { email, role, instances });
    }
  });

  scope.post<{ Params: { id: string; action: string } }>('/console/users/:id/:action', async (request, reply) => {
    requireOwner(request);
    const { id, action } = request.params;
    if (!isUuid(id)) throw notFound('No such user');
    if (action === 'disable' || action === 'enable') {
      await c.command(request, `user_${action}`, (ctx) => setUserDisabled(ctx, { id, disabled: action === 'disable' }));
      return reply.redirect('/console/users', 303);
    }
    if (action === 'reset-password') {
      const reset = await c.command(request, 'user_reset_password', (ctx) => resetPassword(ctx, { id }));
      return usersPage(request, reply, { email: reset.user.email, password: reset.password! });
    }
    throw notFound('No such action');
  });
}
