// The Cookie header is read by a kept library (@fastify/cookie, which parses it with `cookie`),
// never by hand: a surface that reads cookies registers it in its scope, and its requests carry
// `request.cookies`. Only the portal and the console read cookies; the APIs take keys, not cookies,
// and do not pay for the parse.
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Parses the Cookie header of every request of this scope into `request.cookies` (before any hook of ours). */
export async function registerCookies(scope: FastifyInstance): Promise<void> {
  await scope.register(fastifyCookie, { hook: 'onRequest' });
}

/** The value of one cookie of the request, if it has it. */
export function cookieOf(request: FastifyRequest, name: string): string | undefined {
  return request.cookies[name];
}
