// Strict query strings for the public API: a parameter a route does not declare is a 400
// problem naming it, with a suggestion when a declared one is close (`sendinvite` → `sendInvite`,
// `candidateIds[]` → `candidateIds`). Ignoring it would turn a typo into a silently different
// request: `sendinvite=true` sent no e-mail and `candidateIds[]=…` returned every record.
import type { FastifyInstance, FastifyRequest } from 'fastify';
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
export function suggest(name: string, known: string[]): string | undefined {
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

/** The query parameters the route declares. */
function declared(request: FastifyRequest): string[] {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(schema?.properties ?? {});
}

export function registerStrictQuery(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query) return;
    const given = Object.keys(query);
    if (given.length === 0) return;
    const known = declared(request);
    const errors: FieldError[] = [];
    for (const name of given) {
      if (known.includes(name)) continue;
      const shown = name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name;
      const close = suggest(name, known);
      const allowed = known.length === 0 ? 'this operation takes no query parameters' : `known: ${known.map((k) => `\`${k}\``).join(', ')}`;
      errors.push({ in: 'query', name: shown, detail: `is not a known parameter${close ? `; did you mean \`${close}\`?` : ''} (${allowed})` });
    }
    if (errors.length > 0) throw invalid(errors, `Unknown query parameter${errors.length > 1 ? 's' : ''}: ${errors.map((e) => e.name).join(', ')}`);
  });
}
