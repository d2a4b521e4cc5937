// Pieces of route schemas shared by several modules, so that the OpenAPI document says the same
// thing about the same header or error everywhere.
import { Type } from 'typebox';
import { PROBLEMS, type ProblemCode } from './problem.js';

const ProblemRef = Type.Unsafe<unknown>({ $ref: 'Problem#' });

/** Documents the problem responses a route can give; they are rendered by the error handler. */
export function problemResponses(...codes: ProblemCode[]) {
  const responses: Record<number, unknown> = {};
  for (const code of codes) {
    const status = PROBLEMS[code].status;
    responses[status] = { ...ProblemRef, description: PROBLEMS[code].title };
  }
  return responses;
}

export const instanceHeader = (required: boolean) =>
  Type.Object({
    instance: required
      ? Type.String({ minLength: 1, description: 'Name of the tenant instance the request is about' })
      : Type.Optional(
          Type.String({
            minLength: 1,
            description: 'Name of the tenant instance; absent: every instance the API key is granted',
          }),
        ),
  });

export const publicSecurity = [{ apiKey: [] }];
export const adminSecurity = [{ adminToken: [] }];

/** A date-time in responses; handlers may return a Date, serialised as ISO 8601. */
export const DateTime = (options: { description?: string } = {}) => Type.Unsafe<Date | string>({ type: 'string', format: 'date-time', ...options });
