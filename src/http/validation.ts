// Request validation: one Ajv for JSON bodies, which never coerces (a number is not a name), and
// one for query strings, headers and path parameters, which arrive as text and are coerced to
// the declared type ("true" to true; a repeated parameter to an array, and so refused where one
// value is expected).
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = {
  allErrors: true,
  removeAdditional: false,
  useDefaults: true,
  // The error handler reads a pattern's own explanation (x-pattern-message) from the schema.
  verbose: true,
  strict: false,
  keywords: ['x-pattern-message'],
};

function ajv(options: Options): Ajv {
  const instance = new Ajv({ ...common, ...options });
  addFormats.default(instance);
  return instance;
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const body = ajv({ coerceTypes: false });
  const text = ajv({ coerceTypes: 'array' });
  return ({ schema, httpPart }) => (httpPart === 'body' ? body : text).compile(schema as object);
}
