// Strict query strings for the public API: a parameter a route does not declare is a 400
// problem naming it, with a suggestion when a declared one is close (`sendinvite` → `sendInvite`,
// `candidateIds[]` → `candidateIds`). Ignoring it would turn a typo into a silently different
// request: `sendinvite=true` sent no e-mail and `candidateIds[]=…` returned every record.
import type { FastifyInstance, preValidationHookHandler } from 'fastify';
import { invalid, type FieldError } from './problem.js';

/** Edit distance (insertions, deletions, substitutions), bounded by the lengths involved. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The declared parameter an unknown one most likely meant, if any is close enough. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  const plain = name.replace(/\[\]$/, '').toLowerCase();
  const exact = known.find((k) => k.toLowerCase() === plain);
  if (exact) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(plain, candidate.toLowerCase());
    if (distance <= Math.min(2, Math.floor(candidate.length / 3)) && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

const MAX_NAME = 64;

/** The answer to a query that names a parameter the route does not declare (`known`), if any does. */
function unknownParameters(query: Record<string, unknown>, known: readonly string[]): Error | undefined {
  let errors: FieldError[] | undefined;
  for (const name in query) {
    if (known.includes(name)) continue;
    const shown = name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name;
    const close = suggest(name, known);
    const allowed = known.length === 0 ? 'this operation takes no query parameters' : `known: ${known.map((k) => `\`${k}\``).join(', ')}`;
    (errors ??= []).push({ in: 'query', name: shown, detail: `is not a known parameter${close ? `; did you mean \`${close}\`?` : ''} (${allowed})` });
  }
  return errors && invalid(errors, `Unknown query parameter${errors.length > 1 ? 's' : ''}: ${errors.map((e) => e.name).join(', ')}`);
}

/**
 * Every route of `app` (registered after this call) refuses query parameters it does not declare.
 * The declared names are read from each route's schema once, when it is added, and checked by a
 * synchronous hook of the route's own, first among its preValidation hooks: no per-request look at
 * the route's options (a new object at each access) or its schema, and no promise.
 */
export function registerStrictQuery(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    const known: readonly string[] = Object.keys(schema?.properties ?? {});
    const strict: preValidationHookHandler = (request, _reply, done) => {
      const query = request.query as Record<string, unknown> | undefined;
      done(query ? unknownParameters(query, known) : undefined);
    };
    const own = route.preValidation;
    route.preValidation = own === undefined ? [strict] : [strict, ...(Array.isArray(own) ? own : [own])];
  });
}
