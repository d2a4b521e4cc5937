// What the adapters of ATSs that sign their webhooks share (HiBob, Lever): the body read as text
// (the signature covers the bytes as sent), parsed only once it is read, a constant-time
// comparison of signatures, and refusals in the ATS's shape, logged without the credential.
import { timingSafeEqual } from 'node:crypto';
import { Problem } from '../http/problem.js';
import type { CommandRequest } from '../domain/command.js';
import { partnerRequest, type PartnerDeps } from './shared.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const MAX_BODY = 256 * 1024;

/** JSON bodies of this scope arrive as text (request.body is the string as sent). */
export function keepBodyText(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MAX_BODY }, (_request, body, done) => done(null, body));
}

/** The body's JSON object, or a 400 problem. */
export function parsedBody(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text.trim() === '') throw new Problem('validation-failed', 'The body must be a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Problem('validation-failed', 'The body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Problem('validation-failed', 'The body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Whether two signatures (as text in the same encoding) are the same, in constant time. */
export function sameSignature(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A text field of an object, or undefined (numbers as their decimal text). */
export const textOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined;

/** The command request of a signed webhook: the ATS, by the name it is audited under (no API key is its actor). */
export function signedRequest(request: FastifyRequest, deps: PartnerDeps, name: string): CommandRequest {
  return { ...partnerRequest(request, deps), actor: { kind: 'anonymous', name, clientIp: request.ip, userAgent: String(request.headers['user-agent'] ?? '').slice(0, 500) } };
}
