// What a surface knows of who asks and when, as the context of a command (src/domain/command.ts).
import type { FastifyRequest } from 'fastify';
import type { Actor, CommandRequest } from '../domain/command.js';

/** The actor of an authenticated request: a console user, the operator's token, or an API key. */
export function actorOf(request: FastifyRequest): Actor {
  const seen = { clientIp: request.ip, userAgent: String(request.headers['user-agent'] ?? '').slice(0, 500) };
  const user = request.consoleUser;
  if (user) return { kind: 'user', id: user.user.id, email: user.user.email, role: user.user.role, ...seen };
  if (request.adminAuthenticated) return { kind: 'admin-token', ...seen };
  if (request.apiKey) return { kind: 'api-key', id: request.apiKey.id, ...seen };
  return { kind: 'candidate', id: '-', ...seen };
}

/** A command's context for a request, read by the app's clock. */
export const commandRequest = (request: FastifyRequest, now: Date): CommandRequest => ({ actor: actorOf(request), requestId: request.id, now });
